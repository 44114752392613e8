//! Where the instructions went, end to end: `irgate run --from` real gungraun output (summaries
//! and callgrind files of `filter::passthrough/n8` and `varint::decode/v2097151`, as the suite
//! as it is and built with codec's `inject-slowdown` wrote them: tests/fixtures/profiled), then
//! `refresh`, `check` in every format and `irgate explain`.

use std::path::Path;

use serde_json::Value;

use crate::harness::{Sandbox, copy_dir, fixture};

/// The checkout the fixtures were taken in; source paths in them are below it.
const TAKEN_IN: &str = "/work/wt/explain";

/// A sandbox with gate.toml, the two fixture sets of tests/fixtures/profiled copied in as if
/// taken in it, baselines (counts and profiles) from `base`, and results of `slowdown`.
fn profiled() -> Sandbox {
    profiled_as(false)
}

/// [`profiled`], with `filter::passthrough/n8`'s summaries saying it is a binary benchmark (its
/// files are a whole run from `main`: the harness's process).
fn profiled_as(binary: bool) -> Sandbox {
    let sandbox = Sandbox::with_config("[budgets]\nIr = { relative_pct = 1.0, absolute = 5 }\n");
    let root = sandbox
        .path("")
        .to_string_lossy()
        .trim_end_matches('/')
        .to_owned();
    for set in ["base", "slowdown"] {
        let from = fixture(&format!("profiled/{set}"));
        for file in copy_dir(Path::new(&from), &sandbox.path(set)) {
            let text = std::fs::read_to_string(&file).unwrap();
            std::fs::write(&file, text.replace(TAKEN_IN, &root)).unwrap();
            // Measured long ago: whatever binary sits at the measured path on this machine now
            // was built after, so no test reads it (the results do not depend on the machine).
            std::fs::File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1))
                .unwrap();
        }
        let summary = sandbox.path(&format!("{set}/filter/passthrough.n8/summary.json"));
        if binary {
            let mut json: Value =
                serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
            json["kind"] = "BinaryBenchmark".into();
            json["output_dir"] = summary.parent().unwrap().to_string_lossy().as_ref().into();
            std::fs::write(&summary, json.to_string()).unwrap();
        }
    }
    sandbox.ok(&["run", "--from", "base", "--results", "base.json"]);
    sandbox.ok(&["refresh", "--results", "base.json"]);
    sandbox.ok(&["run", "--from", "slowdown", "--results", "slow.json"]);
    sandbox
}

#[test]
fn refresh_stores_profiles_beside_the_counts_and_the_loader_ignores_them() {
    let sandbox = profiled();
    let profiles = sandbox.path("baselines/profiles");
    let mut files: Vec<String> = std::fs::read_dir(&profiles)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["filter.json", "varint.json"]);
    let filter: Value =
        serde_json::from_str(&std::fs::read_to_string(profiles.join("filter.json")).unwrap())
            .unwrap();
    let n8 = &filter["benchmarks"]["filter::passthrough/n8"];
    assert_eq!(n8["total"], 122);
    let dispatch = &n8["functions"]["callgrind::scan::__gungraun_wrapper_mod::scan"];
    assert_eq!(dispatch["file"], "benches/benches/callgrind.rs");
    assert!(sandbox.path("base.profiles.json").is_file());
    // The baselines with their profiles/ subdirectory still compare: exit 0 on the same counts.
    let same = sandbox.irgate(&["check", "--results", "base.json"]);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert!(!same.stdout.contains("where the"), "nothing to explain");
}

