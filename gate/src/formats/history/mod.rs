//! The history's file format: one JSON file per run of the default branch, under `runs/` of the
//! history directory, named `<date>-<commit>.json` (`20261120T100000Z-0123abcd….json`).
//!
//! ```json
//! {
//!   "schema_version": 4,
//!   "commit": "0123abcd…",
//!   "date": "2026-11-20T10:00:00Z",
//!   "refreshed": false,
//!   "results": {
//!     "schema_version": 3,
//!     "fingerprint": { "rustc": "1.95.0", ... },
//!     "suites": ["benches/callgrind"],
//!     "filters": [],
//!     "features": ["inject-slowdown"],
//!     "benchmarks": { "frame::encode/512": { "Ir": 1983, "EstimatedCycles": 3012 } }
//!   },
//!   "bisection": {
//!     "good": "fedc4321…",
//!     "moves": [ { "benchmark": "frame::encode/512", "commit": "89ab…", "subject": "frame: a loop",
//!                  "before": 1901, "after": 1983, "functions": ["demo::frame::encode"] } ],
//!     "undecided": [ { "benchmark": "varint::decode/v5", "after": "…", "through": "…" } ]
//!   },
//!   "unexplained": [ { "benchmark": "varint::decode/v1", "baseline": 120, "new": 131 } ]
//! }
//! ```
//!
//! `commit` is the full hash the counts were taken at, `date` when (RFC 3339, UTC), `refreshed`
//! whether that push accepted new baselines; `results` is the run's results file, embedded as
//! [`crate::formats::results`] writes it (with its own schema version). Added in version 4, both
//! absent when empty: `bisection`, what `irgate bisect` found in the commits since the previous
//! recorded run (`good`, its commit): each move's benchmark, commit, subject, counts (`null`
//! where the benchmark did not exist) and the changed functions it executes, and the moves whose
//! commit stayed open (`undecided`, in `after..through`); `unexplained`, the Ir rows `irgate
//! check` reported `unexplained` (moved beyond the address budget although the code identity
//! said untouched: possible selection bugs). Version 3, still read, is version 4 without them;
//! versions 1 and 2 copied the results' fields beside the run's instead. A run is only
//! ever added as a new file, created without replacing anything, so appending never rewrites an
//! earlier entry and two pushes racing to the history branch write different files. Everything
//! read is checked: the schema version, the counts and ids (as in results files), the commit (hex
//! only) and the date, and that the file's name is the one its content gives.

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::formats;
use crate::formats::results::ResultsFile;
use crate::model::{Counts, Fingerprint, Results};

/// The schema version of history run files this irgate writes: 4 adds the bisection and the
/// unexplained benchmarks to 3, which embeds the results file (2 copied its fields and added the
/// fingerprint's `build` and the cargo `features`, which 1 dropped).
pub const SCHEMA_VERSION: u32 = 4;

/// The schema versions it reads: 1 (before `build`, read as [`crate::model::BUILD_UNRECORDED`]),
/// 2, 3 and 4.
pub const READABLE_VERSIONS: &[u32] = &[1, 2, 3, 4];

/// The schema versions that embed the results file (3 is 4 without its additions).
const EMBEDDING_VERSIONS: &[u32] = &[3, 4];

/// The directory, inside the history directory, that holds one file per run.
pub const RUNS_DIR: &str = "runs";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunFile {
    schema_version: u32,
    commit: String,
    date: String,
    refreshed: bool,
    results: ResultsFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bisection: Option<Bisected>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unexplained: Vec<Unexplained>,
}

/// A run file of schema version 1 or 2: the results' fields copied beside the run's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CopiedRunFile {
    /// Read by the versioned reader.
    #[serde(rename = "schema_version")]
    _schema_version: u32,
    commit: String,
    date: String,
    refreshed: bool,
    fingerprint: Fingerprint,
    #[serde(default)]
    suites: Vec<String>,
    #[serde(default)]
    filters: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    features: Vec<String>,
    #[serde(deserialize_with = "formats::strict_benchmarks")]
    benchmarks: BTreeMap<String, Counts>,
}

