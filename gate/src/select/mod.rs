//! Selection: which benchmarks a change touches, from the compiled code, and what a run with
//! `--only-touched` leaves out. The rule is docs/selection.md's, in [`rule`]: the files a change
//! altered (`diff`), each benchmark found touched or not through its code record and the
//! build's code identity, through a record [`trust`] checks; [`map`](mod@map) maps a change onto the baselines' benchmarks for the report;
//! [`identify`] builds the workspace for its code identity; [`text`] says it in plain text.
//!
//! Every path and name here comes from the repository under test: untrusted text, to escape
//! where it is written.

pub mod base_config;
mod diff;
pub mod identify;
mod inputs;
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
use crate::measure::library::Library;
use crate::measure::shard::{Part, Shard};
use crate::model::code::{CodeRecord, Keep};
use crate::model::{Carry, Touch, WholeSuite};
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
    let found = untouched_since(
        (paths, config, selection),
        (base, record_from),
        filter,
        shard,
    )?;
    Ok(found.map(|(carry, _)| carry))
}

/// What `irgate run --record` (`selection`, in `filter`) may keep of the baselines' code record
/// instead of recording again: the record as [`untouched`] trusts it, with the benchmarks that
/// executed none of the code that changed since; `Err` with the reason when it keeps nothing.
pub fn keep(
    (paths, config, selection): (&Resolved, &Config, &Selection),
    filter: Option<&Filter>,
) -> Result<std::result::Result<Keep, String>> {
    let found = untouched_since((paths, config, selection), (None, None), filter, None)?;
    Ok(found.map(|(carry, record)| Keep {
        record,
        untouched: carry.ids,
    }))
}

/// [`untouched`], with the record it trusted.
fn untouched_since(
    (paths, config, selection): (&Resolved, &Config, &Selection),
    (base, record_from): (Option<&str>, Option<&str>),
    filter: Option<&Filter>,
    shard: Option<&Shard>,
) -> Result<std::result::Result<(Carry, CodeRecord), String>> {
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
    let built = build_code(paths, config, selection, None)?;
    if let Some(refusal) = built.refusals.first() {
        return everything(refusal);
    }
    let scoped = |id: &str| filter::in_scope(filter, id) && shard.is_none_or(|s| s.contains(id));
    let ids: Vec<String> = baselines
        .ids()
        .filter(|id| scoped(id))
        .map(str::to_owned)
        .collect();
    let in_scope = ids.len();
    let mapped = map(paths, (Ok(&record), None), Ok(&built.objects), config, &ids);
    if let Some(reason) = &mapped.map.unmapped {
        return everything(reason);
    }
    let (touched, untouched): (Vec<_>, Vec<_>) = mapped
        .touch
        .into_iter()
        .partition(|(_, touch)| touch.is_touched());
    let untouched: BTreeSet<String> = untouched
        .into_iter()
        .filter(|(_, touch)| *touch == Touch::Untouched)
        .map(|(id, _)| id)
        .collect();
    let (ids, whole_suites) = run_whole(untouched, &built.whole, &scoped);
    let counts = ids
        .iter()
        .filter_map(|id| Some((id.clone(), baselines.get(id)?.0.clone())))
        .collect();
    let mut process = crate::model::Processes::default();
    for id in &ids {
        process.extend(baselines.process(id).map(|p| p.of(id)).unwrap_or_default());
    }
    let carry = Carry {
        ids,
        counts,
        process,
        since: record.commit.clone(),
        map: mapped.map,
        touched,
        in_scope,
        whole_suites,
    };
    Ok(Ok((carry, record)))
}

