//! A/B (`irgate check --base`) and drift triage (`--on-env-mismatch=remeasure`) without valgrind:
//! the comparison with a base side's results, the reports that name their mode, and the triage's
//! refusals before it measures anything. The measuring itself (`irgate run --base`, A/A equality,
//! a slowdown on one side) is proved by scripts/ab-regression.sh.

use irgate::model::{
    Budget, EnvDelta, FieldMismatch, Fingerprint, Mode, Outcome, Report, Row, Status,
};
use serde_json::{Value, json};

use crate::harness::{Sandbox, failing};

/// Results `name` from the fixture summaries `set`, taken at `commit`.
fn results(sandbox: &Sandbox, set: &str, name: &str, commit: &str) {
    sandbox.results(set, name, |r| r["fingerprint"]["commit"] = json!(commit));
}

#[test]
fn check_base_compares_with_the_base_side_and_says_so() {
    let sandbox = Sandbox::new();
    let base_commit = "b".repeat(40);
    results(&sandbox, "base", "results.base.json", &base_commit);

    // A/A: the same counts on both sides pass, even with no slack at all.
    results(&sandbox, "base", "results.json", "head");
    sandbox.write(
        "exact.toml",
        "[budgets]\nIr = { relative_pct = 0.0, absolute = 0 }\n",
    );
    let same = sandbox.irgate(&[
        "check",
        "--base",
        "--results",
        "results.json",
        "--config",
        "exact.toml",
        "--strict",
    ]);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert!(
        same.stdout
            .contains("A/B: compared with the base commit bbbbbbbbbbbb measured in the same job."),
        "{}",
        same.stdout
    );

    // A/B: a slowdown on the head side fails exactly the benchmarks it slows.
    results(&sandbox, "slowdown", "results.json", "head");
    let slow = sandbox.irgate(&[
        "check",
        "--base",
        "--results",
        "results.json",
        "--format",
        "json",
    ]);
    assert_eq!(slow.code, 1, "{}", slow.stderr);
    let report: Value = serde_json::from_str(&slow.stdout).unwrap();
    assert_eq!(report["mode"], json!({"kind": "ab", "commit": base_commit}));
    let mut failed = failing(&slow.stdout);
    failed.sort();
    assert!(
        !failed.is_empty() && failed.iter().all(|id| id.starts_with("filter::scan/")),
        "{failed:?}"
    );
    let markdown = sandbox.irgate(&[
        "check",
        "--base",
        "--results",
        "results.json",
        "--format",
        "markdown",
    ]);
    assert!(
        markdown.stdout.contains(
            "compared with the base commit `bbbbbbbbbbbb` measured in the same job (A/B)."
        ),
        "{}",
        markdown.stdout
    );

    // Without --base, the same results go against baselines/ (here: none), never the base side.
    let baselines = sandbox.irgate(&["check", "--results", "results.json"]);
    assert_eq!(baselines.code, 2, "{}", baselines.stderr);
}

#[test]
fn check_base_without_a_base_side_cannot_decide() {
    let sandbox = Sandbox::new();
    results(&sandbox, "base", "results.json", "head");
    let run = sandbox.irgate(&["check", "--base", "--results", "results.json"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("results.base.json: no base side")
            && run.stderr.contains("irgate run --base REV"),
        "{}",
        run.stderr
    );
}

/// Baselines from the `base` fixture taken at `commit`, and results from another valgrind.
fn drifted(commit: &str) -> Sandbox {
    let sandbox = Sandbox::new();
    results(&sandbox, "base", "base.json", commit);
    let refresh = sandbox.irgate(&["refresh", "--results", "base.json"]);
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    sandbox.results("base", "results.json", |r| {
        r["fingerprint"]["commit"] = json!("head");
        r["fingerprint"]["valgrind"] = json!("valgrind-3.99.0");
    });
    sandbox
}

#[test]
fn drift_triage_refuses_baselines_it_cannot_measure_again() {
    for (commit, expected) in [
        (
            "0123456789abcdef0123456789abcdef01234567-dirty",
            "taken on a working tree with uncommitted changes",
        ),
        ("unknown", "the baselines record no commit"),
    ] {
        let sandbox = drifted(commit);
        let run = sandbox.irgate(&[
            "check",
            "--results",
            "results.json",
            "--on-env-mismatch=remeasure",
        ]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("baselines: ") && run.stderr.contains(expected),
            "{commit}: {}",
            run.stderr
        );
    }
}

fn triaged() -> Report {
    let row = |id: &str, base: u64, new: u64, status: Status| Row {
        benchmark: id.into(),
        metric: "Ir".into(),
        baseline: Some(base),
        new: Some(new),
        limit: Some(Budget {
            relative_pct: 1.0,
            absolute: 20,
        }),
        status,
        fails: status == Status::OverBudget,
        since: None,
        accepted: None,
        touch: None,
    };
    Report {
        outcome: Outcome::Failed { count: 1 },
        mode: Mode::Remeasured {
            commit: "66f3639bfb246eebd609dd56c0daea6864719da0".into(),
            environment: vec![
                EnvDelta {
                    benchmark: "filter::scan/512".into(),
                    baseline: 2_700,
                    remeasured: 2_778,
                },
                EnvDelta {
                    benchmark: "frame::decode/32".into(),
                    baseline: 442,
                    remeasured: 442,
                },
            ],
        },
        rows: vec![
            row("filter::scan/512", 2_778, 4_520, Status::OverBudget),
            row("frame::decode/32", 442, 442, Status::Ok),
        ],
        fingerprint: Fingerprint::default(),
        env_mismatches: vec![FieldMismatch {
            field: "valgrind".into(),
            baseline: "valgrind-3.24.0".into(),
            current: "valgrind-3.19.0".into(),
        }],
        attribution: Default::default(),
        change: None,
        carried: Vec::new(),
    }
}

#[test]
fn a_triaged_report_shows_both_deltas_and_gates_the_code() {
    let report = triaged();
    let markdown =
        irgate::render::markdown::render(&report, irgate::render::markdown::Limit::chars(65_000));
    assert!(
        markdown.contains(
            "The environment differs from the baselines' (`valgrind`), so irgate \
             measured their commit `66f3639bfb24` again here: the environment moved 1 \
             benchmark by 2.89% (baseline → that commit here), the code moved 1 benchmark by \
             62.71% (that commit here → this change), and only the code's move is gated."
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "| `filter::scan/512` | 2,700 | 2,778 | +2.89% | 4,520 | +62.71% | ❌ over budget |"
        ),
        "{markdown}"
    );
    let table = irgate::render::table::render(&report, false);
    assert!(
        table.contains("the environment moved 1 benchmark by 2.89% (baseline -> that commit here)"),
        "{table}"
    );
    assert!(
        table.contains("filter::scan/512     2,700  2,778       +2.89%"),
        "{table}"
    );
    let json: Value = serde_json::from_str(&irgate::formats::report::render(&report)).unwrap();
    assert_eq!(json["mode"]["kind"], "remeasured");
    assert_eq!(
        json["mode"]["environment"][0],
        json!({"benchmark": "filter::scan/512", "baseline": 2700, "remeasured": 2778})
    );
    let back =
        irgate::formats::report::parse(&irgate::formats::report::render(&report), "r").unwrap();
    assert_eq!(back, report);
}
