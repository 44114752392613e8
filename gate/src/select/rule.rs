//! The change, mapped onto benchmarks through the code the compiler produced: a benchmark is
//! touched when its process executed (from its start to the end of the measured region) a
//! function whose code identity changed or vanished, or when a path its processes were seen to
//! read holds something else now (without such an observation: when it may read files at run time
//! and a file changed that `[change] inert` does not name). When in doubt, touched. The rule, its
//! reasons and its limits are in docs/selection.md.
//!
//! Every path and name here comes from the repository under test: untrusted text, to escape
//! where it is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::diff;
use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::git;
use crate::model::code::{CodeRecord, Executed, Object};
use crate::model::{ChangedFunction, How, Lines, Touch};
use crate::text;

/// The files a change between two sides of a repository altered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change {
    /// The base commit (a full hash).
    pub base: String,
    /// The head commit, or `None` for the working tree (untracked files included).
    pub head: Option<String>,
    /// The changed files no `[change] inert` glob names, relative to the workspace root (`../`
    /// for files outside it; both paths of a rename): what a benchmark that reads files at run
    /// time may read.
    pub files: Vec<String>,
    /// The changed files `[change] inert` names.
    pub inert: Vec<String>,
    /// The changed files that are inputs of every benchmark whatever `[change] inert` says
    /// ([`of_every_benchmark`]: cargo's configuration, the toolchain file); also in `files`.
    pub everyones: Vec<String>,
    /// The changed lines on the head side, by file (relative to the workspace root).
    pub lines: BTreeMap<String, Vec<Lines>>,
    /// What changed in what the harness passes the benchmarks: [`suites_changed`].
    pub suites: SuitesChanged,
    /// The workspace root on the head side, where observed inputs are read again.
    pub root: std::path::PathBuf,
}

/// The bench targets whose `[[suite]]` entry of gate.toml (package, features, runner arguments
/// such as `--envs`) changed between the two sides: what the benchmark harness passes in, which
/// no code identity sees.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SuitesChanged {
    /// The entries are the same on both sides.
    #[default]
    None,
    /// These bench targets' entries differ, by the name of the crate cargo builds of them (the
    /// object's file name: `-` made `_`).
    Targets(BTreeSet<String>),
    /// The base side's entries cannot be read: every benchmark counts as touched.
    Unknown(String),
}

/// The bench targets whose gate.toml `[[suite]]` entry gives the harness other features or
/// arguments at commit `base` (gate.toml at the workspace root `root` there) than `suites` (this
/// side's). A side that declares no suite (no gate.toml, or one without `[[suite]]`, as at the
/// commit `irgate init` records before it writes gate.toml) runs what discovery finds:
/// `discovered` (each callgrind suite with the features it requires, no arguments), asked only
/// then. An entry missing on one side gives none; a gate.toml that the base commit has but irgate
/// cannot parse makes every benchmark count as touched.
pub fn suites_changed(
    root: &Path,
    base: &str,
    suites: &[Suite],
    discovered: &dyn Fn() -> Vec<Suite>,
) -> SuitesChanged {
    let file = format!("./{}", crate::paths::CONFIG_FILE);
    let before = if git::stdout(root, &["ls-tree", "--name-only", base, "--", &file]).is_none() {
        Vec::new()
    } else {
        let text = git::stdout(root, &["show", &format!("{base}:{file}")]).unwrap_or_default();
        match crate::config::Config::parse(&text, Path::new(crate::paths::CONFIG_FILE)) {
            Ok(config) => config.suites,
            Err(error) => {
                return SuitesChanged::Unknown(format!(
                    "gate.toml at {} cannot be read, so irgate cannot tell whether what the \
                     harness passes in changed: {error}",
                    text::short_commit(base)
                ));
            }
        }
    };
    // What the harness is given, by bench target: a side that declares no suite runs what
    // discovery finds, so `irgate init` writing the entries it found (with the features they
    // require) changes nothing.
    let given = |list: &[Suite]| -> BTreeMap<(String, String), (Vec<String>, Vec<String>)> {
        let found;
        let list = if list.is_empty() {
            found = discovered();
            &found[..]
        } else {
            list
        };
        list.iter()
            .map(|suite| {
                let mut features = suite.features.clone();
                features.sort();
                (
                    (suite.package.clone(), suite.bench.clone()),
                    (features, suite.args.clone()),
                )
            })
            .collect()
    };
    let (old, new) = (given(&before), given(suites));
    let targets: BTreeSet<String> = old
        .keys()
        .chain(new.keys())
        .filter(|key| {
            old.get(*key).cloned().unwrap_or_default() != new.get(*key).cloned().unwrap_or_default()
        })
        .map(|(_, bench)| bench.replace('-', "_"))
        .collect();
    if targets.is_empty() {
        SuitesChanged::None
    } else {
        SuitesChanged::Targets(targets)
    }
}

