//! A/B: the suite measured at a base revision and at the working tree in one job, so nothing
//! needs refreshing and both sides are measured in one environment.
//!
//! Both sides build from paths of the same length, because paths reach the measured process's
//! memory: gungraun compiles the bench package's directory (`CARGO_MANIFEST_DIR`) into the
//! benchmark binary, and the binary's own path is on its stack, so a longer path moves static data
//! and stack addresses and with them the cache metrics (never Ir). The base is a detached git
//! worktree at `<target>/irgate/ab/base/src`, the working tree is mirrored to
//! `<target>/irgate/ab/head/src` (its files as they are on disk: tracked and untracked ones git does
//! not ignore), and each side builds into `<target>/irgate/ab/<side>/target`. When a manifest
//! holds a relative path that leaves the repository (`path = "../sibling"`), both source trees
//! go beside the repository instead, where such paths resolve ([`outside`]). Both are reused
//! between runs, so cargo rebuilds only what changed. Both sides build and run at once, in the same
//! environment.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::git;
use crate::measure::collect::{self, Place, Selection};
use crate::measure::outside;
use crate::measure::workspace::Workspace;
use crate::model::Results;
use crate::model::code::CodeRecord;
use crate::paths::Resolved;
use crate::text::short_commit;

/// The two sides of an A/B run.
#[derive(Debug, Clone)]
pub struct Sides {
    /// The working tree's counts.
    pub head: Results,
    /// The base revision's counts.
    pub base: Results,
    /// Where each side's runner wrote its files (head, base).
    pub homes: [PathBuf; 2],
    /// Where each side's sources were built (head, base): the root of its profiles' paths.
    pub roots: [PathBuf; 2],
    /// Each side's code record (head, base): the identity of what it built and, for the base
    /// side with `selection.record`, what each benchmark executed there.
    pub codes: [CodeRecord; 2],
}

/// Measures `rev` and the working tree of the repository at `paths.root`, both at once.
pub fn measure(
    paths: &Resolved,
    config: &Config,
    selection: &Selection,
    filter: Option<&Filter>,
    rev: &str,
) -> Result<Sides> {
    let commit = resolve(&paths.root, rev)?;
    let dir = Workspace::load(&paths.root)?
        .target_dir
        .join("irgate")
        .join("ab");
    let (head_dir, base_dir) = (dir.join("head"), dir.join("base"));
    let outside = outside::find_all(&paths.root, true, &[&commit])?;
    let head_src = outside::place(&paths.root, "ab-head", &outside, head_dir.join("src"))?;
    let base_src = outside::place(&paths.root, "ab-base", &outside, base_dir.join("src"))?;
    if !outside.is_empty() {
        crate::note!("A/B: {}", outside::note(&outside, &[&base_src, &head_src]));
    }
    checkout(&paths.root, &commit, &base_src)?;
    mirror(&paths.root, &head_src)?;
    if !base_src.join(LOCK).exists() && paths.root.join(LOCK).exists() {
        // A repository that ignores its lock file: both sides build with the working tree's.
        copy_if_changed(&paths.root.join(LOCK), &base_src.join(LOCK))?;
    }
    crate::note!(
        "A/B: the base side is {rev} ({}), checked out at {}",
        short_commit(&commit),
        base_src.display()
    );
    let roots = [head_src.clone(), base_src.clone()];
    let base_paths = Resolved {
        root: base_src,
        ..paths.clone()
    };
    let head_paths = Resolved {
        root: head_src,
        ..paths.clone()
    };
    let head_place = Place::in_dir(&head_dir, "head ");
    let base_place = Place::in_dir(&base_dir, "base ");
    // Only the base side's record serves: the change starts from it.
    let head_selection = Selection {
        record: false,
        ..*selection
    };
    let (head, base) = std::thread::scope(|scope| {
        let base = scope.spawn(|| {
            collect::run_with_code(&base_paths, config, selection, filter, Some(&base_place))
        });
        let head = collect::run_with_code(
            &head_paths,
            config,
            &head_selection,
            filter,
            Some(&head_place),
        );
        (head, base.join())
    });
    let (mut head, head_code) = head?;
    // The mirror is no repository of its own: the working tree's commit is the head's.
    head.fingerprint.commit = crate::measure::fingerprint::commit(&paths.root);
    let (base, base_code) = base
        .map_err(|_| Error::Tool("the base side's run panicked".to_owned()))?
        .map_err(|e| {
            Error::Tool(format!(
                "the base side ({rev}, {}): {e}",
                short_commit(&commit)
            ))
        })?;
    let mut head_code = head_code;
    head_code.commit = head.fingerprint.commit.clone();
    Ok(Sides {
        head,
        base,
        homes: [head_dir.join("home"), base_dir.join("home")],
        roots,
        codes: [head_code, base_code],
    })
}

