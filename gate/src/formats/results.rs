//! The results file `irgate run` writes (`target/irgate/results.json`) and `check` and `refresh`
//! read, and the merge of several runs' results (shards) into one.
//!
//! ```json
//! {
//!   "schema_version": 3,
//!   "fingerprint": { "rustc": "1.95.0", ... },
//!   "suites": ["benches/callgrind"],
//!   "filters": [],
//!   "features": ["inject-slowdown"],
//!   "benchmarks": {
//!     "frame::encode/512": { "EstimatedCycles": 3012, "Ir": 1983, ... }
//!   },
//!   "durations_ms": { "frame::encode/512": 436 },
//!   "carried": ["varint::decode/v0"]
//! }
//! ```
//!
//! `features` (the cargo features of `irgate run --features`) is written only when there are some.
//! `durations_ms` (schema 3) is each benchmark's cost in time: the wall milliseconds the runner
//! took for it under valgrind, as its summary reports (`duration_ns`, gungraun 0.20; benchmarks
//! run with `--jobs` at once share the cores, which these include). It is written only when the
//! runner reports it, and a duration of a benchmark the file does not hold is ignored; a benchmark's
//! cost in instructions is its `Ir`. Shards are balanced by an
//! estimate fitted to these (`measure::shard`).
//! `carried` (schema 3) lists the benchmarks that did not run (`irgate run --only-touched`): they
//! run none of the changed code, so `benchmarks` holds the baselines' counts for them. Written
//! only when there are some; each must be in `benchmarks`.
//! `shard` (schema 3, optional) is `"K/N"` when the run measured the K-th of N shards (`irgate run
//! --shard K/N`); the merge refuses a set of shards with one missing, one twice, or of different N.
//! `process` and `unsplit` (schema 3, optional; written only when there are some) say what
//! `benchmarks` holds for binary benchmarks (`model::Processes`): for each one gated on its
//! program alone, `process` holds the whole process's counts of those metrics (information);
//! for each one gated on its whole process, `unsplit` says why (no frame of the program's `main`
//! in its callgrind files). A benchmark in neither is a library benchmark, or a binary benchmark
//! of a results file written before irgate split them (its counts the whole process's).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::formats;
use crate::id::Origins;
use crate::model::fingerprint;
use crate::model::shard::Part;
use crate::model::{Counts, Fingerprint, Processes, Results};

/// The schema version of results files this irgate writes: 2 records the build settings in the
/// fingerprint (`build`), 3 each benchmark's duration (`durations_ms`).
pub const SCHEMA_VERSION: u32 = 3;

/// The schema versions it reads: 1 (before `build`, read as [`crate::model::BUILD_UNRECORDED`]),
/// 2 and 3 (1 and 2 have no durations).
pub const READABLE_VERSIONS: &[u32] = &[1, 2, 3];

/// The file name of results, inside the target directory's `irgate/`.
pub const FILE_NAME: &str = "results.json";

/// A results file's content; a history run embeds one (`formats::history`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsFile {
    schema_version: u32,
    fingerprint: Fingerprint,
    #[serde(default)]
    suites: Vec<String>,
    #[serde(default)]
    filters: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    features: Vec<String>,
    #[serde(deserialize_with = "formats::strict_benchmarks")]
    benchmarks: BTreeMap<String, Counts>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    durations_ms: BTreeMap<String, u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    carried: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::strict_benchmarks"
    )]
    process: BTreeMap<String, Counts>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    unsplit: BTreeMap<String, String>,
}

/// Reads a results file.
pub fn read(path: &Path) -> Result<Results> {
    if !path.exists() {
        return Err(Error::MissingResults {
            path: path.to_owned(),
        });
    }
    let file: ResultsFile = formats::read_versions(path, "results", READABLE_VERSIONS)?;
    file.into_results(&path.display().to_string())
}

