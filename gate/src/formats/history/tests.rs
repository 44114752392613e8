//! The history's run files: the frozen schema, older versions read, loading and appending.

use super::*;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn results(ir: u64) -> Results {
    Results {
        fingerprint: Fingerprint {
            rustc: "1.95.0".into(),
            commit: COMMIT.into(),
            date: "2026-11-20T10:00:00Z".into(),
            ..Fingerprint::default()
        },
        suites: vec!["benches/callgrind".into()],
        features: Vec::new(),
        filters: Vec::new(),
        benchmarks: BTreeMap::from([(
            "frame::encode/b512".to_owned(),
            Counts::from([("Ir".to_owned(), ir)]),
        )]),
        durations_ms: Default::default(),
        carried: Vec::new(),
        shard: None,
        process: Default::default(),
    }
}

/// The schema, frozen: a change here is a new schema version. The results file is embedded
/// as it is written (schema version 2 copied its fields; 1 dropped the features).
#[test]
fn the_run_file_schema_is_frozen() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_features = results(1983);
    with_features.features = vec!["inject-slowdown".into()];
    let mut run = Run::from_results(with_features, None, true, "r").unwrap();
    run.bisection = Some(Bisected {
        good: "f".repeat(40),
        moves: vec![Found {
            benchmark: "frame::encode/b512".into(),
            commit: "c".repeat(40),
            subject: "frame: a loop".into(),
            before: None,
            after: Some(1983),
            functions: vec!["demo::frame::encode".into()],
        }],
        undecided: vec![Open {
            benchmark: "frame::encode/b32".into(),
            after: "a".repeat(40),
            through: "b".repeat(40),
        }],
    });
    run.unexplained = vec![Unexplained {
        benchmark: "varint::decode/v1".into(),
        baseline: Some(41),
        new: Some(48),
    }];
    let Appended::Added(path) = append(dir.path(), &run).unwrap() else {
        panic!("not added")
    };
    assert_eq!(
        path.strip_prefix(dir.path()).unwrap(),
        Path::new("runs/20261120T100000Z-0123456789abcdef0123456789abcdef01234567.json")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut fingerprint = serde_json::to_value(Fingerprint::default()).unwrap();
    fingerprint["rustc"] = "1.95.0".into();
    fingerprint["commit"] = COMMIT.into();
    fingerprint["date"] = "2026-11-20T10:00:00Z".into();
    assert_eq!(
        value,
        serde_json::json!({
            "schema_version": 4,
            "commit": COMMIT,
            "date": "2026-11-20T10:00:00Z",
            "refreshed": true,
            "results": {
                "schema_version": 3,
                "fingerprint": fingerprint,
                "suites": ["benches/callgrind"],
                "filters": [],
                "features": ["inject-slowdown"],
                "benchmarks": { "frame::encode/b512": { "Ir": 1983 } }
            },
            "bisection": {
                "good": "f".repeat(40),
                "moves": [{
                    "benchmark": "frame::encode/b512",
                    "commit": "c".repeat(40),
                    "subject": "frame: a loop",
                    "before": null,
                    "after": 1983,
                    "functions": ["demo::frame::encode"]
                }],
                "undecided": [{
                    "benchmark": "frame::encode/b32",
                    "after": "a".repeat(40),
                    "through": "b".repeat(40)
                }]
            },
            "unexplained": [{ "benchmark": "varint::decode/v1", "baseline": 41, "new": 48 }]
        })
    );
    assert_eq!(load(dir.path()).unwrap(), [run.clone()]);
    // Without them, both are absent; version 3 is that file.
    run.bisection = None;
    run.unexplained.clear();
    std::fs::remove_file(&path).unwrap();
    append(dir.path(), &run).unwrap();
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["commit", "date", "refreshed", "results", "schema_version"]
    );
    value["schema_version"] = 3.into();
    std::fs::write(&path, value.to_string()).unwrap();
    assert_eq!(load(dir.path()).unwrap(), [run.clone()]);
    // A bisection read back is checked as when it was added.
    value["schema_version"] = 4.into();
    value["bisection"] = serde_json::json!({"good": "x", "moves": []});
    std::fs::write(&path, value.to_string()).unwrap();
    let error = load(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("bisection: good: \"x\" is not a full commit hash"),
        "{error}"
    );
}

