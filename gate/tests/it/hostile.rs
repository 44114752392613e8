//! One corpus of hostile text (control characters, workflow commands, markdown and HTML,
//! bidirectional overrides) put everywhere text from a pull request reaches a report: `[[accept]]`
//! entries, fingerprint values, reasons, function and file names, load-test labels. Every output
//! irgate writes must keep it inert: the terminal table, `explain`, JSON, markdown (comment and
//! step summary), annotations, the flame graph and dashboard SVG and HTML.

use irgate::formats::history::Run;
use irgate::formats::report as json;
use irgate::model::Explained;
use irgate::model::{
    Accepted, Budget, FieldMismatch, Fingerprint, Mode, Outcome, Report, Results, Row, Status,
};
use irgate::render::dashboard::Site;
use irgate::render::{markdown, table};
use irgate_callgrind::Profile;

use crate::harness::{self, outside_code_spans};

/// Text a pull request controls, as hostile as it gets.
const HOSTILE: &[&str] = &[
    "esc\u{1b}[2J\u{1b}]0;title\u{7}",
    "bel\u{7} nul\u{0} cr\rend del\u{7f}",
    "line\n::error title=forged::pwned",
    "::error title=forged::pwned",
    "  ::add-mask::secret",
    "\u{a0}::stop-commands::resume",
    "##[error]forged",
    "fn ##[error]legacy command mid-line",
    "reason ###[warning]x%0A##[error]y",
    "<script>alert(1)</script> & <img src=x onerror=alert(1)>",
    "**bold** [link](https://evil.example) @admin #1 ~~x~~",
    "| cell | </details> <!-- ",
    "bidi\u{202E}gnp.exe\u{202C} iso\u{2066}x\u{2069} zw\u{200B}j",
    "c1\u{9b}31m nel\u{85} ls\u{2028}ps\u{2029}",
];

/// `text` printed to a terminal or log: no control character but line breaks, nothing that
/// reorders or hides text, no line the Actions runner reads as a workflow command.
fn assert_inert_log(text: &str, what: &str) {
    for c in text.chars() {
        assert!(
            (!c.is_control() || c == '\n') && !irgate::text::is_deceptive(c),
            "{what}: raw {c:?} in {text}"
        );
    }
    for line in text.lines() {
        let body = line.trim_start_matches(char::is_whitespace);
        assert!(
            !body.starts_with("::") && !line.contains("##["),
            "{what}: a workflow command line (the runner reads `##[` anywhere): {line}"
        );
    }
}

/// Markdown (a comment, a step summary, printed by `check --format markdown`): inert as a log,
/// and outside code spans no HTML, link, emphasis, mention or issue reference from the corpus.
fn assert_inert_markdown(md: &str, what: &str) {
    assert_inert_log(md, what);
    let rendered = outside_code_spans(md);
    for active in [
        "<script", "<img", "<!--", "| cell |", "**bold**", "[link](", "~~x~~", "@admin", "#1",
    ] {
        assert!(
            !rendered.contains(active),
            "{what}: {active} is live in {rendered}"
        );
    }
}

/// HTML or SVG: inert as a log, no element or attribute from the corpus (the flame graph's own
/// script aside).
fn assert_inert_html(html: &str, what: &str) {
    assert_inert_log(html, what);
    for active in ["<script>alert", "<img", "<!-- ", "onerror=alert(1)>"] {
        assert!(!html.contains(active), "{what}: {active} in {html}");
    }
}

/// The fingerprint fixture with `value` in the fields a pull request's environment could set.
fn fingerprint(value: &str) -> Fingerprint {
    Fingerprint {
        valgrind: value.into(),
        library: value.into(),
        cpu: value.into(),
        environment: value.into(),
        workspace_root: value.into(),
        commit: "0123456789abcdef0123456789abcdef01234567".into(),
        date: "2026-11-20T10:00:00Z".into(),
        ..harness::fingerprint()
    }
}

