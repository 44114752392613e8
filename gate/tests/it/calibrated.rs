//! This repository's calibrated budgets (gate.toml, from `irgate calibrate`) on its committed
//! baselines: the regressions the old "+1% and at least +20 Ir" budget let through now fail,
//! and nothing else does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{self, Run, Sandbox, failing};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The committed baselines as one results file, with `edit` applied to each id's Ir.
fn results_from_baselines(dir: &Path, edit: impl Fn(&str, u64) -> u64) -> PathBuf {
    let mut benchmarks = BTreeMap::new();
    let mut fingerprint = Value::Null;
    for entry in std::fs::read_dir(repo().join("baselines")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let group: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        fingerprint = group["fingerprint"].clone();
        for (id, counts) in group["benchmarks"].as_object().unwrap() {
            let mut counts = counts.clone();
            counts["Ir"] = json!(edit(id, counts["Ir"].as_u64().unwrap()));
            benchmarks.insert(id.clone(), counts);
        }
    }
    let results = json!({
        "schema_version": 1,
        "fingerprint": fingerprint,
        "suites": ["benches/callgrind"],
        "filters": [],
        "benchmarks": benchmarks,
    });
    let path = dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&results).unwrap()).unwrap();
    path
}

/// `irgate check` of `results` against the committed baselines under `config`: exit code and
/// the failing benchmarks.
fn check(dir: &Path, config: &Path, results: &Path) -> (i32, Vec<String>) {
    let run: Run = harness::output(
        harness::irgate(dir)
            .arg("check")
            .arg("--format=json")
            .arg("--config")
            .arg(config)
            .arg("--baselines")
            .arg(repo().join("baselines"))
            .arg("--results")
            .arg(results),
    );
    assert!(run.stdout.starts_with('{'), "{}", run.stderr);
    (run.code, failing(&run.stdout))
}

/// The two regressions of issue #14: +10 Ir on each small frame decode (47 to 103 Ir), and +68
/// Ir on every compressed 512-byte packet through the pipeline (about 98,000 Ir).
fn injected(id: &str, ir: u64) -> u64 {
    let small_decode =
        id.starts_with("frame::decode_uncompressed/") || id == "frame::decode_compressed/b128";
    let compressed_packet = id.starts_with("pipeline::compressed_") && id.ends_with("/b512");
    match (small_decode, compressed_packet) {
        (true, _) => ir + 10,
        (_, true) => ir + 68,
        _ => ir,
    }
}

#[test]
fn the_calibrated_budgets_fail_both_misses_and_pass_the_baselines() {
    let sandbox = Sandbox::empty();
    let dir = sandbox.dir.path();
    let gate = repo().join("gate.toml");
    let unchanged = results_from_baselines(dir, |_, ir| ir);
    assert_eq!(check(dir, &gate, &unchanged), (0, vec![]));

    let slower = results_from_baselines(dir, injected);
    let (code, mut failing) = check(dir, &gate, &slower);
    failing.sort();
    let mut expected: Vec<String> = [
        "frame::decode_compressed/b128",
        "frame::decode_uncompressed/b128",
        "frame::decode_uncompressed/b16384",
        "frame::decode_uncompressed/b2048",
        "frame::decode_uncompressed/b32",
        "frame::decode_uncompressed/b4096",
        "frame::decode_uncompressed/b512",
        "pipeline::compressed_empty/b512",
        "pipeline::compressed_realistic/b512",
        "pipeline::compressed_scan/b512",
    ]
    .map(str::to_owned)
    .to_vec();
    expected.sort();
    assert_eq!((code, failing), (1, expected));

    // The hand-set budget they replace let every one of them pass.
    let old = dir.join("old.toml");
    std::fs::write(
        &old,
        "[budgets]\nIr = { relative_pct = 1.0, absolute = 20 }\n",
    )
    .unwrap();
    assert_eq!(check(dir, &old, &slower), (0, vec![]));
}
