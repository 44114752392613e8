//! The markdown report (PR comment body and step summary): layout, truncation, escaping.

use irgate::model::{FieldMismatch, Outcome, Report, Row, Status};
use irgate::render::markdown::render;

use crate::harness::{fingerprint, outside_code_spans, row};

/// What `irgate comment` leaves for the report: GitHub's limit less the marker line.
const COMMENT_ROOM: usize = 65_536 - "<!-- irgate:report -->\n".len();

fn report(outcome: Outcome, rows: Vec<Row>) -> Report {
    Report {
        mode: Default::default(),
        outcome,
        rows,
        fingerprint: fingerprint(),
        env_mismatches: vec![],
        attribution: Default::default(),
        change: None,
        carried: Vec::new(),
    }
}

fn failed_report() -> Report {
    report(
        Outcome::Failed { count: 1 },
        vec![
            row(
                "frame::encode_compressed/512",
                Some(194_516),
                Some(198_406),
                Status::OverBudget,
                true,
            ),
            row("varint::decode/1", Some(18), Some(12), Status::Stale, false),
            row("filter::chain_pass/8", None, Some(95), Status::New, false),
            row(
                "pipeline::forward/512",
                Some(1_901),
                Some(1_901),
                Status::Ok,
                false,
            ),
        ],
    )
}

#[test]
fn failed_report_layout() {
    insta::assert_snapshot!(render(&failed_report(), COMMENT_ROOM));
}

#[test]
fn passed_report_layout() {
    let report = report(
        Outcome::Passed,
        vec![
            row("varint::decode/1", Some(18), Some(12), Status::Stale, false),
            row(
                "pipeline::forward/512",
                Some(1_901),
                Some(1_903),
                Status::Ok,
                false,
            ),
        ],
    );
    insta::assert_snapshot!(render(&report, COMMENT_ROOM));
}

#[test]
fn undecided_report_says_why_and_shows_the_differing_fields() {
    let mut report = report(
        Outcome::Undecided {
            reason: "the environment differs from the baselines' (valgrind)".into(),
        },
        vec![],
    );
    report.env_mismatches = vec![FieldMismatch {
        field: "valgrind".into(),
        baseline: "valgrind-3.24.0".into(),
        current: "valgrind-3.19.0".into(),
    }];
    let md = render(&report, COMMENT_ROOM);
    assert!(md.starts_with("## ⚠️ irgate could not decide\n\n**Why:** the environment differs from the baselines' \\(valgrind\\)"), "{md}");
    assert!(
        md.contains("| `valgrind` | `valgrind-3.24.0` | `valgrind-3.19.0` |"),
        "{md}"
    );
    assert!(
        md.contains("`irgate doctor` shows the fields that differ"),
        "{md}"
    );
}

#[test]
fn failure_verdict_names_each_kind_of_failure() {
    let report = report(
        Outcome::Failed { count: 2 },
        vec![
            row("a", Some(100), Some(200), Status::OverBudget, true),
            row("b", None, Some(5), Status::New, true),
            row("c", Some(5), Some(5), Status::Ok, false),
        ],
    );
    let md = render(&report, COMMENT_ROOM);
    assert!(
        md.starts_with(
            "## ❌ irgate: 2 benchmarks failed\n\n1 over budget, 1 new without a baseline."
        ),
        "{md}"
    );
    assert!(
        md.contains("| `b` | `Ir` | – | 5 | – | – | ❌ new: no baseline |"),
        "{md}"
    );
}

#[test]
fn no_verdict_is_labelled_informational() {
    let report = report(
        Outcome::NoVerdict {
            reason: "valgrind differs; --on-env-mismatch=warn".into(),
        },
        vec![],
    );
    let md = render(&report, COMMENT_ROOM);
    assert!(md.starts_with("## ℹ️ irgate: no verdict"), "{md}");
    assert!(md.contains("\\-\\-on\\-env\\-mismatch\\=warn"), "{md}");
}