fn row(benchmark: &str, status: Status, fails: bool, hostile: &str) -> Row {
    Row {
        benchmark: benchmark.into(),
        metric: "Ir".into(),
        baseline: Some(1_000),
        new: Some(1_100),
        limit: Some(Budget {
            relative_pct: 1.0,
            absolute: 50,
        }),
        status,
        fails,
        since: Some(hostile.into()),
        accepted: (status == Status::Accepted).then(|| Accepted {
            reason: hostile.into(),
            until: hostile.into(),
            origin: hostile.into(),
        }),
        touch: None,
    }
}

fn explained(hostile: &str) -> Explained {
    // As a report's JSON holds it: irgate-callgrind's types are built by its own code only.
    let mover = |kind: serde_json::Value| {
        let mut mover = serde_json::json!({
            "function": hostile,
            "file": hostile,
            "base_self": 10,
            "new_self": 90,
            "base_inclusive": 10,
            "new_inclusive": 95,
            "inlined_from": [[hostile, 5]],
            "outside_main": true,
        });
        mover
            .as_object_mut()
            .unwrap()
            .extend(kind.as_object().unwrap().clone());
        mover
    };
    let explanation = serde_json::json!({
        "base_total": 1_000,
        "new_total": 1_100,
        "movers": [
            mover(serde_json::json!({"kind": "changed"})),
            mover(serde_json::json!({"kind": "added", "called_from": [hostile]})),
            mover(serde_json::json!({"kind": "renamed", "from": hostile})),
        ],
        "rest": {"base": 990, "new": 1_010, "functions": 3},
        "unattributed": {"base": 2, "new": 2},
        "inclusive": [{"function": hostile, "base": 10, "new": 95, "self_delta": 80}],
    });
    Explained {
        benchmark: "filter::scan/s512".into(),
        explanation: serde_json::from_value(explanation).unwrap(),
        flamegraph: Some("filter.scan.s512.svg".into()),
    }
}

/// A report with `hostile` in every piece of text a pull request controls.
fn report(hostile: &str, outcome: Outcome) -> Report {
    let mut report = Report {
        mode: Mode::Baselines,
        outcome,
        rows: vec![
            row("filter::scan/s512", Status::OverBudget, true, hostile),
            row("filter::scan/s64", Status::Accepted, false, hostile),
        ],
        fingerprint: fingerprint(hostile),
        env_mismatches: vec![FieldMismatch {
            field: "valgrind".into(),
            baseline: hostile.into(),
            current: hostile.into(),
        }],
        attribution: Default::default(),
        change: Some(irgate::model::ChangeMap {
            base: "0123456789abcdef0123456789abcdef01234567".into(),
            head: String::new(),
            files: vec![hostile.into()],
            functions: vec![irgate::model::ChangedFunction {
                object: hostile.into(),
                name: hostile.into(),
                how: irgate::model::How::Changed,
                file: hostile.into(),
                lines: vec![irgate::model::Lines { first: 3, last: 4 }],
                inlined: String::new(),
            }],
            unmapped: None,
            // gate.toml's keys, from the pull request.
            config_changed: Some(hostile.into()),
        }),
        carried: vec![hostile.into()],
    };
    // What the change map says of each row comes from the repository too: names, reasons.
    report.rows[0].touch = Some(irgate::model::Touch::Runs { functions: vec![0] });
    report.rows[1].touch = Some(irgate::model::Touch::Reads {
        reason: hostile.into(),
    });
    report.attribution.explanations.push(explained(hostile));
    report.attribution.explanation_note = Some(hostile.into());
    report
}

fn outcomes(hostile: &str) -> [Outcome; 3] {
    [
        Outcome::Failed { count: 1 },
        Outcome::Undecided {
            reason: hostile.into(),
        },
        Outcome::NoVerdict {
            reason: hostile.into(),
        },
    ]
}

#[test]
fn the_terminal_table_and_explain_keep_hostile_text_inert() {
    for hostile in HOSTILE {
        for outcome in outcomes(hostile) {
            let report = report(hostile, outcome);
            for full in [false, true] {
                assert_inert_log(&table::render(&report, full), "table");
            }
        }
        assert_inert_log(
            &irgate::render::explanation::text(&explained(hostile), "  "),
            "explain",
        );
        assert_inert_log(
            &irgate::render::explanation::text(&explained(hostile), ""),
            "explain",
        );
    }
}

