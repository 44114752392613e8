//! `irgate run --from`: reading gungraun summaries and results files into one results file,
//! and what it refuses.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{self, Run, Sandbox, assert_error, copy_dir, summaries};

#[test]
fn reads_v6_summaries() {
    let sandbox = Sandbox::new();
    let run = sandbox.irgate(&["run", "--from", &summaries("v6"), "--results", "v6.json"]);
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
    let filter = format!("{}/filter", summaries("base"));
    let varint = format!("{}/varint", summaries("base"));
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
        &summaries("base"),
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
    let run = sandbox.irgate(&["run", "--from", &summaries("base"), "--results", "all.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let filter = format!("{}/filter", summaries("base"));
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
    copy_dir(Path::new(&summaries("base")), &dir);
    let alloc = dir.join("filter/alloc/summary.json");
    let text = std::fs::read_to_string(&alloc).unwrap();
    std::fs::write(&alloc, edit(&text)).unwrap();
    dir
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
    let run: Run = harness::irgate(&member)
        .args(["run", "--from", &summaries("base")])
        .output()
        .unwrap()
        .into();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(dir.path().join("target/irgate/results.json").is_file());
    assert!(!member.join("target").exists() && !member.join("baselines").exists());
    let refresh: Run = harness::irgate(&member)
        .arg("refresh")
        .output()
        .unwrap()
        .into();
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    assert!(dir.path().join("baselines/varint.json").is_file());
    assert!(!member.join("baselines").exists());
}

/// The fingerprint tests inject instead of collecting one (`IRGATE_FINGERPRINT`) is refused,
/// naming its file, when it cannot be read or is not a fingerprint.
#[test]
fn an_injected_fingerprint_that_is_not_one_is_refused() {
    let sandbox = Sandbox::new();
    sandbox.write("fingerprint.json", "{\"rustc\": 1}");
    for (file, message) in [
        (
            "fingerprint.json",
            "fingerprint.json (named by IRGATE_FINGERPRINT): not a fingerprint: invalid type",
        ),
        ("nope.json", "nope.json: cannot read"),
    ] {
        let run = harness::output(
            sandbox
                .command()
                .env("IRGATE_FINGERPRINT", sandbox.path(file))
                .args(["run", "--from", &summaries("base")]),
        );
        assert_error(&run, &[message]);
        assert!(!sandbox.path("target/irgate/results.json").exists());
    }
}

/// `--shard` takes K/N with 1 <= K <= N, and not with `--from` (which merges shards).
#[test]
fn a_shard_is_k_of_n_and_is_refused_when_merging() {
    let sandbox = Sandbox::new();
    for (bad, message) in [
        ("4/3", "shard 4/3: K must be from 1 to N (3 shards)"),
        (
            "0/3",
            "`0/3` is not a shard: write K/N, e.g. 2/3 (the 2nd of 3)",
        ),
        ("two", "`two` is not a shard: write K/N"),
    ] {
        let run = sandbox.irgate(&["run", "--shard", bad]);
        assert_eq!(run.code, 2, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{bad}: {}", run.stderr);
        assert!(!sandbox.path("results.json").exists());
    }
    let run = sandbox.irgate(&["run", "--shard", "1/2", "--from", "results.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

#[test]
fn an_option_like_base_revision_is_refused_at_once() {
    let sandbox = Sandbox::new();
    let run = sandbox.irgate(&["run", "--base=--upload-pack=touch pwned"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("starts with `-`, which git reads as an option"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("git fetch"), "{}", run.stderr);
    assert!(!sandbox.path("pwned").exists());
}

#[test]
fn a_shard_count_no_suite_could_use_is_refused_at_once() {
    let sandbox = Sandbox::new();
    for shard in [
        "1/18446744073709551615",
        "1/10000000000",
        "1/100000000",
        "1/1001",
    ] {
        let started = std::time::Instant::now();
        let run = sandbox.irgate(&["run", "--shard", shard]);
        assert_eq!(run.code, 2, "{shard}: {}", run.stderr);
        assert!(
            run.stderr.contains("N is more than the 1000 shards"),
            "{shard}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(started.elapsed().as_secs() < 10, "{shard}: not at once");
    }
}

/// Shards record K/N in their results, and `run --from` merges only a whole set: one missing,
/// one twice or another N exits 2, naming what is wrong.
#[test]
fn merging_shards_refuses_a_set_that_is_not_whole() {
    let sandbox = Sandbox::new();
    let filter = format!("{}/filter", summaries("base"));
    let varint = format!("{}/varint", summaries("base"));
    sandbox.ok(&["run", "--from", &filter, "--results", "s1.json"]);
    sandbox.ok(&["run", "--from", &varint, "--results", "s3.json"]);
    let mark = |name: &str, part: &str| {
        sandbox.edit_json(name, |v| v["shard"] = Value::from(part));
    };
    mark("s1.json", "1/3");
    mark("s3.json", "3/3");
    let run = sandbox.irgate(&["run", "--from", "s1.json", "--from", "s3.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("cannot merge 2 of 3 shards: 1 shard missing (2/3)"),
        "{}",
        run.stderr
    );
    mark("s3.json", "1/3");
    let run = sandbox.irgate(&["run", "--from", "s1.json", "--from", "s3.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("shard 1/3 is given twice"),
        "{}",
        run.stderr
    );
    mark("s3.json", "2/2");
    let run = sandbox.irgate(&["run", "--from", "s1.json", "--from", "s3.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("every shard must split the run alike"),
        "{}",
        run.stderr
    );
    mark("s1.json", "1/2");
    sandbox.ok(&[
        "run",
        "--from",
        "s1.json",
        "--from",
        "s3.json",
        "--results",
        "all.json",
    ]);
    assert!(sandbox.read_json("all.json").get("shard").is_none());
}

/// More shards than benchmarks in scope (by the baselines) is refused before anything is built.
#[test]
fn more_shards_than_benchmarks_in_scope_are_refused_before_building() {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    let run = sandbox.irgate(&["run", "--shard", "1/900", "varint::*"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--shard 1/900: 900 shards for the") && run.stderr.contains("in scope"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("irgate: suite"), "{}", run.stderr);
}

/// `run --from` reads no baselines: outside a workspace, naming the results file is enough.
#[test]
fn merging_outside_a_workspace_needs_only_the_results_file() {
    let sandbox = Sandbox::empty();
    let run = sandbox.irgate(&["run", "--from", &summaries("base"), "--results", "r.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        sandbox.read_json("r.json")["benchmarks"]
            .as_object()
            .unwrap()
            .len(),
        6
    );
    let run = sandbox.irgate(&["run", "--from", &summaries("base")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("name the results file to write (--results)")
            && !run.stderr.contains("--baselines"),
        "{}",
        run.stderr
    );
}
