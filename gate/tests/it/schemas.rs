//! The files irgate writes for other runs and other programs to read are contracts: the results of
//! a run, the committed baselines and the JSON report. Each test writes one fixed value through
//! the real writer and freezes the text; a change to a format shows here, on purpose, with its
//! schema version.

use std::collections::BTreeMap;

use irgate::formats;
use irgate::formats::baseline::{Baselines, Group, GroupUpdate, write_updates};
use irgate::formats::results;
use irgate::model::{
    BUILD_UNRECORDED, Budget, Counts, Fingerprint, Outcome, Report, Results, Row, Status,
};

use crate::harness::fingerprint;

fn counts(ir: u64) -> Counts {
    Counts::from([
        ("Ir".to_owned(), ir),
        ("EstimatedCycles".to_owned(), ir * 3),
    ])
}

#[test]
fn the_results_file_is_frozen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    let run = Results {
        fingerprint: fingerprint(),
        suites: vec!["benches/callgrind".into()],
        features: vec!["inject-slowdown".into()],
        filters: vec!["frame::*".into()],
        benchmarks: BTreeMap::from([("frame::decode/b32".to_owned(), counts(47))]),
        durations_ms: Default::default(),
        carried: Vec::new(),
        shard: None,
        process: Default::default(),
    };
    results::write(&path, &run).unwrap();
    insta::assert_snapshot!(std::fs::read_to_string(&path).unwrap());
    assert_eq!(results::read(&path).unwrap(), run);
}

#[test]
fn the_baseline_file_is_frozen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frame.json");
    let group = Group {
        fingerprint: fingerprint(),
        benchmarks: BTreeMap::from([("frame::decode/b32".to_owned(), counts(47))]),
        process: Default::default(),
    };
    write_updates(&[GroupUpdate {
        path: path.clone(),
        group: Some(group.clone()),
        changes: Vec::new(),
        unchanged: 0,
        write: true,
    }])
    .unwrap();
    insta::assert_snapshot!(std::fs::read_to_string(&path).unwrap());
    let loaded = Baselines::load(dir.path()).unwrap();
    assert_eq!(
        loaded.get("frame::decode/b32"),
        Some((&group.benchmarks["frame::decode/b32"], &group.fingerprint))
    );
}

#[test]
fn the_json_report_is_frozen() {
    let report = Report {
        outcome: Outcome::Failed { count: 1 },
        rows: vec![
            Row {
                benchmark: "frame::decode/b32".into(),
                metric: "Ir".into(),
                baseline: Some(47),
                new: Some(57),
                limit: Some(Budget {
                    relative_pct: 1.0,
                    absolute: 5,
                }),
                status: Status::OverBudget,
                fails: true,
                since: None,
                accepted: None,
                touch: None,
            },
            Row {
                benchmark: "frame::decode/b64".into(),
                metric: "Ir".into(),
                baseline: Some(47),
                new: Some(57),
                limit: Some(Budget {
                    relative_pct: 1.0,
                    absolute: 5,
                }),
                status: Status::Accepted,
                fails: false,
                since: None,
                accepted: Some(irgate::model::Accepted {
                    reason: "checksums (#42)".into(),
                    until: "until 2026-12-31".into(),
                    origin: "gate.toml:20".into(),
                }),
                touch: None,
            },
        ],
        fingerprint: fingerprint(),
        env_mismatches: Vec::new(),
        attribution: Default::default(),
        mode: Default::default(),
        change: None,
        carried: Vec::new(),
    };
    let text = formats::report::render(&report);
    insta::assert_snapshot!(text);
    assert_eq!(
        formats::report::parse(&text, "report.json").unwrap(),
        report
    );
}

/// A report of schema version 3 wrote the `[[accept]]` entry on each accepted row: it still reads.
#[test]
fn a_json_report_of_schema_version_3_reads_its_rows_accepted_entries() {
    let accepted = irgate::model::Accepted {
        reason: "checksums (#42)".into(),
        until: "until 2026-12-31".into(),
        origin: "gate.toml:20".into(),
    };
    let mut report = Report::undecided("why".to_owned());
    report.outcome = Outcome::Passed;
    report.rows.push(irgate::model::Row {
        benchmark: "frame::decode/b64".into(),
        metric: "Ir".into(),
        baseline: Some(47),
        new: Some(57),
        limit: None,
        status: Status::Accepted,
        fails: false,
        since: None,
        accepted: Some(accepted.clone()),
        touch: None,
    });
    let mut value: serde_json::Value =
        serde_json::from_str(&formats::report::render(&report)).unwrap();
    value["schema_version"] = 3.into();
    let entry = value.as_object_mut().unwrap().remove("accepts").unwrap()[0].clone();
    let row = value["rows"][0].as_object_mut().unwrap();
    row.remove("accept");
    row.insert("accepted".into(), entry);
    let read = formats::report::parse(&value.to_string(), "old.json").unwrap();
    assert_eq!(read.rows[0].accepted.as_ref(), Some(&accepted));
    // In version 4, an index naming no entry is refused.
    value["schema_version"] = 4.into();
    let row = value["rows"][0].as_object_mut().unwrap();
    row.remove("accepted");
    row.insert("accept".into(), 3.into());
    let error = formats::report::parse(&value.to_string(), "new.json")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`accept` 3 names no entry of `accepts`"),
        "{error}"
    );
}

/// The fingerprint of `fingerprint()` as schema version 1 wrote it: without `build`.
fn version_1_fingerprint() -> serde_json::Value {
    let mut value = serde_json::to_value(fingerprint()).unwrap();
    value.as_object_mut().unwrap().remove("build");
    value
}

#[test]
fn files_of_schema_version_1_still_read_with_their_build_unrecorded() {
    let dir = tempfile::tempdir().unwrap();
    let old = Fingerprint {
        build: BUILD_UNRECORDED.to_owned(),
        ..fingerprint()
    };
    let results_path = dir.path().join("results.json");
    let text = serde_json::json!({
        "schema_version": 1,
        "fingerprint": version_1_fingerprint(),
        "benchmarks": { "frame::decode/b32": { "Ir": 47 } },
    });
    std::fs::write(&results_path, text.to_string()).unwrap();
    assert_eq!(results::read(&results_path).unwrap().fingerprint, old);

    let baselines = dir.path().join("baselines");
    std::fs::create_dir(&baselines).unwrap();
    std::fs::write(baselines.join("frame.json"), text.to_string()).unwrap();
    let loaded = Baselines::load(&baselines).unwrap();
    assert_eq!(loaded.get("frame::decode/b32").unwrap().1, &old);

    let mut future = text.clone();
    future["schema_version"] = 4.into();
    std::fs::write(&results_path, future.to_string()).unwrap();
    let error = results::read(&results_path).unwrap_err().to_string();
    assert!(
        error.contains(
            "unsupported schema_version 4: this irgate reads results files of \
                        schema_version 1 or 2 or 3"
        ),
        "{error}"
    );
}