/// The files changed between `base` and `head` (the working tree, untracked files included, when
/// `None`) in the git repository holding the workspace at `root`, split by `inert` (a path from
/// the workspace root; the user's `[change] inert`). Both must be commits in the checkout. Files
/// under `own` (paths relative to the root: the target directory, the baselines, gate.toml) are
/// irgate's and the build's own, never read by a benchmark, and never count.
pub fn between(
    root: &Path,
    (base, head): (&str, Option<&str>),
    own: &[String],
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
    let mut change = Change {
        base,
        head,
        root: root.to_owned(),
        ..Change::default()
    };
    let mut files = BTreeSet::new();
    let mut inert_files = BTreeSet::new();
    let mut everyones = BTreeSet::new();
    for entry in &entries {
        for path in entry.old.iter().chain(&entry.new) {
            let relative = relative(&prefix, path);
            let owned = own.iter().any(|o| {
                relative == *o
                    || relative
                        .strip_prefix(o.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            });
            if owned {
                continue;
            }
            if of_every_benchmark(path) {
                everyones.insert(relative.clone());
                files.insert(relative);
            } else if !relative.starts_with("../") && inert(&relative) {
                inert_files.insert(relative);
            } else {
                files.insert(relative);
            }
        }
    }
    change.files = files.into_iter().collect();
    change.inert = inert_files.into_iter().collect();
    change.everyones = everyones.into_iter().collect();
    change.lines = diff::changed_lines(top, &change.base, change.head.as_deref())?
        .into_iter()
        .map(|(path, ranges)| {
            let ranges = ranges
                .into_iter()
                .map(|(first, last)| Lines { first, last })
                .collect();
            (relative(&prefix, &path), ranges)
        })
        .collect();
    Ok(change)
}

/// Whether the file at `path` (from the top of the repository) is an input of every benchmark:
/// cargo's configuration at any level (`.cargo/config.toml`, `.cargo/config`: its `[env]` reaches
/// the build and the harness, its flags the code) or the toolchain's pin (`rust-toolchain`,
/// `rust-toolchain.toml`: another compiler). No code identity covers what they change, so a
/// change to one touches every benchmark, whatever `[change] inert` names.
pub fn of_every_benchmark(path: &str) -> bool {
    let mut parts = path.rsplit('/');
    let name = parts.next().unwrap_or_default();
    let dir = parts.next();
    matches!(name, "rust-toolchain" | "rust-toolchain.toml")
        || (matches!(name, "config" | "config.toml") && dir == Some(".cargo"))
}

/// `path` (from the top of the repository) relative to the workspace root at `prefix` (`a/b/`
/// from the top, or empty).
fn relative(prefix: &str, path: &str) -> String {
    match path.strip_prefix(prefix) {
        Some(inside) => inside.to_owned(),
        None => format!("{}{path}", "../".repeat(prefix.matches('/').count())),
    }
}

/// The change mapped onto the benchmarks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Touches {
    /// The functions some benchmark executed whose code changed, sorted.
    pub functions: Vec<ChangedFunction>,
    /// By benchmark id.
    pub touch: BTreeMap<String, Touch>,
}

/// For each benchmark of `ids`: whether it executed code that changed from the `base` record to
/// the `head` build's objects, or may read at run time a file `change` altered. A benchmark
/// without a record in `base`, or whose objects the head build lacks, is touched.
pub fn touched(
    base: &CodeRecord,
    head: &BTreeMap<String, Object>,
    change: &Change,
    ids: &[String],
) -> Touches {
    let mut verdicts: Vec<(String, Verdict)> = Vec::new();
    let mut changed: BTreeSet<ChangedFunction> = BTreeSet::new();
    let mut now = BTreeMap::new();
    for id in ids {
        let verdict = verdict(base, head, change, id, &mut now);
        if let Verdict::Runs(runs) = &verdict {
            changed.extend(runs.iter().cloned());
        }
        verdicts.push((id.clone(), verdict));
    }
    let functions: Vec<ChangedFunction> = changed.into_iter().collect();
    let touch = verdicts
        .into_iter()
        .map(|(id, verdict)| {
            let touch = match verdict {
                Verdict::Touch(touch) => touch,
                Verdict::Runs(runs) => Touch::Runs {
                    functions: runs
                        .iter()
                        .filter_map(|f| functions.binary_search(f).ok())
                        .collect(),
                },
            };
            (id, touch)
        })
        .collect();
    Touches { functions, touch }
}