/// Of the `untouched` benchmarks, those a run can still leave out when each suite of `whole`
/// (its name, library and listed ids) runs all of its benchmarks or none: a suite with a benchmark
/// in scope that must run (any not untouched: touched, or without a baseline) runs whole, and its
/// untouched benchmarks run with it. With how many of each suite's benchmarks in scope must run.
fn run_whole(
    untouched: BTreeSet<String>,
    whole: &[(String, Library, Vec<String>)],
    in_scope: &dyn Fn(&str) -> bool,
) -> (BTreeSet<String>, Vec<WholeSuite>) {
    let mut carried = untouched;
    let suites = whole
        .iter()
        .map(|(name, library, ids)| {
            let scoped: Vec<&String> = ids.iter().filter(|id| in_scope(id)).collect();
            let to_run = scoped.iter().filter(|id| !carried.contains(**id)).count();
            if to_run > 0 {
                for id in &scoped {
                    carried.remove(*id);
                }
            }
            WholeSuite {
                name: name.clone(),
                library: library.to_string(),
                in_scope: scoped.len(),
                to_run,
            }
        })
        .collect();
    (carried, suites)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two suites that run whole (`a`, `b`) and ids of a suite that runs by id (`g::*`).
    fn suites() -> Vec<(String, Library, Vec<String>)> {
        let iai = Library::from_crate("iai-callgrind", &semver::Version::new(0, 16, 1)).unwrap();
        let ids = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect();
        vec![
            (
                "p/a".to_owned(),
                iai.clone(),
                ids(&["a::f/1", "a::f/2", "a::g"]),
            ),
            ("p/b".to_owned(), iai, ids(&["b::f/1", "b::h"])),
        ]
    }

    #[test]
    fn a_suite_that_runs_whole_is_never_skipped_while_a_benchmark_of_it_must_run() {
        let whole = suites();
        let all: Vec<&str> = vec!["a::f/1", "a::f/2", "a::g", "b::f/1", "b::h", "g::x", "g::y"];
        // Every set of untouched benchmarks, with and without a filter that leaves `a::g` out.
        for mask in 0u32..(1 << all.len()) {
            let untouched: BTreeSet<String> = (0..all.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i].to_owned())
                .collect();
            for filtered in [false, true] {
                let in_scope = |id: &str| !(filtered && id == "a::g");
                let (carried, said) = run_whole(untouched.clone(), &whole, &in_scope);
                assert!(
                    carried.is_subset(&untouched),
                    "{untouched:?}: carries a touched one"
                );
                for ((name, _, ids), suite) in whole.iter().zip(&said) {
                    let scoped: Vec<&String> = ids.iter().filter(|id| in_scope(id)).collect();
                    let must_run = scoped.iter().filter(|id| !untouched.contains(**id)).count();
                    assert_eq!(suite.to_run, must_run, "{name}, {untouched:?}");
                    assert_eq!(suite.in_scope, scoped.len());
                    let kept = scoped.iter().filter(|id| carried.contains(**id)).count();
                    // Runs whole (nothing of it carried), or not at all (all of it carried).
                    let expected = if must_run > 0 { 0 } else { scoped.len() };
                    assert_eq!(kept, expected, "{name}, {untouched:?}, filtered {filtered}");
                }
                // A benchmark of a suite that runs by id is carried exactly when untouched.
                for id in ["g::x", "g::y"] {
                    assert_eq!(carried.contains(id), untouched.contains(id));
                }
                // Out of scope: left as it was.
                if filtered {
                    assert_eq!(carried.contains("a::g"), untouched.contains("a::g"));
                }
            }
        }
    }

    #[test]
    fn a_benchmark_without_a_baseline_runs_its_suite() {
        // `b::h` is new: listed, but not among the baselines' untouched ones.
        let untouched: BTreeSet<String> = ["a::f/1", "a::f/2", "a::g", "b::f/1"]
            .map(String::from)
            .into();
        let (carried, said) = run_whole(untouched, &suites(), &|_| true);
        assert_eq!(
            carried,
            ["a::f/1", "a::f/2", "a::g"].map(String::from).into()
        );
        assert_eq!((said[0].to_run, said[1].to_run), (0, 1));
        assert_eq!(said[1].library, "iai-callgrind 0.16.1");
    }
}