impl ResultsFile {
    /// `results` as this irgate writes them.
    pub fn new(results: &Results) -> ResultsFile {
        ResultsFile {
            schema_version: SCHEMA_VERSION,
            fingerprint: results.fingerprint.clone(),
            suites: results.suites.clone(),
            features: results.features.clone(),
            filters: results.filters.clone(),
            benchmarks: results.benchmarks.clone(),
            durations_ms: results.durations_ms.clone(),
            carried: results.carried.clone(),
            shard: results.shard.map(|part| part.to_string()),
            process: results.process.whole.clone(),
            unsplit: results.process.unsplit.clone(),
        }
    }

    /// The results, checked (`origin` names the file in errors): a schema version this irgate
    /// reads, valid filters, carried benchmarks that have counts.
    pub fn into_results(self, origin: &str) -> Result<Results> {
        if !READABLE_VERSIONS.contains(&self.schema_version) {
            return Err(Error::invalid(
                origin,
                format!(
                    "unsupported schema_version {} of results: this irgate reads {:?}",
                    self.schema_version, READABLE_VERSIONS
                ),
            ));
        }
        if let Some(error) = self
            .filters
            .iter()
            .find_map(|f| crate::filter::Filter::new(f).err())
        {
            return Err(Error::invalid(origin, error.to_string()));
        }
        if let Some(id) = self
            .carried
            .iter()
            .find(|id| !self.benchmarks.contains_key(*id))
        {
            return Err(Error::invalid(
                origin,
                format!("`{id}` is carried from the baselines but has no counts"),
            ));
        }
        let shard = self
            .shard
            .map(|text| text.parse::<Part>())
            .transpose()
            .map_err(|e| Error::invalid(origin, e))?;
        let mut carried = self.carried;
        carried.sort();
        carried.dedup();
        // A duration of a benchmark the file does not hold (one edited out) says nothing.
        let mut durations_ms = self.durations_ms;
        durations_ms.retain(|id, _| self.benchmarks.contains_key(id));
        let process = checked_processes(
            origin,
            &self.benchmarks,
            Processes {
                whole: self.process,
                unsplit: self.unsplit,
            },
        )?;
        Ok(Results {
            fingerprint: self.fingerprint,
            suites: self.suites,
            features: self.features,
            filters: self.filters,
            benchmarks: self.benchmarks,
            durations_ms,
            carried,
            shard,
            process,
        })
    }
}

/// `process` checked against `benchmarks` (`origin` names the file in errors): each entry of a
/// benchmark that has counts, the whole process's counts of metrics it has, none in both maps.
pub fn checked_processes(
    origin: &str,
    benchmarks: &BTreeMap<String, Counts>,
    process: Processes,
) -> Result<Processes> {
    for (id, whole) in &process.whole {
        let Some(counts) = benchmarks.get(id) else {
            return Err(Error::invalid(
                origin,
                format!(
                    "`{}` has a whole-process count but no counts",
                    crate::text::terminal(id)
                ),
            ));
        };
        if let Some(metric) = whole.keys().find(|m| !counts.contains_key(*m)) {
            return Err(Error::invalid(
                origin,
                format!(
                    "`{}` has a whole-process {} count but no program count of it",
                    crate::text::terminal(id),
                    crate::text::terminal(metric)
                ),
            ));
        }
        if process.unsplit.contains_key(id) {
            return Err(Error::invalid(
                origin,
                format!(
                    "`{}` is both split into its program's count and unsplit",
                    crate::text::terminal(id)
                ),
            ));
        }
    }
    if let Some(id) = process
        .unsplit
        .keys()
        .find(|id| !benchmarks.contains_key(*id))
    {
        return Err(Error::invalid(
            origin,
            format!(
                "`{}` is unsplit but has no counts",
                crate::text::terminal(id)
            ),
        ));
    }
    Ok(process)
}

/// Writes a results file atomically.
pub fn write(path: &Path, results: &Results) -> Result<()> {
    formats::write_json_atomic(path, &ResultsFile::new(results))
}

