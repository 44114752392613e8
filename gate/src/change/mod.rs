//! The change, mapped onto benchmarks: the diff between two commits (or a commit and the working
//! tree) read as the functions it changed, or as something that can change code anywhere; and
//! each benchmark found touched or not through its coverage record. The rule, its reasons and its
//! limits are in docs/change-map.md. When in doubt, touched.
//!
//! Every path and reason here comes from the repository under test: untrusted text, to escape
//! where it is written.

mod diff;
mod names;
mod rust;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::git;
use crate::model::Touch;
use crate::model::coverage::{Coverage, Lines};
use crate::text;

use diff::{Entry, Status};
use names::{Names, base_name};
use rust::{Mapped, Range, Source};

/// What a change between two sides of a repository changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change {
    /// The base commit (a full hash).
    pub base: String,
    /// The head commit, or `None` for the working tree (untracked files included).
    pub head: Option<String>,
    /// Non-empty: every benchmark is touched, for these reasons.
    pub everything: Vec<Reason>,
    /// The functions whose code changed, each present on both sides.
    pub functions: Vec<ChangedFunction>,
    /// The files changed that cannot change code (documentation, tests, comments), relative to
    /// the workspace root.
    pub inert: Vec<String>,
}

/// Which side of the change a line number refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The base commit.
    Base,
    /// The head commit or the working tree.
    Head,
}

/// Why every benchmark is touched: a file, where in it, and what changed there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// Relative to the workspace root (`../` for files outside it).
    pub file: String,
    /// The lines, on the head side unless the change only removed lines; `None`: the file.
    pub lines: Option<(Side, Lines)>,
    /// What it is: `a constant`, `dependencies`, `cannot classify`...
    pub why: String,
}

impl fmt::Display for Reason {
    /// `src/lib.rs:12-14: a constant`, `src/lib.rs:3 (base): a static`, `Cargo.lock: ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((side, lines)) = self.lines {
            write!(f, ":{}", lines_text(lines))?;
            if side == Side::Base {
                write!(f, " (base)")?;
            }
        }
        write!(f, ": {}", self.why)
    }
}

/// `12` or `12-14`.
pub fn lines_text(lines: Lines) -> String {
    if lines.first == lines.last {
        lines.first.to_string()
    } else {
        format!("{}-{}", lines.first, lines.last)
    }
}

/// A function whose code changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFunction {
    /// Its file, relative to the workspace root.
    pub file: String,
    /// Module path, type and name: `Frame::encode`, `<Frame as Display>::fmt`, `inner::deep`.
    pub name: String,
    /// Its lines on the base side, from its first attribute to its closing brace: what a
    /// coverage record is matched against.
    pub base: Lines,
    /// The changed lines on the head side, for reports (a removal shows as the line before it).
    pub changed: Vec<Lines>,
    /// Generic: its instances may run under lines irgate does not see.
    pub generic: bool,
}

/// For each benchmark of `ids`: whether it executes code `change` touched, by its record in
/// `coverage` (a benchmark without one is touched).
pub fn touched(change: &Change, coverage: &Coverage, ids: &[String]) -> BTreeMap<String, Touch> {
    let unseen: Vec<usize> = change
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.generic
                && !coverage
                    .benchmarks
                    .keys()
                    .any(|id| coverage.runs(id, &f.file, &f.base) == Some(true))
        })
        .map(|(at, _)| at)
        .collect();
    ids.iter()
        .map(|id| {
            let touch = if !coverage.benchmarks.contains_key(id) {
                Touch::Unrecorded {
                    reason: coverage.unrecorded.get(id).cloned().unwrap_or_else(|| {
                        "no coverage record (a benchmark new since the record)".to_owned()
                    }),
                }
            } else if !change.everything.is_empty() {
                Touch::Everything
            } else if !unseen.is_empty() {
                Touch::Unseen {
                    functions: unseen.clone(),
                }
            } else {
                let runs: Vec<usize> = change
                    .functions
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| coverage.runs(id, &f.file, &f.base) == Some(true))
                    .map(|(at, _)| at)
                    .collect();
                if runs.is_empty() {
                    Touch::Untouched
                } else {
                    Touch::Runs { functions: runs }
                }
            };
            (id.clone(), touch)
        })
        .collect()
}

