use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::formats::baseline::Group;
use crate::model::{Budget, ChangeMap, Counts, Fingerprint, Processes, Whole};

fn counts(ir: u64) -> Counts {
    Counts::from([
        ("Ir".to_owned(), ir),
        ("EstimatedCycles".to_owned(), ir * 3),
    ])
}

fn baselines(entries: &[(&str, u64)]) -> Baselines {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for (id, ir) in entries {
        groups
            .entry(crate::formats::baseline::group_of(id).to_owned())
            .or_insert_with(|| Group {
                fingerprint: Fingerprint::default(),
                benchmarks: BTreeMap::new(),
                process: Default::default(),
            })
            .benchmarks
            .insert(id.to_string(), counts(*ir));
    }
    Baselines {
        dir: PathBuf::from("baselines"),
        groups,
    }
}

fn results(entries: &[(&str, u64)]) -> Results {
    Results {
        benchmarks: entries
            .iter()
            .map(|(id, ir)| (id.to_string(), counts(*ir)))
            .collect(),
        ..Results::default()
    }
}

/// "+1% and at least +50 Ir".
fn plus_one_pct_or_50() -> Config {
    config("[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }")
}

fn config(text: &str) -> Config {
    Config::parse(text, Path::new("gate.toml")).unwrap()
}

fn compare(results: &Results, baselines: &Baselines, config: &Config, policy: Policy) -> Report {
    judge(&Judgement {
        results,
        baselines,
        config,
        policy,
        mode: &Mode::Baselines,
        anchor: None,
        change: None,
    })
    .unwrap()
}

fn statuses(report: &Report) -> Vec<(&str, &str, Status, bool)> {
    report
        .rows
        .iter()
        .map(|r| (r.benchmark.as_str(), r.metric.as_str(), r.status, r.fails))
        .collect()
}

#[test]
fn a_nondeterministic_build_is_never_budgeted_undecided_unless_info() {
    let text =
        "[budgets]\nIr = { absolute = 5000 }\n\n[[nondeterministic]]\nbenchmarks = [\"nd::*\"]\n";
    let judged = |text: &str, run: &[(&str, u64)]| {
        judge(&Judgement {
            results: &results(run),
            baselines: &baselines(&[("nd::random", 100), ("a::fixed", 100)]),
            config: &config(text),
            policy: Policy::default(),
            mode: &Mode::Baselines,
            anchor: None,
            change: None,
        })
        .unwrap()
    };
    // Within a budget of 5,000 Ir, yet a move of 1 Ir is undecided: no budget holds it.
    let report = judged(text, &[("nd::random", 101), ("a::fixed", 100)]);
    assert_eq!(
        statuses(&report),
        [
            ("nd::random", "Ir", Status::Nondeterministic, false),
            ("a::fixed", "Ir", Status::Ok, false),
        ]
    );
    assert!(
        matches!(&report.outcome, Outcome::Undecided { reason } if reason.contains("1 benchmark moved whose build is not reproducible (nd::random")),
        "{:?}",
        report.outcome
    );
    // The same count passes; a failure elsewhere decides.
    let same = judged(text, &[("nd::random", 100), ("a::fixed", 100)]);
    assert_eq!(same.outcome, Outcome::Passed);
    let failed = judged(text, &[("nd::random", 90), ("a::fixed", 6000)]);
    assert_eq!(failed.outcome, Outcome::Failed { count: 1 });
    // Marked `info`: shown, never gated.
    let info = judged(
        &text.replace("\"nd::*\"]\n", "\"nd::*\"]\ninfo = true\n"),
        &[("nd::random", 9000), ("a::fixed", 100)],
    );
    assert_eq!(info.outcome, Outcome::Passed);
    let row = info
        .rows
        .iter()
        .find(|r| r.benchmark == "nd::random")
        .unwrap();
    assert_eq!((row.status, row.limit), (Status::Info, None));
}

