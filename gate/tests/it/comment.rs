//! `irgate comment`: reading the stored report, annotations, the step summary, and the binary
//! against a local GitHub-like server (wiremock).

use std::path::{Path, PathBuf};

use fake_github::{FakeGitHub, OWNER, PR, REPO, github_error};
use irgate::formats::report;
use irgate::model::{FieldMismatch, Outcome, Report, Row, Status};
use irgate::render::github::{annotations, escape_data, escape_property};

use crate::harness::{self, Run, fingerprint, row};

const SECRET: &str = "ghs_VerySecretTokenText42";
const MARKER: &str = "<!-- irgate:report -->";

fn failed_report() -> Report {
    Report {
        mode: Default::default(),
        outcome: Outcome::Failed { count: 1 },
        rows: vec![
            row(
                "frame::encode_compressed/512",
                Some(194_516),
                Some(198_406),
                Status::OverBudget,
                true,
            ),
            row("varint::decode/1", Some(18), Some(18), Status::Ok, false),
        ],
        fingerprint: fingerprint(),
        env_mismatches: vec![],
        attribution: Default::default(),
        change: None,
        carried: Vec::new(),
    }
}

fn passed_report() -> Report {
    Report {
        mode: Default::default(),
        outcome: Outcome::Passed,
        rows: vec![row(
            "varint::decode/1",
            Some(18),
            Some(18),
            Status::Ok,
            false,
        )],
        ..failed_report()
    }
}

#[test]
fn the_report_reads_back_exactly_what_check_writes() {
    let mut report = failed_report();
    report.rows.push(Row {
        ..row("filter::new/1", None, Some(5), Status::New, true)
    });
    report.env_mismatches.push(FieldMismatch {
        field: "glibc".into(),
        baseline: "2.41".into(),
        current: "2.36".into(),
    });
    for outcome in [
        Outcome::Passed,
        Outcome::Failed { count: 2 },
        Outcome::Undecided {
            reason: "no baselines".into(),
        },
        Outcome::NoVerdict {
            reason: "glibc differs".into(),
        },
    ] {
        report.outcome = outcome;
        let parsed = report::parse(&report::render(&report), "report.json").unwrap();
        assert_eq!(parsed, report);
    }
}

#[test]
fn a_malformed_report_is_refused_saying_what_and_where() {
    let good = report::render(&failed_report());
    let cases = [
        (
            good[..good.len() / 2].to_owned(),
            "not an irgate JSON report (line",
        ),
        (
            good.replace("\"schema_version\": 4", "\"schema_version\": 9"),
            "schema version 9",
        ),
        (
            good.replace("\"exit_code\": 1", "\"exit_code\": 0"),
            "exit_code 0 contradicts the outcome (exit 1)",
        ),
        (
            good.replace("\"over_budget\"", "\"fine\""),
            "unknown variant `fine`",
        ),
        (
            good.replace("\"baseline\": 194516", "\"baseline\": -5"),
            "invalid value: integer `-5`",
        ),
        ("[]".to_owned(), "not an irgate JSON report"),
    ];
    for (text, expected) in cases {
        let error = report::parse(&text, "artifact/report.json")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("artifact/report.json: "), "{error}");
        assert!(error.contains(expected), "expected {expected:?} in {error}");
    }
}

#[test]
fn annotations_are_one_line_each_and_escape_workflow_command_syntax() {
    let mut report = failed_report();
    report.rows[0].benchmark = "evil::name, 100%\n::error::fake".into();
    let lines = annotations(&report);

    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
    assert_eq!(
        line,
        "::error title=evil%3A%3Aname%2C 100%25%0A%3A%3Aerror%3A%3Afake over budget::\
         evil::name, 100%25%0A::error::fake Ir: 194516 -> 198406 (+2.00%25), budget max(1%25, 50)"
    );
    // The properties end at the first `::` after the command: the title's colons were all escaped.
    let after_command = &line["::error ".len()..];
    let properties = &after_command[..after_command.find("::").unwrap()];
    assert!(
        properties.starts_with("title=evil%3A%3Aname") && properties.ends_with("over budget"),
        "{properties}"
    );
}