#[test]
fn json_keeps_hostile_text_inert_and_exact() {
    for hostile in HOSTILE {
        for outcome in outcomes(hostile) {
            let report = report(hostile, outcome);
            let text = json::render(&report);
            assert_inert_log(&text, "json");
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let accept = value["rows"][1]["accept"].as_u64().unwrap() as usize;
            assert_eq!(value["accepts"][accept]["reason"], *hostile);
            assert_eq!(json::parse(&text, "report.json").unwrap(), report);
        }
        // `irgate explain --format json`.
        let explained = explained(hostile);
        let text = json::inert(&serde_json::to_string_pretty(&explained).unwrap());
        assert_inert_log(&text, "explain --format json");
        assert_eq!(serde_json::from_str::<Explained>(&text).unwrap(), explained);
    }
}

#[test]
fn markdown_keeps_hostile_text_inert() {
    for hostile in HOSTILE {
        for outcome in outcomes(hostile) {
            let report = report(hostile, outcome);
            let md = markdown::render(&report, markdown::Limit::STEP_SUMMARY);
            assert_inert_markdown(&md, "markdown");
        }
        let md = markdown::explanation(&explained(hostile), None);
        assert_inert_markdown(&md, "explain --format markdown");
    }
}

#[test]
fn a_load_comparison_keeps_hostile_text_inert() {
    for hostile in HOSTILE {
        let load: irgate::formats::load::LoadComparison =
            serde_json::from_value(serde_json::json!({
                "schema_version": 1,
                "profile": {*hostile: hostile},
                "base_label": hostile, "new_label": hostile, "base_runs": 5, "new_runs": 5,
                "alpha": 0.05, "packets_per_sec": [1000.0, 998.0],
                "rows": [{"statistic": hostile, "base_us": 1.0, "new_us": 2.0, "delta_us": 1.0,
                          "p_value": 0.5, "verdict": "within_noise"}]
            }))
            .unwrap();
        assert_inert_markdown(&irgate::render::load::markdown(&load, usize::MAX), "load");
    }
}