/// One recorded run of the default branch.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The full commit hash the counts were taken at.
    pub commit: String,
    /// When the counts were taken.
    pub date: DateTime<Utc>,
    /// Whether this push accepted new baselines.
    pub refreshed: bool,
    /// The run's results.
    pub results: Results,
    /// What a bisection of the commits since the previous recorded run found, if one ran.
    pub bisection: Option<Bisected>,
    /// The benchmarks `irgate check` reported `unexplained` at this run: possible selection bugs.
    pub unexplained: Vec<Unexplained>,
}

/// What `irgate bisect` found between the previous recorded run and this one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bisected {
    /// The good end: the previous recorded run's commit (a full hash).
    pub good: String,
    /// Each commit where a benchmark's count changed.
    pub moves: Vec<Found>,
    /// The moves whose commit stayed open.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<Open>,
}

/// One commit where one benchmark's count changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Found {
    /// The benchmark.
    pub benchmark: String,
    /// The commit (a full hash).
    pub commit: String,
    /// Its subject, as git gave it (untrusted text: escape it wherever it is shown).
    pub subject: String,
    /// The count (Ir) before it; `None`: the commit added the benchmark.
    pub before: Option<u64>,
    /// The count at it; `None`: the commit removed the benchmark.
    pub after: Option<u64>,
    /// The changed functions the benchmark executes there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<String>,
}

/// A move the bisection could not pin to one commit: it lies in `after..through`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Open {
    /// The benchmark.
    pub benchmark: String,
    /// The last commit known to have the old count.
    pub after: String,
    /// The first commit known to have the new count.
    pub through: String,
}

/// A benchmark the check reported `unexplained`: moved beyond the address budget although the
/// code identity said untouched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unexplained {
    /// The benchmark.
    pub benchmark: String,
    /// Its baseline count (Ir).
    pub baseline: Option<u64>,
    /// Its count at this run.
    pub new: Option<u64>,
}

impl Run {
    /// A run from `results`, at `commit` (default: the results' own), checked: the commit must be
    /// a full hash of committed code and the results must hold benchmarks.
    pub fn from_results(
        results: Results,
        commit: Option<&str>,
        refreshed: bool,
        origin: &str,
    ) -> Result<Run> {
        let commit = commit.unwrap_or(&results.fingerprint.commit).to_owned();
        if crate::git::Commit::parse(&commit).dirty {
            return Err(Error::invalid(
                origin,
                "taken with uncommitted changes (commit ends in `-dirty`): the history records \
                 committed code only",
            ));
        }
        check_commit(&commit).map_err(|message| Error::invalid(origin, message))?;
        let date = parse_date(&results.fingerprint.date)
            .map_err(|message| Error::invalid(origin, format!("fingerprint.date: {message}")))?;
        if results.benchmarks.is_empty() {
            return Err(Error::invalid(origin, "holds no benchmarks"));
        }
        Ok(Run {
            commit,
            date,
            refreshed,
            results,
            bisection: None,
            unexplained: Vec::new(),
        })
    }

    /// The run's file name: `<date>-<commit>.json`, which sorts by date.
    pub fn file_name(&self) -> String {
        format!("{}-{}.json", self.stamp(), self.commit)
    }

    /// `20261120T100000Z`: the date as the file name and page anchors spell it.
    pub fn stamp(&self) -> String {
        self.date.format("%Y%m%dT%H%M%SZ").to_string()
    }

    /// The commit as people read it ([`crate::text::short_commit`]).
    pub fn short_commit(&self) -> &str {
        crate::text::short_commit(&self.commit)
    }

    fn to_file(&self) -> RunFile {
        RunFile {
            schema_version: SCHEMA_VERSION,
            commit: self.commit.clone(),
            date: self.date.to_rfc3339_opts(SecondsFormat::Secs, true),
            refreshed: self.refreshed,
            results: ResultsFile::new(&self.results),
            bisection: self.bisection.clone(),
            unexplained: self.unexplained.clone(),
        }
    }
}

