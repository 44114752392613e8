//! gate.toml read: budgets and overrides, the change and build tables, errors with their place,
//! and budgets refused or read as people mean them.

use super::budgets::allowance;
use super::metrics::is_count_metric;
use super::*;

fn parse(text: &str) -> Result<Config> {
    Config::parse(text, Path::new("gate.toml"))
}

const SAMPLE: &str = r#"
info = ["EstimatedCycles", "dhat.TotalBytes"]

[budgets]
Ir = { relative_pct = 1.0, absolute = 50 }

[[overrides]]
benchmarks = ["filter::*"]
budgets.Ir = { relative_pct = 5.0 }

[[overrides]]
benchmarks = ["filter::scan/*"]
budgets.Ir = { absolute = 10 }
budgets."dhat.TotalBytes" = { absolute = 0 }
"#;

#[test]
fn change_inert_names_files_by_glob_and_refuses_bad_globs() {
    let config = parse(
        "[budgets]\nIr = { absolute = 1 }\n\n[change]\ninert = [\"scripts/**\", \"Dockerfile\"]\n",
    )
    .unwrap();
    assert!(config.is_inert("scripts/a/b.sh"));
    assert!(config.is_inert("Dockerfile"));
    assert!(!config.is_inert("src/lib.rs"));
    assert!(!Config::default().is_inert("scripts/a.sh"));
    assert!(config.inert_everything().is_empty());
    let everything =
        parse("[budgets]\nIr = { absolute = 1 }\n\n[change]\ninert = [\"docs/**\", \"**\"]\n")
            .unwrap();
    assert_eq!(everything.inert_everything(), ["`**` (gate.toml:5)"]);
    let error = parse("[budgets]\nIr = { absolute = 1 }\n[change]\ninert = [\"a[\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("gate.toml:4:") && error.contains("invalid glob"),
        "{error}"
    );
    let error = parse("[budgets]\nIr = { absolute = 1 }\n[change]\ninerts = []\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `inerts`"), "{error}");
}

#[test]
fn overrides_apply_in_order_by_glob() {
    let config = parse(SAMPLE).unwrap();
    let limit = |id: &str, metric: &str| config.budgets_for(id).get(metric).copied();
    assert_eq!(
        limit("varint::encode/v0", "Ir"),
        Some(Budget {
            relative_pct: 1.0,
            absolute: 50
        })
    );
    assert_eq!(
        limit("filter::alloc", "Ir"),
        Some(Budget {
            relative_pct: 5.0,
            absolute: 0
        })
    );
    assert_eq!(
        limit("filter::scan/s512", "Ir"),
        Some(Budget {
            relative_pct: 0.0,
            absolute: 10
        })
    );
    assert_eq!(limit("filter::alloc", "dhat.TotalBytes"), None);
    assert_eq!(
        limit("filter::scan/s32", "dhat.TotalBytes"),
        Some(Budget {
            relative_pct: 0.0,
            absolute: 0
        })
    );
    assert!(config.needs_dhat());
    assert_eq!(
        config.stored_metrics().into_iter().collect::<Vec<_>>(),
        ["EstimatedCycles", "Ir", "dhat.TotalBytes"]
    );
}

#[test]
fn the_larger_allowance_applies() {
    let limit = Budget {
        relative_pct: 1.0,
        absolute: 50,
    };
    assert_eq!(allowance(&limit, 1_000), 50.0);
    assert_eq!(allowance(&limit, 100_000), 1_000.0);
}

#[test]
fn missing_budgets_table_means_the_default() {
    let config = parse("info = []").unwrap();
    assert_eq!(config.budgets_for("a::b").get(IR), Some(&DEFAULT_BUDGET));
}

#[test]
fn the_measurement_build_is_on_unless_gate_toml_opts_out() {
    assert!(parse("info = []").unwrap().measurement_build);
    assert!(Config::default().measurement_build);
    assert!(
        !parse("[build]\nmeasurement = false\n")
            .unwrap()
            .measurement_build
    );
    let error = parse("[build]\nmeasurement = \"no\"\n").unwrap_err();
    assert!(error.to_string().contains("gate.toml:2:"), "{error}");
    let error = parse("[build]\ncodegen_units = 4\n").unwrap_err();
    assert!(
        error.to_string().contains("unknown field `codegen_units`"),
        "{error}"
    );
}