/// What changed between `base` and `head` (the working tree, untracked files included, when
/// `None`) in the git repository holding the workspace at `root`. Both must be commits in the
/// checkout. `members` are the workspace's packages (directory relative to the root, empty for
/// the root, and whether a suite depends on it): a file of a package no suite depends on (the
/// member with the longest directory holding it) cannot change what a benchmark runs, nor can a
/// file `inert` accepts (its path from the workspace root; the user's `[change] inert`).
pub fn between(
    root: &Path,
    (base, head): (&str, Option<&str>),
    members: &[(String, bool)],
    inert: &dyn Fn(&str) -> bool,
) -> Result<Change> {
    let top = git::stdout(root, &["rev-parse", "--show-toplevel"]).ok_or_else(|| {
        Error::Tool(format!(
            "{}: not in a git repository, so irgate cannot see what changed",
            text::terminal(&root.display().to_string())
        ))
    })?;
    let top = Path::new(&top);
    let commit = |rev: &str| {
        git::resolve(root, rev).ok_or_else(|| {
            Error::Tool(format!(
                "`{}` names no commit in this checkout; fetch it (with actions/checkout, \
                 `fetch-depth: 0`) so that irgate can see what changed",
                text::terminal(rev)
            ))
        })
    };
    let base = commit(base)?;
    let head = head.map(commit).transpose()?;
    let mut entries = diff::files(top, &base, head.as_deref())?;
    if head.is_none() {
        entries.extend(diff::untracked(top)?);
    }
    let prefix = git::stdout(root, &["rev-parse", "--show-prefix"]).unwrap_or_default();
    // An include in a package no suite depends on pulls its file into no benchmark.
    let used = |path: &str| !unused(members, &prefix, path);
    let names = names::read(top, &[Some(&base), head.as_deref()], &used)?;
    let mut map = Map {
        top,
        members,
        inert,
        prefix,
        names,
        change: Change {
            base,
            head,
            ..Change::default()
        },
    };
    for entry in &entries {
        map.entry(entry)?;
    }
    Ok(map.change)
}

/// Whether `path` (relative to the top of the repository; the workspace root is `prefix` there)
/// is a file of a package no suite depends on: the member of `members` with the longest
/// directory that holds it is not used.
fn unused(members: &[(String, bool)], prefix: &str, path: &str) -> bool {
    let Some(relative) = path.strip_prefix(prefix) else {
        return false;
    };
    let holds = |dir: &str| {
        dir.is_empty()
            || relative
                .strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    members
        .iter()
        .filter(|(dir, _)| holds(dir))
        .max_by_key(|(dir, _)| dir.len())
        .is_some_and(|(_, used)| !used)
}

/// The change being built, and what it is read against.
struct Map<'a> {
    top: &'a Path,
    members: &'a [(String, bool)],
    inert: &'a dyn Fn(&str) -> bool,
    /// The workspace root relative to the top of the repository (`a/b/`, or empty).
    prefix: String,
    names: Names,
    change: Change,
}