/// What [`append`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    /// The run's file was created.
    Added(PathBuf),
    /// The same run was recorded before, byte for byte (a re-run of the workflow).
    AlreadyThere(PathBuf),
}

/// Adds `run` to the history in `dir` as a new file. An existing file of the same name is never
/// replaced: when its content is the same the run is already there, else it is an error.
pub fn append(dir: &Path, run: &Run) -> Result<Appended> {
    let runs = dir.join(RUNS_DIR);
    let path = runs.join(run.file_name());
    let mut text = serde_json::to_string_pretty(&run.to_file()).expect("a run serializes");
    text.push('\n');
    let write_error = |source| Error::write(&path, source);
    std::fs::create_dir_all(&runs).map_err(write_error)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".irgate-")
        .suffix(".tmp")
        .tempfile_in(&runs)
        .map_err(write_error)?;
    temp.write_all(text.as_bytes()).map_err(write_error)?;
    temp.as_file().sync_all().map_err(write_error)?;
    match temp.persist_noclobber(&path) {
        Ok(_) => Ok(Appended::Added(path)),
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => {
            let existing = formats::read_text_bounded(&path, formats::MAX_BYTES)?;
            if existing == text {
                Ok(Appended::AlreadyThere(path))
            } else {
                Err(Error::invalid(
                    path.display(),
                    "a different run of this commit at this date is already recorded; the \
                     history never replaces an entry",
                ))
            }
        }
        Err(error) => Err(write_error(error.error)),
    }
}

/// Every run recorded in `dir`, oldest first (see [`load_each`]).
pub fn load(dir: &Path) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    load_each(dir, |run| {
        runs.push(run);
        Ok(())
    })?;
    Ok(runs)
}

/// Reads every run recorded in `dir` and hands each to `each` as soon as it is read and checked,
/// oldest first: in the order of the file names, which is by date (to the second), then commit.
/// So only what `each` keeps of a run stays in memory. A missing `runs/` is an empty history; a
/// missing `dir` is an error.
pub fn load_each(dir: &Path, mut each: impl FnMut(Run) -> Result<()>) -> Result<()> {
    if !dir.is_dir() {
        return Err(Error::invalid(
            dir.display(),
            "no such history directory (a checkout of the history branch, or the directory \
             `irgate history add` writes)",
        ));
    }
    let runs_dir = dir.join(RUNS_DIR);
    if !runs_dir.exists() {
        return Ok(());
    }
    let read_error = |source| Error::read(&runs_dir, source);
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(&runs_dir).map_err(read_error)? {
        let path = entry.map_err(read_error)?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        // Other files, and the temporary file of an interrupted append.
        if name.ends_with(".json") && !name.starts_with('.') {
            paths.push(path);
        }
    }
    paths.sort();
    for path in paths {
        each(read(&path)?)?;
    }
    Ok(())
}

