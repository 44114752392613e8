//! `irgate refresh`: write the latest results as the new baselines and show what changed.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::process::ExitCode;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::formats::baseline::{self, Baselines, Change, GroupUpdate, Selection};
use crate::formats::{code, profiles, results};
use crate::git::Commit;
use crate::measure::paths::Paths;
use crate::measure::suite;
use crate::text::{print, signed_pct, thousands};

/// What `irgate refresh` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only benchmarks whose id matches this glob.
    pub filter: Option<String>,
    /// Also delete in-scope baselines of benchmarks that did not run.
    pub prune: bool,
    /// Show what would change, write nothing.
    pub dry_run: bool,
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate refresh`.
pub fn execute(args: &Options) -> Result<ExitCode> {
    let paths = args.paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let results = results::read(&paths.results)?;
    results.require_measured(&paths.results.display().to_string(), "a refresh")?;
    let skipped = suite::missing(&config.suites, &results.suites);
    if args.prune && !skipped.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            format!(
                "--prune would delete the baselines of suite(s) that did not run ({}): run every \
                 suite first",
                skipped.join(", ")
            ),
        ));
    }
    let filter = args.filter.as_deref().map(Filter::new).transpose()?;
    if !args.dry_run {
        std::fs::create_dir_all(&paths.baselines)
            .map_err(|source| Error::write(&paths.baselines, source))?;
    }
    let baselines = match Baselines::load(&paths.baselines) {
        Err(Error::MissingBaselineDir { .. }) if args.dry_run => Baselines {
            dir: paths.baselines.clone(),
            groups: Default::default(),
        },
        other => other?,
    };
    if let Some(filter) = &filter {
        let ids = || results.benchmarks.keys().map(String::as_str);
        let pruned = args.prune && baselines.ids().any(|id| filter.matches(id));
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
            prune: args.prune,
        },
    )?;
    print(&describe(&updates, &baselines, &results.benchmarks));
    let commit = Commit::parse(&results.fingerprint.commit);
    if commit.dirty {
        eprintln!("irgate: warning: {}", dirty_warning(&commit));
    }
    if args.dry_run {
        print("(dry run: nothing written)\n");
    } else {
        baseline::write_updates(&updates)?;
        refresh_profiles(&paths.baselines, &paths.results, &in_scope)?;
        refresh_code(&paths.baselines, &paths.results, &results, &in_scope)?;
        // Baselines git ignores would be left out of the commit without a word.
        crate::commands::warn_ignored(&paths.root, &files_under(&paths.baselines));
    }
    Ok(ExitCode::SUCCESS)
}

/// Every file under `dir`, at any depth (none when it cannot be read).
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
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

/// What baselines of results taken on a working tree with uncommitted changes lack.
fn dirty_warning(commit: &Commit) -> String {
    format!(
        "the results were taken with uncommitted changes: the baselines record commit \
         `{commit}`, code that is in no commit, so `irgate check --on-env-mismatch=remeasure` \
         cannot measure it again and `irgate history add` refuses the run; commit first, then \
         `irgate run && irgate refresh`, for baselines of a commit"
    )
}

/// Stores the run's per-function profiles of the refreshed benchmarks in baselines/profiles/,
/// and drops stored ones that no longer match their benchmark's baseline Ir.
fn refresh_profiles(
    baselines: &std::path::Path,
    results: &std::path::Path,
    in_scope: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let run = profiles::read_run(&profiles::run_path(results))?;
    if run.is_none() {
        println!(
            "irgate: no per-function profiles beside the results: {}/ not updated",
            baselines.join(profiles::BASELINE_DIR).display()
        );
    }
    let run = run.unwrap_or_default();
    let after = Baselines::load(baselines)?;
    let ir = |id: &str| {
        after
            .get(id)
            .and_then(|(counts, _)| counts.get("Ir").copied())
    };
    let keep = |id: &str| in_scope(id) && ir(id) == run.benchmarks.get(id).map(|p| p.total);
    let valid = |id: &str, profile: &irgate_callgrind::Profile| ir(id) == Some(profile.total);
    let touched = profiles::write_baseline(baselines, &run, &keep, &valid)?;
    if !touched.is_empty() {
        println!(
            "irgate: per-function profiles: {} written or removed in {}/",
            touched.len(),
            baselines.join(profiles::BASELINE_DIR).display()
        );
    }
    Ok(())
}

/// Keeps the run's code record (`irgate run --record`) with the baselines, `code/record.json`, for the
/// refreshed benchmarks whose baseline Ir is now the run's. A stored record of the same commit
/// keeps its other benchmarks; one of another commit is replaced whole (a record describes one
/// build). Without a record beside the results, says what that costs.
fn refresh_code(
    baselines: &std::path::Path,
    results_path: &std::path::Path,
    results: &crate::model::Results,
    in_scope: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let path = baselines.join(code::BASELINE_FILE);
    let run = code::read(&code::run_path(results_path))?
        .filter(|run| !run.benchmarks.is_empty() || !run.unrecorded.is_empty());
    let Some(mut run) = run else {
        println!(
            "irgate: no code record beside the results ({} not updated): `irgate run --record` \
             takes one; without it `--only-touched` runs every benchmark and every benchmark \
             counts as touched",
            path.display()
        );
        return Ok(());
    };
    let after = Baselines::load(baselines)?;
    let ir = |id: &str| {
        after
            .get(id)
            .and_then(|(counts, _)| counts.get("Ir").copied())
    };
    let run_ir = |id: &str| {
        results
            .benchmarks
            .get(id)
            .and_then(|c| c.get("Ir").copied())
    };
    let keep = |id: &str| in_scope(id) && ir(id).is_some() && ir(id) == run_ir(id);
    run.benchmarks.retain(|id, _| keep(id));
    run.unrecorded.retain(|id, _| keep(id));
    let stored = code::read(&path).unwrap_or_else(|error| {
        eprintln!("irgate: warning: the stored code record is replaced: {error}");
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
    println!(
        "irgate: code record: what {} benchmarks executed, at {}, in {}",
        run.benchmarks.len(),
        crate::text::short_commit(&run.commit),
        path.display()
    );
    Ok(())
}

/// What the refresh does, file by file, then a summary line.
fn describe(
    updates: &[GroupUpdate],
    baselines: &Baselines,
    results: &std::collections::BTreeMap<String, crate::model::Counts>,
) -> String {
    let mut out = String::new();
    let (mut added, mut changed, mut removed, mut unchanged) = (0, 0, 0, 0);
    for update in updates {
        let verb = match (&update.group, update.write) {
            (None, _) => "removed",
            (Some(_), true) => "written",
            (Some(_), false) => "unchanged, not rewritten",
        };
        let count = |is_added: bool, is_removed: bool| {
            update
                .changes
                .iter()
                .filter(|c| c.old.is_none() == is_added && c.new.is_none() == is_removed)
                .count()
        };
        let (file_added, file_changed, file_removed) =
            (count(true, false), count(false, false), count(false, true));
        let _ = writeln!(
            out,
            "{}: {file_added} added, {file_changed} changed, {file_removed} removed, {} unchanged \
             ({verb})",
            update.path.display(),
            update.unchanged
        );
        (added, changed, removed) = (
            added + file_added,
            changed + file_changed,
            removed + file_removed,
        );
        unchanged += update.unchanged;
        let width = update.changes.iter().map(|c| c.id.len()).max().unwrap_or(0);
        for change in &update.changes {
            let _ = writeln!(out, "  {:<width$}  {}", change.id, describe_change(change));
        }
    }
    let kept = baselines
        .ids()
        .filter(|id| !results.contains_key(*id))
        .count()
        - removed;
    let _ = writeln!(
        out,
        "irgate: {added} added, {changed} changed, {removed} removed, {unchanged} unchanged; \
         {kept} baselines of benchmarks that did not run are kept"
    );
    out
}

fn describe_change(change: &Change) -> String {
    let ir = |counts: &crate::model::Counts| counts.get("Ir").copied();
    match (&change.old, &change.new) {
        (None, Some(new)) => format!("added: Ir {}", ir(new).map_or("-".into(), thousands)),
        (Some(_), None) => "removed: did not run".to_owned(),
        (Some(old), Some(new)) => {
            let mut text = match (ir(old), ir(new)) {
                (Some(a), Some(b)) if a != b => {
                    let pct = (b as f64 - a as f64) * 100.0 / a.max(1) as f64;
                    format!(
                        "Ir {} -> {} ({})",
                        thousands(a),
                        thousands(b),
                        signed_pct(pct)
                    )
                }
                (_, Some(b)) => format!("Ir {} unchanged", thousands(b)),
                _ => String::new(),
            };
            let others: BTreeSet<&str> = old
                .keys()
                .chain(new.keys())
                .filter(|m| *m != "Ir" && old.get(*m) != new.get(*m))
                .map(String::as_str)
                .collect();
            if !others.is_empty() {
                let others: Vec<&str> = others.into_iter().collect();
                let _ = write!(text, "; also changed: {}", others.join(", "));
            }
            text
        }
        (None, None) => String::new(),
    }
}
