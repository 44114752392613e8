//! The drift budget: five changes of +0.9% each, every one within the +1% budget of a single
//! change, fail against an anchor (a git tag) with a 4% cumulative budget, and the report says
//! since when. A missing history or anchor fails closed.

use std::path::Path;

use crate::harness::{Run, Sandbox, fingerprint_json, git, irgate};

const BENCH: &str = "codec::encode/b512";
const STEADY: &str = "codec::decode/b512";

/// A results or baseline file's JSON with the counts of run `n` (+0.9% a run on BENCH) at
/// `commit`.
fn counts_json(n: i32, commit: &str, what: &str) -> String {
    let ir = (100_000.0 * 1.009f64.powi(n)).round() as u64;
    let mut fingerprint = fingerprint_json();
    fingerprint["commit"] = commit.into();
    fingerprint["date"] = format!("2026-11-{:02}T08:00:00Z", 10 + n).into();
    let mut doc = serde_json::json!({
        "schema_version": 1,
        "fingerprint": fingerprint,
        "benchmarks": { BENCH: { "Ir": ir }, STEADY: { "Ir": 5_000 } }
    });
    if what == "results" {
        doc["suites"] = serde_json::json!(["benches/callgrind"]);
    }
    doc.to_string()
}

/// A repository tagged `v1` at the anchor, whose history holds the anchor (run 0) and five
/// changes of +0.9% each; the baselines are run `pushed`'s and the results run `pushed + 1`'s.
fn setup(dir: &Path, budget_pct: f64, pushed: i32) {
    git(dir, &["init", "-q"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "anchor"]);
    git(dir, &["tag", "v1"]);
    let anchor = git(dir, &["rev-parse", "HEAD"]);
    std::fs::write(
        dir.join("gate.toml"),
        format!(
            "[budgets]\nIr = {{ relative_pct = 1.0 }}\n\n[drift]\nsince = \"v1\"\n\
             budgets.Ir = {{ relative_pct = {budget_pct} }}\n"
        ),
    )
    .unwrap();
    for n in 0..=5 {
        let commit = if n == 0 {
            anchor.clone()
        } else {
            format!("{n:0>40}")
        };
        let file = dir.join(format!("run{n}.json"));
        std::fs::write(&file, counts_json(n, &commit, "results")).unwrap();
        let run: Run = irgate(dir)
            .args(["history", "add", "--history", "history"])
            .arg(&file)
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    std::fs::create_dir_all(dir.join("baselines")).unwrap();
    std::fs::write(
        dir.join("baselines/codec.json"),
        counts_json(pushed, "b", "baseline"),
    )
    .unwrap();
    std::fs::write(
        dir.join("results.json"),
        counts_json(pushed + 1, "c", "results"),
    )
    .unwrap();
}

/// How many rows of a markdown report link BENCH to its chart and judge it since the anchor
/// (the table, and the collapsed table of every row).
fn drift_rows(markdown: &str, since: &str) -> usize {
    markdown
        .lines()
        .filter(|line| {
            line.starts_with(&format!(
                "| [`{BENCH}`](https://owner.github.io/repo/group-codec.html#b-codec--encode-b512) \
                 | `Ir` | 100,000 | 104,582 | +4.58% (+4,582) |"
            )) && line.ends_with(&format!("| ❌ over budget since `{since}` |"))
        })
        .count()
}

fn check(dir: &Path, extra: &[&str]) -> Run {
    irgate(dir)
        .args(["check", "--results", "results.json"])
        .args(extra)
        .output()
        .unwrap()
        .into()
}

#[test]
fn five_changes_of_0_9_percent_fail_a_4_percent_drift_budget() {
    let sandbox = Sandbox::empty();
    let dir = sandbox.dir.path();
    setup(dir, 4.0, 4);
    let anchor = git(dir, &["rev-parse", "v1"]);
    let since = format!("v1 ({}, 2026-11-10)", &anchor[..12]);

    let run = check(dir, &["--history", "history"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // Against its baseline the last change is +0.90%; since the anchor, +4.58%.
    assert!(
        run.stdout.contains(&format!(
            "{BENCH}   100,000  104,582  +4.58%  max(4%, 0)  FAIL over budget since {since}"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("FAIL: 1 of 2 benchmarks failed the gate"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains(STEADY), "{}", run.stdout);

    let run = check(
        dir,
        &[
            "--history",
            "history",
            "--format",
            "markdown",
            "--dashboard-url",
            "https://owner.github.io/repo/",
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(drift_rows(&run.stdout, &since), 1, "{}", run.stdout);

    let run = check(dir, &["--history", "history", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let drifted: Vec<&serde_json::Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("since").is_some())
        .collect();
    assert_eq!(drifted.len(), 1);
    assert_eq!(drifted[0]["since"], since.as_str());
    assert_eq!(drifted[0]["baseline"], 100_000);

    // The comment is drawn from that JSON report (read back as `irgate comment` reads it), with
    // the link added there.
    let mut read_back = irgate::formats::report::parse(&run.stdout, "report.json").unwrap();
    read_back.attribution.dashboard_url = Some("https://owner.github.io/repo".into());
    let comment =
        irgate::render::markdown::render(&read_back, irgate::render::markdown::Limit::COMMENT);
    assert_eq!(drift_rows(&comment, &since), 1, "{comment}");
}

#[test]
fn within_the_drift_budget_the_gate_passes() {
    let sandbox = Sandbox::empty();
    let dir = sandbox.dir.path();
    // Four changes: +3.65% since the anchor.
    setup(dir, 4.0, 3);
    let run = check(dir, &["--history", "history"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // Five changes against a 5% budget.
    let sandbox = Sandbox::empty();
    let dir = sandbox.dir.path();
    setup(dir, 5.0, 4);
    let run = check(dir, &["--history", "history"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn a_drift_budget_without_its_anchor_cannot_decide() {
    let sandbox = Sandbox::empty();
    let dir = sandbox.dir.path();
    setup(dir, 4.0, 4);
    let run = check(dir, &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("[drift] limits the growth since `v1`")
            && run.stderr.contains("pass --history DIR"),
        "{}",
        run.stderr
    );

    // The tag moves to a commit the history never recorded.
    git(dir, &["commit", "-q", "--allow-empty", "-m", "later"]);
    git(dir, &["tag", "-f", "v1"]);
    let run = check(dir, &["--history", "history", "--format", "json"]);
    assert_eq!(run.code, 2);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let reason = report["outcome"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("[drift] since = \"v1\": commit ")
            && reason.contains("has no run in the history history"),
        "{reason}"
    );

    let toml = std::fs::read_to_string(dir.join("gate.toml")).unwrap();
    std::fs::write(dir.join("gate.toml"), toml.replace("\"v1\"", "\"v9\"")).unwrap();
    let run = check(dir, &["--history", "history"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("[drift] since = \"v9\": not a tag or commit"),
        "{}",
        run.stderr
    );
}