#[test]
fn an_untouched_benchmark_is_held_to_the_layout_budget_and_a_touched_one_to_its_own() {
    // Budget +1 Ir; layout budget 16 Ir (the default).
    let config = config("[budgets]\nIr = { absolute = 1 }");
    let ids = [
        "a::touched",
        "a::layout",
        "a::beyond",
        "a::faster",
        "a::unmapped",
    ];
    let base = baselines(&ids.map(|id| (id, 100)));
    let run = results(&[
        ("a::touched", 110),
        ("a::layout", 110),
        ("a::beyond", 117),
        ("a::faster", 90),
        ("a::unmapped", 110),
    ]);
    let mapped = Mapped {
        map: ChangeMap {
            base: "b".into(),
            ..ChangeMap::default()
        },
        touch: BTreeMap::from([
            ("a::touched".into(), Touch::Runs { functions: vec![0] }),
            ("a::layout".into(), Touch::Untouched),
            ("a::beyond".into(), Touch::Untouched),
            ("a::faster".into(), Touch::Untouched),
        ]),
    };
    let report = judge(&Judgement {
        results: &run,
        baselines: &base,
        config: &config,
        policy: Policy {
            strict: true,
            ..Policy::default()
        },
        mode: &Mode::Baselines,
        anchor: None,
        change: Some(&mapped),
    })
    .unwrap();
    assert_eq!(
        statuses(&report),
        [
            ("a::touched", "Ir", Status::OverBudget, true),
            ("a::unmapped", "Ir", Status::OverBudget, true),
            ("a::faster", "Ir", Status::Layout, false),
            ("a::layout", "Ir", Status::Layout, false),
            ("a::beyond", "Ir", Status::Unexplained, false),
        ]
    );
    // A failure decides; without one, an unexplained move leaves the gate undecided.
    assert_eq!(report.outcome, Outcome::Failed { count: 2 });
    let alone = judge(&Judgement {
        results: &results(&[("a::beyond", 117)]),
        baselines: &baselines(&[("a::beyond", 100)]),
        config: &config,
        policy: Policy::default(),
        mode: &Mode::Baselines,
        anchor: None,
        change: Some(&mapped),
    })
    .unwrap();
    assert!(
        matches!(&alone.outcome, Outcome::Undecided { reason } if reason.contains("a::beyond") && reason.contains("address budget")),
        "{:?}",
        alone.outcome
    );
    // The net names what it may have caught first, and never advises widening itself: calibration
    // sets `[layout]` above every move of addresses it measured.
    let Outcome::Undecided { reason } = &alone.outcome else {
        unreachable!()
    };
    let blind = reason
        .find("a possible selection blind spot")
        .expect(reason);
    assert!(blind < reason.find("environment").unwrap(), "{reason}");
    assert!(!reason.contains("raise it"), "{reason}");
    let unmapped = report.rows.iter().find(|r| r.benchmark == "a::unmapped");
    assert!(matches!(
        unmapped.and_then(|r| r.touch.as_ref()),
        Some(Touch::Unrecorded { .. })
    ));
    assert_eq!(report.change.as_ref().map(|c| c.base.as_str()), Some("b"));
    assert_eq!(report.touched_count(), 2);
    // Without a change map, the same run fails the two untouched ones that moved up.
    let whole = compare(&run, &base, &config, Policy::default());
    assert_eq!(whole.outcome, Outcome::Failed { count: 4 });
    assert!(whole.rows.iter().all(|r| r.touch.is_none()));
}

#[test]
fn budgets_decide_each_row_and_worst_comes_first() {
    let base = baselines(&[
        ("a::big", 100_000),
        ("a::small", 1_000),
        ("a::better", 100_000),
    ]);
    let run = results(&[
        ("a::big", 101_001),
        ("a::small", 1_050),
        ("a::better", 98_000),
    ]);
    let report = compare(&run, &base, &plus_one_pct_or_50(), Policy::default());
    assert_eq!(
        statuses(&report),
        [
            ("a::big", "Ir", Status::OverBudget, true),
            ("a::better", "Ir", Status::Stale, false),
            ("a::small", "Ir", Status::Ok, false),
        ]
    );
    assert_eq!(report.outcome, Outcome::Failed { count: 1 });
    assert_eq!(
        report.rows[0].limit,
        Some(Budget {
            relative_pct: 1.0,
            absolute: 50
        })
    );

    let strict = Policy {
        strict: true,
        ..Policy::default()
    };
    let report = compare(&run, &base, &plus_one_pct_or_50(), strict);
    assert_eq!(report.outcome, Outcome::Failed { count: 2 });
}

#[test]
fn new_fails_closed_and_vanished_is_listed() {
    let base = baselines(&[("a::kept", 10), ("a::gone", 10)]);
    let run = results(&[("a::kept", 10), ("a::added", 10)]);
    let report = compare(&run, &base, &plus_one_pct_or_50(), Policy::default());
    assert_eq!(
        statuses(&report),
        [
            ("a::added", "Ir", Status::New, true),
            ("a::gone", "Ir", Status::Vanished, false),
            ("a::kept", "Ir", Status::Ok, false),
        ]
    );
    assert_eq!(report.outcome, Outcome::Failed { count: 1 });
    let allow = Policy {
        allow_new: true,
        ..Policy::default()
    };
    assert_eq!(
        compare(&run, &base, &plus_one_pct_or_50(), allow).outcome,
        Outcome::Passed
    );
}