#[cfg(feature = "github")]
#[test]
fn annotations_and_the_step_summary_keep_hostile_text_inert() {
    for hostile in HOSTILE {
        for outcome in outcomes(hostile) {
            let report = report(hostile, outcome);
            for line in irgate::render::github::annotations(&report) {
                // One workflow command per line, its own: the title ends at the first `::`.
                let (kind, rest) = line.split_once(" title=").unwrap();
                assert!(kind == "::error" || kind == "::warning", "{line}");
                let (title, message) = rest.split_once("::").unwrap();
                assert!(!title.contains(['\n', '\r', ',']), "{line}");
                assert_inert_log(&format!("{title} {message}"), "annotation");
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("summary.md");
            irgate::commands::comment::append_step_summary(&path, &report, None).unwrap();
            let summary = std::fs::read_to_string(&path).unwrap();
            assert_inert_markdown(&summary, "step summary");
        }
    }
}

#[test]
fn the_flame_graph_keeps_hostile_function_names_inert() {
    for hostile in HOSTILE {
        let callgrind = |cost: u64| {
            format!(
                "events: Ir\nfn=main\n1 10\ncfn={hostile}\ncalls=1 1\n1 {cost}\nfn={hostile}\n1 {cost}\ntotals: {}\n",
                10 + cost
            )
        };
        let base = irgate_callgrind::parse(callgrind(50).as_bytes()).unwrap();
        let new = irgate_callgrind::parse(callgrind(90).as_bytes()).unwrap();
        let profile = |graph| Profile::from_graph(graph, "Ir", str::to_owned).unwrap();
        let stacks = irgate_callgrind::flame::stacks(&new, "Ir", str::to_owned);
        let svg = irgate_callgrind::flame::differential_svg(
            &stacks,
            &profile(&base),
            &profile(&new),
            "filter::scan/s512: +40 Ir",
        )
        .unwrap();
        assert_inert_html(&svg, "flame graph");
    }
}

#[test]
fn the_dashboard_keeps_hostile_fingerprint_values_inert() {
    for hostile in HOSTILE {
        let run = |commit: &str, date: &str, value: &str| {
            let mut fingerprint = fingerprint(value);
            fingerprint.commit = commit.into();
            fingerprint.date = date.into();
            let results = Results {
                fingerprint,
                suites: vec!["benches/callgrind".into()],
                features: Vec::new(),
                filters: Vec::new(),
                benchmarks: [(
                    "filter::scan/s512".to_owned(),
                    [("Ir".to_owned(), 1_000)].into(),
                )]
                .into(),
                durations_ms: Default::default(),
                carried: Vec::new(),
                shard: None,
                process: Default::default(),
            };
            Run::from_results(results, None, false, "run.json").unwrap()
        };
        let runs = [
            run(
                "0123456789abcdef0123456789abcdef01234567",
                "2026-11-20T10:00:00Z",
                "valgrind-3.19.0",
            ),
            run(
                "1123456789abcdef0123456789abcdef01234567",
                "2026-11-21T10:00:00Z",
                hostile,
            ),
        ];
        let site = Site {
            window: 5,
            repo_url: Some("https://github.com/o/r".into()),
        };
        let mut pages = Vec::new();
        irgate::render::dashboard::render(&runs.into_iter().collect(), &site, |name, html| {
            pages.push((name.to_owned(), html));
            Ok(())
        })
        .unwrap();
        assert_eq!(pages.len(), 3);
        for (name, html) in pages {
            assert_inert_html(&html, &name);
        }
    }
}

/// A commit's subject is the committer's text: on the dashboard (the chart's note, its tooltip
/// and the runs page) every hostile subject stays inert, beside the unexplained mark, and both
/// marks are there.
#[test]
fn the_dashboard_keeps_hostile_commit_subjects_inert() {
    use irgate::formats::history::{Bisected, Found, Unexplained};
    let subjects: Vec<String> = HOSTILE
        .iter()
        .map(|h| h.to_string())
        .chain(["\"quoted\" 'single' </text><script>x</script>".to_owned()])
        .collect();
    for hostile in &subjects {
        let run = |commit: char, date: &str, ir: u64| {
            let mut fingerprint = fingerprint("valgrind-3.24.0");
            fingerprint.commit = commit.to_string().repeat(40);
            fingerprint.date = date.into();
            let results = Results {
                fingerprint,
                suites: vec!["benches/callgrind".into()],
                benchmarks: [(
                    "filter::scan/s512".to_owned(),
                    [("Ir".to_owned(), ir)].into(),
                )]
                .into(),
                ..Results::default()
            };
            Run::from_results(results, None, false, "run.json").unwrap()
        };
        let mut second = run('b', "2026-11-21T10:00:00Z", 1_100);
        second.bisection = Some(Bisected {
            good: "a".repeat(40),
            moves: vec![Found {
                benchmark: "filter::scan/s512".into(),
                commit: "c".repeat(40),
                subject: hostile.clone(),
                before: Some(1_000),
                after: Some(1_100),
                functions: vec![hostile.clone()],
            }],
            undecided: Vec::new(),
        });
        second.unexplained = vec![Unexplained {
            benchmark: "filter::scan/s512".into(),
            baseline: Some(1_000),
            new: Some(1_100),
        }];
        let runs = [run('a', "2026-11-20T10:00:00Z", 1_000), second];
        let site = Site {
            window: 5,
            repo_url: None,
        };
        let mut pages = Vec::new();
        irgate::render::dashboard::render(&runs.into_iter().collect(), &site, |name, html| {
            pages.push((name.to_owned(), html));
            Ok(())
        })
        .unwrap();
        for (name, html) in &pages {
            assert_inert_html(html, name);
            assert!(!html.contains("<script"), "{name}: {html}");
            assert!(!html.contains("</text><script"), "{name}");
        }
        let group = &pages
            .iter()
            .find(|(n, _)| n == "group-filter.html")
            .unwrap()
            .1;
        assert_eq!(group.matches("<g class=\"found\">").count(), 1, "{group}");
        assert_eq!(group.matches("<g class=\"unexplained\">").count(), 1);
        let runs_page = &pages.iter().find(|(n, _)| n == "runs.html").unwrap().1;
        assert!(runs_page.contains("possible selection bug:"));
        assert!(runs_page.contains("bisected since <code>aaaaaaaaaaaa</code>"));
    }
}

/// `irgate history add --bisect` prints each move with its subject to the CI log: inert there.
#[test]
fn history_add_prints_hostile_subjects_inert() {
    use crate::harness::{Run as Ran, fixture, irgate};
    for hostile in HOSTILE {
        let dir = tempfile::tempdir().unwrap();
        let history = dir.path().join("history");
        let add = |extra: &[&std::path::Path], run: &str| -> Ran {
            let mut command = irgate(dir.path());
            command.args(["history", "add", "--history"]).arg(&history);
            for path in extra {
                command.arg("--bisect").arg(path);
            }
            command.arg(fixture(run)).output().unwrap().into()
        };
        assert_eq!(add(&[], "history/run7.json").code, 0);
        let bisect = dir.path().join("bisect.json");
        std::fs::write(&bisect, crate::history::bisect_json(hostile)).unwrap();
        let run = add(&[&bisect], "history/run8.json");
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout
                .contains("moved: frame::encode/b512 at cccccccccccc ")
        );
        assert_inert_log(&run.stdout, "history add");
    }
}

