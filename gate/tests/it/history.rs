//! The history (`irgate history add`) and its dashboard (`irgate history render`) without a
//! browser: a fixture series (a refresh, an environment change, a run of part of the suite)
//! recorded as CI records it, what is refused, and that drawing is deterministic. The pages in a
//! real headless Chromium: slow::dashboard.

use std::path::{Path, PathBuf};

use crate::harness::{Run, fixture, irgate};

/// The fixture series recorded as CI records it: one `history add` per push, run 5 with
/// `--refreshed`.
pub fn recorded_history(dir: &Path) -> PathBuf {
    let history = dir.join("history");
    for n in 1..=8 {
        let mut command = irgate(dir);
        command.args(["history", "add", "--history"]).arg(&history);
        if n == 5 {
            command.arg("--refreshed");
        }
        let run: Run = command
            .arg(format!("{}/run{n}.json", fixture("history")))
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.starts_with("added "), "{}", run.stdout);
    }
    history
}

#[test]
fn a_bad_history_is_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let history = recorded_history(dir.path());
    let runs = history.join("runs");
    let first = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    std::fs::write(&first, "{\"schema_version\": 1, \"commit\": \"zz\"").unwrap();
    let run: Run = irgate(dir.path())
        .args(["history", "render", "--history"])
        .arg(&history)
        .arg("--out")
        .arg(dir.path().join("site"))
        .output()
        .unwrap()
        .into();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with(&format!("irgate: error: {}", first.display()))
            && run.stderr.contains("truncated JSON"),
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("site").exists());

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run: Run = irgate(dir.path())
        .args(["history", "render", "--out", "site", "--history"])
        .arg(&empty)
        .output()
        .unwrap()
        .into();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("the history holds no runs"),
        "{}",
        run.stderr
    );
}

/// The same history draws the same site, byte for byte, and recording it again changes nothing.
#[test]
fn the_same_history_draws_the_same_site() {
    let dir = tempfile::tempdir().unwrap();
    let history = recorded_history(dir.path());
    let again: Run = irgate(dir.path())
        .args(["history", "add", "--history"])
        .arg(&history)
        .arg(fixture("history/run8.json"))
        .output()
        .unwrap()
        .into();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.starts_with("already recorded: "),
        "{}",
        again.stdout
    );
    let render = |out: &str| {
        let run: Run = irgate(dir.path())
            .args(["history", "render", "--out", out, "--history"])
            .arg(&history)
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{}", run.stderr);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join(out))
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let first = render("one");
    assert_eq!(first.len(), 4);
    assert_eq!(first, render("two"));
}

/// `runs` runs of `benchmarks` ids spread over `groups` groups (`g00::bench_00000/input`, ...):
/// benchmark `i` grows by `i` Ir a run from 1,000,000, so the higher `i`, the more it moved; its
/// EstimatedCycles are 3 Ir + 11.
pub fn generated_runs(
    benchmarks: usize,
    groups: usize,
    runs: usize,
) -> Vec<irgate::formats::history::Run> {
    (0..runs)
        .map(|r| {
            let mut fingerprint = crate::harness::fingerprint();
            fingerprint.commit = format!("{:040x}", r + 1);
            fingerprint.date = format!("2026-11-{:02}T{:02}:00:00Z", 1 + r / 24, r % 24);
            let results = irgate::model::Results {
                fingerprint,
                suites: vec!["benches/callgrind".into()],
                features: vec![],
                filters: vec![],
                benchmarks: (0..benchmarks)
                    .map(|i| {
                        let ir = 1_000_000 + (i * r) as u64;
                        (
                            format!("g{:02}::bench_{i:05}/input", i % groups),
                            [
                                ("Ir".to_owned(), ir),
                                ("EstimatedCycles".to_owned(), 3 * ir + 11),
                            ]
                            .into(),
                        )
                    })
                    .collect(),
                ..Default::default()
            };
            irgate::formats::history::Run::from_results(results, None, false, "generated").unwrap()
        })
        .collect()
}