#[test]
fn baselines_outside_the_run_filter_are_not_vanished() {
    let base = baselines(&[("a::x", 10), ("b::y", 10)]);
    let mut run = results(&[("a::x", 10)]);
    run.filters = vec!["a::*".to_owned()];
    let report = compare(&run, &base, &plus_one_pct_or_50(), Policy::default());
    assert_eq!(statuses(&report), [("a::x", "Ir", Status::Ok, false)]);
}

#[test]
fn info_metrics_are_reported_and_opt_in_metrics_gated() {
    let base = baselines(&[("a::x", 1_000)]);
    let run = results(&[("a::x", 1_040)]);
    let info = config(
        "info = [\"EstimatedCycles\"]\n[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }",
    );
    assert_eq!(
        statuses(&compare(&run, &base, &info, Policy::default())),
        [
            ("a::x", "Ir", Status::Ok, false),
            ("a::x", "EstimatedCycles", Status::Info, false)
        ]
    );
    let gated = config("[budgets]\nIr = { absolute = 50 }\nEstimatedCycles = { absolute = 50 }");
    let report = compare(&run, &base, &gated, Policy::default());
    assert_eq!(
        statuses(&report),
        [
            ("a::x", "EstimatedCycles", Status::OverBudget, true),
            ("a::x", "Ir", Status::Ok, false)
        ]
    );
}

#[test]
fn an_environment_mismatch_names_the_field() {
    let mut base = baselines(&[("a::x", 10)]);
    base.groups.get_mut("a").unwrap().fingerprint.valgrind = "valgrind-3.24.0".into();
    let mut run = results(&[("a::x", 100)]);
    run.fingerprint.valgrind = "valgrind-3.19.0".into();
    let report = compare(&run, &base, &plus_one_pct_or_50(), Policy::default());
    let Outcome::Undecided { reason } = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert!(reason.contains("valgrind (baseline `valgrind-3.24.0`, this run `valgrind-3.19.0`)"));
    assert_eq!(report.env_mismatches.len(), 1);
    let warn = Policy {
        on_env_mismatch: EnvPolicy::Warn,
        ..Policy::default()
    };
    let report = compare(&run, &base, &plus_one_pct_or_50(), warn);
    assert!(matches!(report.outcome, Outcome::NoVerdict { .. }));
    assert_eq!(report.outcome.exit_code(), 0);
    assert_eq!(report.rows[0].status, Status::OverBudget);
}

#[test]
fn a_gated_cache_metric_needs_the_same_path_and_environment() {
    let mut base = baselines(&[("a::x", 1_000)]);
    base.groups.get_mut("a").unwrap().fingerprint.workspace_root = "/irgate".into();
    let mut run = results(&[("a::x", 1_000)]);
    run.fingerprint.workspace_root = "/home/me/src/project".into();
    // Ir alone: the path is informational.
    let report = compare(&run, &base, &plus_one_pct_or_50(), Policy::default());
    assert_eq!(report.outcome, Outcome::Passed);
    // EstimatedCycles gated: the same counts at another path do not compare.
    let gated = config("[budgets]\nIr = { absolute = 50 }\nEstimatedCycles = { absolute = 50 }");
    let report = compare(&run, &base, &gated, Policy::default());
    let Outcome::Undecided { reason } = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert!(
        reason.contains("workspace_root (baseline `/irgate`, this run `/home/me/src/project`)"),
        "{reason}"
    );
    assert!(
        reason.contains("gate.toml gates `EstimatedCycles`"),
        "{reason}"
    );
    // An override gating it elsewhere does not touch a benchmark it does not match.
    let elsewhere = config(
        "[budgets]\nIr = { absolute = 50 }\n[[overrides]]\nbenchmarks = [\"b::*\"]\n\
         budgets.EstimatedCycles = { absolute = 5 }",
    );
    let report = compare(&run, &base, &elsewhere, Policy::default());
    assert_eq!(report.outcome, Outcome::Passed);
    // At the same path it is gated as any count.
    run.fingerprint.workspace_root = "/irgate".into();
    let report = compare(&run, &base, &gated, Policy::default());
    assert_eq!(report.outcome, Outcome::Passed);
}

#[test]
fn a_gated_metric_missing_from_the_run_is_undecided() {
    let base = baselines(&[("a::x", 10)]);
    let mut run = results(&[("a::x", 10)]);
    run.benchmarks
        .get_mut("a::x")
        .unwrap()
        .remove("EstimatedCycles");
    let gated = config("[budgets]\nIr = { absolute = 0 }\nEstimatedCycles = { absolute = 0 }");
    let report = compare(&run, &base, &gated, Policy::default());
    assert!(
        matches!(report.outcome, Outcome::Undecided { .. }),
        "{:?}",
        report.outcome
    );
}

