//! `irgate run`: run every callgrind suite (or read summaries taken elsewhere) and write the
//! results.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::measure::collect::Selection;
use crate::measure::shard::Part;
use crate::measure::take;
use crate::model::Carry;
use crate::paths::Paths;
use crate::select;
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
    /// With `only_touched`: read the baselines' code record from this revision (a pull
    /// request's base), not from the working tree.
    pub record_from: Option<String>,
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
    // In CI (`--record-from` the pull request's base), gate.toml is the base's, as the record is.
    let record_from = options
        .record_from
        .as_deref()
        .filter(|_| options.only_touched);
    let config = select::base_config::load(&paths, record_from)?.config;
    let filter = options.filter.as_deref().map(Filter::new).transpose()?;
    let shard = options
        .shard
        .map(|part| select::plan_shard(part, &paths.baselines, filter.as_ref()))
        .transpose()?;
    if let Some(shard) = &shard {
        crate::note!("{}", shard.describe());
    }
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
        keep: None,
    };
    // A record keeps the baselines' entries of the benchmarks the change left untouched.
    let keep = if !options.record || options.base.is_some() || !paths.baselines.is_dir() {
        None
    } else {
        match select::keep((&paths, &config, &selection), filter.as_ref())? {
            Ok(keep) => Some(keep),
            Err(why) => {
                crate::note!(
                    "--record: recording every benchmark, keeping no entry of the baselines' \
                     code record: {}",
                    terminal(&why)
                );
                None
            }
        }
    };
    selection.keep = keep.as_ref();
    let carry = if options.only_touched {
        let carry = select::untouched(
            (&paths, &config, &selection),
            (options.base.as_deref(), options.record_from.as_deref()),
            filter.as_ref(),
            shard.as_ref(),
        )?;
        say_selected(carry)
    } else {
        None
    };
    if options.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    selection.skip = carry.as_ref().map(|c| &c.ids);
    take::write(
        (&paths, &config, &selection),
        filter.as_ref(),
        (options.base.as_deref(), &options.from),
        carry.as_ref(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Says on stderr what `--only-touched` runs and why, or why it runs every benchmark; the
/// benchmarks to carry, if any.
fn say_selected(carry: std::result::Result<Carry, String>) -> Option<Carry> {
    let carry = match carry {
        Ok(carry) => carry,
        Err(why) => {
            crate::note!(
                "--only-touched: running every benchmark: {}",
                terminal(&why)
            );
            return None;
        }
    };
    for (id, touch) in &carry.touched {
        crate::note!(
            "--only-touched: runs {}: {}",
            terminal(id),
            terminal(&crate::select::text::selected_because(&carry.map, touch))
        );
    }
    for suite in carry.whole_suites.iter().filter(|s| s.in_scope > 0) {
        let others = suite.in_scope - suite.to_run;
        if suite.to_run > 0 && others == 0 {
            crate::note!(
                "--only-touched: suite {} runs whole: all {} of its benchmarks are touched or new \
                 (its runner, {}, cannot run benchmarks by id)",
                terminal(&suite.name),
                suite.in_scope,
                suite.library
            );
        } else if suite.to_run > 0 {
            crate::note!(
                "--only-touched: suite {} runs whole: {} of its {} benchmarks are touched or new, \
                 and its runner ({}) cannot run benchmarks by id, so its other {others} run too",
                terminal(&suite.name),
                suite.to_run,
                suite.in_scope,
                suite.library
            );
        } else {
            crate::note!(
                "--only-touched: suite {} does not run: none of its {} benchmarks is touched",
                terminal(&suite.name),
                suite.in_scope
            );
        }
    }
    crate::note!(
        "--only-touched: {} of {} benchmarks executed none of the code that changed \
         since {} and read no changed file: not run, their baseline counts carried",
        carry.ids.len(),
        carry.in_scope,
        terminal(short_commit(&carry.since))
    );
    Some(carry)
}
