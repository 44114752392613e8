//! `irgate check` on real gungraun summaries (tests/fixtures/summaries, taken with the bench in
//! tests/fixtures/gbench; `slowdown` is the same suite built with its `slow` feature, which doubles
//! the work of `checksum`, so `filter::scan/*` regress and `filter::alloc` moves by one
//! instruction from an inlining shift): verdicts, budgets, formats, and the inputs it refuses.

use serde_json::{Value, json};

use crate::harness::{Sandbox, assert_error, failing, summaries};

fn set_ir(results: &mut Value, id: &str, ir: u64) {
    results["benchmarks"][id]["Ir"] = json!(ir);
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
    assert_eq!(failing(&json.stdout), ["filter::scan/s512"]);
    insta::assert_snapshot!("regression_json", json.stdout);
}

#[test]
fn a_real_slowdown_fails_exactly_the_benchmarks_it_touches() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("slowdown", "slow.json", |_| {});
    let run = sandbox.check("slow.json", &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        failing(&run.stdout),
        ["filter::scan/s512", "filter::scan/s32"]
    );
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
    assert_eq!(failing(&run.stdout), ["varint::encode/v16383"]);

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
    assert_eq!(failing(&run.stdout), ["filter::scan/s32"]);
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
    for (field, value) in [("rustc", "1.96.0"), ("valgrind", "valgrind-3.25.0")] {
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
fn malformed_results_and_baselines_are_refused_with_file_and_reason() {
    type Edit = fn(&str) -> String;
    let results_cases: [(Edit, &str); 5] = [
        (|t| t[..t.len() - 20].to_owned(), "truncated JSON"),
        (
            |t| {
                t.replace("\"schema_version\": 2", "\"schema_version\": 4")
                    .replace("\"schema_version\": 3", "\"schema_version\": 4")
            },
            "unsupported schema_version 4",
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
    let run = sandbox.irgate(&["run", "--from", &summaries("base"), "varint::nope*"]);
    assert_error(&run, &["no benchmark matches `varint::nope*`"]);
    let run = sandbox.irgate(&["run", "--from", &summaries("base"), "varint::[*"]);
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
fn the_markdown_format_keeps_within_max_chars() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("base", "many.json", |r| {
        let benchmarks = r["benchmarks"].as_object_mut().unwrap();
        for i in 0..300 {
            benchmarks.insert(
                format!("filter::added_{i}/case_{i}"),
                serde_json::json!({"Ir": 1000 + i}),
            );
        }
    });
    let whole = sandbox.check("many.json", &["--format", "markdown"]);
    assert_eq!(whole.code, 1, "{}", whole.stderr);
    assert!(
        whole.stdout.chars().count() > 10_000,
        "{}",
        whole.stdout.len()
    );
    let cut = sandbox.check(
        "many.json",
        &["--format", "markdown", "--max-chars", "5000"],
    );
    assert_eq!(cut.code, 1, "{}", cut.stderr);
    assert!(
        cut.stdout.encode_utf16().count() <= 5000,
        "{}",
        cut.stdout.len()
    );
    assert!(
        cut.stdout
            .contains("*Left out to stay within 5,000 characters"),
        "{}",
        cut.stdout
    );
    let tiny = sandbox.check("many.json", &["--format", "markdown", "--max-chars", "100"]);
    assert_eq!(tiny.code, 2, "{}", tiny.stderr);
}

/// A benchmark whose build is not reproducible (gate.toml's `[[nondeterministic]]`, which
/// calibration writes) is never held to a budget: a move, however small, is undecided (exit 2),
/// until the entry says `info = true`.
#[test]
fn a_nondeterministic_build_is_undecided_until_marked_info() {
    let entry = "\n[[nondeterministic]]\nbenchmarks = [\"filter::scan/*\"]\n";
    let sandbox = Sandbox::with_config(&format!("{}{entry}", crate::harness::GATE_TOML));
    sandbox.baselines();
    // 2,778 -> 2,780: within the budget of 50 Ir, yet undecided.
    sandbox.results("base", "new.json", |r| {
        set_ir(r, "filter::scan/s512", 2_780)
    });
    let run = sandbox.check("new.json", &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("filter::scan/s512")
            && run.stdout.contains("its build is not reproducible"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("1 benchmark moved whose build is not reproducible (filter::scan/s512"),
        "{}",
        run.stdout
    );
    // The same counts decide nothing against it.
    assert_eq!(sandbox.check("base.json", &[]).code, 0);
    sandbox.write(
        "gate.toml",
        &format!("{}{entry}info = true\n", crate::harness::GATE_TOML),
    );
    let run = sandbox.check("new.json", &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

/// The table and the markdown list failing rows in one order: furthest over budget first.
#[test]
fn the_table_and_the_markdown_order_failing_rows_alike() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    // s512: +500 Ir (+18%), ten times its 50-Ir budget; v0: +61 Ir (+62%), 1.2 times it.
    sandbox.results("base", "new.json", |r| {
        set_ir(r, "filter::scan/s512", 2_778 + 500);
        set_ir(r, "varint::encode/v0", 99 + 61);
    });
    let order = |text: &str| -> Vec<&str> {
        let s512 = text.find("filter::scan/s512").unwrap();
        let v0 = text.find("varint::encode/v0").unwrap();
        if s512 < v0 {
            vec!["s512", "v0"]
        } else {
            vec!["v0", "s512"]
        }
    };
    let table = sandbox.check("new.json", &[]);
    let markdown = sandbox.check("new.json", &["--format", "markdown"]);
    let json = sandbox.check("new.json", &["--format", "json"]);
    assert_eq!(order(&table.stdout), ["s512", "v0"], "{}", table.stdout);
    assert_eq!(
        order(&markdown.stdout),
        ["s512", "v0"],
        "{}",
        markdown.stdout
    );
    assert_eq!(failing(&json.stdout).len(), 2);
    let rows: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(rows["rows"][0]["benchmark"], "filter::scan/s512");
}

#[test]
fn a_code_record_that_is_a_link_to_dev_zero_is_refused_unread() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox.results("base", "new.json", |_| {});
    std::fs::create_dir_all(sandbox.path("baselines/code")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", sandbox.path("baselines/code/record.json")).unwrap();
    let run = sandbox.check("new.json", &["--format", "json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let why = report["change"]["unmapped"].as_str().unwrap_or_default();
    assert!(
        why.contains("record.json") && why.contains("not a regular file"),
        "{why}"
    );
}