/// A binary benchmark `cli::tool/run` whose program counted `program` Ir of a whole process of
/// `whole` (`EstimatedCycles` kept whole, as a metric callgrind's events would not give).
fn binary(program: u64, whole: u64) -> (Counts, Processes) {
    let mut process = Processes::default();
    process.whole.insert(
        "cli::tool/run".to_owned(),
        Counts::from([("Ir".to_owned(), whole)]),
    );
    let counts = Counts::from([
        ("Ir".to_owned(), program),
        ("EstimatedCycles".to_owned(), whole * 3),
    ]);
    (counts, process)
}

fn binary_results(program: u64, whole: u64) -> Results {
    let (counts, process) = binary(program, whole);
    let mut run = results(&[("lib::f/x", 1_000)]);
    run.benchmarks.insert("cli::tool/run".to_owned(), counts);
    run.process = process;
    run
}

fn binary_baselines(program: u64, whole: u64) -> Baselines {
    let mut base = baselines(&[("lib::f/x", 1_000)]);
    let (counts, process) = binary(program, whole);
    base.groups.insert(
        "cli".to_owned(),
        Group {
            fingerprint: Fingerprint::default(),
            benchmarks: BTreeMap::from([("cli::tool/run".to_owned(), counts)]),
            process,
        },
    );
    base
}

#[test]
fn a_binary_benchmark_is_gated_on_its_program_and_the_start_up_is_information() {
    let zero = config("[budgets]\nIr = { absolute = 0 }");
    let base = binary_baselines(4_085, 307_417);
    // The start-up moved by -2,237 Ir (another layout), the program did not: it passes.
    let report = compare(
        &binary_results(4_085, 305_180),
        &base,
        &zero,
        Policy::default(),
    );
    assert_eq!(report.outcome, Outcome::Passed);
    let process = &report.attribution.processes["cli::tool/run"];
    assert_eq!(process.program, ["Ir"]);
    assert_eq!(
        process.whole["Ir"],
        Whole {
            baseline: Some(307_417),
            new: Some(305_180)
        }
    );
    // The program slower by 200 Ir, the start-up faster by more: it fails.
    let report = compare(
        &binary_results(4_285, 305_380),
        &base,
        &zero,
        Policy::default(),
    );
    assert_eq!(report.outcome, Outcome::Failed { count: 1 });
    assert!(statuses(&report).contains(&("cli::tool/run", "Ir", Status::OverBudget, true)));
    // The library benchmark beside it is judged as before, with nothing said of a process.
    assert!(!report.attribution.processes.contains_key("lib::f/x"));
}

#[test]
fn an_old_baseline_of_a_binary_benchmark_is_compared_whole_and_says_why() {
    let zero = config("[budgets]\nIr = { absolute = 0 }");
    // A baseline taken before the split: the whole process's count, no `process` entry.
    let mut old = baselines(&[("lib::f/x", 1_000)]);
    old.groups.insert(
        "cli".to_owned(),
        Group {
            fingerprint: Fingerprint::default(),
            benchmarks: BTreeMap::from([("cli::tool/run".to_owned(), counts(307_417))]),
            process: Processes::default(),
        },
    );
    let report = compare(
        &binary_results(4_085, 307_417),
        &old,
        &zero,
        Policy::default(),
    );
    // Not "better than budget" by 303,332: the whole counts on both sides, equal.
    assert_eq!(report.outcome, Outcome::Passed);
    let row = report
        .rows
        .iter()
        .find(|r| r.benchmark == "cli::tool/run" && r.metric == "Ir")
        .unwrap();
    assert_eq!((row.baseline, row.new), (Some(307_417), Some(307_417)));
    let process = &report.attribution.processes["cli::tool/run"];
    assert!(process.program.is_empty());
    let reason = process.reason.as_deref().unwrap();
    assert!(
        reason.starts_with("the baseline holds the whole process's count")
            && reason.contains("`irgate refresh`"),
        "{reason}"
    );
    // A whole-process slowdown still fails against it.
    let report = compare(
        &binary_results(4_085, 307_418),
        &old,
        &zero,
        Policy::default(),
    );
    assert_eq!(report.outcome, Outcome::Failed { count: 1 });
    // An unsplit run (no frame of main) is compared whole against a split baseline, with its
    // reason.
    let base = binary_baselines(4_085, 307_417);
    let mut unsplit = results(&[("lib::f/x", 1_000)]);
    unsplit
        .benchmarks
        .insert("cli::tool/run".to_owned(), counts(307_417));
    unsplit
        .process
        .unsplit
        .insert("cli::tool/run".to_owned(), "no frame of main".to_owned());
    let report = compare(&unsplit, &base, &zero, Policy::default());
    assert_eq!(report.outcome, Outcome::Passed);
    let reason = report.attribution.processes["cli::tool/run"].reason.clone();
    assert_eq!(
        reason.as_deref(),
        Some("this run has the whole process's count only: no frame of main")
    );
}
