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
use crate::formats::coverage;
use crate::git::Commit;
use crate::measure::ab;
use crate::measure::collect::{
    Selection, read_from, run_suites, runner_output, suite_dirs, write_profiles, write_results,
};
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
    /// Only the benchmarks the change since the baselines' coverage record can move; the
    /// others' counts are carried from the baselines.
    pub only_touched: bool,
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
    let carry = if options.only_touched {
        let packages: Vec<String> = config.suites.iter().map(|s| s.package.clone()).collect();
        untouched(
            (&paths, &config),
            (options.base.as_deref(), &packages),
            filter.as_ref(),
            shard.as_ref(),
        )?
    } else {
        None
    };
    let selection = Selection {
        suites: &options.suites,
        features: &options.features,
        jobs: options.jobs,
        shard: shard.as_ref(),
        skip: carry.as_ref().map(|c| &c.ids),
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
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut results = if options.from.is_empty() {
        run_suites(&config, &selection, &paths, filter.as_ref(), None)?
    } else {
        read_from(&options.from, &paths.root, &config, filter.as_ref())?
    };
    if let Some(carry) = &carry {
        carry.add_to(&mut results);
    }
    write_results(&paths, &results)?;
    let sources = if options.from.is_empty() {
        runner_output(&results, &paths.root)
    } else {
        options.from.clone()
    };
    write_profiles(&sources, &paths, &results);
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

/// The benchmarks of the baselines (in the filter and shard) that run none of the change from
/// their coverage record's commit to the working tree, with their counts; `None`, said on
/// stderr, when the change touches every benchmark or cannot be mapped (then all run). With
/// `base` (A/B), the record must be of that revision. `packages`: those of the declared suites
/// (every suite's when empty), whose dependencies are the code that can move a benchmark.
fn untouched(
    (paths, config): (&Resolved, &Config),
    (base, packages): (Option<&str>, &[String]),
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
    let coverage = match coverage::load_baseline(&paths.baselines) {
        Ok(Some(coverage)) => coverage,
        Ok(None) => return everything("the baselines have no coverage record (their `coverage/`)"),
        Err(error) => return everything(&terminal(&error.to_string())),
    };
    if Commit::parse(&coverage.commit).dirty {
        return everything("the coverage record was taken on uncommitted changes");
    }
    if let Some(rev) = base {
        let resolved = crate::git::resolve(&paths.root, rev);
        if resolved.as_deref() != Some(coverage.commit.as_str()) {
            return everything(&format!(
                "with --base, the baselines' coverage record must be of {} (it is of {})",
                terminal(rev),
                terminal(short_commit(&coverage.commit))
            ));
        }
    }
    let ids: Vec<String> = baselines
        .ids()
        .filter(|id| filter::in_scope(filter, id) && shard.is_none_or(|s| s.contains(id)))
        .map(str::to_owned)
        .collect();
    let in_scope = ids.len();
    let commit = coverage.commit.clone();
    let members = crate::measure::workspace::members(&paths.root, packages);
    let mapped = crate::judge::changes::map(
        &paths.root,
        (&commit, None),
        (&members, config),
        Ok(coverage),
        &ids,
    );
    if let Some(reason) = &mapped.map.unmapped {
        return everything(&terminal(reason));
    }
    if let Some(reason) = mapped.map.everything.first() {
        return everything(&format!(
            "the change touches every benchmark ({})",
            terminal(reason)
        ));
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
        "irgate: --only-touched: {} of {} benchmarks run none of the change since {}: not run, \
         their baseline counts carried",
        ids.len(),
        in_scope,
        terminal(short_commit(&commit))
    );
    Ok(Some(Carry { ids, counts }))
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
        coverage::run_path(results),
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
