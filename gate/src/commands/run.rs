//! `irgate run`: run every callgrind suite (or read summaries taken elsewhere) and write the
//! results.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::collections::{BTreeMap, BTreeSet};

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::formats::baseline::Baselines;
use crate::formats::code;
use crate::git::Commit;
use crate::measure::ab;
use crate::measure::collect::{
    Selection, read_from, run_started, run_with_code, runner_output, suite_dirs, write_code,
    write_profiles, write_results,
};
use crate::measure::identify::build_code;
use crate::measure::paths::{Paths, Resolved};
use crate::measure::shard::{Part, Shard};
use crate::model::{Counts, Results, Touch};
use crate::text::{short_commit, terminal};

/// What `irgate run` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only benchmarks whose id matches this glob.
    pub filter: Option<String>,
    /// Read summaries or results from here instead of running.
    pub from: Vec<PathBuf>,
    /// Only these suites (`package/bench` or bench names).
    pub suites: Vec<String>,
    /// Cargo features added to every suite that runs.
    pub features: Vec<String>,
    /// How many benchmarks run at once (default: one per core).
    pub jobs: Option<NonZeroUsize>,
    /// Also measure this revision (A/B), and write its results beside the working tree's.
    pub base: Option<String>,
    /// Only the benchmarks of this shard (of the selection), balanced by the baselines' Ir.
    pub shard: Option<Part>,
    /// Only the benchmarks whose executed code (or the files they read) changed since the
    /// baselines' code record; the others' counts are carried from the baselines.
    pub only_touched: bool,
    /// With `only_touched`: say which benchmarks would run and why, and run nothing.
    pub dry_run: bool,
    /// Also record what each benchmark's process executes, for `irgate refresh` to keep with the
    /// baselines (a second pass of every benchmark).
    pub record: bool,
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate run`.
pub fn execute(options: &Options) -> Result<ExitCode> {
    // Merging results (`--from`) reads no baselines: outside a repository, --results suffices.
    let paths = if options.from.is_empty() {
        options.paths.resolve()?
    } else {
        options.paths.resolve_without_baselines()?
    };
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let filter = options.filter.as_deref().map(Filter::new).transpose()?;
    let shard = options
        .shard
        .map(|part| plan_shard(part, &paths.baselines, filter.as_ref()))
        .transpose()?;
    if options.record && (options.only_touched || shard.is_some() || !options.from.is_empty()) {
        return Err(Error::Tool(
            "--record records every benchmark a full run runs: it cannot go with \
             --only-touched, --shard or --from"
                .to_owned(),
        ));
    }
    if options.dry_run && !options.only_touched {
        return Err(Error::Tool(
            "--dry-run says what --only-touched would run: give both".to_owned(),
        ));
    }
    let mut selection = Selection {
        suites: &options.suites,
        features: &options.features,
        jobs: options.jobs,
        shard: shard.as_ref(),
        skip: None,
        record: options.record,
    };
    let carry = if options.only_touched {
        untouched(
            (&paths, &config, &selection),
            options.base.as_deref(),
            filter.as_ref(),
            shard.as_ref(),
        )?
    } else {
        None
    };
    if options.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    selection.skip = carry.as_ref().map(|c| &c.ids);
    if options.from.is_empty() {
        // A run that fails must leave no results behind for `check` to pass on.
        discard(&paths.results)?;
        if options.base.is_some() {
            discard(&ab::base_results_path(&paths.results))?;
        }
    }
    if let Some(rev) = &options.base {
        let sides = ab::measure(&config, &selection, &paths, filter.as_ref(), rev)?;
        let base_paths = Resolved {
            results: ab::base_results_path(&paths.results),
            ..paths.clone()
        };
        let [head_home, base_home] = &sides.homes;
        let [head_root, base_root] = &sides.roots;
        let [head_code, base_code] = &sides.codes;
        write_code(&paths, head_code)?;
        write_code(&base_paths, base_code)?;
        let (mut head, mut base) = (sides.head, sides.base);
        if let Some(carry) = &carry {
            carry.add_to(&mut head);
            carry.add_to(&mut base);
        }
        for (side, results, home, root) in [
            (&paths, &head, head_home, head_root),
            (&base_paths, &base, base_home, base_root),
        ] {
            write_results(side, results)?;
            // Source paths relative to the side's own checkout, so that the sides compare.
            let built = Resolved {
                root: root.clone(),
                ..side.clone()
            };
            write_profiles(
                &suite_dirs(results, std::slice::from_ref(home)),
                &built,
                results,
                run_started(results),
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (mut results, code) = if options.from.is_empty() {
        let (results, code) = run_with_code(&config, &selection, &paths, filter.as_ref(), None)?;
        (results, Some(code))
    } else {
        let results = read_from(&options.from, &paths.root, &config, filter.as_ref())?;
        (results, None)
    };
    // Profiles only of the benchmarks that ran: a carried one's files are an older run's.
    let sources = if options.from.is_empty() {
        runner_output(&results, &paths.root)
    } else {
        options.from.clone()
    };
    let ran = results.clone();
    if let Some(carry) = &carry {
        carry.add_to(&mut results);
    }
    write_results(&paths, &results)?;
    if let Some(code) = &code {
        write_code(&paths, code)?;
    }
    // Only what this run wrote: summaries older than its start are an earlier run's.
    let since = options.from.is_empty().then(|| run_started(&ran)).flatten();
    write_profiles(&sources, &paths, &ran, since);
    Ok(ExitCode::SUCCESS)
}

/// The benchmarks a selected run leaves out, with the counts it carries for them.
struct Carry {
    /// Ids of benchmarks that run none of the changed code.
    ids: BTreeSet<String>,
    /// Their baseline counts.
    counts: BTreeMap<String, Counts>,
}

impl Carry {
    /// Adds the carried counts to `results` and names them there.
    fn add_to(&self, results: &mut Results) {
        for (id, counts) in &self.counts {
            results.benchmarks.insert(id.clone(), counts.clone());
        }
        results.carried = self.ids.iter().cloned().collect();
    }
}

/// The benchmarks of the baselines (in the filter and shard) whose process executes none of the
/// code that changed since the baselines' code record, and reads no changed file, with their
/// counts; `None`, said on stderr, when every benchmark must run (then all run). The workspace is
/// built first, for its code identity. With `base` (A/B), the record must be of that revision.
fn untouched(
    (paths, config, selection): (&Resolved, &Config, &Selection),
    base: Option<&str>,
    filter: Option<&Filter>,
    shard: Option<&Shard>,
) -> Result<Option<Carry>> {
    let everything = |why: &str| {
        eprintln!("irgate: --only-touched: running every benchmark: {why}");
        Ok(None)
    };
    if !paths.baselines.is_dir() {
        return everything("there are no baselines to carry counts from");
    }
    let baselines = Baselines::load(&paths.baselines)?;
    let record = match code::load_baseline(&paths.baselines) {
        Ok(Some(record)) if !record.benchmarks.is_empty() => record,
        Ok(_) => {
            return everything(
                "the baselines have no code record (`code/record.json`): take one with `irgate run \
                 --record`, then `irgate refresh`",
            );
        }
        Err(error) => return everything(&terminal(&error.to_string())),
    };
    if Commit::parse(&record.commit).dirty {
        return everything("the code record was taken on uncommitted changes");
    }
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
    let (objects, refusals) = build_code(config, selection, paths, None)?;
    if let Some(refusal) = refusals.first() {
        return everything(&terminal(refusal));
    }
    let ids: Vec<String> = baselines
        .ids()
        .filter(|id| filter::in_scope(filter, id) && shard.is_none_or(|s| s.contains(id)))
        .map(str::to_owned)
        .collect();
    let in_scope = ids.len();
    let mapped = crate::judge::changes::map(paths, (Ok(&record), None), Ok(&objects), config, &ids);
    if let Some(reason) = &mapped.map.unmapped {
        return everything(&terminal(reason));
    }
    let chosen: Vec<(&String, &Touch)> = mapped
        .touch
        .iter()
        .filter(|(_, touch)| touch.is_touched())
        .collect();
    for (id, touch) in &chosen {
        eprintln!(
            "irgate: --only-touched: runs {}: {}",
            terminal(id),
            terminal(&crate::render::change::selected_because(&mapped.map, touch))
        );
    }
    let ids: BTreeSet<String> = mapped
        .touch
        .into_iter()
        .filter(|(_, touch)| *touch == Touch::Untouched)
        .map(|(id, _)| id)
        .collect();
    let counts = ids
        .iter()
        .filter_map(|id| Some((id.clone(), baselines.get(id)?.0.clone())))
        .collect();
    eprintln!(
        "irgate: --only-touched: {} of {} benchmarks executed none of the code that changed \
         since {} and read no changed file: not run, their baseline counts carried",
        ids.len(),
        in_scope,
        terminal(short_commit(&record.commit))
    );
    Ok(Some(Carry { ids, counts }))
}

/// `part` of the partition of the benchmarks `filter` selects, by the Ir of the baselines in
/// `dir` (none when it does not exist: every function then goes by its name's hash). An N above
/// the number of baselines in scope is refused before anything is built.
fn plan_shard(part: Part, dir: &Path, filter: Option<&Filter>) -> Result<Shard> {
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
    let shard = Shard::plan(part, &irs, filter);
    eprintln!("irgate: {}", shard.describe());
    Ok(shard)
}

/// Removes the results file at `results` and the profiles beside it, before a run writes new
/// ones: a run that fails part-way then leaves nothing that `check` could read as its outcome.
fn discard(results: &Path) -> Result<()> {
    for path in [
        results.to_owned(),
        crate::formats::profiles::run_path(results),
        code::run_path(results),
    ] {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::write(&path, e));
            }
            _ => {}
        }
    }
    Ok(())
}
