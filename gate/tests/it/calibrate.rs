//! `irgate calibrate` through the binary: results of builds in, spreads and gate.toml out.

use serde_json::{Value, json};

use crate::harness::{Run, Sandbox, summaries};

#[test]
fn calibrate_prints_the_spreads_and_writes_the_budgets() {
    let sandbox = Sandbox::with_config(
        "# my budgets\n[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n",
    );
    let gate = sandbox.path("gate.toml");
    let irgate = |args: &[&str]| -> Run { sandbox.irgate(args) };
    // Two "builds": the fixture's real counts, and the same with filter::alloc 3 Ir larger (as a
    // layout shift would move it).
    for name in ["base.json", "cgu1.json"] {
        let run = irgate(&["run", "--from", &summaries("base"), "--results", name]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let path = sandbox.path("cgu1.json");
    let mut results: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let alloc = results["benchmarks"]["filter::alloc"]["Ir"]
        .as_u64()
        .unwrap();
    results["benchmarks"]["filter::alloc"]["Ir"] = json!(alloc + 3);
    std::fs::write(&path, results.to_string()).unwrap();

    let run = irgate(&["calibrate", "base.json", "cgu1.json", "--write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("Calibration over 2 builds (base, cgu1): 1 of "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("filter::alloc") && l.ends_with("  5  cgu1")),
        "{}",
        run.stdout
    );
    let written = std::fs::read_to_string(&gate).unwrap();
    assert!(
        written.starts_with("# my budgets\n[budgets]\n"),
        "{written}"
    );
    assert!(
        written
            .contains("\"filter::alloc\",\n]\nbudgets.Ir = { relative_pct = 0.0, absolute = 5 }"),
        "{written}"
    );

    // The written file gates: +6 Ir on filter::alloc fails, +5 passes.
    let refresh = irgate(&["refresh", "--results", "base.json"]);
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    for (extra, code) in [(5, 0), (6, 1)] {
        results["benchmarks"]["filter::alloc"]["Ir"] = json!(alloc + extra);
        std::fs::write(&path, results.to_string()).unwrap();
        let check = irgate(&["check", "--results", "cgu1.json"]);
        assert_eq!(check.code, code, "+{extra}: {}", check.stdout);
    }

    // One build is not a calibration; a missing file names itself.
    let run = irgate(&["calibrate", "base.json"]);
    assert_eq!(run.code, 2);
    let run = irgate(&["calibrate", "base.json", "nope.json"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nope.json"), "{}", run.stderr);

    // `calibrate dir/*.json` also matches the profiles `irgate run` writes beside results: they
    // are skipped, said on stderr (#22).
    std::fs::write(
        sandbox.path("base.profiles.json"),
        r#"{"schema_version": 1, "event": "Ir", "benchmarks": {}}"#,
    )
    .unwrap();
    let run = irgate(&["calibrate", "base.json", "base.profiles.json", "cgu1.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("skipped base.profiles.json: per-function profiles, not results"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("Calibration over 2 builds (base, cgu1)"),
        "{}",
        run.stdout
    );

    // Building the variants itself: at least two of them, and not together with results files.
    let run = irgate(&["calibrate", "--variants", "base"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("1 variants: calibration compares 2 to 10 builds"),
        "{}",
        run.stderr
    );
    let run = irgate(&[
        "calibrate",
        "base.json",
        "cgu1.json",
        "--variants",
        "base,version",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
    let run = irgate(&["calibrate", "--variants", "base,cgu4"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("invalid value 'cgu4'"),
        "{}",
        run.stderr
    );
}
