//! `irgate init`: find a workspace's callgrind suites, write gate.toml with budgets chosen for the
//! sizes measured, and on request the GitHub workflows and the pinned image's pins.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::error::{Error, Result};
use crate::formats;
use crate::init::text::{found, next_steps, path_check};
use crate::init::{Request, set_up};
use crate::text::print;

/// What `irgate init` was asked to do.
pub type Options = Request;

/// Runs `irgate init` in the workspace of the current directory.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::Tool(format!("cannot read the current directory: {e}")))?;
    let setup = set_up(&cwd, options, |root, suites| print(&found(root, suites)))?;
    if let Some(results) = &setup.ran {
        print(&format!(
            "irgate init: ran {} benchmarks: `irgate refresh` turns them into baselines\n",
            results.benchmarks.len()
        ));
        let nothing = results
            .benchmarks
            .iter()
            .filter(|(_, counts)| counts.get(crate::config::metrics::IR) == Some(&0))
            .map(|(id, _)| id.as_str());
        if let Some(line) = crate::render::measures_nothing(nothing) {
            print(&format!(
                "irgate init: warning: {}\n",
                crate::text::terminal(&line)
            ));
        }
    }
    if let Some(calibrated) = &setup.calibrated {
        print(&calibrated.calibration.render());
        if let (Some(checkout), Some(copy)) = (&setup.ran, &calibrated.copy) {
            print(&path_check(
                checkout,
                copy,
                &calibrated.calibration.unreproducible,
            ));
        }
        print(&format!(
            "irgate init: calibrated in {}\n",
            crate::text::duration(calibrated.seconds)
        ));
    }
    for (path, text) in &setup.files {
        formats::write_atomic(path, text.as_bytes())?;
        print(&format!(
            "irgate init: wrote {}\n",
            relative(path, &setup.root)
        ));
    }
    // Files git ignores would be left out of `git add` without a word.
    let written: Vec<PathBuf> = setup.files.iter().map(|(path, _)| path.clone()).collect();
    let ignored = crate::commands::warn_ignored(&setup.root, &written);
    for note in &setup.notes {
        print(&format!("\nNote: {note}\n"));
    }
    print(&next_steps(
        options.run,
        &setup.recording,
        &setup.suites,
        setup.branch.as_deref(),
    ));
    for warning in &ignored {
        print(&format!("  Careful: {warning}\n"));
    }
    Ok(ExitCode::SUCCESS)
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