impl Map<'_> {
    /// A path relative to the top made relative to the workspace root, and whether it lies in it.
    fn relative(&self, path: &str) -> (String, bool) {
        match path.strip_prefix(self.prefix.as_str()) {
            Some(inside) => (inside.to_owned(), true),
            None => (
                format!("{}{path}", "../".repeat(self.prefix.matches('/').count())),
                false,
            ),
        }
    }

    /// Whether `path` (relative to the top) is in a member's `tests/` or `examples/`: integration
    /// tests and examples, which `cargo bench --bench NAME` does not build.
    fn not_built(&self, path: &str) -> bool {
        let (relative, inside) = self.relative(path);
        inside
            && self.members.iter().any(|(dir, _)| {
                let within = if dir.is_empty() {
                    Some(relative.as_str())
                } else {
                    relative
                        .strip_prefix(dir.as_str())
                        .and_then(|rest| rest.strip_prefix('/'))
                };
                within
                    .is_some_and(|rest| rest.starts_with("tests/") || rest.starts_with("examples/"))
            })
    }

    /// Whether `path` (relative to the top) is a file of a package no suite depends on.
    fn unused(&self, path: &str) -> bool {
        unused(self.members, &self.prefix, path)
    }

    fn everything(&mut self, file: &str, lines: Option<(Side, Lines)>, why: impl Into<String>) {
        self.change.everything.push(Reason {
            file: file.to_owned(),
            lines,
            why: why.into(),
        });
    }

    fn entry(&mut self, entry: &Entry) -> Result<()> {
        let paths: Vec<&str> = entry
            .old
            .iter()
            .chain(&entry.new)
            .map(String::as_str)
            .collect();
        let shown = self.relative(paths.last().copied().unwrap_or("")).0;
        if !entry.utf8 {
            self.everything(&shown, None, "a path that is not UTF-8");
            return Ok(());
        }
        let said_inert = |path: &&str| {
            let (relative, inside) = self.relative(path);
            inside && (self.inert)(&relative)
        };
        if paths
            .iter()
            .all(|path| self.unused(path) || said_inert(path) || self.not_built(path))
        {
            self.change.inert.push(shown);
            return Ok(());
        }
        if paths.iter().any(|p| p.ends_with(".rs")) {
            return self.source(entry, &shown);
        }
        if self.metadata_only(entry)? {
            self.change.inert.push(shown);
            return Ok(());
        }
        let mut inert = true;
        for path in paths
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
        {
            let (relative, inside) = self.relative(path);
            let by_name = if inside { relative.as_str() } else { path };
            if let Err(why) = classify(by_name, inside, &self.names) {
                self.everything(&relative, None, why);
                inert = false;
            }
        }
        if inert {
            self.change.inert.push(shown);
        }
        Ok(())
    }

    /// The bytes of `entry`'s two sides: the base's blob, and the head's (the file on disk when
    /// the head is the working tree).
    fn sides(&self, entry: &Entry, path: &str) -> Result<(Vec<u8>, Vec<u8>)> {
        let base = diff::blob(self.top, &entry.blobs.0)?;
        let head = if entry.blobs.1 == diff::NO_BLOB {
            let on_disk = self.top.join(path);
            std::fs::read(&on_disk).map_err(|e| Error::read(&on_disk, e))?
        } else {
            diff::blob(self.top, &entry.blobs.1)?
        };
        Ok((base, head))
    }

    /// Whether `entry` is a `Cargo.toml` modified in place, inside the workspace and included by
    /// no code, whose two sides differ only in [`METADATA`] keys, lint levels, comments and
    /// layout.
    fn metadata_only(&self, entry: &Entry) -> Result<bool> {
        let Some(path) = entry.new.as_deref() else {
            return Ok(false);
        };
        if entry.status != Status::Modified
            || !entry.regular()
            || base_name(path) != "Cargo.toml"
            || !self.relative(path).1
            || self.names.included.contains("Cargo.toml")
            || self.names.unreadable_include.is_some()
        {
            return Ok(false);
        }
        let (base, head) = self.sides(entry, path)?;
        let read = |bytes: &[u8]| {
            let mut manifest: toml::Table =
                toml::from_str(std::str::from_utf8(bytes).ok()?).ok()?;
            manifest.remove("badges");
            manifest.remove("lints");
            for table in ["package", "workspace"] {
                let Some(toml::Value::Table(inner)) = manifest.get_mut(table) else {
                    continue;
                };
                inner.remove("metadata");
                if table == "workspace" {
                    inner.remove("lints");
                }
                if let Some(toml::Value::Table(package)) = inner.get_mut("package") {
                    package.retain(|key, _| !METADATA.contains(&key));
                }
                inner.retain(|key, _| table == "workspace" || !METADATA.contains(&key));
            }
            Some(manifest)
        };
        Ok(matches!((read(&base), read(&head)), (Some(a), Some(b)) if a == b))
    }

    /// A `.rs` file: only one modified in place, inside the workspace, and compiled into what
    /// runs can map onto functions.
    fn source(&mut self, entry: &Entry, shown: &str) -> Result<()> {
        let why = match entry.status {
            Status::Added => Some("a source file added (modules, cargo's target discovery)"),
            Status::Deleted => Some("a source file deleted"),
            Status::Renamed => Some("a source file renamed"),
            Status::Copied => Some("a source file copied"),
            Status::Other => Some("a source file whose type changed"),
            Status::Modified if !entry.regular() => Some("a link or a submodule"),
            Status::Modified => None,
        };
        if let Some(why) = why {
            self.everything(shown, None, why);
            return Ok(());
        }
        let path = entry.new.as_deref().unwrap_or_default();
        let (file, inside) = self.relative(path);
        if !inside {
            self.everything(&file, None, "a source file outside the workspace");
            return Ok(());
        }
        if self.names.build_scripts.contains(base_name(path)) {
            self.everything(&file, None, "a build script");
            return Ok(());
        }
        if self
            .names
            .proc_macro_dirs
            .iter()
            .any(|dir| path.starts_with(dir.as_str()))
        {
            self.everything(
                &file,
                None,
                "a procedural macro crate (it runs while building)",
            );
            return Ok(());
        }
        let (base_text, head_text) = self.sides(entry, path)?;
        let head = self.change.head.clone();
        let hunks = diff::hunks(self.top, &self.change.base, head.as_deref(), path)?;
        if hunks.is_empty() {
            if base_text == head_text {
                self.change.inert.push(file);
            } else {
                self.everything(&file, None, "a difference irgate cannot read");
            }
            return Ok(());
        }
        let Some(base) = self.read(&file, Side::Base, &base_text) else {
            return Ok(());
        };
        let Some(head) = self.read(&file, Side::Head, &head_text) else {
            return Ok(());
        };
        let before = (self.change.everything.len(), self.change.functions.len());
        let mut touched_functions = false;
        for hunk in hunks {
            let (on_base, on_head) = (Range::from_header(hunk.base), Range::from_header(hunk.head));
            match rust::map(&base, &head, on_base, on_head) {
                Mapped::Inert => {}
                Mapped::Everything(why) => {
                    let lines = match (on_head, on_base) {
                        (Range::Lines(l), _) => Some((Side::Head, l)),
                        (_, Range::Lines(l)) => Some((Side::Base, l)),
                        _ => None,
                    };
                    self.everything(&file, lines, why);
                }
                Mapped::Functions(paths) => {
                    touched_functions = true;
                    let changed = match on_head {
                        Range::Lines(l) => l,
                        Range::After(p) => Lines {
                            first: p.max(1),
                            last: p.max(1),
                        },
                    };
                    for path in paths {
                        let generic = head.functions().iter().any(|f| f.path == path && f.generic);
                        for function in base.functions().iter().filter(|f| f.path == path) {
                            self.function(&file, function, generic, changed);
                        }
                    }
                }
            }
        }
        if !touched_functions && before.0 == self.change.everything.len() {
            self.change.inert.push(file);
        }
        Ok(())
    }

    /// One side of a `.rs` file read as Rust; `None` (with the reason recorded) when it is not
    /// UTF-8 or does not parse.
    fn read(&mut self, file: &str, side: Side, bytes: &[u8]) -> Option<Source> {
        let Ok(text) = std::str::from_utf8(bytes) else {
            let why = format!("not UTF-8 on the {} side", side_name(side));
            self.everything(file, None, why);
            return None;
        };
        match Source::read(text) {
            Ok(source) => Some(source),
            Err((line, message)) => {
                let at = Lines {
                    first: line,
                    last: line,
                };
                let why = format!("not Rust that irgate can read: {message}");
                self.everything(file, Some((side, at)), why);
                None
            }
        }
    }

    /// Records that `changed` (head lines) changed `function` (base side) of `file`.
    fn function(&mut self, file: &str, function: &rust::Function, generic: bool, changed: Lines) {
        let found = self
            .change
            .functions
            .iter_mut()
            .find(|f| f.file == file && f.name == function.path && f.base == function.lines);
        let entry = match found {
            Some(entry) => entry,
            None => {
                self.change.functions.push(ChangedFunction {
                    file: file.to_owned(),
                    name: function.path.clone(),
                    base: function.lines,
                    changed: Vec::new(),
                    generic: false,
                });
                self.change.functions.last_mut().expect("just pushed")
            }
        };
        entry.generic |= generic || function.generic;
        match entry.changed.last_mut() {
            Some(last) if changed.first <= last.last.saturating_add(1) => {
                last.last = last.last.max(changed.last);
            }
            _ => entry.changed.push(changed),
        }
    }
}