/// Merges the results of several shards, each named by its origin (a path) for error messages.
///
/// A benchmark id may appear in one shard only, and the shards must have been taken in the same
/// environment and at the same commit; the merged fingerprint carries the latest date. The merged
/// run covers the whole suite if any shard did, else every shard's filters.
pub fn merge(parts: Vec<(String, Results)>) -> Result<Results> {
    check_shards(&parts)?;
    let mut parts = parts.into_iter();
    let Some((first_origin, mut merged)) = parts.next() else {
        return Err(Error::Tool("nothing to merge: no results given".to_owned()));
    };
    let mut origins = Origins::default();
    for id in merged.benchmarks.keys() {
        origins.insert(id, first_origin.clone())?;
    }
    for (origin, part) in parts {
        if merged.fingerprint.commit != part.fingerprint.commit {
            return Err(Error::invalid(
                &origin,
                format!(
                    "cannot merge with {first_origin}: taken at another commit (`{}` there, `{}` \
                     here): every shard must measure the same code",
                    crate::text::terminal(&merged.fingerprint.commit),
                    crate::text::terminal(&part.fingerprint.commit)
                ),
            ));
        }
        let differences = fingerprint::mismatches(&merged.fingerprint, &part.fingerprint);
        if let Some(difference) = differences.first() {
            return Err(Error::invalid(
                &origin,
                format!(
                    "cannot merge with {first_origin}: taken in a different environment \
                     ({}: `{}` there, `{}` here)",
                    difference.field, difference.baseline, difference.current
                ),
            ));
        }
        if merged.features != part.features {
            return Err(Error::invalid(
                &origin,
                format!(
                    "cannot merge with {first_origin}: built with other cargo features ({:?} \
                     there, {:?} here)",
                    merged.features, part.features
                ),
            ));
        }
        merged.fingerprint.date = merged.fingerprint.date.max(part.fingerprint.date);
        for suite in part.suites {
            if !merged.suites.contains(&suite) {
                merged.suites.push(suite);
            }
        }
        if merged.filters.is_empty() || part.filters.is_empty() {
            merged.filters.clear();
        } else {
            merged.filters.extend(part.filters);
        }
        for (id, counts) in part.benchmarks {
            origins.insert(&id, origin.clone())?;
            merged.benchmarks.insert(id, counts);
        }
        merged.durations_ms.extend(part.durations_ms);
        merged.process.extend(part.process);
        merged.carried.extend(part.carried);
        merged.carried.sort();
    }
    merged.shard = None;
    Ok(merged)
}