#[test]
fn check_explains_the_benchmark_over_budget_in_every_format() {
    let sandbox = profiled();
    let table = sandbox.irgate(&["check", "--results", "slow.json"]);
    assert_eq!(table.code, 1, "{}", table.stderr);
    let lines: Vec<&str> = table.stdout.lines().collect();
    let failing = lines
        .iter()
        .position(|l| l.starts_with("filter::passthrough/n8") && l.contains("FAIL"))
        .unwrap();
    assert_eq!(
        lines[failing + 1].trim(),
        "where the +62 Ir of filter::passthrough/n8 went (self Ir by function):"
    );
    let top: Vec<&str> = lines[failing + 3].split_whitespace().collect();
    assert_eq!(
        top[..5],
        [
            "codec::filter::injected_slowdown",
            "(new)",
            "-",
            "61",
            "+61"
        ]
    );
    assert!(!table.stdout.contains("note:"), "{}", table.stdout);

    let json = sandbox.irgate(&["check", "--results", "slow.json", "--format", "json"]);
    assert_eq!(json.code, 1);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    let explained = &report["explanations"][0];
    assert_eq!(explained["benchmark"], "filter::passthrough/n8");
    assert_eq!(explained["base_total"], 122);
    assert_eq!(explained["new_total"], 184);
    let mover = &explained["movers"][0];
    assert_eq!(mover["function"], "codec::filter::injected_slowdown");
    assert_eq!(mover["kind"], "added");
    assert_eq!(mover["new_self"], 61);
    assert_eq!(explained["flamegraph"], "filter.passthrough.n8.svg");
    assert_eq!(report["explanations"].as_array().unwrap().len(), 1);

    let markdown = sandbox.irgate(&["check", "--results", "slow.json", "--format", "markdown"]);
    assert!(markdown.stdout.contains(
        "<details><summary>Where the +62 Ir of <code>filter::passthrough/n8</code> went</summary>"
    ));
    // The comment renders the same section from the JSON report.
    std::fs::write(sandbox.path("report.json"), &json.stdout).unwrap();
    let report = read_report(&sandbox.path("report.json"));
    let comment =
        irgate::render::markdown::render(&report, irgate::render::markdown::Limit::chars(65_000));
    assert!(comment.contains("Where the +62 Ir of <code>filter::passthrough/n8</code> went"));

    let svg =
        std::fs::read_to_string(sandbox.path("flamegraphs/filter.passthrough.n8.svg")).unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("codec::filter::injected_slowdown"));
}

#[test]
fn the_comment_section_is_stable() {
    let sandbox = profiled();
    let run = sandbox.ok(&[
        "explain",
        "filter::passthrough/n8",
        "--results",
        "slow.json",
        "--format",
        "markdown",
    ]);
    insta::assert_snapshot!("explanation_section", run.stdout);
}

#[test]
fn explain_works_for_any_benchmark_and_refuses_unknown_ones() {
    let sandbox = profiled();
    let run = sandbox.ok(&[
        "explain",
        "varint::decode/v2097151",
        "--results",
        "slow.json",
    ]);
    assert!(
        run.stdout
            .starts_with("where the ±0 Ir of varint::decode/v2097151 went"),
        "{}",
        run.stdout
    );
    let unknown = sandbox.irgate(&["explain", "varint::nope", "--results", "slow.json"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown
            .stderr
            .contains("no benchmark matches `varint::nope`"),
        "{}",
        unknown.stderr
    );
    let no_run = sandbox.irgate(&[
        "explain",
        "varint::decode/v2097151",
        "--results",
        "none.json",
    ]);
    assert_eq!(no_run.code, 2);
    assert!(
        no_run
            .stderr
            .contains("no per-function profiles: run `irgate run` first")
    );
}

#[test]
fn without_baseline_profiles_the_verdict_stands_with_a_note() {
    let sandbox = profiled();
    std::fs::remove_dir_all(sandbox.path("baselines/profiles")).unwrap();
    let table = sandbox.irgate(&["check", "--results", "slow.json"]);
    assert_eq!(table.code, 1);
    assert!(!table.stdout.contains("where the +62"));
    assert!(
        table.stdout.lines().last().unwrap().starts_with(
            "note: no per-function profile in the baselines, so no explanation of where the \
             instructions went: `irgate run && irgate refresh`"
        ),
        "{}",
        table.stdout
    );
    let explain = sandbox.irgate(&[
        "explain",
        "filter::passthrough/n8",
        "--results",
        "slow.json",
    ]);
    assert_eq!(explain.code, 2);
    assert!(
        explain
            .stderr
            .contains("no baseline profile of `filter::passthrough/n8`")
    );
}

#[test]
fn profiles_of_other_counts_are_not_used() {
    let sandbox = profiled();
    let path = sandbox.path("baselines/profiles/filter.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"total\": 122", "\"total\": 121", 1)).unwrap();
    let table = sandbox.irgate(&["check", "--results", "slow.json"]);
    assert_eq!(table.code, 1);
    assert!(!table.stdout.contains("where the +62"), "{}", table.stdout);
    assert!(table.stdout.contains("note: "), "{}", table.stdout);

    std::fs::write(
        &path,
        "{\"schema_version\": 1, \"event\": \"Ir\", \"benchmarks\": [",
    )
    .unwrap();
    let broken = sandbox.irgate(&["check", "--results", "slow.json"]);
    assert_eq!(broken.code, 1, "a broken profile never changes the verdict");
    assert!(
        broken
            .stdout
            .contains("note: baseline profiles unreadable: "),
        "{}",
        broken.stdout
    );
}