/// The keys of a manifest's `[package]` (or `[workspace.package]`) that no build reads and that
/// set no `CARGO_PKG_` variable a macro could read: changing them, `[package.metadata]`,
/// `[workspace.metadata]`, `[badges]`, or the lint levels of `[lints]` and `[workspace.lints]`
/// changes no code. `version`, `description`, `authors` and
/// the like are not among them: `env!("CARGO_PKG_VERSION")` reads them, also from the expansion
/// of a dependency's macro (clap's `crate_version!`), which no search of the sources finds.
const METADATA: [&str; 4] = ["keywords", "categories", "documentation", "publish"];

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Base => "base",
        Side::Head => "head",
    }
}

/// A file that is not Rust source, by its path (relative to the workspace root when `inside`,
/// else to the top of the repository): `Ok` when it cannot change code, else why it can.
fn classify(path: &str, inside: bool, names: &Names) -> std::result::Result<(), String> {
    let name = base_name(path);
    let parent = path[..path.len() - name.len()].trim_end_matches('/');
    let first = path.split('/').next().unwrap_or("");
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match name {
        "Cargo.toml" => return Err("a manifest (dependencies, features, profiles)".into()),
        "Cargo.lock" => return Err("dependencies".into()),
        "rust-toolchain" | "rust-toolchain.toml" => return Err("the toolchain".into()),
        "config" | "config.toml" if base_name(parent) == ".cargo" => {
            return Err("cargo's configuration (flags, profiles)".into());
        }
        _ => {}
    }
    if names.included.contains(name) {
        return Err("a file the code includes (include_str!, include_bytes!, include!)".into());
    }
    let known = matches!(extension.as_str(), "md" | "png" | "svg" | "jpg" | "jpeg")
        || first == "docs"
        || first == ".github"
        || name.starts_with("LICENSE")
        || name == ".gitignore"
        || (inside && (path == "gate.toml" || first == "baselines" || first == ".irgate"));
    match (&names.unreadable_include, known) {
        (None, true) => Ok(()),
        (Some(at), true) => Err(format!(
            "the include macro at {at} names a file irgate cannot tell, maybe this one"
        )),
        (_, false) => Err("cannot classify".into()),
    }
}

#[cfg(test)]
mod tests;
