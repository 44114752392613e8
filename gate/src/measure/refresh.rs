//! What `irgate refresh` keeps with the baselines besides their counts: the run's per-function
//! profiles and its code record, for the benchmarks whose baseline is now the run's.

use std::collections::BTreeSet;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::formats::baseline::{self, Baselines, GroupUpdate, Selection};
use crate::formats::{code, profiles, results};
use crate::measure::suite;
use crate::model::Results;
use crate::paths::Resolved;

/// What a refresh writes: the latest results, the baselines they update, the files they change.
#[derive(Debug)]
pub struct Plan {
    /// The latest results.
    pub results: Results,
    /// The baselines before the refresh.
    pub baselines: Baselines,
    /// Each baseline file's update.
    pub updates: Vec<GroupUpdate>,
    /// Only benchmarks whose id matches it.
    filter: Option<Filter>,
}

impl Plan {
    /// Whether the refresh covers benchmark `id`.
    pub fn in_scope(&self, id: &str) -> bool {
        filter::in_scope(self.filter.as_ref(), id)
    }

    /// Writes the updates, then the profiles and code record kept with the baselines; what it did,
    /// in lines to print.
    pub fn write(&self, paths: &Resolved) -> Result<Vec<String>> {
        baseline::write_updates(&self.updates)?;
        let in_scope = |id: &str| self.in_scope(id);
        let mut said = profiles(paths, &in_scope)?;
        said.push(code(paths, &self.results, &in_scope)?);
        Ok(said)
    }
}

/// Plans the refresh of the baselines of `paths` with its latest results under `config`: only
/// benchmarks `filter` matches, deleting in-scope baselines of benchmarks that did not run with
/// `prune`; with `dry_run`, creates no directory.
pub fn plan(
    config: &Config,
    paths: &Resolved,
    filter: Option<&str>,
    (prune, dry_run): (bool, bool),
) -> Result<Plan> {
    let results = results::read(&paths.results)?;
    results.require_measured(&paths.results.display().to_string(), "a refresh")?;
    let skipped = suite::missing(&config.suites, &results.suites);
    if prune && !skipped.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            format!(
                "--prune would delete the baselines of suite(s) that did not run ({}): run every \
                 suite first",
                skipped.join(", ")
            ),
        ));
    }
    let filter = filter.map(Filter::new).transpose()?;
    if !dry_run {
        std::fs::create_dir_all(&paths.baselines)
            .map_err(|source| Error::write(&paths.baselines, source))?;
    }
    let baselines = match Baselines::load(&paths.baselines) {
        Err(Error::MissingBaselineDir { .. }) if dry_run => Baselines {
            dir: paths.baselines.clone(),
            groups: Default::default(),
        },
        other => other?,
    };
    if let Some(filter) = &filter {
        let ids = || results.benchmarks.keys().map(String::as_str);
        let pruned = prune && baselines.ids().any(|id| filter.matches(id));
        if !ids().any(|id| filter.matches(id)) && !pruned {
            return Err(filter.matched_nothing(ids()));
        }
    }
    let in_scope = |id: &str| filter::in_scope(filter.as_ref(), id);
    let metrics = config.stored_metrics();
    let required: BTreeSet<String> = config.gated_metrics();
    let updates = baseline::plan_refresh(
        &baselines,
        &results,
        &Selection {
            in_scope: &in_scope,
            metrics: &metrics,
            required: &required,
            prune,
        },
    )?;
    Ok(Plan {
        results,
        baselines,
        updates,
        filter,
    })
}

/// Stores the run's per-function profiles of the refreshed benchmarks in baselines/profiles/,
/// and drops stored ones that no longer match their benchmark's baseline Ir; what it did, in lines
/// to print.
fn profiles(paths: &Resolved, in_scope: &dyn Fn(&str) -> bool) -> Result<Vec<String>> {
    let baselines = paths.baselines.as_path();
    let mut said = Vec::new();
    let run = profiles::read_run(&paths.profiles())?;
    if run.is_none() {
        said.push(format!(
            "irgate: no per-function profiles beside the results: {}/ not updated",
            baselines.join(profiles::BASELINE_DIR).display()
        ));
    }
    let run = run.unwrap_or_default();
    let after = Baselines::load(baselines)?;
    let ir = |id: &str| {
        after
            .get(id)
            .and_then(|(counts, _)| counts.get(IR).copied())
    };
    let keep = |id: &str| in_scope(id) && ir(id) == run.benchmarks.get(id).map(|p| p.total);
    let valid = |id: &str, profile: &irgate_callgrind::Profile| ir(id) == Some(profile.total);
    let touched = profiles::write_baseline(baselines, &run, &keep, &valid)?;
    if !touched.is_empty() {
        said.push(format!(
            "irgate: per-function profiles: {} written or removed in {}/",
            touched.len(),
            baselines.join(profiles::BASELINE_DIR).display()
        ));
    }
    Ok(said)
}

/// Keeps the run's code record (`irgate run --record`) with the baselines, `code/record.json`, for the
/// refreshed benchmarks whose baseline Ir is now the run's. A stored record of the same commit
/// keeps its other benchmarks; one of another commit is replaced whole (a record describes one
/// build). Without a record beside the results, says what that costs; what it did, in a line to
/// print.
fn code(paths: &Resolved, results: &Results, in_scope: &dyn Fn(&str) -> bool) -> Result<String> {
    let baselines = paths.baselines.as_path();
    let path = baselines.join(code::BASELINE_FILE);
    let run = code::read(&paths.code_record())?
        .filter(|run| !run.benchmarks.is_empty() || !run.unrecorded.is_empty());
    let Some(mut run) = run else {
        return Ok(format!(
            "irgate: no code record beside the results ({} not updated): `irgate run --record` \
             takes one; without it `--only-touched` runs every benchmark and every benchmark \
             counts as touched",
            path.display()
        ));
    };
    let after = Baselines::load(baselines)?;
    let ir = |id: &str| {
        after
            .get(id)
            .and_then(|(counts, _)| counts.get(IR).copied())
    };
    let run_ir = |id: &str| results.benchmarks.get(id).and_then(|c| c.get(IR).copied());
    let keep = |id: &str| in_scope(id) && ir(id).is_some() && ir(id) == run_ir(id);
    run.benchmarks.retain(|id, _| keep(id));
    run.unrecorded.retain(|id, _| keep(id));
    let stored = code::read(&path).unwrap_or_else(|error| {
        crate::warning!("the stored code record is replaced: {error}");
        None
    });
    if let Some(stored) = stored.filter(|s| s.commit == run.commit) {
        for (id, executed) in stored.benchmarks {
            if ir(&id).is_some() && !in_scope(&id) {
                run.benchmarks.entry(id).or_insert(executed);
            }
        }
        for (key, object) in stored.objects {
            run.objects.entry(key).or_insert(object);
        }
    }
    run.narrow_to_executed();
    code::write(&path, &run)?;
    Ok(format!(
        "irgate: code record: what {} benchmarks executed, at {}, in {}",
        run.benchmarks.len(),
        crate::text::short_commit(&run.commit),
        path.display()
    ))
}

/// Every file under `dir`, at any depth (none when it cannot be read).
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => dirs.push(entry.path()),
                Ok(kind) if kind.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files.sort();
    files
}
