//! git, spawned one way: the commit a checkout is at (and whether its tracked files have
//! uncommitted changes), revisions resolved, ancestry, the plain runner the A/B worktrees use,
//! and the streaming runner `select::diff` reads large diffs with ([`records`]).

use std::fmt;
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// The suffix a recorded commit carries when the tree it was measured on had uncommitted changes.
const DIRTY: &str = "-dirty";

/// A commit as the fingerprint records it: its hash, and whether the measured tree had uncommitted
/// changes to tracked files (recorded as `<hash>-dirty`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The hash (or what was recorded instead, such as `unknown`).
    pub hash: String,
    /// Whether tracked files differed from the commit.
    pub dirty: bool,
}

impl Commit {
    /// Reads a recorded commit, `<hash>` or `<hash>-dirty`.
    pub fn parse(recorded: &str) -> Commit {
        match recorded.strip_suffix(DIRTY) {
            Some(hash) => Commit {
                hash: hash.to_owned(),
                dirty: true,
            },
            None => Commit {
                hash: recorded.to_owned(),
                dirty: false,
            },
        }
    }

    /// The commit checked out at `root`, dirty when tracked files have uncommitted changes; `None`
    /// outside a git repository.
    pub fn head(root: &Path) -> Option<Commit> {
        let hash = stdout(root, &["rev-parse", "HEAD"])?;
        let dirty = stdout(root, &["status", "--porcelain", "--untracked-files=no"])
            .is_some_and(|status| !status.is_empty());
        Some(Commit { hash, dirty })
    }
}

impl fmt::Display for Commit {
    /// The recorded form: `<hash>`, or `<hash>-dirty`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.hash, if self.dirty { DIRTY } else { "" })
    }
}

/// `git ARGS` in `dir`, its messages captured: the trimmed standard output when git succeeded
/// and printed something, else `None` (also when git cannot be started).
pub fn stdout(dir: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|text| !text.is_empty())
}

/// `git ARGS` in `dir`, its messages passed to stderr: the standard output when git succeeded,
/// `None` when it failed; an error when git cannot be started.
pub fn run(dir: &Path, args: &[&str]) -> Result<Option<String>> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Tool(format!("cannot start git: {e}")))?;
    Ok(output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned()))
}

/// The files of the working tree at `root` that git lists: tracked, and untracked but not
/// ignored (a tracked file deleted from disk is still listed).
pub fn working_tree_files(root: &Path) -> Result<Vec<String>> {
    let listed = run(
        root,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    )?
    .ok_or_else(|| {
        Error::Tool(format!(
            "cannot list the working tree's files in {} (git ls-files failed; its message is above)",
            root.display()
        ))
    })?;
    Ok(listed
        .split('\0')
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect())
}

/// `git ARGS` in `dir`, its standard output handed to `each` record by record as it comes (split
/// after each `end` byte, which is stripped), so no output is held whole; `each`'s error stops the
/// reading. An error naming the command (and git's first 4 KiB of messages) when git fails.
pub fn records(
    dir: &Path,
    args: &[&str],
    end: u8,
    each: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let errors = tempfile::tempfile().map_err(|e| Error::Tool(format!("cannot run git: {e}")))?;
    let stderr = errors
        .try_clone()
        .map_err(|e| Error::Tool(format!("cannot run git: {e}")))?;
    let mut child = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| Error::Tool(format!("cannot start git: {e}")))?;
    let mut reader = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut record = Vec::new();
    let mut failed = None;
    loop {
        record.clear();
        match reader.read_until(end, &mut record) {
            Ok(0) => break,
            Ok(_) => {
                if let Err(e) = each(record.strip_suffix(&[end]).unwrap_or(&record)) {
                    failed = Some(e);
                    break;
                }
            }
            Err(e) => {
                failed = Some(Error::Tool(format!("cannot read git's output: {e}")));
                break;
            }
        }
    }
    drop(reader);
    let status = child
        .wait()
        .map_err(|e| Error::Tool(format!("cannot run git: {e}")))?;
    if let Some(e) = failed {
        return Err(e);
    }
    if status.success() {
        return Ok(());
    }
    let mut errors = errors;
    let mut message = String::new();
    let _ = errors
        .rewind()
        .and_then(|()| (&errors).take(4096).read_to_string(&mut message));
    Err(Error::Tool(format!(
        "`git {}` in {} failed: {}",
        crate::text::terminal(&args.join(" ")),
        crate::text::terminal(&dir.display().to_string()),
        crate::text::terminal(message.trim())
    )))
}

/// `rev` when it can be a revision a user names: not empty and not starting with `-`, which git
/// (and a command irgate prints for the user to paste, such as `git fetch origin REV`) would read
/// as an option (`--upload-pack=...` runs a program). The error says why.
pub fn revision(rev: &str) -> std::result::Result<&str, String> {
    if rev.is_empty() {
        Err("a revision cannot be empty".to_owned())
    } else if rev.starts_with('-') {
        Err(format!(
            "`{}` starts with `-`, which git reads as an option: not a revision irgate accepts              (name a branch, tag or commit)",
            crate::text::terminal(rev)
        ))
    } else {
        Ok(rev)
    }
}

