//! The markdown report (PR comment body and step summary): layout, truncation, escaping.

use irgate::model::{FieldMismatch, Outcome, Report, Row, Status};
use irgate::render::markdown::{Limit, MOVED_MOST_ROWS, render};

use crate::harness::{fingerprint, outside_code_spans, row};

/// What `irgate comment` leaves for the report.
const COMMENT_ROOM: Limit = Limit::COMMENT;

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
fn irgate_s_own_backticked_names_are_code_spans_not_literal_backticks() {
    let report = report(
        Outcome::Undecided {
            reason: "no code record: run `irgate run --record` and `irgate refresh`".into(),
        },
        vec![],
    );
    let md = render(&report, COMMENT_ROOM);
    assert!(
        md.contains("**Why:** no code record: run `irgate run --record` and `irgate refresh`"),
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
fn a_verdict_survives_even_a_tiny_cap() {
    let md = render(&failed_report(), Limit::chars(300));
    assert!(md.chars().count() <= 300);
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

/// A benchmark name full of markdown and HTML metacharacters, unique by `tag`.
fn hostile_name(tag: &str) -> String {
    format!(
        "grp::</details><b>*_~`x`|[l](https://e.example)@team #1 {tag} <!-- /with_a_long_parameter_list/alpha_beta_gamma_delta_epsilon_zeta_eta"
    )
}

/// 5,000 benchmarks with hostile names: 300 failing (`fail0000` to `fail0299`, each further over
/// its budget than the one before), 20 accepted, the rest within budget, moving a little.
fn report_at_scale() -> Report {
    let mut rows = Vec::new();
    for k in 0..300u64 {
        // The budget allows max(1%, 50) = 1,000 Ir of 100,000: fail k is (k + 2) budgets over.
        let new = 100_000 + (k + 2) * 1_000;
        rows.push(row(
            &hostile_name(&format!("fail{k:04}")),
            Some(100_000),
            Some(new),
            Status::OverBudget,
            true,
        ));
    }
    for k in 0..20 {
        let mut accepted = row(
            &hostile_name(&format!("accepted{k:04}")),
            Some(100_000),
            Some(103_000),
            Status::Accepted,
            false,
        );
        accepted.accepted = Some(irgate::model::Accepted {
            reason: "</details>@team *bold* [x](y)".into(),
            until: "until 2026-12-31".into(),
            origin: "gate.toml:12".into(),
        });
        rows.push(accepted);
    }
    for k in 0..4_680u64 {
        rows.push(row(
            &hostile_name(&format!("ok{k:04}")),
            Some(100_000),
            Some(100_000 + k % 500),
            Status::Ok,
            false,
        ));
    }
    // Shuffled as a reader of a JSON report might get them: the renderer orders them itself.
    rows.reverse();
    report(Outcome::Failed { count: 300 }, rows)
}

/// The tag of every results row in `md`, in order: `fail0299`, `ok0007`, ...
fn tags(md: &str) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with("| ``grp::"))
        .map(|l| {
            let at = l.find("#1 ").unwrap() + 3;
            l[at..].split(' ').next().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_comment_of_5000_benchmarks_fits_and_names_the_failures_first() {
    let report = report_at_scale();
    let md = render(&report, Limit::COMMENT);

    // Within GitHub's limit, counted as GitHub might (code points or UTF-16), after escaping.
    assert!(
        md.encode_utf16().count() <= Limit::COMMENT.max,
        "{}",
        md.len()
    );
    assert!(md.chars().count() <= 65_536 - "<!-- irgate:report -->\n".len());
    assert!(md.starts_with("## ❌ irgate: 300 benchmarks over budget\n"));

    // The first rows are failures, furthest over budget first, with none skipped.
    let shown = tags(&md);
    let failed = shown.iter().take_while(|t| t.starts_with("fail")).count();
    assert!(
        (50..300).contains(&failed),
        "{failed} failures shown: {}",
        &md[..3_000]
    );
    let expected: Vec<String> = (0..300)
        .rev()
        .take(failed)
        .map(|k| format!("fail{k:04}"))
        .collect();
    assert_eq!(shown[..failed], expected[..]);
    assert_eq!(shown.len(), failed, "nothing after the cut: {shown:?}");
    assert!(md.contains("### Failed: 300 results, furthest over budget first\n"));

    // One line says what was left out, by kind, and where the full report is.
    let line = format!(
        "*Left out to stay within 64,512 characters: {} failed results, 10 most moved results, \
         20 accepted regressions, 4670 other results. The full report is the `irgate-report` \
         artifact of the workflow run (`irgate check --format json` writes it).*\n",
        300 - failed
    );
    assert!(md.contains(&line), "{}", &md[md.len() - 3_000..]);

    // Hostile names stay inert: only irgate's own details blocks open and close.
    let outside = outside_code_spans(&md);
    assert_eq!(outside.matches("<details>").count(), 1, "the fingerprint's");
    assert_eq!(outside.matches("</details>").count(), 1);
    assert!(!outside.contains("<b>") && !outside.contains("<!--"));
    assert!(!mentions(&outside));
}

#[test]
fn the_step_summary_of_5000_benchmarks_holds_every_failure_once() {
    let report = report_at_scale();
    let limit = Limit::STEP_SUMMARY;
    let md = render(&report, limit);
    assert!(md.len() <= limit.max, "{}", md.len());
    let shown = tags(&md);
    let expected: Vec<String> = (0..300).rev().map(|k| format!("fail{k:04}")).collect();
    assert_eq!(shown[..300], expected[..], "every failure, furthest first");
    // Then the 10 largest other moves (the 20 accepted regressions move 3%, the most) ...
    assert!(
        shown[300..300 + MOVED_MOST_ROWS]
            .iter()
            .all(|t| t.starts_with("ok")),
        "{:?}",
        &shown[300..300 + MOVED_MOST_ROWS]
    );
    assert!(
        shown[300..300 + MOVED_MOST_ROWS]
            .iter()
            .all(|t| t[2..].parse::<u64>().unwrap() % 500 >= 490),
        "{:?}",
        &shown[300..300 + MOVED_MOST_ROWS]
    );
    // ... and no row twice.
    let distinct: std::collections::BTreeSet<&String> = shown.iter().collect();
    assert_eq!(distinct.len(), shown.len());
    let accepted = md
        .lines()
        .filter(|l| l.starts_with("| ``grp::") && l.contains("accepted0"))
        .count();
    assert_eq!(accepted, 20);
    let left_out = 5_000 - shown.len();
    if left_out > 0 {
        assert!(
            md.contains(&format!("{left_out} other results. The full report")),
            "{}",
            &md[md.len() - 3_000..]
        );
    }
}

#[test]
fn a_small_limit_keeps_the_order_and_says_what_it_left_out() {
    let report = report_at_scale();
    let limit = Limit::chars(4_000);
    let md = render(&report, limit);
    assert!(limit.len(&md) <= 4_000);
    let shown = tags(&md);
    assert!(!shown.is_empty() && shown.len() < 300, "{}", shown.len());
    assert_eq!(shown[0], "fail0299");
    assert!(md.contains(&format!(
        "*Left out to stay within 4,000 characters: {} failed results, 10 most moved results",
        300 - shown.len()
    )));
}

#[test]
fn the_left_out_line_names_the_run_and_the_dashboard() {
    let mut report = report_at_scale();
    report.attribution.artifacts_url = Some("https://github.com/o/r/actions/runs/1".into());
    report.attribution.dashboard_url = Some("https://o.github.io/r".into());
    let md = render(&report, Limit::chars(8_000));
    assert!(md.contains(
        "The full report is the `irgate-report` artifact of [the workflow run]\
         (https://github.com/o/r/actions/runs/1) (`irgate check --format json` writes it); every \
         benchmark's chart is on [the dashboard](https://o.github.io/r).*"
    ));
}

/// The issue's case: 1,000 benchmarks, 10 over budget. `-- --nocapture` prints the sizes
/// docs/github.md quotes.
#[test]
fn a_report_of_1000_benchmarks_with_10_over_budget() {
    let rows: Vec<Row> = (0..1_000u64)
        .map(|i| {
            let over = i < 10;
            row(
                &format!("group{}::benchmark_{i}/input_{}", i % 8, i * 7),
                Some(200_000 + i),
                Some(200_000 + i + if over { 5_000 } else { i % 300 }),
                if over { Status::OverBudget } else { Status::Ok },
                over,
            )
        })
        .collect();
    let report = report(Outcome::Failed { count: 10 }, rows);
    let comment = render(&report, Limit::COMMENT);
    let summary = render(&report, Limit::STEP_SUMMARY);
    println!(
        "1,000 benchmarks, 10 over budget: comment {} characters, step summary {} bytes",
        comment.encode_utf16().count(),
        summary.len()
    );
    assert!(comment.encode_utf16().count() <= Limit::COMMENT.max);
    // Every row once in the step summary: 10 failed, 10 moved, 980 others.
    assert_eq!(summary.matches("| `group").count(), 1_000);
    assert!(!summary.contains("*Left out"));
    assert!(comment.contains("### Failed: 10 results"));
    assert!(comment.contains("other results. The full report"));
}

/// A change-aware report: a failing benchmark that runs a changed function, one that runs none
/// of the change yet moved beyond the layout budget, one moved by layout within it, one carried.
fn change_aware_report() -> Report {
    use irgate::model::{ChangeMap, ChangedFunction, How, Lines, Touch};
    let touched = |mut row: Row, touch: Touch| {
        row.touch = Some(touch);
        row
    };
    let mut report = report(
        Outcome::Failed { count: 2 },
        vec![
            touched(
                row(
                    "frame::encode/512",
                    Some(1_000),
                    Some(1_100),
                    Status::OverBudget,
                    true,
                ),
                Touch::Runs { functions: vec![0] },
            ),
            touched(
                row(
                    "varint::decode/1",
                    Some(18),
                    Some(90),
                    Status::OverBudget,
                    true,
                ),
                Touch::Untouched,
            ),
            touched(
                row(
                    "filter::scan/8",
                    Some(500),
                    Some(503),
                    Status::Layout,
                    false,
                ),
                Touch::Untouched,
            ),
            touched(
                row(
                    "pipeline::forward/512",
                    Some(1_901),
                    Some(1_901),
                    Status::Ok,
                    false,
                ),
                Touch::Untouched,
            ),
        ],
    );
    report.change = Some(ChangeMap {
        base: "0123456789abcdef".into(),
        head: String::new(),
        functions: vec![ChangedFunction {
            object: "release/deps/callgrind".into(),
            how: How::Changed,
            file: "src/frame.rs".into(),
            name: "Frame::encode<script>".into(),
            lines: vec![Lines {
                first: 120,
                last: 131,
            }],
            inlined: String::new(),
        }],
        ..ChangeMap::default()
    });
    report.carried = vec!["pipeline::forward/512".into()];
    report
}

#[test]
fn a_change_aware_report_says_which_changed_code_each_failure_runs() {
    let mut report = change_aware_report();
    report.attribution.diff_url = Some("https://github.com/o/r/pull/7/files".into());
    let md = render(&report, COMMENT_ROOM);
    // The changed lines link to the pull request's diff: the file's anchor is its path's SHA-256
    // (`printf src/frame.rs | sha256sum`), the lines `R<first>-R<last>`.
    let link = "[`src/frame.rs:120-131`](https://github.com/o/r/pull/7/files#diff-\
                7d1b2470e6d199fdd5634da8b81a47dd48b61923c2b7550f9ba2bd41afe65d70R120-R131)";
    let failure = md
        .lines()
        .find(|l| l.starts_with("| `frame::encode/512`"))
        .unwrap();
    assert!(
        failure.ends_with(&format!(
            "❌ over budget: executes changed code: `Frame::encode<script>` ({link}) |"
        )),
        "{failure}"
    );
    assert!(!outside_code_spans(&md).contains("<script"), "{md}");
    assert!(
        md.contains("executed none of the changed code, yet moved beyond the address budget"),
        "{md}"
    );
    assert!(
        md.contains("### Moved without executing changed code: within the address budget"),
        "{md}"
    );
    // The comment says how many ran and why the rest did not; a carried row says it was not
    // run, and its count is the baselines'.
    assert!(
        md.contains(
            "Instruction counts (callgrind) of 3 benchmarks run (of 4) compared with \
             `baselines/`.\n\nRan 3 of 4"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "Ran 3 of 4 benchmarks \\(`--only-touched`\\): the other 1 executed no code changed \
             since 0123456789ab, the baselines' code record, and read no changed file: not run, \
             their baseline counts carried."
        ),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>Not run: 1 result, carried from the baselines</summary>"),
        "{md}"
    );
    let carried = md
        .lines()
        .find(|l| l.starts_with("| `pipeline::forward/512`"))
        .unwrap();
    assert_eq!(
        carried,
        "| `pipeline::forward/512` | `Ir` | 1,901 (carried) | not run | – | max(1%, 50) | ⏭️ \
         carried, not run |"
    );
    assert!(!md.contains("✅ within budget"), "{md}");
    assert!(
        md.contains(
            "Change map \\(0123456789ab to the working tree\\): 1 changed function; 1 benchmark \
             executes the changed code; 1 benchmark moved without executing it."
        ),
        "{md}"
    );
    // Without the pull request's page, the lines are cited, not linked.
    let plain = render(&change_aware_report(), COMMENT_ROOM);
    assert!(!plain.contains("#diff-"), "{plain}");
    assert!(plain.contains("(`src/frame.rs:120-131`)"), "{plain}");
}

#[test]
fn a_move_without_a_change_is_named_apart_as_the_gate_cannot_decide_on_it() {
    use irgate::model::Touch;
    let mut moved = row(
        "varint::decode/1",
        Some(18),
        Some(90),
        Status::Unexplained,
        false,
    );
    moved.touch = Some(Touch::Untouched);
    let mut report = report(
        Outcome::Undecided {
            reason: "1 benchmark moved beyond the address budget".into(),
        },
        vec![moved],
    );
    report.change = Some(irgate::model::ChangeMap {
        base: "0123456789abcdef".into(),
        ..irgate::model::ChangeMap::default()
    });
    let md = render(&report, COMMENT_ROOM);
    assert!(
        md.contains("### Moved without executing changed code, beyond the address budget"),
        "{md}"
    );
    assert!(md.contains("a possible selection blind spot"), "{md}");
    assert!(!md.contains("### Moved most"), "{md}");
}

#[test]
fn a_benchmark_that_measures_nothing_is_named_with_why() {
    let report = report(
        Outcome::Passed,
        vec![
            row("fold::empty/0", Some(0), Some(0), Status::Ok, false),
            row("fold::sum/8", Some(40), Some(40), Status::Ok, false),
        ],
    );
    let md = render(&report, COMMENT_ROOM);
    assert!(
        md.contains("Measures nothing: 1 benchmark measures 0 Ir \\(`fold::empty/0`\\)"),
        "{md}"
    );
    assert!(
        md.contains("`std::hint::black_box`") && md.contains("runs it on every change"),
        "{md}"
    );
    assert!(!md.contains("`fold::sum/8`)"), "{md}");
}

/// A passing run of `--only-touched` on a pull request: 3 of 15 benchmarks ran (one moved within
/// its budget), 12 were carried since the code record's commit.
fn selected_report() -> Report {
    use irgate::model::{ChangeMap, Touch};
    let mut rows = vec![row(
        "frame::encode/1",
        Some(900),
        Some(904),
        Status::Ok,
        false,
    )];
    rows.extend((2..4).map(|i| {
        row(
            &format!("frame::encode/{i}"),
            Some(900),
            Some(900),
            Status::Ok,
            false,
        )
    }));
    rows.extend((0..12).map(|i| {
        row(
            &format!("varint::decode/{i}"),
            Some(18),
            Some(18),
            Status::Ok,
            false,
        )
    }));
    for row in &mut rows {
        row.touch = Some(if row.benchmark.starts_with("frame::") {
            Touch::Runs { functions: vec![] }
        } else {
            Touch::Untouched
        });
    }
    let mut report = report(Outcome::Passed, rows);
    report.change = Some(ChangeMap {
        base: "fedcba9876543210".into(),
        head: "0123456789abcdef".into(),
        ..ChangeMap::default()
    });
    report.carried = (0..12).map(|i| format!("varint::decode/{i}")).collect();
    report
}

#[test]
fn a_selected_run_that_passes_says_how_many_ran_and_why_the_rest_did_not_in_one_line() {
    let md = render(&selected_report(), COMMENT_ROOM);
    // The head of the comment, as docs/github.md shows it.
    let head: Vec<&str> = md.split("\n\n").take(3).collect();
    insta::assert_snapshot!("selected_run_head", head.join("\n\n"));
    let mut paragraphs = md.split("\n\n");
    assert_eq!(paragraphs.next(), Some("## ✅ irgate: passed"));
    assert_eq!(
        paragraphs.next(),
        Some("No benchmark over budget (3 of 15 run).")
    );
    assert_eq!(
        paragraphs.next(),
        Some(
            "Ran 3 of 15 benchmarks \\(`--only-touched`\\): the other 12 executed no code changed \
             since fedcba987654, the baselines' code record, and read no changed file: not run, \
             their baseline counts carried."
        )
    );
    // What the change map found, since one count moved; then the tables.
    assert_eq!(
        paragraphs.next(),
        Some(
            "Change map \\(fedcba987654 to 0123456789ab\\): 0 changed functions; 3 benchmarks \
             execute the changed code; 0 benchmarks moved without executing it."
        )
    );
    assert!(
        paragraphs.next().unwrap().starts_with("### Moved most"),
        "{md}"
    );
    // Every carried row says it was not run and shows no new count; none looks measured.
    let carried: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| `varint::decode/"))
        .collect();
    assert_eq!(carried.len(), 12, "{md}");
    for line in &carried {
        assert!(
            line.ends_with("| 18 (carried) | not run | – | max(1%, 50) | ⏭️ carried, not run |"),
            "{line}"
        );
    }
    assert!(md.contains("<details><summary>Not run: 12 results, carried from the baselines"));
    assert!(md.contains("<details><summary>The other 2 results (within budget or not gated)"));
    assert_eq!(md.matches("✅ within budget").count(), 3, "{md}");
}

#[test]
fn a_selected_run_that_fell_back_says_why_every_benchmark_ran() {
    let mut report = selected_report();
    report.carried.clear();
    for row in &mut report.rows {
        row.new = row.baseline;
        row.touch = Some(irgate::model::Touch::Unrecorded {
            reason: "not mapped".into(),
        });
    }
    let why = "the change alters the baselines since fedcba987654 (`baselines/code/record.json`): \
               the code record and counts of fedcba987654 are the only ones trusted, so every \
               benchmark runs";
    report.change.as_mut().unwrap().unmapped = Some(why.into());
    let md = render(&report, COMMENT_ROOM);
    let mut paragraphs = md.split("\n\n").skip(1);
    assert_eq!(
        paragraphs.next(),
        Some("No benchmark over budget (15 checked).")
    );
    assert_eq!(
        paragraphs.next(),
        Some(
            "Change map \\(fedcba987654 to 0123456789ab\\): not mapped, so every benchmark ran \
             and is held to its budget: the change alters the baselines since fedcba987654 \
             \\(`baselines/code/record.json`\\): the code record and counts of fedcba987654 are \
             the only ones trusted, so every benchmark runs"
        ),
        "{md}"
    );
    assert!(!md.contains("carried"), "{md}");
}

#[test]
fn a_report_judged_by_the_bases_gate_toml_says_what_the_change_did_to_it() {
    let mut report = change_aware_report();
    let said = "gate.toml changed since 0123456789ab ([change], [[accept]], which applies now): \
                the base's rules apply until merged";
    if let Some(change) = report.change.as_mut() {
        change.config_changed = Some(said.to_owned());
    }
    let md = render(&report, COMMENT_ROOM);
    assert!(
        md.contains("gate.toml changed since 0123456789ab")
            && md.contains("the base's rules apply until merged."),
        "{md}"
    );
    let table = irgate::render::render(
        &report,
        irgate::render::Format::Table,
        false,
        irgate::render::markdown::Limit::STEP_SUMMARY,
    );
    assert!(
        table.contains("the base's rules apply until merged."),
        "{table}"
    );
    // Said even when no benchmark moved, since it is why the pull request's rules did not apply.
    report
        .rows
        .retain(|row| row.status == Status::Ok && row.baseline == row.new);
    let md = render(&report, COMMENT_ROOM);
    assert!(md.contains("the base's rules apply until merged."), "{md}");
}