#[test]
fn annotations_are_capped_and_cover_every_outcome() {
    let rows = (0..25)
        .map(|i| {
            row(
                &format!("b/{i}"),
                Some(100),
                Some(200),
                Status::OverBudget,
                true,
            )
        })
        .collect();
    let report = Report {
        mode: Default::default(),
        outcome: Outcome::Failed { count: 25 },
        rows,
        ..failed_report()
    };
    let lines = annotations(&report);
    assert_eq!(lines.len(), 11);
    assert_eq!(
        lines[10],
        "::error title=irgate::15 more failing benchmarks: see the step summary"
    );

    let undecided = Report {
        mode: Default::default(),
        outcome: Outcome::Undecided {
            reason: "bad\nbaseline 5%".into(),
        },
        ..failed_report()
    };
    assert_eq!(
        annotations(&undecided),
        ["::error title=irgate could not decide::bad%0Abaseline 5%25"]
    );
    let no_verdict = Report {
        mode: Default::default(),
        outcome: Outcome::NoVerdict {
            reason: "glibc differs".into(),
        },
        ..failed_report()
    };
    assert_eq!(
        annotations(&no_verdict),
        ["::warning title=irgate%3A no verdict::glibc differs"]
    );
    assert!(annotations(&passed_report()).is_empty());
}

#[test]
fn workflow_command_escaping() {
    assert_eq!(escape_data("a%b\r\nc::d"), "a%25b%0D%0Ac::d");
    assert_eq!(escape_property("a%b\r\nc::d,e"), "a%25b%0D%0Ac%3A%3Ad%2Ce");
}

// ---- the binary against a local GitHub ----

fn write_report(dir: &Path, report: &Report) -> PathBuf {
    let path = dir.join("report.json");
    std::fs::write(&path, report::render(report)).unwrap();
    path
}

/// Runs `irgate comment ARGS` with a GitHub Actions-like environment pointing at `api_url`.
async fn irgate_comment(api_url: &str, summary: &Path, token: Option<&str>, args: &[&str]) -> Run {
    let mut command = harness::irgate(Path::new("."));
    command.arg("comment").args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("GITHUB_") || key.starts_with("RUNNER_") {
            command.env_remove(key);
        }
    }
    command
        .env("GITHUB_API_URL", api_url)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary)
        .env("GITHUB_REPOSITORY", format!("{OWNER}/{REPO}"));
    if let Some(token) = token {
        command.env("GITHUB_TOKEN", token);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
        .into()
}

fn assert_no_token(run: &Run, summary: &Path) {
    let summary = std::fs::read_to_string(summary).unwrap_or_default();
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("step summary", &summary),
    ] {
        assert!(
            !text.contains(SECRET) && !text.contains("VerySecret"),
            "token in {what}: {text}"
        );
    }
}

#[tokio::test]
async fn first_run_creates_the_comment_second_run_updates_it() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path(), &failed_report());
    let summary = dir.path().join("summary.md");
    let args = ["--report", report.to_str().unwrap(), "--pr", "7"];

    let first = irgate_comment(&github.api_url, &summary, Some(SECRET), &args).await;
    assert_eq!(
        first.code, 1,
        "the gate's own exit code: {}{}",
        first.stdout, first.stderr
    );
    assert!(first.stdout.contains("irgate: created the pull-request comment: https://github.com/acme/proxy/pull/7#issuecomment-1000"), "{}", first.stdout);
    assert!(
        first
            .stdout
            .contains("::error title=frame%3A%3Aencode_compressed/512 over budget::"),
        "{}",
        first.stdout
    );

    let second = irgate_comment(&github.api_url, &summary, Some(SECRET), &args).await;
    assert_eq!(second.code, 1);
    assert!(
        second
            .stdout
            .contains("irgate: updated the pull-request comment"),
        "{}",
        second.stdout
    );

    let comments = github.comments.all();
    assert_eq!(comments.len(), 1, "still one comment");
    assert!(
        comments[0]
            .body
            .starts_with(&format!("{MARKER}\n## ❌ irgate: 1 benchmark over budget")),
        "{}",
        comments[0].body
    );
    let summary_text = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(
        summary_text
            .matches("## ❌ irgate: 1 benchmark over budget")
            .count(),
        2,
        "appended once per run"
    );
    assert!(
        !summary_text.contains(MARKER),
        "the marker is the comment's business only"
    );
    assert_no_token(&first, &summary);
    assert_no_token(&second, &summary);
}

