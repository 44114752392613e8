//! `irgate run`: run every callgrind suite (or read summaries taken elsewhere) and write the
//! results.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::collections::BTreeMap;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::formats::baseline::Baselines;
use crate::measure::ab;
use crate::measure::collect::{
    Selection, read_from, run_suites, runner_output, suite_dirs, write_profiles, write_results,
};
use crate::measure::paths::{Paths, Resolved};
use crate::measure::shard::{Part, Shard};

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
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate run`.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let paths = options.paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let filter = options.filter.as_deref().map(Filter::new).transpose()?;
    let shard = options
        .shard
        .map(|part| plan_shard(part, &paths.baselines, filter.as_ref()))
        .transpose()?;
    let selection = Selection {
        suites: &options.suites,
        features: &options.features,
        jobs: options.jobs,
        shard: shard.as_ref(),
    };
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
        for (side, results, home, root) in [
            (&paths, &sides.head, head_home, head_root),
            (&base_paths, &sides.base, base_home, base_root),
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
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let results = if options.from.is_empty() {
        run_suites(&config, &selection, &paths, filter.as_ref(), None)?
    } else {
        read_from(&options.from, &paths.root, &config, filter.as_ref())?
    };
    write_results(&paths, &results)?;
    let sources = if options.from.is_empty() {
        runner_output(&results, &paths.root)
    } else {
        options.from.clone()
    };
    write_profiles(&sources, &paths, &results);
    Ok(ExitCode::SUCCESS)
}

/// `part` of the partition of the benchmarks `filter` selects, by the Ir of the baselines in
/// `dir` (none when it does not exist: every function then goes by its name's hash).
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
