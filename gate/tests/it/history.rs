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
    use irgate::render::dashboard::{CHARTED_PER_GROUP, INDEX, MOVERS, anchor, page_of};

    let runs = generated_runs(300, 7, 6);
    let pages = pages(runs, 5);
    assert_eq!(pages.len(), 1 + 1 + 7, "{:?}", pages.keys());
    let index = &pages[INDEX];

    // The movers first: bench 299 moved most (+0.15% over 5 runs), then 298, ...
    let movers =
        &index[index.find("<h2>Moved most</h2>").unwrap()..index.find("<h2>Groups").unwrap()];
    assert!(movers.contains(&format!(
        "The {MOVERS} benchmarks whose Ir moved most over the last 5 runs, largest first, of 299 that moved."
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
    let expected: Vec<usize> = (300 - MOVERS..300).rev().collect();
    assert_eq!(listed, expected);
    assert_eq!(index.matches("<svg class=\"spark\"").count(), MOVERS);
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
    use irgate::render::dashboard::{CHARTED, CHARTED_PER_GROUP, INDEX, MOVERS};

    let (benchmarks, groups) = (20_000, 100);
    let pages = pages(generated_runs(benchmarks, groups, 3), 2);
    assert_eq!(pages.len(), 2 + groups);
    let index = &pages[INDEX];
    assert_eq!(index.matches("<tr>").count(), 1 + MOVERS + 1 + groups);
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