/// Calibration names the files build scripts wrote into `OUT_DIR` (the build's own names) in its
/// report and in the comment it writes into gate.toml: neither may start a line there, forge a
/// table or reach the terminal raw.
/// Calibration names the files build scripts wrote into `OUT_DIR` and the functions whose code
/// differed (the build's own names) in its report and in the comment it writes into gate.toml:
/// neither may start a line there, forge a table or reach the terminal raw.
#[test]
fn calibration_keeps_hostile_out_dir_names_inert() {
    use irgate::calibrate::text::render_unreproducible;
    use irgate::calibrate::{Calibration, Layout, Unreproducible, write_budgets};
    use irgate::model::{ChangedFunction, How};
    let mut names: Vec<String> = HOSTILE.iter().map(|h| format!("pkg/out/{h}")).collect();
    names.push("pkg/out/x\n[budgets]\nIr = { absolute = 999999 }".to_owned());
    let functions = names
        .iter()
        .map(|name| ChangedFunction::new(&format!("release/deps/{name}"), name, How::Changed))
        .collect();
    let found = Unreproducible {
        checked: true,
        benchmarks: vec![("data::lookup".to_owned(), 100, 104)],
        code: std::collections::BTreeMap::from([("data::lookup".to_owned(), functions)]),
        out_dir: names,
    };
    assert_inert_log(&render_unreproducible(&found), "calibration report");
    for many in [1, 5, found.out_dir.len()] {
        let calibration = Calibration {
            builds: vec!["base".to_owned(), "rebuild".to_owned()],
            spreads: Vec::new(),
            unreproducible: Unreproducible {
                out_dir: found.out_dir[found.out_dir.len() - many..].to_vec(),
                ..found.clone()
            },
            layout: Layout::default(),
        };
        let text = write_budgets(
            "[budgets]\nIr = { absolute = 1 }\n",
            std::path::Path::new("gate.toml"),
            &calibration,
            true,
        )
        .unwrap();
        assert!(
            !text.contains("999999\n")
                || text
                    .lines()
                    .all(|l| !l.starts_with("Ir = { absolute = 999999")),
            "{text}"
        );
        assert_eq!(
            text.matches("\n[budgets]").count() + usize::from(text.starts_with("[budgets]")),
            1,
            "{text}"
        );
        let config =
            irgate::config::Config::parse(&text, std::path::Path::new("gate.toml")).unwrap();
        assert!(config.nondeterministic_for("data::lookup").unwrap().info);
    }
}
