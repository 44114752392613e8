//! The `irgate` binary end to end on real gungraun summaries (tests/fixtures/summaries, taken with
//! the bench in tests/fixtures/gbench; `slowdown` is the same suite built with its `slow` feature,
//! which doubles the work of `checksum`, so `filter::scan/*` regress and `filter::alloc` moves by
//! one instruction from an inlining shift).

use std::path::{Path, PathBuf};

mod support;

use support::Run;

use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/summaries");

/// A scratch repository: gate.toml, baselines/, results files.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let sandbox = Sandbox {
            dir: tempfile::tempdir().unwrap(),
        };
        sandbox.write(
            "gate.toml",
            "[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n",
        );
        sandbox
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    fn irgate(&self, args: &[&str]) -> Run {
        support::irgate(self.dir.path())
            .args(args)
            .output()
            .unwrap()
            .into()
    }

    /// `irgate run --from` a copy of fixture summaries `set` into results file `name`, with a
    /// fixed fingerprint, then `edit` applied to its JSON.
    fn results(&self, set: &str, name: &str, edit: impl FnOnce(&mut Value)) {
        let run = self.irgate(&["run", "--from", &fixture(set), "--results", name]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let mut results: Value = serde_json::from_str(&self.read(name)).unwrap();
        results["fingerprint"] = fingerprint();
        edit(&mut results);
        self.write(name, &serde_json::to_string_pretty(&results).unwrap());
    }

    /// Baselines in baselines/ from the `base` summaries.
    fn baselines(&self) {
        self.results("base", "base.json", |_| {});
        let refresh = self.irgate(&["refresh", "--results", "base.json"]);
        assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    }

    fn check(&self, results: &str, extra: &[&str]) -> Run {
        let mut args = vec!["check", "--results", results];
        args.extend_from_slice(extra);
        self.irgate(&args)
    }
}

fn fixture(set: &str) -> String {
    format!("{FIXTURES}/{set}")
}

/// The fingerprint every test's counts carry, so reports are stable.
fn fingerprint() -> Value {
    json!({
        "rustc": "1.95.0",
        "rustc_commit": "59807616e1fa2540724bfbac14d7976d7e4a3860",
        "target": "x86_64-unknown-linux-gnu",
        "valgrind": "valgrind-3.19.0",
        "library": "gungraun 0.20.0",
        "glibc": "2.36",
        "glibc_tunables": "glibc.cpu.x86_rep_movsb_threshold=4294967295:glibc.cpu.x86_rep_stosb_threshold=4294967295",
        "cpu": "GenuineIntel family 0x6 model 0x3c stepping 0x3, x86-64-v3",
        "cpu_flags": ["avx2", "erms"],
        "host_cpu": "AuthenticAMD AMD EPYC",
        "aslr": "off",
        "environment": "host",
        "workspace_root": "/work/main",
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "date": "2026-11-22T05:00:00Z"
    })
}

fn set_ir(results: &mut Value, id: &str, ir: u64) {
    results["benchmarks"][id]["Ir"] = json!(ir);
}