/// The commit `rev` names in the repository at `root`.
/// A revision git would read as an option is refused before git sees it or a hint prints it.
pub fn resolve(root: &Path, rev: &str) -> Result<String> {
    let rev = crate::git::revision(rev).map_err(Error::Tool)?;
    match crate::git::resolve(root, rev) {
        Some(hash) => Ok(hash),
        None => Err(Error::Tool(format!(
            "`{rev}` names no commit in the repository at {} (in a shallow CI checkout, fetch it \
             first: git fetch --depth=1 origin {})",
            root.display(),
            crate::text::shell_word(rev)
        ))),
    }
}

/// Checks `commit` out into `dir` as a detached worktree of the repository at `root`, reusing the
/// worktree a previous run left there (unchanged files keep their times, so cargo rebuilds only
/// what changed).
pub fn checkout(root: &Path, commit: &str, dir: &Path) -> Result<()> {
    if dir.join(".git").exists() {
        let reused = git::run(dir, &["checkout", "--quiet", "--force", "--detach", commit])?
            .is_some()
            && git::run(dir, &["clean", "--quiet", "-d", "--force"])?.is_some();
        if reused {
            return Ok(());
        }
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    }
    git::run(root, &["worktree", "prune"])?;
    let added = git::run(
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

/// The lock file, which a repository may ignore.
const LOCK: &str = "Cargo.lock";

/// Mirrors the working tree of the repository at `root` into `dest`: every file git lists (tracked,
/// and untracked but not ignored) as it is on disk, plus `Cargo.lock`. Files whose content is
/// unchanged are left alone (cargo then rebuilds only what changed); files no longer listed are
/// removed.
pub fn mirror(root: &Path, dest: &Path) -> Result<()> {
    let target = Workspace::load(root)?.target_dir;
    let mut files: BTreeSet<PathBuf> = git::working_tree_files(root)?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    files.insert(PathBuf::from(LOCK));
    // A file deleted in the working tree is still listed as tracked; a target directory inside
    // the working tree is listed when it is not ignored, and holds the mirror itself.
    let inside = |source: &Path| target.starts_with(root) && source.starts_with(&target);
    files.retain(|name| {
        let source = root.join(name);
        source.symlink_metadata().is_ok() && !inside(&source)
    });
    for name in &files {
        let (source, copy) = (root.join(name), dest.join(name));
        let kind = source
            .symlink_metadata()
            .map_err(|e| Error::read(&source, e))?
            .file_type();
        if kind.is_dir() {
            return Err(Error::Tool(format!(
                "{} is a git submodule; A/B mirrors the working tree without submodules (run the \
                 gate against committed baselines instead)",
                source.display()
            )));
        }
        if kind.is_symlink() {
            let link = std::fs::read_link(&source).map_err(|e| Error::read(&source, e))?;
            if std::fs::read_link(&copy).ok().as_ref() != Some(&link) {
                remove(&copy)?;
                create_parent(&copy)?;
                std::os::unix::fs::symlink(&link, &copy).map_err(|e| Error::write(&copy, e))?;
            }
        } else {
            copy_if_changed(&source, &copy)?;
        }
    }
    remove_unlisted(dest, dest, &files)
}

/// Copies `source` to `copy` unless `copy` already has its content and permissions.
fn copy_if_changed(source: &Path, copy: &Path) -> Result<()> {
    let content = std::fs::read(source).map_err(|e| Error::read(source, e))?;
    let permissions = std::fs::metadata(source)
        .map_err(|e| Error::read(source, e))?
        .permissions();
    let same = std::fs::symlink_metadata(copy)
        .is_ok_and(|m| m.file_type().is_file() && m.permissions() == permissions)
        && std::fs::read(copy).is_ok_and(|old| old == content);
    if !same {
        remove(copy)?;
        create_parent(copy)?;
        std::fs::write(copy, &content).map_err(|e| Error::write(copy, e))?;
        std::fs::set_permissions(copy, permissions).map_err(|e| Error::write(copy, e))?;
    }
    Ok(())
}

/// Removes what lies under `dir` (inside the mirror `dest`) but is not in `files`.
fn remove_unlisted(dest: &Path, dir: &Path, files: &BTreeSet<PathBuf>) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::read(dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| Error::read(dir, e))?.path();
        let name = path.strip_prefix(dest).unwrap_or(&path);
        let is_dir = path.symlink_metadata().is_ok_and(|m| m.is_dir());
        if is_dir && files.iter().any(|f| f.starts_with(name)) {
            remove_unlisted(dest, &path, files)?;
        } else if !files.contains(name) {
            remove(&path)?;
        }
    }
    Ok(())
}

