//! The coverage record: for every benchmark, the lines of the workspace's source files that ran
//! (with a cost in Ir), complete, unlike the compacted profiles. The change map reads it to tell
//! which benchmarks run the code a change touched (docs/change-map.md).
//!
//! `irgate run` writes it beside the results (`target/irgate/results.coverage.json` for
//! `target/irgate/results.json`); `irgate refresh` keeps it beside the baselines, one file per
//! group, `baselines/coverage/<group>.json`:
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "event": "Ir",
//!   "commit": "0123456789abcdef0123456789abcdef01234567",
//!   "benchmarks": {
//!     "filter::passthrough/n8": {
//!       "demo/codec/src/filter.rs": [[40, 52], [60, 61]]
//!     }
//!   },
//!   "unrecorded": { "frame::decode/b64": "no line tables in the benchmark's own code" }
//! }
//! ```
//!
//! `commit` is the commit whose code ran (the run's): the lines are that commit's, so the change
//! map starts from it. A refresh that leaves a benchmark's count unchanged still stores the
//! run's record: the baseline's count is then that commit's count too. The baselines' groups
//! must share one commit (refresh them together), else the change is not mapped.
//! Paths are relative to the workspace root, `/`-separated; lines are inclusive ranges, sorted
//! and disjoint. Lines of code inlined from another file count for that file. A benchmark with
//! no record says why under `unrecorded` (a run's file only): a change map counts it touched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::formats::{self, baseline::group_of};
use crate::model::coverage::{Coverage, Executed, Lines};

/// The schema version of coverage files this irgate writes.
pub const SCHEMA_VERSION: u32 = 1;

/// The event whose costs mark a line as run.
pub const EVENT: &str = "Ir";

/// The subdirectory of the baseline directory that holds the baselines' coverage.
pub const BASELINE_DIR: &str = "coverage";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CoverageFile {
    schema_version: u32,
    event: String,
    commit: String,
    benchmarks: BTreeMap<String, BTreeMap<String, Vec<[u32; 2]>>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    unrecorded: BTreeMap<String, String>,
}

impl CoverageFile {
    fn new(coverage: &Coverage) -> CoverageFile {
        let ranges = |lines: &[Lines]| lines.iter().map(|l| [l.first, l.last]).collect();
        CoverageFile {
            schema_version: SCHEMA_VERSION,
            event: EVENT.to_owned(),
            commit: coverage.commit.clone(),
            benchmarks: coverage
                .benchmarks
                .iter()
                .map(|(id, files)| {
                    let files = files.iter().map(|(f, l)| (f.clone(), ranges(l))).collect();
                    (id.clone(), files)
                })
                .collect(),
            unrecorded: coverage.unrecorded.clone(),
        }
    }

    /// The record, checked: the event, relative paths, and ranges that are sorted and disjoint.
    fn coverage(self, path: &Path) -> Result<Coverage> {
        let invalid = |message: String| Error::invalid(path.display(), message);
        if self.event != EVENT {
            return Err(invalid(format!(
                "coverage of `{}`, this irgate reads coverage of {EVENT}",
                self.event
            )));
        }
        let mut coverage = Coverage {
            commit: self.commit,
            unrecorded: self.unrecorded,
            ..Coverage::default()
        };
        for (id, files) in self.benchmarks {
            let mut executed = Executed::new();
            for (file, ranges) in files {
                if file.starts_with('/') || file.split('/').any(|part| part == "..") {
                    return Err(invalid(format!(
                        "`{id}`: `{file}` is not a path inside the workspace"
                    )));
                }
                let mut lines: Vec<Lines> = Vec::with_capacity(ranges.len());
                for [first, last] in ranges {
                    let ordered = first >= 1 && first <= last;
                    if !ordered || lines.last().is_some_and(|l| l.last >= first) {
                        return Err(invalid(format!(
                            "`{id}`: the lines of `{file}` are not sorted, disjoint ranges \
                             from 1 (at [{first}, {last}])"
                        )));
                    }
                    lines.push(Lines { first, last });
                }
                executed.insert(file, lines);
            }
            coverage.benchmarks.insert(id, executed);
        }
        Ok(coverage)
    }
}

/// Where a run's coverage is kept: beside its results file, `<stem>.coverage.json`.
pub fn run_path(results: &Path) -> PathBuf {
    let stem = results
        .file_stem()
        .map_or_else(|| "results".into(), |s| s.to_string_lossy().into_owned());
    results.with_file_name(format!("{stem}.coverage.json"))
}