/// One benchmark's answer before the changed functions are numbered.
enum Verdict {
    Touch(Touch),
    Runs(BTreeSet<ChangedFunction>),
}

/// Whether benchmark `id` is touched ([`touched`]); `now` keeps what observed inputs hold now.
fn verdict(
    base: &CodeRecord,
    head: &BTreeMap<String, Object>,
    change: &Change,
    id: &str,
    now: &mut BTreeMap<String, String>,
) -> Verdict {
    let Some(executed) = base.benchmarks.get(id) else {
        return Verdict::Touch(Touch::Unrecorded {
            reason: base
                .unrecorded
                .get(id)
                .cloned()
                .unwrap_or_else(|| "no code record (a benchmark new since the record)".to_owned()),
        });
    };
    let missing = |key: &str| {
        Verdict::Touch(Touch::Unrecorded {
            reason: format!(
                "the code identity of `{}`, which it runs, is missing from one side",
                text::terminal(key)
            ),
        })
    };
    if let Some(reason) = harness_changed(executed, &change.suites) {
        return Verdict::Touch(Touch::Reads { reason });
    }
    if !change.everyones.is_empty() {
        return Verdict::Touch(Touch::Reads {
            reason: format!(
                "{} changed: cargo's configuration and the toolchain are inputs of every \
                 benchmark",
                files_text(&change.everyones)
            ),
        });
    }
    let mut runs: BTreeSet<ChangedFunction> = BTreeSet::new();
    for (key, functions) in &executed.functions {
        let (Some(old), Some(new)) = (base.objects.get(key), head.get(key)) else {
            return missing(key);
        };
        for name in functions {
            if new.same_as(old, name) {
                continue;
            }
            let how = match (old.functions.get(name), new.functions.get(name)) {
                (Some(_), None) => How::Vanished,
                _ => How::Changed,
            };
            runs.insert(ChangedFunction::new(key, name, how));
        }
    }
    for key in &executed.whole {
        if let Some(file) = key.strip_prefix(crate::model::code::FILE_PREFIX) {
            // A file of the repository that is code (a committed shared library): changed when
            // the change alters it, inert or not.
            if change.files.iter().chain(&change.inert).any(|f| f == file) {
                runs.insert(ChangedFunction::new(key, "", How::Whole));
            }
            continue;
        }
        match (base.objects.get(key), head.get(key)) {
            (Some(a), Some(b)) if a.whole == b.whole => {}
            (Some(_), Some(_)) => {
                runs.insert(ChangedFunction::new(key, "", How::Whole));
            }
            _ => return missing(key),
        }
    }
    if !runs.is_empty() {
        return Verdict::Runs(runs);
    }
    // What its processes were seen to read decides; without it, whether it may read files.
    if let Some(observed) = &executed.observed {
        return match super::inputs::changed(observed, &change.root, now) {
            Some(reason) => Verdict::Touch(Touch::Reads { reason }),
            None => Verdict::Touch(Touch::Untouched),
        };
    }
    match &executed.reads_files {
        Some(why) if !change.files.is_empty() => Verdict::Touch(Touch::Reads {
            reason: format!(
                "it may read files at run time ({why}), and {} changed",
                files_text(&change.files)
            ),
        }),
        _ => Verdict::Touch(Touch::Untouched),
    }
}

/// Why what the harness passes a benchmark that executed `executed` may have changed, when it
/// may: its suite's entry changed (its bench binary, an object of `executed`, is one of
/// `changed`'s), or irgate cannot tell.
fn harness_changed(executed: &Executed, changed: &SuitesChanged) -> Option<String> {
    match changed {
        SuitesChanged::None => None,
        SuitesChanged::Unknown(why) => Some(why.clone()),
        SuitesChanged::Targets(targets) => {
            let target = executed
                .functions
                .keys()
                .chain(&executed.whole)
                .filter_map(|key| key.rsplit('/').next())
                .find(|name| targets.contains(*name))?;
            Some(format!(
                "the `[[suite]]` entry of gate.toml that runs it (bench `{}`) changed: what the \
                 harness passes it (runner arguments such as `--envs`, features) may differ",
                text::terminal(target)
            ))
        }
    }
}

/// `a.bin`, `a.bin and b.txt`, `a.bin, b.txt and 3 more files`.
pub(super) fn files_text(files: &[String]) -> String {
    let named: Vec<String> = files
        .iter()
        .take(2)
        .map(|f| format!("`{}`", text::terminal(f)))
        .collect();
    match files.len() {
        0 => "no file".to_owned(),
        1 | 2 => named.join(" and "),
        n => format!("{} and {} more files", named.join(", "), n - 2),
    }
}

#[cfg(test)]
mod tests;