/// Run files of schema version 1 (no `features`, no `build` in the fingerprint) and 2 (the
/// results' fields copied beside the run's) still read.
#[test]
fn reads_schema_versions_1_and_2() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_features = results(7);
    with_features.features = vec!["f".into()];
    let run = Run::from_results(with_features, None, false, "r").unwrap();
    let Appended::Added(path) = append(dir.path(), &run).unwrap() else {
        panic!("not added")
    };
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // Version 2: the results' fields beside the run's.
    let mut copied = value["results"].clone();
    for key in ["schema_version", "commit", "date", "refreshed"] {
        copied[key] = value[key].clone();
    }
    copied["schema_version"] = 2.into();
    std::fs::write(&path, copied.to_string()).unwrap();
    let [read] = load(dir.path()).unwrap().try_into().unwrap();
    assert_eq!(read, run);
    // Version 1: no features, no build.
    copied["schema_version"] = 1.into();
    copied.as_object_mut().unwrap().remove("features");
    copied["fingerprint"]
        .as_object_mut()
        .unwrap()
        .remove("build");
    std::fs::write(&path, copied.to_string()).unwrap();
    let [read] = load(dir.path()).unwrap().try_into().unwrap();
    assert_eq!(read.results.benchmarks, run.results.benchmarks);
    assert!(read.results.features.is_empty());
    assert_eq!(
        read.results.fingerprint.build,
        crate::model::BUILD_UNRECORDED
    );
    // An embedded results file of a version this irgate does not read is refused.
    let mut future = value.clone();
    future["results"]["schema_version"] = 9.into();
    std::fs::write(&path, future.to_string()).unwrap();
    let error = load(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("results: unsupported schema_version 9"),
        "{error}"
    );
}

/// Runs are read oldest first, whatever order they were added in: by date in UTC (the file
/// name's), then by commit.
#[test]
fn runs_load_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let at = |date: &str, commit: char| {
        let mut results = results(1);
        results.fingerprint.date = date.into();
        results.fingerprint.commit = commit.to_string().repeat(40);
        Run::from_results(results, None, false, "r").unwrap()
    };
    for run in [
        at("2026-11-21T10:00:00Z", 'b'),
        at("2026-11-20T10:00:00+02:00", 'c'),
        at("2026-11-20T08:00:00Z", 'a'),
        at("2026-11-19T23:59:59Z", 'f'),
    ] {
        append(dir.path(), &run).unwrap();
    }
    let order: Vec<(String, char)> = load(dir.path())
        .unwrap()
        .iter()
        .map(|run| (run.stamp(), run.commit.chars().next().unwrap()))
        .collect();
    assert_eq!(
        order,
        [
            ("20261119T235959Z".to_owned(), 'f'),
            ("20261120T080000Z".to_owned(), 'a'),
            ("20261120T080000Z".to_owned(), 'c'),
            ("20261121T100000Z".to_owned(), 'b'),
        ]
    );
}

#[test]
fn appending_never_replaces_an_entry() {
    let dir = tempfile::tempdir().unwrap();
    let run = Run::from_results(results(10), None, false, "r").unwrap();
    assert!(matches!(
        append(dir.path(), &run).unwrap(),
        Appended::Added(_)
    ));
    assert!(matches!(
        append(dir.path(), &run).unwrap(),
        Appended::AlreadyThere(_)
    ));
    let other = Run::from_results(results(11), None, false, "r").unwrap();
    let error = append(dir.path(), &other).unwrap_err().to_string();
    assert!(error.contains("never replaces an entry"), "{error}");
    assert_eq!(load(dir.path()).unwrap(), [run]);
}

#[test]
fn refuses_dirty_or_short_commits_and_bad_files() {
    let mut dirty = results(1);
    dirty.fingerprint.commit = format!("{COMMIT}-dirty");
    let error = Run::from_results(dirty, None, false, "r.json").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("r.json: taken with uncommitted")
    );
    let error = Run::from_results(results(1), Some("../../x"), false, "r.json").unwrap_err();
    assert!(
        error.to_string().contains("not a full commit hash"),
        "{error}"
    );

    let dir = tempfile::tempdir().unwrap();
    let run = Run::from_results(results(1), None, false, "r").unwrap();
    let Appended::Added(path) = append(dir.path(), &run).unwrap() else {
        panic!()
    };
    let renamed = path.with_file_name("20250101T000000Z-x.json");
    std::fs::rename(&path, &renamed).unwrap();
    let error = load(dir.path()).unwrap_err().to_string();
    assert!(error.contains("is named `20261120T100000Z-0123"), "{error}");
    std::fs::write(
        &renamed,
        std::fs::read_to_string(&renamed)
            .unwrap()
            .replace("frame::encode/b512", "../escape"),
    )
    .unwrap();
    let error = load(dir.path()).unwrap_err().to_string();
    assert!(error.contains("invalid benchmark id"), "{error}");
}