/// The site of `runs`, page by page, as `irgate history render` writes it.
fn pages(
    runs: Vec<irgate::formats::history::Run>,
    window: usize,
) -> std::collections::BTreeMap<String, String> {
    let site = irgate::render::dashboard::Site {
        window,
        repo_url: None,
    };
    let mut pages = std::collections::BTreeMap::new();
    let runs = runs.into_iter().collect();
    let count = irgate::render::dashboard::render(&runs, &site, |name, html| {
        assert!(
            pages.insert(name.to_owned(), html).is_none(),
            "{name} twice"
        );
        Ok(())
    })
    .unwrap();
    assert_eq!(count, pages.len());
    pages
}

/// The overview leads with the biggest movers of the window and lists groups, not every
/// benchmark; each group page indexes its benchmarks, each with a trend line, and charts those
/// that moved most.
#[test]
fn the_overview_leads_with_the_movers_and_every_benchmark_is_two_links_away() {
    use irgate::render::dashboard::{CHARTED_PER_GROUP, INDEX, OVERVIEW_MOVERS, anchor, page_of};

    let runs = generated_runs(300, 7, 6);
    let pages = pages(runs, 5);
    assert_eq!(pages.len(), 1 + 1 + 7, "{:?}", pages.keys());
    let index = &pages[INDEX];

    // The movers first: bench 299 moved most (+0.15% over 5 runs), then 298, ...
    let movers =
        &index[index.find("<h2>Moved most</h2>").unwrap()..index.find("<h2>Groups").unwrap()];
    assert!(movers.contains(&format!(
        "The {OVERVIEW_MOVERS} benchmarks whose Ir moved most over the last 5 runs, largest first, of 299 that moved."
    )));
    let listed: Vec<usize> = movers
        .split("<code>")
        .skip(1)
        .map(|code| {
            code[code.find("bench_").unwrap() + 6..][..5]
                .parse()
                .unwrap()
        })
        .collect();
    let expected: Vec<usize> = (300 - OVERVIEW_MOVERS..300).rev().collect();
    assert_eq!(listed, expected);
    assert_eq!(
        index.matches("<svg class=\"spark\"").count(),
        OVERVIEW_MOVERS
    );
    assert!(movers.contains(&format!(
        "href=\"{}#{}\"",
        page_of("g05::bench_00299/input"),
        anchor("g05::bench_00299/input")
    )));
    // Then one line per group, and no other benchmark.
    assert!(!index.contains("bench_00000"));
    assert!(index.contains(
        "<tr><td><a href=\"group-g00.html\"><code>g00</code></a></td><td class=\"num\">43</td>\
         <td class=\"num\">42</td><td class=\"num up\">+0.15%</td></tr>"
    ));
    let groups = &index[index.find("<h2>Groups").unwrap()..];
    assert_eq!(groups.matches("<tr><td><a href=\"group-g").count(), 7);

    // Every benchmark: one row of its group page's index, with its trend line, and one anchor;
    // the CHARTED_PER_GROUP of the group that moved most (the highest numbers) have their
    // section of charts, one per metric, and their row links to it.
    for i in 0..300 {
        let id = format!("g{:02}::bench_{i:05}/input", i % 7);
        let page = &pages[&page_of(&id)];
        let anchor = anchor(&id);
        let table = &page[..page.find("</tbody>").unwrap()];
        assert_eq!(table.matches(&format!("<code>{id}</code>")).count(), 1);
        assert_eq!(
            page.matches(&format!(" id=\"{anchor}\"")).count(),
            1,
            "{id}"
        );
        let charted = (i + 7 * CHARTED_PER_GROUP) >= 300;
        let row =
            format!("<a href=\"#{anchor}\"><code>{id}</code></a></td><td><svg class=\"spark\"");
        assert_eq!(page.contains(&row), charted, "{id}");
        let section = page.find(&format!("<section id=\"{anchor}\">"));
        assert_eq!(section.is_some(), charted, "{id}");
        if let Some(section) = section {
            let section = &page[section..];
            let section = &section[..section.find("</section>").unwrap()];
            assert_eq!(section.matches("<svg class=\"chart\"").count(), 2, "{id}");
        } else {
            assert!(page.contains(&format!(
                "<tr id=\"{anchor}\"><td><code>{id}</code></td><td><svg class=\"spark\""
            )));
        }
    }
    for (name, page) in &pages {
        if name.starts_with("group-") {
            assert_eq!(
                page.matches("<section id=").count(),
                CHARTED_PER_GROUP,
                "{name}"
            );
        }
    }
}