/// Refuses shards that do not make one whole run: shards of different N, a shard given twice, or
/// a shard missing (named). Parts without a shard (a whole run, summaries) may come with them.
fn check_shards(parts: &[(String, Results)]) -> Result<()> {
    let shards: Vec<(&str, Part)> = parts
        .iter()
        .filter_map(|(origin, results)| Some((origin.as_str(), results.shard?)))
        .collect();
    let Some(&(first_origin, first)) = shards.first() else {
        return Ok(());
    };
    let n = first.count.get();
    let mut seen: BTreeMap<usize, &str> = BTreeMap::new();
    for &(origin, part) in &shards {
        if part.count != first.count {
            return Err(Error::invalid(
                origin,
                format!(
                    "cannot merge with {first_origin}: shard {part} of {} shards, there {first} \
                     of {n}: every shard must split the run alike",
                    part.count
                ),
            ));
        }
        if let Some(other) = seen.insert(part.index.get(), origin) {
            return Err(Error::invalid(
                origin,
                format!("shard {part} is given twice: here and in {other}"),
            ));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::Tool(format!(
        "cannot merge {} of {n} shards: {} missing ({}): give every shard's results, or the run \
         is not whole",
        shards.len(),
        crate::text::plural(missing.len(), "shard"),
        missing.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(ids: &[&str], filter: &str) -> Results {
        Results {
            fingerprint: Fingerprint {
                rustc: "1.95.0".into(),
                commit: "abc".into(),
                date: "2026-01-01T00:00:00Z".into(),
                ..Fingerprint::default()
            },
            suites: vec!["p/b".to_owned()],
            features: Vec::new(),
            filters: vec![filter.to_owned()],
            benchmarks: ids
                .iter()
                .map(|id| (id.to_string(), Counts::from([("Ir".to_owned(), 1)])))
                .collect(),
            durations_ms: Default::default(),
            carried: Vec::new(),
            shard: None,
            process: Default::default(),
        }
    }

    #[test]
    fn merges_disjoint_shards() {
        let mut second = shard(&["b::y"], "b::*");
        second.fingerprint.date = "2026-01-02T00:00:00Z".into();
        let merged = merge(vec![
            ("one".into(), shard(&["a::x"], "a::*")),
            ("two".into(), second),
        ])
        .unwrap();
        assert_eq!(merged.benchmarks.len(), 2);
        assert_eq!(merged.filters, ["a::*", "b::*"]);
        assert_eq!(merged.fingerprint.date, "2026-01-02T00:00:00Z");
    }

    #[test]
    fn refuses_duplicates_and_other_environments() {
        let error = merge(vec![
            ("one".into(), shard(&["a::x"], "")),
            ("two".into(), shard(&["a::x"], "")),
        ])
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "duplicate benchmark id `a::x`: in one and in two"
        );
        let mut other = shard(&["b::y"], "");
        other.fingerprint.rustc = "1.94.0".into();
        let error = merge(vec![
            ("one".into(), shard(&["a::x"], "")),
            ("two".into(), other),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("rustc: `1.95.0` there, `1.94.0` here"),
            "{error}"
        );
        let mut featured = shard(&["b::y"], "");
        featured.features = vec!["slow".to_owned()];
        let error = merge(vec![
            ("one".into(), shard(&["a::x"], "")),
            ("two".into(), featured),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("built with other cargo features ([] there, [\"slow\"] here)"),
            "{error}"
        );
        let mut later = shard(&["b::y"], "");
        later.fingerprint.commit = "def".into();
        let error = merge(vec![
            ("one".into(), shard(&["a::x"], "")),
            ("two".into(), later),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("taken at another commit (`abc` there, `def` here)")
                && !error.contains("environment"),
            "{error}"
        );
    }

    fn of(ids: &[&str], part: &str) -> Results {
        Results {
            shard: Some(part.parse().unwrap()),
            ..shard(ids, "")
        }
    }

    #[test]
    fn shards_merge_only_as_a_whole_set() {
        let merged = merge(vec![
            ("one".into(), of(&["a::x"], "1/2")),
            ("two".into(), of(&["b::y"], "2/2")),
        ])
        .unwrap();
        assert_eq!((merged.benchmarks.len(), merged.shard), (2, None));
        let error = merge(vec![
            ("one".into(), of(&["a::x"], "1/4")),
            ("three".into(), of(&["b::y"], "3/4")),
        ])
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            "cannot merge 2 of 4 shards: 2 shards missing (2/4, 4/4): give every shard's \
             results, or the run is not whole"
        );
        let error = merge(vec![("one".into(), of(&["a::x"], "1/2"))])
            .unwrap_err()
            .to_string();
        assert!(error.contains("1 shard missing (2/2)"), "{error}");
        let error = merge(vec![
            ("one".into(), of(&["a::x"], "1/2")),
            ("again".into(), of(&["b::y"], "1/2")),
        ])
        .unwrap_err()
        .to_string();
        assert_eq!(error, "again: shard 1/2 is given twice: here and in one");
        let error = merge(vec![
            ("one".into(), of(&["a::x"], "1/2")),
            ("other".into(), of(&["b::y"], "2/3")),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            error
                .starts_with("other: cannot merge with one: shard 2/3 of 3 shards, there 1/2 of 2"),
            "{error}"
        );
        // A whole run (or summaries) may come with a whole set of shards.
        let merged = merge(vec![
            ("one".into(), of(&["a::x"], "1/1")),
            ("whole".into(), shard(&["c::z"], "")),
        ])
        .unwrap();
        assert_eq!(merged.benchmarks.len(), 2);
    }

    #[test]
    fn the_shard_round_trips_and_a_bad_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        write(&path, &of(&["a::x"], "2/3")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"shard\": \"2/3\""), "{text}");
        assert_eq!(read(&path).unwrap().shard, Some("2/3".parse().unwrap()));
        std::fs::write(&path, text.replace("\"2/3\"", "\"4/3\"")).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(error.contains("K must be from 1 to N"), "{error}");
    }

    #[test]
    fn round_trips_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut results = shard(&["a::x", "b::y"], "");
        write(&path, &results).unwrap();
        assert_eq!(read(&path).unwrap(), results);
        assert!(
            !std::fs::read_to_string(&path).unwrap().contains("features"),
            "a run without features writes the file as before"
        );
        results.features = vec!["inject-slowdown".to_owned()];
        results.durations_ms = BTreeMap::from([("a::x".to_owned(), 412)]);
        write(&path, &results).unwrap();
        assert_eq!(read(&path).unwrap(), results);
    }

    #[test]
    fn durations_merge_with_their_shards_and_keep_only_their_benchmarks() {
        let mut one = shard(&["a::x"], "");
        one.durations_ms = BTreeMap::from([("a::x".to_owned(), 400)]);
        let mut two = shard(&["b::y"], "");
        two.durations_ms = BTreeMap::from([("b::y".to_owned(), 900)]);
        let merged = merge(vec![("one".into(), one), ("two".into(), two)]).unwrap();
        assert_eq!(
            merged.durations_ms,
            BTreeMap::from([("a::x".to_owned(), 400), ("b::y".to_owned(), 900)])
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        write(&path, &merged).unwrap();
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("\"b::y\": 900", "\"c::\\u001b[2J\": 900");
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            read(&path).unwrap().durations_ms,
            BTreeMap::from([("a::x".to_owned(), 400)])
        );
    }

    #[test]
    fn reads_schema_2_without_durations() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        write(&path, &shard(&["a::x"], "")).unwrap();
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("\"schema_version\": 3", "\"schema_version\": 2");
        std::fs::write(&path, text).unwrap();
        let read = read(&path).unwrap();
        assert!(read.durations_ms.is_empty());
        assert_eq!(read.benchmarks.len(), 1);
    }
}

#[cfg(test)]
mod process_tests {
    use super::*;

    #[test]
    fn a_binary_benchmarks_whole_process_round_trips_and_a_stray_entry_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut results = Results::default();
        results.benchmarks.insert(
            "cli::tool/run".to_owned(),
            Counts::from([("Ir".to_owned(), 4_085)]),
        );
        results
            .benchmarks
            .insert("lib::f/x".to_owned(), Counts::from([("Ir".to_owned(), 9)]));
        results.process.whole.insert(
            "cli::tool/run".to_owned(),
            Counts::from([("Ir".to_owned(), 307_417)]),
        );
        write(&path, &results).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\"process\"") && !text.contains("unsplit"),
            "{text}"
        );
        assert_eq!(read(&path).unwrap(), results);
        // A file without them (a library suite, or written before the split) reads as before.
        results.process = Processes::default();
        write(&path, &results).unwrap();
        assert!(!std::fs::read_to_string(&path).unwrap().contains("process"));
        assert_eq!(read(&path).unwrap().process, Processes::default());
        // A whole count of a benchmark without counts, or of a metric it has no count of.
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for (field, stray, says) in [
            (
                "process",
                r#"{"gone::x/y": {"Ir": 1}}"#,
                "has a whole-process count but no counts",
            ),
            (
                "process",
                r#"{"lib::f/x": {"Dr": 1}}"#,
                "but no program count of it",
            ),
            (
                "unsplit",
                r#"{"gone::x/y": "why"}"#,
                "is unsplit but has no counts",
            ),
        ] {
            let mut broken = json.clone();
            broken[field] = serde_json::from_str(stray).unwrap();
            std::fs::write(&path, broken.to_string()).unwrap();
            let error = read(&path).unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        }
    }
}