#[tokio::test]
async fn a_fork_token_403_is_reported_and_the_gate_exit_code_stands() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    for (report, expected_code) in [(failed_report(), 1), (passed_report(), 0)] {
        let github = FakeGitHub::start().await;
        github
            .fail_next(
                "POST",
                1,
                github_error(403, "Resource not accessible by integration"),
            )
            .await;
        let path = write_report(dir.path(), &report);

        let run = irgate_comment(
            &github.api_url,
            &summary,
            Some(SECRET),
            &["--report", path.to_str().unwrap(), "--pr", "7"],
        )
        .await;

        assert_eq!(run.code, expected_code, "{}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("could not post the report: GitHub refused to create a comment on acme/proxy#7 (403 Forbidden: Resource not accessible by integration)"), "{}", run.stderr);
        assert!(
            run.stderr.contains("forks get a read-only token"),
            "{}",
            run.stderr
        );
        assert!(
            run.stdout.contains("::warning title=irgate comment::"),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains(&format!("the gate's verdict stands: exit {expected_code}")),
            "{}",
            run.stdout
        );
        assert!(github.comments.all().is_empty());
        assert_no_token(&run, &summary);
    }
}

#[tokio::test]
async fn the_token_stays_out_of_output_even_when_github_echoes_it() {
    let github = FakeGitHub::start().await;
    github
        .fail_next(
            "GET",
            1,
            github_error(401, &format!("Bad credentials: Bearer {SECRET}")),
        )
        .await;
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path(), &failed_report());
    let summary = dir.path().join("summary.md");

    let run = irgate_comment(
        &github.api_url,
        &summary,
        Some(SECRET),
        &["--report", report.to_str().unwrap(), "--pr", "7"],
    )
    .await;

    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("401 Unauthorized: Bad credentials: Bearer ***"),
        "{}",
        run.stderr
    );
    assert_no_token(&run, &summary);
}

#[tokio::test]
async fn a_missing_token_is_a_clear_message_and_changes_no_verdict() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path(), &passed_report());
    let summary = dir.path().join("summary.md");

    let run = irgate_comment(
        &github.api_url,
        &summary,
        None,
        &["--report", report.to_str().unwrap(), "--pr", "7"],
    )
    .await;

    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("GITHUB_TOKEN is not set"),
        "{}",
        run.stderr
    );
    assert!(github.requests().await.is_empty());
    assert!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .contains("## ✅ irgate: passed"),
        "the summary is still written"
    );
}

#[tokio::test]
async fn results_for_an_older_head_commit_are_not_posted() {
    let github = FakeGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(format!(
            "/repos/{OWNER}/{REPO}/pulls/{PR}"
        )))
        .respond_with(
            wiremock::ResponseTemplate::new(200)
                .set_body_json(serde_json::json!({"head": {"sha": "b".repeat(40)}})),
        )
        .mount(&github.server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path(), &failed_report());
    let summary = dir.path().join("summary.md");
    let old = "a".repeat(40);

    let run = irgate_comment(
        &github.api_url,
        &summary,
        Some(SECRET),
        &[
            "--report",
            report.to_str().unwrap(),
            "--pr",
            "7",
            "--head-sha",
            &old,
        ],
    )
    .await;

    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("not posting stale results"),
        "{}",
        run.stdout
    );
    assert!(github.comments.all().is_empty());
}

#[tokio::test]
async fn no_post_writes_summary_and_annotations_without_any_request() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path(), &failed_report());
    let summary = dir.path().join("summary.md");

    let run = irgate_comment(
        &github.api_url,
        &summary,
        None,
        &["--report", report.to_str().unwrap(), "--no-post"],
    )
    .await;

    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("::error title="), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert!(github.requests().await.is_empty());
    assert!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .starts_with("## ❌ irgate")
    );
}