/// At 20,000 benchmarks the site stays small: the overview lists the movers and the groups, every
/// benchmark is one row of its group's page, charts are drawn for a bounded number of them, and
/// no page nears the 2 MB a page may take.
#[test]
fn a_large_suite_draws_a_bounded_site() {
    use irgate::render::dashboard::{CHARTED, CHARTED_PER_GROUP, INDEX, OVERVIEW_MOVERS};

    let (benchmarks, groups) = (20_000, 100);
    let pages = pages(generated_runs(benchmarks, groups, 3), 2);
    assert_eq!(pages.len(), 2 + groups);
    let index = &pages[INDEX];
    assert_eq!(
        index.matches("<tr>").count(),
        1 + OVERVIEW_MOVERS + 1 + groups
    );
    let (mut rows, mut sections, mut total) = (0, 0, 0);
    for (name, page) in &pages {
        total += page.len();
        assert!(page.len() < 200_000, "{name}: {} bytes", page.len());
        if name.starts_with("group-") {
            let here = page.matches("<section id=").count();
            assert!(here <= CHARTED_PER_GROUP, "{name}: {here} sections");
            sections += here;
            rows += page.matches("<td><svg class=\"spark\"").count();
        }
    }
    assert_eq!(rows, benchmarks);
    assert_eq!(sections, CHARTED);
    // About 250 bytes a benchmark, and the charts.
    assert!(total < benchmarks * 300 + CHARTED * 10_000, "{total} bytes");
}

#[test]
fn a_repo_url_without_a_host_is_refused() {
    let sandbox = crate::harness::Sandbox::new();
    for url in ["https://", "https://user@evil.example/o/r"] {
        let run = sandbox.irgate(&[
            "history",
            "render",
            "--history",
            "h",
            "--out",
            "site",
            "--repo-url",
            url,
        ]);
        assert_eq!(run.code, 2, "{url}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("give a plain https:// address with a host"),
            "{url}: {}",
            run.stderr
        );
    }
}

/// The commit of the fixture's run 7, and of run 8.
const RUN7: &str = "550e6fabadb08f2fba1a98b4120c49f43d18cae5";
pub const RUN8: &str = "84978120a13ee6abb749aced8a4d12be7c85cd69";

