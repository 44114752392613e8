//! Selection: which benchmarks a change touches, from the compiled code, and what a run with
//! `--only-touched` leaves out. The rule is docs/selection.md's, in [`rule`]: the files a change
//! altered (`diff`), each benchmark found touched or not through its code record and the
//! build's code identity, through a record [`trust`] checks; [`map`](mod@map) maps a change onto the baselines' benchmarks for the report;
//! [`identify`] builds the workspace for its code identity; [`text`] says it in plain text.
//!
//! Every path and name here comes from the repository under test: untrusted text, to escape
//! where it is written.

mod diff;
pub mod identify;
pub mod map;
pub mod rule;
pub mod text;
pub mod trust;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::Result;
use crate::filter::{self, Filter};
use crate::formats::baseline::Baselines;
use crate::measure::collect::Selection;
use crate::measure::shard::{Part, Shard};
use crate::model::{Carry, Touch};
use crate::paths::Resolved;
use crate::select::identify::build_code;
use crate::select::map::map;
use crate::text::{short_commit, terminal};

/// The benchmarks of the baselines (in the filter and shard) whose process executes none of the
/// code that changed since the baselines' code record, and reads no changed file, with their
/// counts; `Err` with the reason when every benchmark must run (then all run). The workspace is
/// built first, for its code identity. With `base` (A/B), the record must be of that revision;
/// with `record_from` (a pull request's base), the record is read from that commit
/// ([`trust::baseline_record`]).
pub fn untouched(
    (paths, config, selection): (&Resolved, &Config, &Selection),
    (base, record_from): (Option<&str>, Option<&str>),
    filter: Option<&Filter>,
    shard: Option<&Shard>,
) -> Result<std::result::Result<Carry, String>> {
    let everything = |why: &str| Ok(Err(why.to_owned()));
    if !paths.baselines.is_dir() {
        return everything("there are no baselines to carry counts from");
    }
    let baselines = Baselines::load(&paths.baselines)?;
    let record = match trust::baseline_record(paths, &baselines, record_from) {
        Ok(record) => record,
        Err(why) => return everything(&why),
    };
    if let Some(rev) = base {
        let resolved = crate::git::resolve(&paths.root, rev);
        if resolved.as_deref() != Some(record.commit.as_str()) {
            return everything(&format!(
                "with --base, the baselines' code record must be of {} (it is of {})",
                terminal(rev),
                terminal(short_commit(&record.commit))
            ));
        }
    }
    let (objects, refusals) = build_code(paths, config, selection, None)?;
    if let Some(refusal) = refusals.first() {
        return everything(refusal);
    }
    let ids: Vec<String> = baselines
        .ids()
        .filter(|id| filter::in_scope(filter, id) && shard.is_none_or(|s| s.contains(id)))
        .map(str::to_owned)
        .collect();
    let in_scope = ids.len();
    let mapped = map(paths, (Ok(&record), None), Ok(&objects), config, &ids);
    if let Some(reason) = &mapped.map.unmapped {
        return everything(reason);
    }
    let (touched, untouched): (Vec<_>, Vec<_>) = mapped
        .touch
        .into_iter()
        .partition(|(_, touch)| touch.is_touched());
    let ids: BTreeSet<String> = untouched
        .into_iter()
        .filter(|(_, touch)| *touch == Touch::Untouched)
        .map(|(id, _)| id)
        .collect();
    let counts = ids
        .iter()
        .filter_map(|id| Some((id.clone(), baselines.get(id)?.0.clone())))
        .collect();
    let mut process = crate::model::Processes::default();
    for id in &ids {
        process.extend(baselines.process(id).map(|p| p.of(id)).unwrap_or_default());
    }
    Ok(Ok(Carry {
        ids,
        counts,
        process,
        since: record.commit,
        map: mapped.map,
        touched,
        in_scope,
    }))
}

/// `part` of the partition of the benchmarks `filter` selects, by the Ir of the baselines in
/// `dir` (none when it does not exist: every function then goes by its name's hash). An N above
/// the number of baselines in scope is refused before anything is built.
pub fn plan_shard(part: Part, dir: &Path, filter: Option<&Filter>) -> Result<Shard> {
    let irs: BTreeMap<String, u64> = if dir.is_dir() {
        let baselines = Baselines::load(dir)?;
        baselines
            .groups
            .values()
            .flat_map(|group| &group.benchmarks)
            .map(|(id, counts)| (id.clone(), counts[IR]))
            .collect()
    } else {
        BTreeMap::new()
    };
    crate::measure::shard::check_split(
        part,
        irs.keys().filter(|id| filter::in_scope(filter, id)).count(),
    )?;
    Ok(Shard::plan(part, &irs, filter))
}
