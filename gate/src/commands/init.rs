//! `irgate init`: find a workspace's callgrind suites, write gate.toml with budgets chosen for the
//! sizes measured, and on request the GitHub workflows and the pinned image's pins.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::Config;
use crate::config::budgets::DEFAULT_BUDGET;
use crate::config::initial::{calibrated_budget, chosen_budget, gate_toml};
use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::formats;
use crate::measure::calibrate::Spread;
use crate::measure::collect;
use crate::measure::library::Library;
use crate::measure::setup::ci_files;
use crate::measure::suite;
use crate::measure::workspace::Workspace;
use crate::model::Results;
use crate::paths::{CONFIG_FILE, Paths, Resolved};
use crate::render::init::{found, next_steps, path_check};
use crate::text::print;

/// What `irgate init` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Also write the GitHub workflows and the image pins.
    pub ci: bool,
    /// Run the suites once to choose the budget from their sizes.
    pub run: bool,
    /// Also calibrate (with `run`): the budgets of what code layout moves, per benchmark.
    pub calibrate: bool,
    /// Overwrite files that exist.
    pub force: bool,
    /// The branch the history workflow records (default: the repository's default branch).
    pub default_branch: Option<String>,
}

/// Runs `irgate init` in the workspace of the current directory.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::Tool(format!("cannot read the current directory: {e}")))?;
    let workspace = Workspace::load(&cwd)?;
    let root = workspace.root.clone();

    let suites = suite::resolve(&[], &workspace)?;
    let libraries = suites
        .iter()
        .map(|s| s.library(&workspace))
        .collect::<Result<Vec<Library>>>()?;
    print(&found(&root, &suites, &libraries));

    // Everything that can be checked is checked before the suites are built and run.
    let ci = if options.ci {
        Some(ci_files(
            &root,
            &libraries,
            options.default_branch.as_deref(),
        )?)
    } else {
        None
    };
    let mut planned = vec![root.join(CONFIG_FILE)];
    planned.extend(
        ci.iter()
            .flat_map(|c| c.files.iter().map(|(path, _)| path.clone())),
    );
    if !options.force
        && let Some(existing) = planned.iter().find(|path| path.exists())
    {
        return Err(Error::Tool(format!(
            "{} exists: irgate is set up here already, and init does not overwrite it (--force \
             does); nothing was run or written",
            existing.display()
        )));
    }

    // The paths are resolved once, when the suites are run (and calibrated).
    let paths = if options.run {
        Some(Paths::default().resolve()?)
    } else {
        None
    };
    let mut checkout = None;
    let (limit, why) = if let Some(paths) = &paths {
        let mut config = Config::default();
        config.suites = suites.clone();
        let results =
            collect::run_suites(&config, &collect::Selection::default(), paths, None, None)?;
        collect::save(paths, &results)?;
        print(&format!(
            "irgate init: ran {} benchmarks: `irgate refresh` turns them into baselines\n",
            results.benchmarks.len()
        ));
        let chosen = chosen_budget(&results);
        checkout = Some(results);
        chosen
    } else {
        (
            DEFAULT_BUDGET,
            "the default (the suites were not run: --no-run)".to_owned(),
        )
    };
    // The first budgets already hold what code layout moves (#26): the default becomes the
    // calibrated floor, and every benchmark measured gets its own budget.
    let calibration = match &paths {
        Some(paths) if options.calibrate => {
            Some(calibrate_suites(&suites, paths, checkout.as_ref())?)
        }
        _ => None,
    };
    let (limit, why) = match &calibration {
        Some(calibration) => {
            let suggested: Vec<u64> = calibration.spreads.iter().map(Spread::suggested).collect();
            calibrated_budget(&suggested)
        }
        None => (limit, why),
    };
    let mut config_text = gate_toml(&suites, &limit, &why);
    if let Some(calibration) = &calibration {
        // Benchmarks whose build is not reproducible are written as `info`, with why: the first
        // gate passes on them, and the comment says what to fix.
        config_text = crate::measure::calibrate::write_budgets(
            &config_text,
            &root.join(CONFIG_FILE),
            calibration,
            true,
        )?;
    }
    let mut files = vec![(root.join(CONFIG_FILE), config_text)];
    let mut notes = Vec::new();
    let mut branch = None;
    if let Some(ci) = ci {
        files.extend(ci.files);
        notes.extend(ci.notes);
        branch = Some(ci.branch);
    }
    for (path, text) in &files {
        formats::write_atomic(path, text.as_bytes())?;
        print(&format!("irgate init: wrote {}\n", relative(path, &root)));
    }
    // Files git ignores would be left out of `git add` without a word.
    let written: Vec<PathBuf> = files.iter().map(|(path, _)| path.clone()).collect();
    let ignored = crate::commands::warn_ignored(&root, &written);
    for note in &notes {
        print(&format!("\nNote: {note}\n"));
    }
    print(&next_steps(options.run, branch.as_deref()));
    for warning in &ignored {
        print(&format!("  Careful: {warning}\n"));
    }
    Ok(ExitCode::SUCCESS)
}

/// Calibration as `init` runs it: the reproducibility check alone, the working tree built twice
/// from nothing at one path of the checkout's length and run ([`Variant::REPRODUCIBILITY`]),
/// compared by count and by the code identity of the functions each benchmark executed. The
/// perturbed builds (`version`, `unrelated`) moved no count of the measurement build (0 of 132
/// here, 0 of 24 in the layout fixture: docs/calibration.md), and with exact selection a
/// benchmark that runs none of a change's code is held to the address budget (`[layout]`)
/// anyway, so `init` leaves them to `irgate calibrate`. Says how long it took.
///
/// [`Variant::REPRODUCIBILITY`]: crate::measure::calibrate::Variant::REPRODUCIBILITY
fn calibrate_suites(
    suites: &[Suite],
    paths: &Resolved,
    checkout: Option<&Results>,
) -> Result<crate::measure::calibrate::Calibration> {
    use crate::measure::calibrate::Variant;
    let started = std::time::Instant::now();
    print(
        "irgate init: calibrating: is the build reproducible? The suites built twice more from \
         nothing, at a path as long as this checkout's, and run (skip: --no-calibrate, then \
         `irgate calibrate --write` any time)\n",
    );
    let mut config = Config::default();
    config.suites = suites.to_vec();
    let builds = crate::measure::calibrate::measure(
        &config,
        paths,
        &collect::Selection::default(),
        Variant::REPRODUCIBILITY,
    )?;
    let calibration = crate::measure::calibrate::Calibration::of(&builds)?;
    print(&calibration.render());
    if let (Some(checkout), Some(base)) = (checkout, builds.first()) {
        print(&path_check(
            checkout,
            &base.results,
            &calibration.unreproducible,
        ));
    }
    print(&format!(
        "irgate init: calibrated in {}\n",
        crate::text::duration(started.elapsed().as_secs_f64())
    ));
    Ok(calibration)
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