/// Runs 1 to 7 of the fixture recorded: run 8 is added by the test.
pub fn history_to_run7(dir: &Path) -> PathBuf {
    let history = dir.join("history");
    for n in 1..=7 {
        let run: Run = irgate(dir)
            .args(["history", "add", "--history"])
            .arg(&history)
            .arg(format!("{}/run{n}.json", fixture("history")))
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    history
}

/// `irgate bisect --format json` (the real writer) of run 7..run 8: `frame::encode/b512` moved
/// at one commit (whose subject is `subject`), `frame::encode/b32` stayed open.
pub fn bisect_json(subject: &str) -> String {
    use irgate::bisect::{Bisection, Move, Undecided};
    irgate::bisect::format::json(&Bisection {
        good: RUN7.to_owned(),
        bad: RUN8.to_owned(),
        commits: 4,
        benchmarks: 4,
        unchanged: 2,
        moves: vec![Move {
            benchmark: "frame::encode/b512".to_owned(),
            commit: "c".repeat(40),
            subject: subject.to_owned(),
            before: Some(2095),
            after: Some(2113),
            functions: vec!["demo::frame::encode".to_owned()],
            files: Vec::new(),
        }],
        undecided: vec![Undecided {
            benchmark: "frame::encode/b32".to_owned(),
            after: "a".repeat(40),
            through: RUN8.to_owned(),
            commits: 2,
            before: Some(456),
            count: Some(460),
            why: "--max-builds 6 reached".to_owned(),
        }],
        builds: 6,
        ..Bisection::default()
    })
}

/// `irgate check --format json` of run 8 (the real writer): `varint::decode/v1` unexplained.
pub fn report_json(commit: &str) -> String {
    use irgate::model::{Budget, Outcome, Report, Row, Status};
    let run8: irgate::model::Results =
        irgate::formats::results::read(Path::new(&fixture("history/run8.json"))).unwrap();
    let mut fingerprint = run8.fingerprint;
    fingerprint.commit = commit.to_owned();
    let row = |benchmark: &str, status, new| Row {
        benchmark: benchmark.to_owned(),
        metric: "Ir".into(),
        baseline: Some(41),
        new: Some(new),
        limit: Some(Budget {
            relative_pct: 1.0,
            absolute: 2,
        }),
        status,
        fails: false,
        since: None,
        accepted: None,
        touch: None,
    };
    irgate::formats::report::render(&Report {
        outcome: Outcome::Undecided {
            reason: "varint::decode/v1 moved beyond the address budget".to_owned(),
        },
        mode: Default::default(),
        rows: vec![
            row("varint::decode/v1", Status::Unexplained, 48),
            row("varint::decode/v5", Status::Ok, 41),
        ],
        fingerprint,
        env_mismatches: Vec::new(),
        attribution: Default::default(),
        change: None,
        carried: Vec::new(),
    })
}

pub fn add_run8(dir: &Path, history: &Path, extra: &[&std::ffi::OsStr]) -> Run {
    irgate(dir)
        .args(["history", "add", "--commit", RUN8, "--history"])
        .arg(history)
        .args(extra)
        .arg(fixture("history/run8.json"))
        .output()
        .unwrap()
        .into()
}

/// Run 8 added with a bisection whose move has `subject` and the check's report of run 8
/// (`--bisect`, `--report`), as the history workflow's record job adds it.
pub fn add_run8_bisected(dir: &Path, history: &Path, subject: &str) -> Run {
    let bisect = dir.join("bisect.json");
    std::fs::write(&bisect, bisect_json(subject)).unwrap();
    let report = dir.join("report.json");
    std::fs::write(&report, report_json(RUN8)).unwrap();
    add_run8(
        dir,
        history,
        &[
            "--bisect".as_ref(),
            bisect.as_os_str(),
            "--report".as_ref(),
            report.as_os_str(),
        ],
    )
}

/// `history add --bisect --report`: the run file (schema 4) keeps the moves with their subjects,
/// the undecided move and the unexplained benchmark; it says so; the dashboard marks them.
#[test]
fn history_add_keeps_the_bisection_and_the_unexplained_benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let history = history_to_run7(dir.path());
    let run = add_run8_bisected(dir.path(), &history, "frame: a \"faster\" loop <b>");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "unexplained: varint::decode/v1 moved beyond the address budget although the code \
             identity said untouched: a possible selection bug"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("moved: frame::encode/b512 at cccccccccccc frame: a \"faster\" loop <b>"),
        "{}",
        run.stdout
    );
    let file = history
        .join("runs")
        .join(format!("20261118T093000Z-{RUN8}.json"));
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(value["schema_version"], 4);
    assert_eq!(
        value["bisection"],
        serde_json::json!({
            "good": RUN7,
            "moves": [{
                "benchmark": "frame::encode/b512",
                "commit": "c".repeat(40),
                "subject": "frame: a \"faster\" loop <b>",
                "before": 2095,
                "after": 2113,
                "functions": ["demo::frame::encode"]
            }],
            "undecided": [{
                "benchmark": "frame::encode/b32",
                "after": "a".repeat(40),
                "through": RUN8
            }]
        })
    );
    assert_eq!(
        value["unexplained"],
        serde_json::json!([{"benchmark": "varint::decode/v1", "baseline": 41, "new": 48}])
    );

    let site = dir.path().join("site");
    let drawn: Run = irgate(dir.path())
        .args(["history", "render", "--history"])
        .arg(&history)
        .arg("--out")
        .arg(&site)
        .output()
        .unwrap()
        .into();
    assert_eq!(drawn.code, 0, "{}", drawn.stderr);
    let frame = std::fs::read_to_string(site.join("group-frame.html")).unwrap();
    let b512 = &frame[frame.find("<section id=\"b-frame--encode-b512\">").unwrap()..];
    let ir_chart = &b512[..b512.find("</figure>").unwrap()];
    assert_eq!(ir_chart.matches("<g class=\"found\">").count(), 1);
    assert!(ir_chart.contains(">frame: a &quot;faster&quot; loop &lt;b&gt;</text>"));
    assert!(ir_chart.contains("<title>cccccccccccc frame: a &quot;faster&quot; loop &lt;b&gt;: Ir 2,095 -&gt; 2,113 (found by bisection)</title>"));
    // Only the Ir chart carries it.
    assert_eq!(b512.matches("<g class=\"found\">").count(), 1);
    let varint = std::fs::read_to_string(site.join("group-varint.html")).unwrap();
    let v1 = &varint[varint.find("<section id=\"b-varint--decode-v1\">").unwrap()..];
    assert_eq!(
        v1[..v1.find("</figure>").unwrap()]
            .matches(">selection bug?</text>")
            .count(),
        1
    );
    let runs = std::fs::read_to_string(site.join("runs.html")).unwrap();
    assert!(runs.contains(&format!(
        "<span class=\"key-found\">bisected since <code>550e6fabadb0</code>:</span> \
         <a href=\"group-frame.html#b-frame--encode-b512\"><code>frame::encode/b512</code></a> at \
         <code title=\"{}\">cccccccccccc</code> frame: a &quot;faster&quot; loop &lt;b&gt; (1 move \
         undecided)",
        "c".repeat(40)
    )));
    assert!(runs.contains(
        "<span class=\"key-unexplained\">possible selection bug:</span> \
         <a href=\"group-varint.html#b-varint--decode-v1\"><code>varint::decode/v1</code></a>"
    ));
}