#[tokio::test]
async fn a_load_comparison_gets_its_own_section_and_never_changes_the_verdict() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path(), &failed_report());
    let summary = dir.path().join("summary.md");
    let load = dir.path().join("load.json");
    std::fs::write(
        &load,
        r#"{"schema_version": 1, "profile": {"payload_bytes": 256}, "base_label": "direct", "new_label": "proxied",
            "base_runs": 5, "new_runs": 5, "alpha": 0.05, "packets_per_sec": [1000.0, 998.0],
            "rows": [{"statistic": "p99", "base_us": 120.0, "new_us": 190.0, "delta_us": 70.0,
                      "delta_pct": 58.3, "p_value": 0.421, "verdict": "within_noise"}]}"#,
    )
    .unwrap();
    let args = [
        "--report",
        report.to_str().unwrap(),
        "--no-post",
        "--load",
        load.to_str().unwrap(),
    ];
    let run = irgate_comment(&github.api_url, &summary, None, &args).await;
    assert_eq!(run.code, 1, "the gate's verdict: {}", run.stderr);
    let text = std::fs::read_to_string(&summary).unwrap();
    let gated = text.find("## ❌ irgate").unwrap();
    let section = text
        .find("### Load test (informational, never gated)")
        .unwrap();
    assert!(gated < section, "{text}");
    assert!(
        text.contains("| `p99` | 120.0 | 190.0 | +70.0 | 0.421 | within noise |"),
        "{text}"
    );

    // A malformed comparison is left out with a warning; the verdict stands.
    std::fs::write(&load, "{\"rows\": 1}").unwrap();
    std::fs::remove_file(&summary).unwrap();
    let run = irgate_comment(&github.api_url, &summary, None, &args).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("the load comparison is left out"),
        "{}",
        run.stderr
    );
    assert!(
        !std::fs::read_to_string(&summary)
            .unwrap()
            .contains("Load test")
    );
}

#[tokio::test]
async fn an_unreadable_report_fails_closed_with_exit_2() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let report = dir.path().join("report.json");
    std::fs::write(&report, "{\"schema_version\": 1, \"outcome\": ").unwrap();

    let run = irgate_comment(
        &github.api_url,
        &summary,
        Some(SECRET),
        &["--report", report.to_str().unwrap(), "--pr", "7"],
    )
    .await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("report.json: not an irgate JSON report"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("::error title=irgate comment::"),
        "{}",
        run.stdout
    );

    let missing = dir.path().join("nope.json");
    let run = irgate_comment(
        &github.api_url,
        &summary,
        Some(SECRET),
        &["--report", missing.to_str().unwrap(), "--pr", "7"],
    )
    .await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("nope.json: cannot read"),
        "{}",
        run.stderr
    );
    assert!(
        github.requests().await.is_empty(),
        "nothing posted for a report that cannot be read"
    );
}

/// A load comparison too large for the comment keeps the rows that fit and says what was left out
/// and why, under the whole gated report.
#[test]
fn a_large_load_comparison_is_cut_to_fit_and_says_so() {
    let rows: Vec<serde_json::Value> = (0..3_000)
        .map(|i| {
            serde_json::json!({"statistic": format!("p{i}"), "base_us": 1.0, "new_us": 2.0,
                               "delta_us": 1.0, "p_value": 0.5, "verdict": "within_noise"})
        })
        .collect();
    let load: irgate::formats::load::LoadComparison = serde_json::from_value(serde_json::json!({
        "schema_version": 1,
        "profile": {"payload_bytes": 256}, "base_label": "direct", "new_label": "proxied",
        "base_runs": 5, "new_runs": 5, "alpha": 0.05, "packets_per_sec": [1000.0, 998.0],
        "rows": rows
    }))
    .unwrap();
    let limit = irgate::render::markdown::Limit::chars(65_000);
    let body = irgate::render::github::with_load(&failed_report(), Some(&load), limit);
    assert!(limit.len(&body) <= limit.max, "{}", body.len());
    let report = irgate::render::markdown::render(&failed_report(), limit);
    assert!(
        body.starts_with(&report),
        "the gated report comes whole, first"
    );
    let shown = body.matches("| within noise |").count();
    assert!((500..3_000).contains(&shown), "{shown}");
    // The one profile field comes after the rows: it is shown when the last bytes allow it.
    let profile = usize::from(!body.contains("`payload_bytes=256`"));
    assert!(
        body.contains(&format!(
            "*Left out of this load comparison to stay within GitHub's size limit: {} and {} \
             statistics;",
            irgate::text::plural(profile, "profile field"),
            3_000 - shown
        )),
        "{}",
        &body[body.len() - 600..]
    );
}