fn read_file(path: &Path) -> Result<Coverage> {
    let file: CoverageFile = formats::read_versioned(path, "coverage", SCHEMA_VERSION)?;
    file.coverage(path)
}

/// Reads a run's coverage; `None` when the run wrote none.
pub fn read_run(path: &Path) -> Result<Option<Coverage>> {
    if !path.exists() {
        return Ok(None);
    }
    read_file(path).map(Some)
}

/// Writes a run's coverage atomically, or removes a stale file when there is none.
pub fn write_run(path: &Path, coverage: &Coverage) -> Result<()> {
    if coverage.benchmarks.is_empty() && coverage.unrecorded.is_empty() {
        return formats::remove_if_present(path);
    }
    formats::write_json_atomic(path, &CoverageFile::new(coverage))
}

/// The baselines' coverage from `<baselines>/coverage/`; `None` when there is none. An error
/// when its groups were taken at different commits.
pub fn load_baseline(baselines: &Path) -> Result<Option<Coverage>> {
    let dir = baselines.join(BASELINE_DIR);
    if !dir.is_dir() {
        return Ok(None);
    }
    let mut all: Option<Coverage> = None;
    for (group, path) in formats::group_files(&dir)? {
        let file = read_file(&path)?;
        if let Some(stray) = file.benchmarks.keys().find(|id| group_of(id) != group) {
            return Err(Error::invalid(
                path.display(),
                format!("coverage of `{stray}` belongs in {}.json", group_of(stray)),
            ));
        }
        match &mut all {
            None => all = Some(file),
            Some(all) if all.commit == file.commit => all.benchmarks.extend(file.benchmarks),
            Some(all) => {
                return Err(Error::invalid(
                    dir.display(),
                    format!(
                        "coverage records of two commits ({} and {}): refresh every group \
                         together (`irgate run && irgate refresh`)",
                        all.commit, file.commit
                    ),
                ));
            }
        }
    }
    Ok(all)
}