/// The bisection comes from an artifact: whatever is wrong with it, `history add` stops with a
/// clear error and exit 2, never a panic, and records nothing.
#[test]
fn a_bad_bisection_or_report_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let history = history_to_run7(dir.path());
    let good: serde_json::Value = serde_json::from_str(&bisect_json("s")).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut value = good.clone();
        f(&mut value);
        value.to_string()
    };
    let oversized = format!(
        "{{\"schema_version\": 1, \"good\": \"{}\", \"padding\": \"{}\"}}",
        RUN7,
        "x".repeat(9 * 1024 * 1024)
    );
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "malformed",
            "{\"schema_version\": 1, \"moves\": [".to_owned(),
            "not the output of `irgate bisect --format json`",
        ),
        (
            "empty",
            String::new(),
            "not the output of `irgate bisect --format json`",
        ),
        ("oversized", oversized, "larger than 8388608 bytes"),
        (
            "future",
            edit(&|v| v["schema_version"] = 2.into()),
            "unsupported schema_version 2",
        ),
        (
            "non-hex move",
            edit(&|v| v["moves"][0]["commit"] = "../../etc/passwd".into()),
            "is not a full commit hash",
        ),
        (
            "short good",
            edit(&|v| v["good"] = "550e6fab".into()),
            "good: \"550e6fab\" is not a full commit hash",
        ),
        (
            "upper-case hex",
            edit(&|v| v["moves"][0]["commit"] = "C".repeat(40).into()),
            "is not a full commit hash",
        ),
        (
            "another bad end",
            edit(&|v| v["bad"] = "d".repeat(40).into()),
            "not up to this run's commit",
        ),
        (
            "no range",
            edit(&|v| v["good"] = RUN8.into()),
            "its good end is the run's own commit",
        ),
        (
            "unrecorded good end",
            edit(&|v| v["good"] = "e".repeat(40).into()),
            "is no run recorded in",
        ),
        (
            "hostile id",
            edit(&|v| v["moves"][0]["benchmark"] = "../\u{1b}[2Jx".into()),
            "invalid benchmark id",
        ),
        (
            "no move",
            edit(&|v| v["moves"][0]["after"] = 2095.into()),
            "whose count did not change",
        ),
        (
            "negative count",
            edit(&|v| v["moves"][0]["before"] = (-1).into()),
            "not the output of `irgate bisect --format json`",
        ),
        (
            "too many moves",
            edit(&|v| {
                let one = v["moves"][0].clone();
                v["moves"] = serde_json::Value::Array(vec![one; 10_001]);
            }),
            "more than 10000 moves",
        ),
    ];
    let bisect = dir.path().join("bisect.json");
    for (what, text, expected) in cases {
        std::fs::write(&bisect, text).unwrap();
        let run = add_run8(
            dir.path(),
            &history,
            &["--bisect".as_ref(), bisect.as_os_str()],
        );
        assert_eq!(run.code, 2, "{what}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(expected), "{what}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("irgate: error: {}", bisect.display())),
            "{what}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains('\u{1b}'), "{what}");
        assert_eq!(
            std::fs::read_dir(history.join("runs")).unwrap().count(),
            7,
            "{what}"
        );
    }
    // A missing file, and a report of another commit.
    let missing = add_run8(
        dir.path(),
        &history,
        &[
            "--bisect".as_ref(),
            dir.path().join("none.json").as_os_str(),
        ],
    );
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    let report = dir.path().join("report.json");
    std::fs::write(&report, report_json(&"f".repeat(40))).unwrap();
    let other = add_run8(
        dir.path(),
        &history,
        &["--report".as_ref(), report.as_os_str()],
    );
    assert_eq!(other.code, 2, "{}", other.stderr);
    assert!(
        other.stderr.contains("not of the results recorded"),
        "{}",
        other.stderr
    );
    std::fs::write(&report, "{\"schema_version\": 4").unwrap();
    let broken = add_run8(
        dir.path(),
        &history,
        &["--report".as_ref(), report.as_os_str()],
    );
    assert_eq!(broken.code, 2, "{}", broken.stderr);
    assert!(
        broken.stderr.contains("not an irgate JSON report"),
        "{}",
        broken.stderr
    );
    // Both belong to one run.
    std::fs::write(&bisect, bisect_json("s")).unwrap();
    let two: Run = irgate(dir.path())
        .args(["history", "add", "--history"])
        .arg(&history)
        .arg("--bisect")
        .arg(&bisect)
        .arg(fixture("history/run7.json"))
        .arg(fixture("history/run8.json"))
        .output()
        .unwrap()
        .into();
    assert_eq!(two.code, 2, "{}", two.stderr);
    assert!(
        two.stderr.contains("--bisect belongs to one run"),
        "{}",
        two.stderr
    );
    assert_eq!(std::fs::read_dir(history.join("runs")).unwrap().count(), 7);
}