#[test]
fn errors_name_file_line_and_column() {
    let cases = [
        (
            "[budgets]\nIr = { relative_pct = 1.0, absolut = 50 }\n",
            "gate.toml:2:",
            "unknown field `absolut`",
        ),
        ("infos = []\n", "gate.toml:1:1", "unknown field `infos`"),
        (
            "[budgets]\nIR = { absolute = 5 }\n",
            "gate.toml:2:1",
            "unknown metric `IR`",
        ),
        (
            "info = [\"L1HitRate\"]\n",
            "gate.toml:1:9",
            "unknown metric `L1HitRate`",
        ),
        (
            "[budgets]\nIr = { relative_pct = -1.0 }\n",
            "gate.toml:2:23",
            "relative_pct is -1",
        ),
        ("[budgets]\nIr = { absolute = -5 }\n", "gate.toml:2:", "-5"),
        (
            "[[overrides]]\nbenchmarks = [\"a[\"]\nbudgets.Ir = {}\n",
            "gate.toml:2:15",
            "invalid glob",
        ),
        ("[budgets]\n", "gate.toml", "no metric is gated"),
        ("[budgets\n", "gate.toml:1:", ""),
    ];
    for (text, origin, message) in cases {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.starts_with(origin), "{text:?}: {error}");
        assert!(error.contains(message), "{text:?}: {error}");
    }
}

#[test]
fn near_empty_budgets_are_refused_each_with_its_rule() {
    for (text, message) in [
        ("[budgets]\nIr = {}\n", "the budget of `Ir` is empty"),
        (
            "[[overrides]]\nbenchmarks = []\nbudgets.Ir = { absolute = 1 }\n",
            "`benchmarks = []` applies to nothing",
        ),
        (
            "info = [\"EstimatedCycles\"]\n[budgets]\nEstimatedCycles = { absolute = 1 }\n",
            "`EstimatedCycles` is both in `info` (not gated) and in [budgets]",
        ),
        ("", "the file is empty"),
        ("\n  \n# only a comment\n", "the file is empty"),
    ] {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.contains(message), "{text:?}: {error}");
    }
    assert_eq!(
        parse("[budgets]\nIr = { absolute = 0 }\n")
            .unwrap()
            .budgets_for("a")[IR],
        Budget {
            relative_pct: 0.0,
            absolute: 0
        }
    );
}

#[test]
fn reads_the_drift_budget_with_the_budget_syntax() {
    let config =
        parse("[drift]\nsince = \"v0.3.0\"\nbudgets.Ir = { relative_pct = 4.0 }\n").unwrap();
    assert_eq!(
        config.drift,
        Some(Drift {
            since: "v0.3.0".into(),
            budgets: BTreeMap::from([(
                IR.to_owned(),
                Budget {
                    relative_pct: 4.0,
                    absolute: 0
                }
            )]),
        })
    );
    assert_eq!(
        parse("[budgets]\nIr = { absolute = 1 }\n").unwrap().drift,
        None
    );
    for (text, message) in [
        (
            "[drift]\nsince = \"--upload-pack=x\"\nbudgets.Ir = { absolute = 1 }",
            "gate.toml:2:9: since = \"--upload-pack=x\": name a tag or commit",
        ),
        (
            "[drift]\nsince = \"v1\"\nbudgets = {}",
            "[drift] has no budget",
        ),
        (
            "[drift]\nsince = \"v1\"\nbudgets.Ir = { relative_pct = -1.0 }",
            "relative_pct is -1",
        ),
        (
            "[drift]\nbudgets.Ir = { absolute = 1 }",
            "missing field `since`",
        ),
    ] {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.contains(message), "{text:?}: {error}");
    }
}

#[test]
fn reports_patterns_matching_nothing() {
    let config = parse(SAMPLE).unwrap();
    let ids = ["filter::alloc", "varint::encode/v0"];
    assert_eq!(
        config.unmatched_patterns(ids.iter().copied()),
        ["gate.toml:12: `filter::scan/*`"]
    );
}

#[test]
fn knows_count_metrics() {
    for name in [
        "Ir",
        "EstimatedCycles",
        "L1hits",
        "dhat.TotalBytes",
        "dhat.TotalBlocks",
    ] {
        assert!(is_count_metric(name), "{name}");
    }
    for name in ["ir", "L1HitRate", "dhat.Ir", "TotalBytes", ""] {
        assert!(!is_count_metric(name), "{name}");
    }
}

#[test]
fn budgets_written_as_minus_zero_or_exponents_read_as_people_mean_them() {
    let config = parse("[budgets]\nIr = { relative_pct = -0.0, absolute = 5 }\n").unwrap();
    assert_eq!(config.budgets_for("a")[IR].to_string(), "max(0%, 5)");
    let config = parse("[budgets]\nIr = { relative_pct = 9.9e1 }\n").unwrap();
    assert_eq!(config.budgets_for("a")[IR].to_string(), "max(99%, 0)");
    for (text, says) in [
        (
            "[budgets]\nIr = { absolute = 9.9e1 }\n",
            "gate.toml:2:19: absolute is the decimal number 99.0: a count of instructions is \
                 a whole number, written `99`",
        ),
        (
            "[budgets]\nIr = { absolute = -5 }\n",
            "gate.toml:2:19: absolute is -5: a budget is a non-negative count of instructions",
        ),
        (
            "[budgets]\nIr = { absolute = 2.5 }\n",
            "gate.toml:2:19: absolute is 2.5: a budget is a whole, non-negative count",
        ),
    ] {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.contains(says), "{text}: {error}");
        assert!(!error.contains("u64"), "{error}");
    }
}