#[test]
fn explanations_stay_within_githubs_comment_limit() {
    let sandbox = profiled();
    let json = sandbox.irgate(&["check", "--results", "slow.json", "--format", "json"]);
    std::fs::write(sandbox.path("report.json"), &json.stdout).unwrap();
    let mut report = read_report(&sandbox.path("report.json"));
    let one = report.attribution.explanations[0].clone();
    let mut rows = Vec::new();
    for i in 0..400 {
        let mut explained = one.clone();
        explained.benchmark = format!("filter::passthrough/{i}{}", "x".repeat(150));
        for mover in &mut explained.explanation.movers {
            mover.function = format!("{}<{}>", mover.function, "T".repeat(150));
        }
        report.attribution.explanations.push(explained);
        let mut row = report.rows[0].clone();
        row.benchmark = format!("filter::passthrough/{i}");
        rows.push(row);
    }
    report.rows.extend(rows);
    let limit = irgate::render::markdown::Limit::COMMENT;
    let body = irgate::render::markdown::render(&report, limit);
    assert!(limit.len(&body) <= limit.max);
    assert!(body.starts_with("## ❌ irgate:"));
    let left_out = body
        .lines()
        .find(|l| l.starts_with("*Left out to stay within"))
        .unwrap();
    assert!(
        left_out.contains(" explanations")
            && left_out.contains("`irgate explain BENCH` shows where"),
        "{left_out}"
    );
    assert!(body.contains("Where the +62 Ir of <code>filter::passthrough/n8</code> went"));
    assert_eq!(
        body.matches("<details><summary>Where the").count(),
        body.matches("</details>").count()
            - body.matches("<details><summary>The other").count()
            - body.matches("<details><summary>Environment").count(),
        "every section is closed"
    );
}

/// `irgate comment` exists with the `github` feature only.
#[cfg(feature = "github")]
#[test]
fn the_comment_links_the_flame_graph_to_the_measuring_run() {
    let sandbox = profiled();
    let json = sandbox.irgate(&["check", "--results", "slow.json", "--format", "json"]);
    std::fs::write(sandbox.path("report.json"), &json.stdout).unwrap();
    let summary = |url: &str| {
        let path = sandbox.path("summary.md");
        let _ = std::fs::remove_file(&path);
        let status = sandbox
            .command()
            .args(["comment", "--report", "report.json", "--no-post"])
            .env("GITHUB_STEP_SUMMARY", &path)
            .env("IRGATE_ARTIFACTS_URL", url)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap()
            .status;
        assert_eq!(status.code(), Some(1), "the gate's verdict");
        std::fs::read_to_string(path).unwrap()
    };
    let run = "https://github.com/o/r/actions/runs/42";
    assert!(summary(run).contains(
        "Differential flame graph: `filter.passthrough.n8.svg` in the workflow run's \
         [`irgate-flamegraphs` artifact](https://github.com/o/r/actions/runs/42)."
    ));
    let hostile = summary("javascript:alert(1)");
    assert!(hostile.contains("in the workflow run's `irgate-flamegraphs` artifact."));
    assert!(!hostile.contains("javascript"));
}