/// The history workflow's range (`docker/history-range`, run by the action's `bisect: "true"`):
/// the last recorded commit when an Ir moved over more than one commit, fetched into a shallow
/// checkout; nothing, with the reason, otherwise.
#[test]
fn the_range_to_bisect_is_the_last_recorded_commit_when_a_count_moved_over_several() {
    use crate::harness::git;
    let dir = tempfile::tempdir().unwrap();
    // The repository as the server has it: `owner/repo.git`, five commits on main.
    let origin = dir.path().join("owner/repo.git");
    std::fs::create_dir_all(&origin).unwrap();
    git(&origin, &["init", "-q", "-b", "main"]);
    let mut commits = Vec::new();
    for n in 1..=5 {
        std::fs::write(origin.join("lib.rs"), format!("// {n}\n")).unwrap();
        git(&origin, &["add", "lib.rs"]);
        git(&origin, &["commit", "-q", "-m", &format!("commit {n}")]);
        commits.push(git(&origin, &["rev-parse", "HEAD"]));
    }
    let record = |recorded: &str, ir: u64, extra: &str| {
        git(&origin, &["checkout", "-q", "--orphan", "irgate-history"]);
        git(&origin, &["rm", "-q", "-rf", "--cached", "."]);
        std::fs::remove_file(origin.join("lib.rs")).ok();
        std::fs::create_dir_all(origin.join("runs")).unwrap();
        let run = serde_json::json!({"commit": recorded,
            "results": {"benchmarks": {"a::b": {"Ir": ir}}}});
        std::fs::write(
            origin.join(format!("runs/20261101T000000Z-{recorded}.json")),
            run.to_string(),
        )
        .unwrap();
        // A file not named as a run is no run: ignored.
        std::fs::write(origin.join(format!("runs/{extra}")), "{}").unwrap();
        git(&origin, &["add", "runs"]);
        git(&origin, &["commit", "-q", "-m", "run"]);
        git(&origin, &["checkout", "-q", "-f", "main"]);
        std::fs::remove_dir_all(origin.join("runs")).ok();
    };
    let head = commits[4].clone();
    // The push's checkout: shallow, as actions/checkout with fetch-depth 2 leaves it.
    let checkout = dir.path().join("checkout");
    let url = format!("file://{}", dir.path().display());
    // `fetched`: a run the drift step's copy of the branch holds (target/irgate/history).
    let range_with = |results_ir: u64, fetched: Option<&str>| -> (String, String) {
        std::fs::remove_dir_all(&checkout).ok();
        git(
            dir.path(),
            &[
                "clone",
                "-q",
                "--depth",
                "2",
                &format!("{url}/owner/repo.git"),
                "checkout",
            ],
        );
        if let Some(recorded) = fetched {
            let runs = checkout.join("target/irgate/history/runs");
            std::fs::create_dir_all(&runs).unwrap();
            let run = serde_json::json!({"commit": recorded,
                "results": {"benchmarks": {"a::b": {"Ir": 100}}}});
            std::fs::write(
                runs.join(format!("20261101T000000Z-{recorded}.json")),
                run.to_string(),
            )
            .unwrap();
        }
        let results = checkout.join("results.json");
        std::fs::write(
            &results,
            serde_json::json!({"benchmarks": {"a::b": {"Ir": results_ir}}}).to_string(),
        )
        .unwrap();
        let out = std::process::Command::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../docker/history-range"),
        )
        .current_dir(&checkout)
        .arg("results.json")
        .env("GITHUB_SERVER_URL", &url)
        .env("GITHUB_REPOSITORY", "owner/repo")
        .env("GITHUB_SHA", &head)
        .env("GITHUB_TOKEN", "")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap().trim().to_owned(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let range = |results_ir: u64| range_with(results_ir, None);

    // No history branch yet.
    let (good, why) = range(100);
    assert_eq!(good, "");
    assert!(why.contains("no irgate-history branch"), "{why}");

    // Recorded at commit 1: four commits lie between, beyond the shallow checkout's two.
    record(&commits[0], 100, "notes.json");
    let (good, why) = range(100);
    assert_eq!(good, "", "no count moved: {why}");
    assert!(why.contains("no Ir moved"), "{why}");
    let (good, why) = range(101);
    assert_eq!(good, commits[0], "{why}");
    assert!(why.contains("over 4 commits"), "{why}");
    // The checkout was deepened until the recorded commit is there.
    git(
        &checkout,
        &["cat-file", "-e", &format!("{}^{{commit}}", commits[0])],
    );

    // Recorded at the push's parent: the move is the push's own, nothing to bisect.
    git(&origin, &["branch", "-q", "-D", "irgate-history"]);
    record(&commits[3], 100, "20261101T000000Z-zz.json");
    let (good, why) = range(101);
    assert_eq!(good, "", "{why}");
    assert!(why.contains("one commit since"), "{why}");
    // The copy the drift step fetched is read, not fetched again: it says commit 1.
    let (good, why) = range_with(101, Some(&commits[0]));
    assert_eq!(good, commits[0], "{why}");
    assert!(why.contains("fetched for the drift budget"), "{why}");

    // Usage: no results file.
    let out = std::process::Command::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docker/history-range"),
    )
    .current_dir(&checkout)
    .arg("missing.json")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A binary benchmark's row on its group page says its count is its program's, with the whole
/// process's beside it; a library benchmark's says nothing.
#[test]
fn a_binary_benchmarks_row_says_its_count_is_its_programs() {
    let mut runs = generated_runs(2, 1, 3);
    let last = runs.last_mut().unwrap();
    last.results.process.whole.insert(
        "g00::bench_00000/input".to_owned(),
        [("Ir".to_owned(), 307_417)].into(),
    );
    let pages = pages(runs, 2);
    let group = &pages[&irgate::render::dashboard::page_of("g00::bench_00000/input")];
    assert!(
        group.contains(
            "<code>g00::bench_00000/input</code></a> <small>binary benchmark: its program&#39;s \
             count (whole process 307,417 Ir)</small></td>"
        ),
        "{group}"
    );
    assert_eq!(group.matches("binary benchmark").count(), 1);
}