/// The commit `rev` names in the repository at `root`, if any. `rev` is never read as an option.
pub fn resolve(root: &Path, rev: &str) -> Option<String> {
    stdout(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ],
    )
}

/// Whether `commit` is `of` or one of its ancestors in the repository at `repo`; an error saying
/// why when git cannot tell.
pub fn is_ancestor(repo: &Path, commit: &str, of: &str) -> std::result::Result<bool, String> {
    let output = Command::new("git")
        .current_dir(repo)
        .args([
            "merge-base",
            "--is-ancestor",
            "--end-of-options",
            commit,
            of,
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    match output.status.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(format!(
            "`git merge-base --is-ancestor {commit} {of}` in {} failed: {}",
            repo.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
    }
}

/// `git ARGS` in `dir`: its standard output when git succeeded, else an error with its message.
fn output(dir: &Path, args: &[&str]) -> std::result::Result<Vec<u8>, String> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The path of `path` (a file or directory in the repository holding `root`) from the top of
/// that repository, `/`-separated; an error when it is outside it.
pub fn in_repository(root: &Path, path: &Path) -> std::result::Result<String, String> {
    let top = stdout(root, &["rev-parse", "--show-toplevel"])
        .ok_or_else(|| format!("{}: not in a git repository", root.display()))?;
    let top = std::fs::canonicalize(&top).map_err(|e| format!("{top}: {e}"))?;
    // The file itself may be missing: its directory is resolved.
    let (dir, name) = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !path.exists() => (dir, Some(name)),
        _ => (path, None),
    };
    let dir = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut inside = dir
        .strip_prefix(&top)
        .map_err(|_| format!("{} is outside the git repository", path.display()))?
        .to_path_buf();
    if let Some(name) = name {
        inside.push(name);
    }
    Ok(inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/"))
}

/// The file at `path` (from the top of the repository holding `root`) in commit `commit` (a full
/// hash): `None` when the commit has no such file, an error when it is not a file git stores as
/// a regular file or is larger than `max` bytes. A symbolic link is refused, never followed.
pub fn blob(
    root: &Path,
    commit: &str,
    path: &str,
    max: u64,
) -> std::result::Result<Option<Vec<u8>>, String> {
    let top = stdout(root, &["rev-parse", "--show-toplevel"])
        .ok_or_else(|| format!("{}: not in a git repository", root.display()))?;
    let listed = output(
        Path::new(&top),
        &[
            "ls-tree",
            "-z",
            "--long",
            "--end-of-options",
            commit,
            "--",
            path,
        ],
    )?;
    let listed = String::from_utf8_lossy(&listed);
    let Some(entry) = listed.split('\0').find(|e| !e.is_empty()) else {
        return Ok(None);
    };
    // `<mode> <type> <object> <size>\t<path>`
    let fields: Vec<&str> = entry
        .split('\t')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let [mode, kind, object, size] = fields[..] else {
        return Err(format!("`git ls-tree` said `{entry}` of {path}"));
    };
    if kind != "blob" || !matches!(mode, "100644" | "100755") {
        return Err(format!(
            "{path} at {commit} is not a regular file (git mode {mode}, a {kind}): irgate reads \
             only regular files there"
        ));
    }
    if size.parse::<u64>().map_or(true, |size| size > max) {
        return Err(format!(
            "{path} at {commit} is larger than {max} bytes: irgate does not read it"
        ));
    }
    output(Path::new(&top), &["cat-file", "blob", object]).map(Some)
}

/// The files under `dir` (from the top of the repository holding `root`) that differ between
/// commit `commit` and the working tree, untracked files included; an error when git cannot
/// tell.
pub fn changed_since(
    root: &Path,
    commit: &str,
    dir: &str,
) -> std::result::Result<Vec<String>, String> {
    let top = stdout(root, &["rev-parse", "--show-toplevel"])
        .ok_or_else(|| format!("{}: not in a git repository", root.display()))?;
    let top = Path::new(&top);
    let mut files = Vec::new();
    for args in [
        &[
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            commit,
            "--",
            dir,
        ][..],
        &[
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--",
            dir,
        ][..],
    ] {
        let listed = output(top, args)?;
        files.extend(
            String::from_utf8_lossy(&listed)
                .split('\0')
                .filter(|f| !f.is_empty())
                .map(str::to_owned),
        );
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// A file git ignores and does not track, and the rule that hides it (`git check-ignore -v`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// The file, as it was asked about.
    pub path: PathBuf,
    /// The rule: `source:line:pattern`, e.g. `.gitignore:3:coverage`.
    pub rule: String,
}

/// Of `paths` (files in the repository at `root`), those git ignores and does not track, each with
/// the rule that hides it: `git add` leaves them out without a word. Empty outside a repository or
/// when git cannot tell.
pub fn ignored(root: &Path, paths: &[PathBuf]) -> Vec<Ignored> {
    use std::io::Write as _;
    if paths.is_empty() {
        return Vec::new();
    }
    let Ok(mut child) = Command::new("git")
        .current_dir(root)
        .args(["check-ignore", "--verbose", "-z", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return Vec::new();
    };
    let mut input = Vec::new();
    for path in paths {
        let relative = path.strip_prefix(root).unwrap_or(path);
        input.extend_from_slice(relative.as_os_str().as_encoded_bytes());
        input.push(0);
    }
    let writer = child.stdin.take().map(|mut stdin| {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        })
    });
    let output = child.wait_with_output();
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    // Exit 0: some are ignored; 1: none; 128: not a repository, or another error.
    let Some(output) = output.ok().filter(|o| o.status.code() == Some(0)) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = text.split('\0').collect();
    fields
        .chunks_exact(4)
        .filter(|f| !f[0].is_empty())
        .map(|f| Ignored {
            path: root.join(f[3]),
            rule: format!("{}:{}:{}", f[0], f[1], f[2]),
        })
        .collect()
}

/// For tests: `git ARGS` in `dir` with a fixed identity and default branch (`trunk`), the user's
/// own configuration ignored; panics when git fails.
#[cfg(test)]
pub(crate) fn for_tests(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "init.defaultBranch=trunk"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_one_by_one_without_their_end_and_a_failure_names_the_command() {
        let dir = tempfile::tempdir().unwrap();
        for_tests(dir.path(), &["init", "--quiet"]);
        for name in ["a", "b c"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let mut seen = Vec::new();
        let args = ["ls-files", "--others", "-z"];
        records(dir.path(), &args, 0, &mut |record| {
            seen.push(String::from_utf8(record.to_vec()).unwrap());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, ["a", "b c"]);
        let stop = records(dir.path(), &args, 0, &mut |_| {
            Err(Error::Tool("stop".into()))
        });
        assert_eq!(stop.unwrap_err().to_string(), "stop");
        let error = records(dir.path(), &["diff", "no-such-rev"], b'\n', &mut |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("`git diff no-such-rev` in ") && error.contains("failed: fatal:"),
            "{error}"
        );
    }

    #[test]
    fn an_option_like_revision_is_refused() {
        assert_eq!(revision("origin/main"), Ok("origin/main"));
        assert_eq!(revision("HEAD~2"), Ok("HEAD~2"));
        for bad in ["--upload-pack=touch pwned", "-x", ""] {
            assert!(revision(bad).is_err(), "{bad}");
        }
        assert!(
            revision("--upload-pack=touch pwned")
                .unwrap_err()
                .contains("starts with `-`")
        );
    }

    #[test]
    fn ignored_files_are_named_with_their_rule_and_tracked_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = [
            root.join("gate.toml"),
            root.join("baselines/coverage/g.json"),
        ];
        assert_eq!(ignored(root, &files), [], "not a repository");
        for_tests(root, &["init", "--quiet"]);
        std::fs::write(root.join(".gitignore"), "# build output\ncoverage\n").unwrap();
        std::fs::create_dir_all(root.join("baselines/coverage")).unwrap();
        for file in &files {
            std::fs::write(file, "x").unwrap();
        }
        assert_eq!(
            ignored(root, &files),
            [Ignored {
                path: root.join("baselines/coverage/g.json"),
                rule: ".gitignore:2:coverage".to_owned(),
            }]
        );
        // A file git tracks already is committed with every change: not reported.
        for_tests(root, &["add", "-f", "baselines/coverage/g.json"]);
        assert_eq!(ignored(root, &files), []);
    }

    #[test]
    fn a_recorded_commit_says_whether_it_was_dirty_and_reads_back() {
        let clean = Commit::parse("abc123");
        assert!(!clean.dirty);
        assert_eq!(clean.to_string(), "abc123");
        let dirty = Commit::parse("abc123-dirty");
        assert_eq!((dirty.hash.as_str(), dirty.dirty), ("abc123", true));
        assert_eq!(dirty.to_string(), "abc123-dirty");
    }

    #[test]
    fn head_sees_changes_to_tracked_files_only_and_revisions_are_never_options() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(Commit::head(root), None, "not a repository yet");
        for_tests(root, &["init", "--quiet"]);
        std::fs::write(root.join("a"), "1").unwrap();
        for_tests(root, &["add", "a"]);
        for_tests(root, &["commit", "--quiet", "-m", "one"]);
        let head = Commit::head(root).unwrap();
        assert!(!head.dirty && head.hash.len() == 40, "{head:?}");
        std::fs::write(root.join("untracked"), "x").unwrap();
        assert!(!Commit::head(root).unwrap().dirty);
        std::fs::write(root.join("a"), "2").unwrap();
        assert!(Commit::head(root).unwrap().dirty);
        assert_eq!(resolve(root, "HEAD"), Some(head.hash.clone()));
        assert_eq!(resolve(root, "--output=pwned"), None);
        assert!(!root.join("pwned^{commit}").exists() && !root.join("pwned").exists());
        assert_eq!(is_ancestor(root, &head.hash, &head.hash), Ok(true));
    }
}