/// Reads and checks one run file.
pub fn read(path: &Path) -> Result<Run> {
    let invalid = |message: String| Error::invalid(path.display(), message);
    let origin = path.display().to_string();
    let embeds = formats::schema_version(path)?
        .is_some_and(|v| EMBEDDING_VERSIONS.iter().any(|&e| u64::from(e) == v));
    let (commit, date, refreshed, results, bisection, unexplained) = if embeds {
        let file: RunFile = formats::read_versions(path, "history run", EMBEDDING_VERSIONS)?;
        let results = file.results.into_results(&format!("{origin}: results"))?;
        (
            file.commit,
            file.date,
            file.refreshed,
            results,
            file.bisection,
            file.unexplained,
        )
    } else {
        let file: CopiedRunFile = formats::read_versions(path, "history run", READABLE_VERSIONS)?;
        let copied = Results {
            fingerprint: file.fingerprint,
            suites: file.suites,
            filters: file.filters,
            features: file.features,
            benchmarks: file.benchmarks,
            ..Results::default()
        };
        let results = ResultsFile::new(&copied).into_results(&origin)?;
        (
            file.commit,
            file.date,
            file.refreshed,
            results,
            None,
            Vec::new(),
        )
    };
    check_commit(&commit).map_err(|m| invalid(format!("commit: {m}")))?;
    let date = parse_date(&date).map_err(|m| invalid(format!("date: {m}")))?;
    if let Some(bisection) = &bisection {
        check_bisected(bisection, &commit).map_err(|m| invalid(format!("bisection: {m}")))?;
    }
    for u in &unexplained {
        crate::id::check(&u.benchmark).map_err(|m| invalid(format!("unexplained: {m}")))?;
    }
    let run = Run {
        commit,
        date,
        refreshed,
        results,
        bisection,
        unexplained,
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name != run.file_name() {
        return Err(invalid(format!(
            "the file of this run is named `{}`, not `{name}`",
            run.file_name()
        )));
    }
    Ok(run)
}

/// Whether a run of `commit` is recorded in the history in `dir` (by its file's name).
pub fn recorded(dir: &Path, commit: &str) -> Result<bool> {
    let runs = dir.join(RUNS_DIR);
    if !runs.is_dir() {
        return Ok(false);
    }
    let suffix = format!("-{commit}.json");
    for entry in std::fs::read_dir(&runs).map_err(|source| Error::read(&runs, source))? {
        let entry = entry.map_err(|source| Error::read(&runs, source))?;
        if entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.ends_with(&suffix))
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The Ir rows the report in `path` (`irgate check --format json` of `run`: untrusted, read with
/// [`crate::formats::report::read`]) judged `unexplained`. The report must be of the run's
/// results: the same fingerprint commit.
pub fn unexplained(path: &Path, run: &Run) -> Result<Vec<Unexplained>> {
    let report = crate::formats::report::read(path)?;
    if report.fingerprint.commit != run.results.fingerprint.commit {
        return Err(Error::invalid(
            path.display(),
            format!(
                "a report of commit {}, not of the results recorded ({})",
                crate::id::escaped(&report.fingerprint.commit),
                crate::id::escaped(&run.results.fingerprint.commit)
            ),
        ));
    }
    Ok(report
        .rows
        .into_iter()
        .filter(|row| row.status == crate::model::Status::Unexplained && row.metric == IR)
        .map(|row| Unexplained {
            benchmark: row.benchmark,
            baseline: row.baseline,
            new: row.new,
        })
        .collect())
}

/// Why `bisection`, recorded with the run of `commit`, is not one the history keeps: every
/// commit a full hash, the good end not `commit`, valid benchmark ids, and each move a change.
pub(crate) fn check_bisected(bisection: &Bisected, commit: &str) -> Result<(), String> {
    check_commit(&bisection.good).map_err(|m| format!("good: {m}"))?;
    if bisection.good == commit {
        return Err(format!(
            "its good end is the run's own commit {commit}: there is no range"
        ));
    }
    for m in &bisection.moves {
        crate::id::check(&m.benchmark)?;
        check_commit(&m.commit).map_err(|e| format!("{}: commit: {e}", m.benchmark))?;
        if m.before == m.after {
            return Err(format!(
                "{}: a move at {} whose count did not change",
                m.benchmark, m.commit
            ));
        }
    }
    for u in &bisection.undecided {
        crate::id::check(&u.benchmark)?;
        for commit in [&u.after, &u.through] {
            check_commit(commit).map_err(|e| format!("{}: {e}", u.benchmark))?;
        }
    }
    Ok(())
}

/// Why `commit` is not a full commit hash (40 or 64 lowercase hex digits), or `Ok`.
fn check_commit(commit: &str) -> Result<(), String> {
    let hex = commit
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if hex && matches!(commit.len(), 40 | 64) {
        Ok(())
    } else {
        Err(format!(
            "{} is not a full commit hash (40 or 64 lowercase hex digits)",
            crate::id::escaped(commit)
        ))
    }
}

/// An RFC 3339 date, in UTC.
fn parse_date(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|date| date.with_timezone(&Utc))
        .map_err(|e| format!("{} is not an RFC 3339 date ({e})", crate::id::escaped(text)))
}