/// A pull request's run of `--only-touched`: `frame::encode_compressed/512` ran, the other two
/// were carried since the code record's commit.
fn selected_report(outcome: Outcome, new: u64) -> Report {
    let mut report = failed_report();
    report.outcome = outcome;
    report.rows[0].new = Some(new);
    (report.rows[0].status, report.rows[0].fails) = if new > 198_000 {
        (Status::OverBudget, true)
    } else {
        (Status::Ok, false)
    };
    report.rows.push(row(
        "varint::encode/1",
        Some(25),
        Some(25),
        Status::Ok,
        false,
    ));
    report.change = Some(irgate::model::ChangeMap {
        base: "fedcba9876543210fedcba9876543210fedcba98".into(),
        head: "0123456789abcdef0123456789abcdef01234567".into(),
        ..Default::default()
    });
    report.carried = vec!["varint::decode/1".into(), "varint::encode/1".into()];
    report
}

#[tokio::test]
async fn a_selected_run_posts_how_many_ran_and_never_shows_a_carried_count_as_measured() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let line = "Ran 1 of 3 benchmarks \\(`--only-touched`\\): the other 2 executed no code changed \
                since fedcba987654, the baselines' code record, and read no changed file: not \
                run, their baseline counts carried.";
    let carried = [
        "| `varint::decode/1` | `Ir` | 18 (carried) | not run | – | max(1%, 50) | ⏭️ carried, not run |",
        "| `varint::encode/1` | `Ir` | 25 (carried) | not run | – | max(1%, 50) | ⏭️ carried, not run |",
    ];

    let failing = write_report(
        dir.path(),
        &selected_report(Outcome::Failed { count: 1 }, 198_406),
    );
    let args = ["--report", failing.to_str().unwrap(), "--pr", "7"];
    let run = irgate_comment(&github.api_url, &summary, Some(SECRET), &args).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // One annotation: the benchmark that ran and failed; a carried one never fails.
    assert_eq!(run.stdout.matches("::error ").count(), 1, "{}", run.stdout);
    let body = &github.comments.all()[0].body;
    assert!(
        body.contains(
            "Instruction counts (callgrind) of 1 benchmark run (of 3) compared with \
             `baselines/`.\n\n"
        ) && body.contains(line),
        "{body}"
    );
    for row in carried {
        assert!(body.contains(row), "{row} in {body}");
    }
    assert!(!body.contains("✅ within budget"), "{body}");
    let step_summary = std::fs::read_to_string(&summary).unwrap();
    assert!(step_summary.contains(line), "{step_summary}");

    // The next push passes: the same comment, updated.
    let passing = write_report(dir.path(), &selected_report(Outcome::Passed, 194_516));
    let args = ["--report", passing.to_str().unwrap(), "--pr", "7"];
    let run = irgate_comment(&github.api_url, &summary, Some(SECRET), &args).await;
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let comments = github.comments.all();
    assert_eq!(comments.len(), 1, "still one comment");
    assert!(
        comments[0].body.starts_with(&format!(
            "{MARKER}\n## ✅ irgate: passed\n\nNo benchmark over budget (1 of 3 run).\n\n{line}\n\n"
        )),
        "{}",
        comments[0].body
    );
    for row in carried {
        assert!(comments[0].body.contains(row), "{row}");
    }
    assert_no_token(&run, &summary);
}