#[test]
fn an_oversized_report_is_truncated_in_the_tables_and_keeps_the_verdict() {
    let rows: Vec<Row> = (0..5_000)
        .map(|i| {
            row(
                &format!("layer::benchmark_with_a_long_name/{i}"),
                Some(1_000_000),
                Some(1_020_000),
                Status::OverBudget,
                true,
            )
        })
        .collect();
    let report = report(Outcome::Failed { count: 5_000 }, rows);
    let md = render(&report, COMMENT_ROOM);

    assert!(md.len() <= COMMENT_ROOM, "{} bytes", md.len());
    assert!(
        md.len() > COMMENT_ROOM - 2_000,
        "uses the room it has: {} bytes",
        md.len()
    );
    assert!(
        md.starts_with("## ❌ irgate: 5000 benchmarks over budget\n"),
        "{}",
        &md[..200]
    );
    assert!(
        md.contains("more rows not shown"),
        "says that rows were cut"
    );
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "every details block closed"
    );
    assert!(
        md.contains(
            "**Accepting a change:** if the new counts are intended, run `irgate run && irgate"
        ),
        "the footer survives"
    );
    assert!(
        md.contains("| `layer::benchmark_with_a_long_name/0` |"),
        "the worst rows come first"
    );

    let summary = render(&report, irgate::render::markdown::STEP_SUMMARY_MAX);
    assert!(summary.len() <= irgate::render::markdown::STEP_SUMMARY_MAX);
    assert!(
        summary.len() > 10 * md.len(),
        "the step summary's 1 MiB holds far more rows"
    );
}

#[test]
fn a_verdict_survives_even_a_tiny_cap() {
    let md = render(&failed_report(), 300);
    assert!(md.len() <= 300);
    assert!(
        md.starts_with("## ❌ irgate: 1 benchmark over budget"),
        "{md}"
    );
}

#[test]
fn injected_benchmark_names_and_reasons_are_rendered_harmless() {
    let evil = "</details>@someone <img src=x onerror=alert(1)> | `tick` [link](https://evil.example) #1\n| new row";
    let mut report = report(
        Outcome::Failed { count: 1 },
        vec![
            row(evil, Some(100), Some(200), Status::OverBudget, true),
            row("ok::bench", Some(100), Some(100), Status::Ok, false),
        ],
    );
    report.fingerprint.host_cpu = "</details><details open>@cpu".into();
    let md = render(&report, COMMENT_ROOM);

    let outside = outside_code_spans(&md);
    assert_eq!(outside.matches("<details>").count(), 2, "{outside}");
    assert_eq!(
        outside.matches("</details>").count(),
        2,
        "only irgate's own closing tags: {outside}"
    );
    assert!(
        !outside.contains("<img") && !outside.contains("<details open>"),
        "no raw HTML outside code spans: {outside}"
    );
    assert!(!mentions(&outside), "{outside}");
    // Every line of a results table has the table's 8 cell separators: the name did not add cells.
    for line in md.lines().filter(|l| l.starts_with("| `")) {
        let separators = line.replace("\\|", "").matches('|').count();
        assert!(
            separators == 8 || separators == 3,
            "{separators} separators in {line}"
        );
    }
    // The name sits in a code span whose fence is longer than the backticks inside it.
    assert!(md.contains("``</details>@someone <img src=x onerror=alert(1)> \\| `tick` [link](https://evil.example) #1 \\| new row``"), "{md}");

    let undecided = self::report(
        Outcome::Undecided {
            reason: evil.into(),
        },
        vec![],
    );
    let md = render(&undecided, COMMENT_ROOM);
    let why = md.lines().find(|l| l.starts_with("**Why:**")).unwrap();
    assert!(
        !why.contains("</details>") && !why.contains("<img"),
        "{why}"
    );
    assert!(why.contains("&lt;/details&gt;@&#8203;someone"), "{why}");
    assert!(
        why.contains("#&#8203;1") && why.contains("\\[link\\]"),
        "{why}"
    );
    assert!(!mentions(&md), "{md}");
}

#[test]
fn invisible_and_control_characters_do_not_survive() {
    let report = report(
        Outcome::Undecided {
            reason: "evil\u{202E}txt.exe\r\n# heading".into(),
        },
        vec![row("bench\u{200B}/1", Some(1), Some(1), Status::Ok, false)],
    );
    let md = render(&report, COMMENT_ROOM);
    assert!(!md.contains('\u{202E}') && !md.contains('\r'), "{md}");
    assert!(
        !md.lines().any(|l| l.starts_with("# ")),
        "no heading injected: {md}"
    );
    assert!(md.contains("`bench\u{FFFD}/1`"), "{md}");
}

#[test]
fn backticks_at_the_edges_of_a_name_keep_the_code_span_intact() {
    let report = report(
        Outcome::Passed,
        vec![row("`edge`", Some(1), Some(1), Status::Ok, false)],
    );
    let md = render(&report, COMMENT_ROOM);
    assert!(md.contains("| `` `edge` `` |"), "{md}");
}

/// Whether `text` holds an `@name` that GitHub would turn into a mention outside a code span.
fn mentions(text: &str) -> bool {
    text.match_indices('@').any(|(i, _)| {
        text[i + 1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    })
}
