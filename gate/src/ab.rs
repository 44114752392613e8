//! A/B: the suite measured at a base revision and at the working tree in one job, so nothing
//! needs refreshing and both sides are measured in one environment.
//!
//! The base is a detached git worktree under the target directory (`<target>/irgate/ab/base/src`,
//! reused between runs). Each side builds into a target directory of its own,
//! `<target>/irgate/ab/head/target` and `<target>/irgate/ab/base/target`: paths of the same length,
//! so the benchmarks' executables run from paths of the same length (a longer path moves counts).
//! The sources' own paths do not reach the benchmarks: cargo compiles workspace members with paths
//! relative to the workspace root. Both sides build and run at once, in the same environment.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::model::Results;
use crate::paths::Resolved;
use crate::run::{self, Place, Selection};
use crate::workspace::Workspace;

/// The two sides of an A/B run.
#[derive(Debug, Clone)]
pub struct Sides {
    /// The working tree's counts.
    pub head: Results,
    /// The base revision's counts.
    pub base: Results,
    /// Where each side's runner wrote its files (head, base).
    pub homes: [PathBuf; 2],
}

/// Where the base side's results go, beside the head side's: `results.json` ->
/// `results.base.json`.
pub fn base_results_path(results: &Path) -> PathBuf {
    let stem = results.file_stem().unwrap_or_default().to_string_lossy();
    results.with_file_name(format!("{stem}.base.json"))
}

/// Measures `rev` and the working tree of the repository at `paths.root`, both at once.
pub fn measure(
    config: &Config,
    selection: &Selection,
    paths: &Resolved,
    filter: Option<&Filter>,
    rev: &str,
) -> Result<Sides> {
    let commit = resolve(&paths.root, rev)?;
    let dir = Workspace::load(&paths.root)?
        .target_dir
        .join("irgate")
        .join("ab");
    let base_src = dir.join("base").join("src");
    checkout(&paths.root, &commit, &base_src)?;
    eprintln!(
        "irgate: A/B: the base side is {rev} ({}), checked out at {}",
        short(&commit),
        base_src.display()
    );
    let base_paths = Resolved {
        root: base_src,
        ..paths.clone()
    };
    let (head_dir, base_dir) = (dir.join("head"), dir.join("base"));
    let head_place = Place {
        dir: &head_dir,
        label: "head ",
    };
    let base_place = Place {
        dir: &base_dir,
        label: "base ",
    };
    let (head, base) = std::thread::scope(|scope| {
        let base = scope
            .spawn(|| run::run_suites(config, selection, &base_paths, filter, Some(&base_place)));
        let head = run::run_suites(config, selection, paths, filter, Some(&head_place));
        (head, base.join())
    });
    let base = base
        .map_err(|_| Error::Tool("the base side's run panicked".to_owned()))?
        .map_err(|e| Error::Tool(format!("the base side ({rev}, {}): {e}", short(&commit))))?;
    Ok(Sides {
        head: head?,
        base,
        homes: [head_place.home(), base_place.home()],
    })
}

/// The commit `rev` names in the repository at `root`.
pub fn resolve(root: &Path, rev: &str) -> Result<String> {
    let out = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    match out {
        Some(hash) => Ok(hash.trim().to_owned()),
        None => Err(Error::Tool(format!(
            "`{rev}` names no commit in the repository at {} (in a shallow CI checkout, fetch it \
             first: git fetch --depth=1 origin {rev})",
            root.display()
        ))),
    }
}

/// Checks `commit` out into `dir` as a detached worktree of the repository at `root`, reusing the
/// worktree a previous run left there (unchanged files keep their times, so cargo rebuilds only
/// what changed).
fn checkout(root: &Path, commit: &str, dir: &Path) -> Result<()> {
    if dir.join(".git").exists() {
        let reused = git(dir, &["checkout", "--quiet", "--force", "--detach", commit])?.is_some()
            && git(dir, &["clean", "--quiet", "-d", "--force"])?.is_some();
        if reused {
            return Ok(());
        }
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|source| Error::Write {
            path: dir.to_owned(),
            source,
        })?;
    }
    git(root, &["worktree", "prune"])?;
    let added = git(
        root,
        &[
            "worktree",
            "add",
            "--quiet",
            "--force",
            "--detach",
            &dir.to_string_lossy(),
            commit,
        ],
    )?;
    added.map(|_| ()).ok_or_else(|| {
        Error::Tool(format!(
            "cannot check {commit} out into {} (git worktree add failed; its message is above)",
            dir.display()
        ))
    })
}

/// `git ARGS` in `dir`: its standard output, `None` when git failed (its messages go to stderr);
/// an error when git cannot be started.
fn git(dir: &Path, args: &[&str]) -> Result<Option<String>> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| Error::Tool(format!("cannot start git (A/B needs it): {e}")))?;
    Ok(output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned()))
}

/// A commit hash as people read it: its first 12 digits.
pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_results_sit_beside_the_heads() {
        assert_eq!(
            base_results_path(Path::new("t/irgate/results.json")),
            Path::new("t/irgate/results.base.json")
        );
        assert_eq!(
            base_results_path(Path::new("/w/slow.json")),
            Path::new("/w/slow.base.json")
        );
    }

    #[test]
    fn a_revision_that_names_no_commit_is_refused_with_advice() {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("git")
            .args(["init", "--quiet"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let error = resolve(dir.path(), "no-such-branch")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`no-such-branch` names no commit") && error.contains("git fetch"),
            "{error}"
        );
    }
}