/// The benchmarks that fail, from the JSON report.
fn failing(run: &Run) -> Vec<String> {
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["fails"] == true)
        .map(|row| row["benchmark"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn passes_when_every_count_matches() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    let run = sandbox.check("base.json", &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    insta::assert_snapshot!("pass_table", run.stdout);
}

#[test]
fn a_two_percent_regression_fails_and_names_the_benchmark() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    // 2,778 -> 2,834: +2.0%, +56 Ir, over both "1%" and "50 Ir".
    sandbox.results("base", "new.json", |r| {
        set_ir(r, "filter::scan/s512", 2_834)
    });
    let run = sandbox.check("new.json", &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let first = run.stdout.lines().nth(1).unwrap();
    assert!(first.starts_with("filter::scan/s512"), "{first}");
    assert!(
        first.contains("+2.02%") && first.ends_with("FAIL over budget"),
        "{first}"
    );
    insta::assert_snapshot!("regression_table", run.stdout);

    let json = sandbox.check("new.json", &["--format", "json"]);
    assert_eq!(json.code, 1);
    assert_eq!(failing(&json), ["filter::scan/s512"]);
    insta::assert_snapshot!("regression_json", json.stdout);
}

#[test]
fn a_real_slowdown_fails_exactly_the_benchmarks_it_touches() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("slowdown", "slow.json", |_| {});
    let run = sandbox.check("slow.json", &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(failing(&run), ["filter::scan/s512", "filter::scan/s32"]);
    // filter::alloc moved by one instruction (71 -> 70): well inside the absolute slack.
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let alloc = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["benchmark"] == "filter::alloc")
        .unwrap();
    assert_eq!(
        (alloc["baseline"].clone(), alloc["new"].clone()),
        (json!(71), json!(70))
    );
    assert_eq!(alloc["status"], "ok");
}

#[test]
fn an_improvement_is_a_stale_baseline_and_fails_only_with_strict() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("base", "better.json", |r| {
        set_ir(r, "filter::scan/s512", 2_700)
    });
    let run = sandbox.check("better.json", &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("stale: better than budget"));
    assert!(
        run.stdout
            .contains("Stale baselines: `irgate refresh FILTER`")
    );
    let strict = sandbox.check("better.json", &["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    assert!(strict.stdout.contains("FAIL stale"), "{}", strict.stdout);
}

#[test]
fn new_benchmarks_fail_closed_and_vanished_ones_are_listed() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    // varint::encode/v0 loses its baseline; filter::alloc stops running.
    let mut varint: Value = serde_json::from_str(&sandbox.read("baselines/varint.json")).unwrap();
    varint["benchmarks"]
        .as_object_mut()
        .unwrap()
        .remove("varint::encode/v0");
    sandbox.write("baselines/varint.json", &varint.to_string());
    sandbox.results("base", "new.json", |r| {
        r["benchmarks"]
            .as_object_mut()
            .unwrap()
            .remove("filter::alloc");
    });
    let run = sandbox.check("new.json", &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    insta::assert_snapshot!("new_and_vanished_table", run.stdout);
    let allowed = sandbox.check("new.json", &["--allow-new"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stdout);
    assert!(allowed.stdout.contains("new: no baseline"));
    assert!(allowed.stdout.contains("vanished: did not run"));
}

#[test]
fn budgets_take_the_larger_allowance_and_globs_override_them() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    // varint::encode/v16383: 115 -> 140 is +21.7% but only +25 Ir: within "at least +50 Ir".
    sandbox.results("base", "tiny.json", |r| {
        set_ir(r, "varint::encode/v16383", 140)
    });
    assert_eq!(sandbox.check("tiny.json", &[]).code, 0);

    // An override with less absolute slack for varint fails it.
    sandbox.write(
        "gate.toml",
        "[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n\n\
         [[overrides]]\nbenchmarks = [\"varint::*\"]\nbudgets.Ir = { relative_pct = 1.0, absolute = 10 }\n",
    );
    let run = sandbox.check("tiny.json", &["--format", "json"]);
    assert_eq!(run.code, 1);
    assert_eq!(failing(&run), ["varint::encode/v16383"]);

    // A relative budget large enough for the slowdown, for the scan benchmarks only.
    sandbox.results("slowdown", "slow.json", |_| {});
    sandbox.write(
        "gate.toml",
        "[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n\n\
         [[overrides]]\nbenchmarks = [\"filter::scan/*\"]\nbudgets.Ir = { relative_pct = 70.0 }\n",
    );
    assert_eq!(sandbox.check("slow.json", &[]).code, 0);
    // A later override wins for the benchmarks it matches.
    sandbox.write(
        "gate.toml",
        "[[overrides]]\nbenchmarks = [\"filter::scan/*\"]\nbudgets.Ir = { relative_pct = 70.0 }\n\n\
         [[overrides]]\nbenchmarks = [\"*/s32\"]\nbudgets.Ir = { absolute = 100 }\n",
    );
    let run = sandbox.check("slow.json", &["--format", "json"]);
    assert_eq!(failing(&run), ["filter::scan/s32"]);
}

#[test]
fn an_opt_in_metric_is_gated_and_info_metrics_are_reported() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "gate.toml",
        "info = [\"EstimatedCycles\"]\n\n[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n\
         \"dhat.TotalBytes\" = { absolute = 0 }\n",
    );
    sandbox.baselines();
    let varint = sandbox.read("baselines/varint.json");
    assert!(varint.contains("\"dhat.TotalBytes\": 8"), "{varint}");
    assert!(varint.contains("\"EstimatedCycles\""), "{varint}");
    assert!(
        !varint.contains("\"L1hits\""),
        "only gated and info metrics are stored"
    );
    sandbox.results("base", "more.json", |r| {
        r["benchmarks"]["varint::encode/v0"]["dhat.TotalBytes"] = json!(16);
    });
    let run = sandbox.check("more.json", &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let first = run.stdout.lines().nth(1).unwrap();
    let cells: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(
        cells[..2],
        ["varint::encode/v0", "dhat.TotalBytes"],
        "{first}"
    );
    // Informational rows show where they moved, or with --full.
    assert!(!run.stdout.contains("not gated"), "{}", run.stdout);
    let full = sandbox.check("more.json", &["--full"]);
    assert!(full.stdout.contains("EstimatedCycles") && full.stdout.contains("not gated"));
}

#[test]
fn a_different_toolchain_or_valgrind_is_refused_naming_the_field() {
    for (field, value) in [("rustc", "1.96.0"), ("valgrind", "valgrind-3.24.0")] {
        let sandbox = Sandbox::new();
        sandbox.baselines();
        sandbox.results("base", "other.json", |r| {
            r["fingerprint"][field] = json!(value)
        });
        let run = sandbox.check("other.json", &[]);
        assert_eq!(run.code, 2, "{}", run.stdout);
        assert!(
            run.stdout.contains(&format!("{field} (baseline `")),
            "{field}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains(&format!("this run `{value}`")),
            "{}",
            run.stdout
        );
        let warn = sandbox.check("other.json", &["--on-env-mismatch=warn"]);
        assert_eq!(warn.code, 0, "{}", warn.stdout);
        assert!(warn.stdout.contains("NO VERDICT"), "{}", warn.stdout);
    }
    // Informational fields (commit, date, CPU model) do not matter.
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("base", "later.json", |r| {
        r["fingerprint"]["commit"] = json!("fedcba");
        r["fingerprint"]["host_cpu"] = json!("GenuineIntel Another Xeon");
    });
    assert_eq!(sandbox.check("later.json", &[]).code, 0);
}

#[test]
fn refresh_shows_changes_keeps_what_did_not_run_and_writes_atomically() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    let varint_before = sandbox.read("baselines/varint.json");
    // A filtered run: only the scan benchmarks, one of them slower.
    sandbox.results("slowdown", "scan.json", |r| {
        let benchmarks = r["benchmarks"].as_object_mut().unwrap();
        benchmarks.retain(|id, _| id.starts_with("filter::scan"));
        r["filters"] = json!(["filter::scan/*"]);
    });
    let dry = sandbox.irgate(&["refresh", "--results", "scan.json", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout
            .contains("filter::scan/s512  Ir 2,778 -> 4,520 (+62.71%)"),
        "{}",
        dry.stdout
    );
    assert!(
        sandbox
            .read("baselines/filter.json")
            .contains("\"Ir\": 2778")
    );

    let run = sandbox.irgate(&["refresh", "--results", "scan.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!(
        "refresh_output",
        run.stdout
            .replace(&*sandbox.path("").to_string_lossy(), "<dir>/")
    );
    let filter = sandbox.read("baselines/filter.json");
    assert!(
        filter.contains("\"Ir\": 4520") && filter.contains("\"filter::alloc\""),
        "{filter}"
    );
    assert_eq!(
        sandbox.read("baselines/varint.json"),
        varint_before,
        "untouched group rewritten"
    );
    let names: Vec<String> = std::fs::read_dir(sandbox.path("baselines"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "a temporary file was left: {names:?}");

    // The gate now passes on the new counts.
    assert_eq!(sandbox.check("scan.json", &[]).code, 0);
}

#[test]
fn reads_v6_summaries() {
    let sandbox = Sandbox::new();
    let run = sandbox.irgate(&["run", "--from", &fixture("v6"), "--results", "v6.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results: Value = serde_json::from_str(&sandbox.read("v6.json")).unwrap();
    let counts = &results["benchmarks"]["my_group::bench_allocation/measure_just_nested_setup_0"];
    assert_eq!(counts["Ir"], 56);
    assert_eq!(counts["dhat.TotalBytes"], 8);
    assert!(counts.get("L1HitRate").is_none(), "rates are not counts");
}

#[test]
fn merges_shards_and_refuses_duplicate_ids() {
    let sandbox = Sandbox::new();
    let filter = format!("{}/filter", fixture("base"));
    let varint = format!("{}/varint", fixture("base"));
    let run = sandbox.irgate(&[
        "run",
        "--from",
        &filter,
        "--from",
        &varint,
        "--results",
        "all.json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results: Value = serde_json::from_str(&sandbox.read("all.json")).unwrap();
    assert_eq!(results["benchmarks"].as_object().unwrap().len(), 6);

    let run = sandbox.irgate(&[
        "run",
        "--from",
        &filter,
        "--from",
        &fixture("base"),
        "--results",
        "x.json",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("duplicate benchmark id `filter::alloc`: /")
            && run.stderr.contains(
                "filter/alloc/summary.json is read twice (two of the sources include it)"
            ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("filter/alloc/summary.json"),
        "{}",
        run.stderr
    );
}

/// A benchmark both in a results file and in summaries is refused, each source named once.
#[test]
fn a_duplicate_between_results_and_summaries_names_each_source_once() {
    let sandbox = Sandbox::new();
    let run = sandbox.irgate(&["run", "--from", &fixture("base"), "--results", "all.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let filter = format!("{}/filter", fixture("base"));
    let run = sandbox.irgate(&[
        "run",
        "--from",
        "all.json",
        "--from",
        &filter,
        "--results",
        "x.json",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(&format!(
            "duplicate benchmark id `filter::alloc`: in all.json and in {filter}\n"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.matches("all.json").count(), 1, "{}", run.stderr);
}

/// Copies the `base` summaries to `dir`, with `edit` applied to filter/alloc's summary text.
fn broken_summaries(sandbox: &Sandbox, edit: impl FnOnce(&str) -> String) -> PathBuf {
    let dir = sandbox.path("summaries");
    copy_dir(Path::new(&fixture("base")), &dir);
    let alloc = dir.join("filter/alloc/summary.json");
    let text = std::fs::read_to_string(&alloc).unwrap();
    std::fs::write(&alloc, edit(&text)).unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn assert_error(run: &Run, fragments: &[&str]) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    for fragment in fragments {
        assert!(
            run.stderr.contains(fragment),
            "missing `{fragment}` in: {}",
            run.stderr
        );
    }
}

#[test]
fn malformed_summaries_are_refused_with_file_and_reason() {
    type Edit = fn(&str) -> String;
    let cases: [(&str, Edit, &str); 5] = [
        (
            "truncated",
            |t| t[..t.len() / 2].to_owned(),
            "truncated gungraun summary",
        ),
        (
            "schema",
            |t| t.replace("\"version\":\"7\"", "\"version\":\"8\""),
            "unsupported summary schema version `8`",
        ),
        (
            "negative",
            |t| {
                t.replace(
                    "\"Ir\":{\"values\":{\"new\":71}}",
                    "\"Ir\":{\"values\":{\"new\":-71}}",
                )
            },
            "metric Ir: negative count -71: counts are non-negative integers",
        ),
        (
            "fraction",
            |t| {
                t.replace(
                    "\"Ir\":{\"values\":{\"new\":71}}",
                    "\"Ir\":{\"values\":{\"new\":71.5}}",
                )
            },
            "metric Ir: non-integer count 71.5",
        ),
        (
            "not json",
            |_| "<html>".to_owned(),
            "not a valid gungraun summary",
        ),
    ];
    for (name, edit, message) in cases {
        let sandbox = Sandbox::new();
        let dir = broken_summaries(&sandbox, edit);
        let run = sandbox.irgate(&["run", "--from", &dir.to_string_lossy()]);
        assert_error(&run, &["filter/alloc/summary.json", message]);
        assert!(
            !sandbox.path("target/irgate/results.json").exists(),
            "{name}: results written"
        );
    }
}

#[test]
fn malformed_results_and_baselines_are_refused_with_file_and_reason() {
    type Edit = fn(&str) -> String;
    let results_cases: [(Edit, &str); 5] = [
        (|t| t[..t.len() - 20].to_owned(), "truncated JSON"),
        (
            |t| t.replace("\"schema_version\": 2", "\"schema_version\": 3"),
            "unsupported schema_version 3",
        ),
        (
            |t| t.replacen("\"Ir\": 71", "\"Ir\": -71", 1),
            "negative count -71",
        ),
        (
            |t| t.replacen("\"Ir\": 71", "\"Ir\": 71.5", 1),
            "non-integer count 71.5",
        ),
        (
            |t| {
                t.replacen(
                    "\"filter::scan/s32\": {",
                    "\"filter::alloc\": {\"Ir\": 1}, \"filter::scan/s32\": {",
                    1,
                )
            },
            "duplicate benchmark id `filter::alloc`",
        ),
    ];
    for (edit, message) in results_cases {
        let sandbox = Sandbox::new();
        sandbox.baselines();
        let text = edit(&sandbox.read("base.json"));
        sandbox.write("bad.json", &text);
        let run = sandbox.check("bad.json", &[]);
        assert_error(&run, &["bad.json:", message]);

        let sandbox = Sandbox::new();
        sandbox.baselines();
        let text = edit(&sandbox.read("baselines/filter.json"));
        sandbox.write("baselines/filter.json", &text);
        let run = sandbox.check("base.json", &[]);
        assert_error(&run, &["baselines/filter.json", message]);
    }
}

#[test]
fn a_budget_file_with_a_typo_is_refused_with_line_and_column() {
    let cases = [
        (
            "[budgets]\nIr = { relative_pct = 1.0, absolut = 50 }\n",
            "gate.toml:2:",
            "unknown field `absolut`",
        ),
        (
            "[budget]\nIr = { relative_pct = 1.0 }\n",
            "gate.toml:1:",
            "unknown field `budget`",
        ),
        (
            "[budgets]\nir = { relative_pct = 1.0 }\n",
            "gate.toml:2:1",
            "unknown metric `ir`",
        ),
        (
            "[[overrides]]\nbenchmarks = [\"fitler::*\"]\nbudgets.Ir = { absolute = 5 }\n",
            "gate.toml:2: `fitler::*`",
            "override or accept pattern matches no benchmark",
        ),
    ];
    for (toml, origin, message) in cases {
        let sandbox = Sandbox::new();
        sandbox.baselines();
        sandbox.write("gate.toml", toml);
        let run = sandbox.check("base.json", &[]);
        assert_error(&run, &[origin, message]);
    }
}

/// A run that fails leaves no results behind: `check` must not pass on the previous run's.
#[test]
fn a_failed_run_leaves_no_results_for_check_to_pass_on() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("base", "results.json", |_| {});
    std::fs::write(sandbox.path("results.profiles.json"), "{}").unwrap();
    assert_eq!(sandbox.check("results.json", &[]).code, 0);
    // Not a cargo workspace: the run fails.
    let run = sandbox.irgate(&["run", "--results", "results.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!sandbox.path("results.json").exists());
    assert!(!sandbox.path("results.profiles.json").exists());
    let run = sandbox.check("results.json", &[]);
    assert_error(&run, &["results.json: no results: run `irgate run` first"]);
}

#[test]
fn missing_inputs_and_unknown_benchmarks_say_what_to_do() {
    let sandbox = Sandbox::new();
    let run = sandbox.check("none.json", &[]);
    assert_error(&run, &["none.json: no results: run `irgate run` first"]);

    sandbox.results("base", "base.json", |_| {});
    let run = sandbox.check("base.json", &[]);
    assert_error(
        &run,
        &[
            "no such baseline directory",
            "`irgate run && irgate refresh`",
        ],
    );
    std::fs::create_dir(sandbox.path("baselines")).unwrap();
    let run = sandbox.check("base.json", &[]);
    assert_error(
        &run,
        &["no baselines yet", "`irgate run && irgate refresh`"],
    );

    let run = sandbox.irgate(&["refresh", "--results", "base.json", "nothing::*"]);
    assert_error(
        &run,
        &["no benchmark matches `nothing::*`; known benchmarks: filter::alloc"],
    );
    let run = sandbox.irgate(&["run", "--from", &fixture("base"), "varint::nope*"]);
    assert_error(&run, &["no benchmark matches `varint::nope*`"]);
    let run = sandbox.irgate(&["run", "--from", &fixture("base"), "varint::[*"]);
    assert_error(&run, &["invalid filter `varint::[*`"]);
    let run = sandbox.irgate(&[
        "check",
        "--results",
        "base.json",
        "--config",
        "missing.toml",
    ]);
    assert_error(&run, &["missing.toml: cannot read"]);
}

#[test]
fn markdown_is_the_comment_body() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("slowdown", "slow.json", |_| {});
    let run = sandbox.check("slow.json", &["--format", "markdown"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("filter::scan/s512"), "{}", run.stdout);
}

#[test]
fn unusable_inputs_still_give_a_machine_readable_undecided_report() {
    let sandbox = Sandbox::new();
    sandbox.results("base", "base.json", |_| {});
    std::fs::create_dir(sandbox.path("baselines")).unwrap();

    let run = sandbox.check("base.json", &["--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["outcome"]["kind"], "undecided");
    assert_eq!(report["exit_code"], 2);
    let reason = report["outcome"]["reason"].as_str().unwrap();
    assert!(reason.contains("no baselines yet"), "{reason}");
    assert!(run.stderr.contains("no baselines yet"), "{}", run.stderr);

    let run = sandbox.check("base.json", &["--format", "markdown"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("no baselines yet"), "{}", run.stdout);
    assert!(!run.stdout.contains("Environment the counts were taken in"));
}

#[test]
fn help_explains_each_command() {
    let sandbox = Sandbox::new();
    let help = sandbox.irgate(&["--help"]);
    assert_eq!(help.code, 0);
    for fragment in [
        "irgate init",
        "irgate run",
        "irgate check",
        "irgate refresh",
        "irgate doctor",
        "irgate explain",
        "irgate history",
        "irgate calibrate",
        "irgate runner",
        "Exit codes",
        "0 every budget holds",
    ] {
        assert!(help.stdout.contains(fragment), "{fragment}");
    }
    // Every command explains itself in its own long help.
    for (command, fragment) in [
        ("init", "cargo metadata"),
        ("run", "GLIBC_TUNABLES"),
        ("check", "exit 0 when every budget holds"),
        ("refresh", "replaced atomically"),
        ("doctor", "field by field"),
        ("explain", "differential flame graph"),
        ("calibrate", "layout-sensitive"),
        ("runner", "exact callgrind runner"),
    ] {
        let help = sandbox.irgate(&[command, "--help"]);
        assert_eq!(help.code, 0, "{command}: {}", help.stderr);
        assert!(help.stdout.contains(fragment), "{command}: {}", help.stdout);
    }
    // `comment` exists with the `github` feature only (`cargo test --workspace` builds without).
    let comment = sandbox.irgate(&["comment", "--help"]);
    if cfg!(feature = "github") {
        assert_eq!(comment.code, 0, "{}", comment.stderr);
        assert!(comment.stdout.contains("never appears in any output"));
    } else {
        assert_eq!(comment.code, 2, "{}", comment.stdout);
        assert!(comment.stderr.contains("unrecognized subcommand 'comment'"));
    }
    for (command, fragment) in [
        ("runner install", "never replaced"),
        ("init", "before anything is built"),
    ] {
        let help = sandbox.irgate(&command.split(' ').chain(["--help"]).collect::<Vec<_>>());
        assert_eq!(help.code, 0, "{command}: {}", help.stderr);
        assert!(help.stdout.contains(fragment), "{command}: {}", help.stdout);
    }
    let check = sandbox.irgate(&["check", "--help"]);
    assert!(
        check.stdout.contains("--on-env-mismatch <POLICY>"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("default: +1% and at least +1 Ir"),
        "{}",
        check.stdout
    );
}

#[test]
fn ids_that_are_paths_or_hold_control_characters_are_refused_where_they_enter() {
    for bad in [
        "../../escape::f",
        "a/b::f",
        "::f",
        "g::f\n::error title=forged::x",
        "g::f\u{1b}[2J",
    ] {
        let sandbox = Sandbox::new();
        // A results file (as a fork's CI could upload) holding the id.
        sandbox.results("base", "bad.json", |r| {
            r["benchmarks"][bad] = json!({"Ir": 1});
        });
        let refresh = sandbox.irgate(&["refresh", "--results", "bad.json"]);
        assert_error(&refresh, &["bad.json", "invalid benchmark id"]);
        assert!(!refresh.stderr.contains('\u{1b}'), "{}", refresh.stderr);
        assert!(
            !refresh.stderr.lines().any(|l| l.starts_with("::error")),
            "{}",
            refresh.stderr
        );
        assert!(
            !sandbox.path("baselines").exists(),
            "{bad}: baselines written"
        );
        assert!(
            !sandbox
                .dir
                .path()
                .parent()
                .unwrap()
                .join("escape.json")
                .exists()
        );
        let run = sandbox.irgate(&["run", "--from", "bad.json", "--results", "merged.json"]);
        assert_error(&run, &["invalid benchmark id"]);
    }
}

#[test]
fn a_baseline_without_ir_is_malformed_not_new() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    let path = sandbox.path("baselines/varint.json");
    let mut baseline: Value = serde_json::from_str(&sandbox.read("baselines/varint.json")).unwrap();
    baseline["benchmarks"]["varint::encode/v0"] = json!({"EstimatedCycles": 5});
    std::fs::write(&path, baseline.to_string()).unwrap();
    for extra in [&[][..], &["--allow-new"][..]] {
        let run = sandbox.check("base.json", extra);
        assert_error(
            &run,
            &["varint.json", "`varint::encode/v0` has no `Ir` count"],
        );
    }
}

#[test]
fn without_gate_toml_files_go_to_the_workspace_root_not_the_member() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("Cargo.toml", "[workspace]\nmembers = [\"member\"]\n");
    write(
        "member/Cargo.toml",
        "[package]\nname = \"member\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    );
    write("member/src/lib.rs", "");
    let member = dir.path().join("member");
    let run: Run = support::irgate(&member)
        .args(["run", "--from", &fixture("base")])
        .output()
        .unwrap()
        .into();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(dir.path().join("target/irgate/results.json").is_file());
    assert!(!member.join("target").exists() && !member.join("baselines").exists());
    let refresh: Run = support::irgate(&member)
        .arg("refresh")
        .output()
        .unwrap()
        .into();
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    assert!(dir.path().join("baselines/varint.json").is_file());
    assert!(!member.join("baselines").exists());
}

#[test]
fn a_results_file_with_an_invalid_filter_is_refused() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("base", "bad.json", |r| {
        r["filters"] = json!(["frame::["]);
    });
    let run = sandbox.check("bad.json", &[]);
    assert_error(&run, &["bad.json", "invalid filter `frame::[`"]);
}

#[test]
fn refresh_says_when_the_results_were_taken_on_uncommitted_changes() {
    let sandbox = Sandbox::new();
    let commit = "c".repeat(40);
    sandbox.results("base", "clean.json", |r| {
        r["fingerprint"]["commit"] = json!(commit)
    });
    let clean = sandbox.irgate(&["refresh", "--results", "clean.json"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(!clean.stderr.contains("uncommitted"), "{}", clean.stderr);

    sandbox.results("base", "dirty.json", |r| {
        r["fingerprint"]["commit"] = json!(format!("{commit}-dirty"))
    });
    let dirty = sandbox.irgate(&["refresh", "--results", "dirty.json"]);
    assert_eq!(dirty.code, 0, "{}", dirty.stderr);
    assert!(
        dirty.stderr.contains("taken with uncommitted changes")
            && dirty.stderr.contains(&format!("`{commit}-dirty`")),
        "{}",
        dirty.stderr
    );
}