/// Removes a file, link or directory at `path`, if there is one.
fn remove(path: &Path) -> Result<()> {
    let removed = match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(_) => Ok(()),
    };
    removed.map_err(|e| Error::write(path, e))
}

/// Creates the directory `path` goes in.
fn create_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|e| Error::write(parent, e)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

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
            error.contains("`no-such-branch` names no commit")
                && error.ends_with("git fetch --depth=1 origin no-such-branch)"),
            "{error}"
        );
        let error = resolve(dir.path(), "main;touch pwned")
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with("git fetch --depth=1 origin 'main;touch pwned')"),
            "{error}"
        );
        let error = resolve(dir.path(), "--upload-pack=touch pwned")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("starts with `-`") && !error.contains("git fetch"),
            "{error}"
        );
    }

    #[test]
    fn the_mirror_holds_the_working_tree_as_it_is_and_keeps_unchanged_files() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        let write = |name: &str, text: &str| {
            create_parent(&root.join(name)).unwrap();
            std::fs::write(root.join(name), text).unwrap();
        };
        write(
            "Cargo.toml",
            "[package]\nname = \"m\"\nversion = \"0.1.0\"\n",
        );
        write("src/lib.rs", "pub fn f() {}\n");
        write("src/gone.rs", "// deleted in the working tree\n");
        write(".gitignore", "/target\n/ignored.txt\nCargo.lock\n");
        crate::git::for_tests(root, &["init", "--quiet"]);
        crate::git::for_tests(root, &["add", "-A"]);
        crate::git::for_tests(root, &["commit", "--quiet", "-m", "c"]);
        write("src/lib.rs", "pub fn f() { /* changed */ }\n");
        write("src/new.rs", "// untracked\n");
        write("ignored.txt", "ignored\n");
        write("Cargo.lock", "# ignored, but the build needs it\n");
        std::fs::remove_file(root.join("src/gone.rs")).unwrap();
        let dest = root.join("target/irgate/ab/head/src");

        mirror(root, &dest).unwrap();
        let read = |name: &str| std::fs::read_to_string(dest.join(name)).ok();
        assert_eq!(
            read("src/lib.rs").as_deref(),
            Some("pub fn f() { /* changed */ }\n")
        );
        assert_eq!(read("src/new.rs").as_deref(), Some("// untracked\n"));
        assert!(read("Cargo.lock").is_some(), "the lock file is mirrored");
        assert_eq!(read("src/gone.rs"), None, "a deleted file is not mirrored");
        assert_eq!(read("ignored.txt"), None, "an ignored file is not mirrored");
        assert!(
            !dest.join("target").exists(),
            "the target directory is not mirrored"
        );

        let kept = std::fs::metadata(dest.join("Cargo.toml"))
            .unwrap()
            .modified()
            .unwrap();
        std::fs::write(dest.join("stale.rs"), "left by an earlier run").unwrap();
        std::fs::remove_file(root.join("src/new.rs")).unwrap();
        write("src/lib.rs", "pub fn f() { /* again */ }\n");
        mirror(root, &dest).unwrap();
        assert_eq!(
            read("src/lib.rs").as_deref(),
            Some("pub fn f() { /* again */ }\n")
        );
        assert_eq!(
            read("src/new.rs"),
            None,
            "a file gone from the working tree leaves"
        );
        assert_eq!(
            read("stale.rs"),
            None,
            "a file the working tree never had leaves"
        );
        let modified = std::fs::metadata(dest.join("Cargo.toml"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(modified, kept, "an unchanged file is not written again");
    }
}