/// The JSON report `irgate check --format json` wrote, read back with its own reader.
fn read_report(path: &std::path::Path) -> irgate::model::Report {
    let text = std::fs::read_to_string(path).unwrap();
    irgate::formats::report::parse(&text, &path.display().to_string()).unwrap()
}

#[test]
fn a_corrupt_callgrind_file_costs_only_its_own_benchmarks_explanation() {
    let sandbox = profiled();
    let file = sandbox.path("slowdown/filter/passthrough.n8/callgrind.passthrough.n8.out");
    let text = std::fs::read_to_string(&file).unwrap();
    // Cut off before its `totals:` line, with a terminal escape where the reason quotes it.
    let cut = &text[..text.rfind("totals:").unwrap()];
    std::fs::write(&file, format!("{cut}\u{1b}[2J\n")).unwrap();
    let run = sandbox.ok(&["run", "--from", "slowdown", "--results", "slow.json"]);
    assert!(
        run.stderr
            .contains("irgate: warning: no per-function profile of filter::passthrough/n8: ")
            && run.stderr.contains("not a callgrind line: `\\u{1b}[2J`"),
        "{}",
        run.stderr
    );
    let profiles: Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.path("slow.profiles.json")).unwrap())
            .unwrap();
    assert!(profiles["benchmarks"]["varint::decode/v2097151"].is_object());
    assert!(profiles["benchmarks"]["filter::passthrough/n8"].is_null());

    let table = sandbox.irgate(&["check", "--results", "slow.json"]);
    assert_eq!(table.code, 1, "the verdict stands");
    let note = table.stdout.lines().last().unwrap();
    assert!(
        note.starts_with(
            "note: 1 over budget not explained: filter::passthrough/n8: its profile could not \
             be read: "
        ) && note.contains("callgrind.passthrough.n8.out: line "),
        "{}",
        table.stdout
    );
    assert!(!note.contains('\u{1b}'), "{note}");
    // The other benchmark's profile is still there to explain.
    sandbox.ok(&[
        "explain",
        "varint::decode/v2097151",
        "--results",
        "slow.json",
    ]);
    let explain = sandbox.irgate(&[
        "explain",
        "filter::passthrough/n8",
        "--results",
        "slow.json",
    ]);
    assert_eq!(explain.code, 2);
    assert!(
        explain.stderr.contains(
            "no profile of `filter::passthrough/n8`: its callgrind file could not be read: "
        ),
        "{}",
        explain.stderr
    );

    // Cut off cleanly, before its `totals:`: the same, with callgrind's rule as the reason.
    std::fs::write(&file, cut).unwrap();
    let run = sandbox.ok(&["run", "--from", "slowdown", "--results", "slow.json"]);
    assert!(
        run.stderr.contains(
            "cut off: part 1 ends without the `totals:` line callgrind ends every part with"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn ab_check_explains_from_both_sides_profiles() {
    let sandbox = profiled();
    // The base side of `irgate run --base`, beside the head side's results.
    sandbox.ok(&["run", "--from", "base", "--results", "slow.base.json"]);
    assert!(sandbox.path("slow.base.profiles.json").is_file());
    let table = sandbox.irgate(&["check", "--base", "--results", "slow.json"]);
    assert_eq!(table.code, 1, "{}{}", table.stdout, table.stderr);
    assert!(
        table
            .stdout
            .contains("where the +62 Ir of filter::passthrough/n8 went"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("codec::filter::injected_slowdown"));
    // Without the base side's profiles: a note that says so, the verdict unchanged.
    std::fs::remove_file(sandbox.path("slow.base.profiles.json")).unwrap();
    let table = sandbox.irgate(&["check", "--base", "--results", "slow.json"]);
    assert_eq!(table.code, 1);
    assert!(
        table
            .stdout
            .contains("note: no per-function profiles beside the results (")
            && table.stdout.contains("slow.base.profiles.json"),
        "{}",
        table.stdout
    );
}

/// A change spread over many small functions, each below the profile's floor, lands in the rest
/// with no function counted: both the terminal and the markdown say so, not "0 functions".
#[test]
fn a_change_spread_over_small_functions_is_not_everything_else_of_0_functions() {
    use irgate::model::Explained;
    let explanation = serde_json::json!({
        "base_total": 1_000,
        "new_total": 1_180,
        "movers": [],
        "rest": {"base": 1_000, "new": 1_180, "functions": 0},
    });
    let explained = Explained {
        benchmark: "spread::wide/b1".into(),
        explanation: serde_json::from_value(explanation).unwrap(),
        flamegraph: None,
    };
    let terminal = irgate::render::explanation::text(&explained, "");
    let markdown = irgate::render::markdown::explanation(&explained, None);
    for (what, text) in [("terminal", &terminal), ("markdown", &markdown)] {
        assert!(!text.contains("0 functions"), "{what}: {text}");
        assert!(
            text.contains("everything else (small functions, each below the profile's floor)"),
            "{what}: {text}"
        );
    }
}

/// A binary benchmark end to end: `run` keeps its whole process beside its program's count,
/// `refresh` stores both, `check` gates the program's and says so in every format, and the
/// explanation (of the whole process's profile) still attaches.
#[test]
fn a_binary_benchmark_is_gated_on_its_program_end_to_end() {
    let sandbox = profiled_as(true);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.path("slow.json")).unwrap()).unwrap();
    // The harness's `main` runs the benchmark through `__rust_begin_short_backtrace`, and its
    // files start at `main`: program and whole process are one here.
    assert_eq!(results["benchmarks"]["filter::passthrough/n8"]["Ir"], 184);
    assert_eq!(results["process"]["filter::passthrough/n8"]["Ir"], 184);
    assert!(results["process"].get("varint::decode/v2097151").is_none());
    let baseline: Value = serde_json::from_str(
        &std::fs::read_to_string(sandbox.path("baselines/filter.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(baseline["process"]["filter::passthrough/n8"]["Ir"], 122);
    let table = sandbox.irgate(&["check", "--results", "slow.json"]);
    assert_eq!(table.code, 1, "{}", table.stderr);
    assert!(
        table.stdout.contains(
            "gated on the program's count (its main, without the process's start-up and exit); \
             whole process 122 -> 184"
        ),
        "{}",
        table.stdout
    );
    assert!(
        table
            .stdout
            .contains("where the +62 Ir of filter::passthrough/n8 went")
    );
    let json = sandbox.irgate(&["check", "--results", "slow.json", "--format", "json"]);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    let process = &report["processes"]["filter::passthrough/n8"];
    assert_eq!(process["program"][0], "Ir");
    assert_eq!(process["whole"]["Ir"]["new"], 184);
    assert!(report["processes"].get("varint::decode/v2097151").is_none());
    let markdown = sandbox.irgate(&["check", "--results", "slow.json", "--format", "markdown"]);
    assert!(
        markdown.stdout.contains("gated on the program"),
        "{}",
        markdown.stdout
    );
    let explained = sandbox.ok(&[
        "explain",
        "filter::passthrough/n8",
        "--results",
        "slow.json",
    ]);
    assert!(
        explained
            .stdout
            .contains("gated: the program's Ir (its main, without the process's start-up and exit): 122 -> 184"),
        "{}",
        explained.stdout
    );
}