/// Stores the records of `run` that `keep` accepts beside the baselines, group by group, then
/// keeps only the stored records of `valid` benchmarks (those that still have a baseline).
/// Stored records of another commit than the run's are dropped: the baselines' records share
/// one commit. Returns the files written or removed.
pub fn write_baseline(
    baselines: &Path,
    run: &Coverage,
    keep: &dyn Fn(&str) -> bool,
    valid: &dyn Fn(&str) -> bool,
) -> Result<Vec<PathBuf>> {
    let dir = baselines.join(BASELINE_DIR);
    let before: BTreeSet<String> = formats::group_files(&dir)
        .unwrap_or_default()
        .into_iter()
        .map(|(group, _)| group)
        .collect();
    let mut stored = match load_baseline(baselines) {
        Ok(Some(stored)) if stored.commit == run.commit => stored,
        _ => Coverage::default(),
    };
    stored.commit = run.commit.clone();
    for (id, executed) in run.benchmarks.iter().filter(|(id, _)| keep(id)) {
        stored.benchmarks.insert(id.clone(), executed.clone());
    }
    // A benchmark refreshed without a record must not keep its old one.
    for id in run.unrecorded.keys().filter(|id| keep(id)) {
        stored.benchmarks.remove(id);
    }
    stored.benchmarks.retain(|id, _| valid(id));
    let mut groups: BTreeMap<String, Coverage> = BTreeMap::new();
    for (id, executed) in stored.benchmarks {
        let group = groups
            .entry(group_of(&id).to_owned())
            .or_insert_with(|| Coverage {
                commit: run.commit.clone(),
                ..Coverage::default()
            });
        group.benchmarks.insert(id, executed);
    }
    let texts = groups
        .iter()
        .map(|(group, coverage)| {
            let text = serde_json::to_string(&CoverageFile::new(coverage)).expect("serializes");
            (group.clone(), format!("{text}\n"))
        })
        .collect();
    formats::write_group_files(&dir, &before, texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coverage(id: &str, file: &str, lines: &[(u32, u32)]) -> Coverage {
        let lines = lines
            .iter()
            .map(|&(first, last)| Lines { first, last })
            .collect();
        Coverage {
            commit: "c1".to_owned(),
            benchmarks: BTreeMap::from([(
                id.to_owned(),
                BTreeMap::from([(file.to_owned(), lines)]),
            )]),
            ..Coverage::default()
        }
    }

    #[test]
    fn a_runs_coverage_round_trips_and_the_schema_is_frozen() {
        let dir = tempfile::tempdir().unwrap();
        let path = run_path(&dir.path().join("results.json"));
        assert!(path.ends_with("results.coverage.json"));
        assert_eq!(read_run(&path).unwrap(), None);
        let mut run = coverage("g::a", "src/lib.rs", &[(3, 5), (9, 9)]);
        run.unrecorded
            .insert("g::b".into(), "no line tables".into());
        write_run(&path, &run).unwrap();
        assert_eq!(read_run(&path).unwrap(), Some(run));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            r#"{
  "schema_version": 1,
  "event": "Ir",
  "commit": "c1",
  "benchmarks": {
    "g::a": {
      "src/lib.rs": [
        [
          3,
          5
        ],
        [
          9,
          9
        ]
      ]
    }
  },
  "unrecorded": {
    "g::b": "no line tables"
  }
}
"#
        );
        write_run(&path, &Coverage::default()).unwrap();
        assert!(!path.exists(), "an empty record leaves no file");
    }

    #[test]
    fn refuses_ranges_that_are_not_sorted_and_disjoint_and_paths_outside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        for (benchmarks, expected) in [
            (
                r#"{"g::a": {"src/a.rs": [[5, 3]]}}"#,
                "not sorted, disjoint ranges",
            ),
            (r#"{"g::a": {"src/a.rs": [[0, 3]]}}"#, "from 1"),
            (r#"{"g::a": {"src/a.rs": [[1, 4], [4, 6]]}}"#, "at [4, 6]"),
            (
                r#"{"g::a": {"/etc/passwd": [[1, 1]]}}"#,
                "not a path inside",
            ),
            (
                r#"{"g::a": {"src/../../x.rs": [[1, 1]]}}"#,
                "not a path inside",
            ),
        ] {
            let text = format!(
                r#"{{"schema_version": 1, "event": "Ir", "commit": "c", "benchmarks": {benchmarks}}}"#
            );
            std::fs::write(&path, text).unwrap();
            let error = read_run(&path).unwrap_err().to_string();
            assert!(error.contains(expected), "{benchmarks}: {error}");
        }
        std::fs::write(
            &path,
            r#"{"schema_version": 1, "event": "Dr", "commit": "c", "benchmarks": {}}"#,
        )
        .unwrap();
        assert!(
            read_run(&path)
                .unwrap_err()
                .to_string()
                .contains("coverage of `Dr`")
        );
    }

    #[test]
    fn the_baselines_keep_one_file_per_group_and_only_valid_benchmarks() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_baseline(dir.path()).unwrap(), None);
        let mut run = coverage("frame::a", "src/frame.rs", &[(1, 2)]);
        run.benchmarks
            .extend(coverage("varint::b", "src/varint.rs", &[(7, 7)]).benchmarks);
        let written = write_baseline(dir.path(), &run, &|_| true, &|_| true).unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(
            load_baseline(dir.path()).unwrap().unwrap().benchmarks,
            run.benchmarks
        );
        // Refreshing `frame::*` without a record drops its old one; `varint::b` lost its baseline.
        let mut again = Coverage {
            commit: "c1".to_owned(),
            ..Coverage::default()
        };
        again
            .unrecorded
            .insert("frame::a".into(), "unreadable".into());
        let written = write_baseline(dir.path(), &again, &|id| id.starts_with("frame::"), &|id| {
            id != "varint::b"
        })
        .unwrap();
        assert_eq!(written.len(), 2, "both group files removed: {written:?}");
        assert_eq!(load_baseline(dir.path()).unwrap(), None);
        // A run of another commit replaces the records: one commit for all groups.
        write_baseline(dir.path(), &run, &|_| true, &|_| true).unwrap();
        let mut later = coverage("frame::a", "src/frame.rs", &[(3, 4)]);
        later.commit = "c2".to_owned();
        write_baseline(dir.path(), &later, &|_| true, &|_| true).unwrap();
        assert_eq!(load_baseline(dir.path()).unwrap(), Some(later.clone()));
        // Groups of two commits (written by hand, or an older irgate) are refused.
        std::fs::write(
            dir.path().join("coverage/varint.json"),
            r#"{"schema_version": 1, "event": "Ir", "commit": "c1", "benchmarks": {}}"#,
        )
        .unwrap();
        let error = load_baseline(dir.path()).unwrap_err().to_string();
        assert!(error.contains("two commits (c2 and c1)"), "{error}");
    }
}
