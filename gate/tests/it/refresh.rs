//! `irgate refresh`: writing baselines from results.

use serde_json::json;

use crate::harness::Sandbox;

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

#[test]
fn baselines_git_ignores_are_named_with_the_rule_and_the_fix() {
    let sandbox = Sandbox::new();
    sandbox.git(&["init", "--quiet"]);
    // A bare line meant for build output hides a baseline group.
    sandbox.write(".gitignore", "target\nvarint.json\n");
    sandbox.results("base", "base.json", |_| {});
    let run = sandbox.irgate(&["refresh", "--results", "base.json"]);
    assert_eq!(run.code, 0, "a warning, not a failure: {}", run.stderr);
    assert!(
        run.stderr.contains(
            "irgate: warning: baselines/varint.json: git ignores 1 file irgate wrote, by the \
             rule varint.json (.gitignore:2:varint.json)"
        ) && run.stderr.contains("`git add -f baselines/varint.json`")
            && run.stderr.contains("a `!` rule"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("filter.json"), "{}", run.stderr);
    // Once tracked, it is committed with every change: no warning.
    sandbox.git(&["add", "-f", "baselines/varint.json"]);
    let run = sandbox.irgate(&["refresh", "--results", "base.json"]);
    assert!(!run.stderr.contains("git ignores"), "{}", run.stderr);
}
