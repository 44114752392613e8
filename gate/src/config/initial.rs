//! The first gate.toml, as `irgate init` writes it: the suites found and a budget chosen for the
//! sizes measured (or by calibration).

use std::fmt::Write as _;

use crate::config::budgets::DEFAULT_BUDGET;
use crate::config::suite::Suite;
use crate::model::{Budget, Results};
use crate::text::thousands;

/// The default budget after calibration: the largest of the per-benchmark budgets it `suggested`
/// (1.5 times the largest Ir shift seen, at least 1 Ir), with no relative part, which on large
/// benchmarks would only let regressions through that layout never produced
/// (docs/reports/real-repos.md).
pub fn calibrated_budget(suggested: &[u64]) -> (Budget, String) {
    let absolute = suggested.iter().copied().max().unwrap_or(1);
    (
        Budget {
            relative_pct: 0.0,
            absolute,
        },
        format!(
            "calibrated: the largest budget calibration gave the {} (1.5 times the largest Ir \
             shift seen, at least 1 Ir), no relative part",
            crate::text::plural(suggested.len(), "benchmark")
        ),
    )
}

/// The budget for the sizes measured: +1%, and at least 5% of the smallest benchmark's Ir (from 1
/// to 50 Ir), so that +10% on the smallest fails and one instruction moved by layout passes.
pub fn chosen_budget(results: &Results) -> (Budget, String) {
    let smallest = results
        .benchmarks
        .iter()
        .filter_map(|(id, counts)| Some((id, *counts.get(crate::config::metrics::IR)?)))
        .min_by_key(|(_, ir)| *ir);
    match smallest {
        Some((id, ir)) => (
            Budget {
                relative_pct: 1.0,
                absolute: (ir / 20).clamp(1, 50),
            },
            format!(
                "5% of the smallest benchmark measured, {id} at {} Ir (at least 1, at most 50)",
                thousands(ir)
            ),
        ),
        None => (DEFAULT_BUDGET, "the default".to_owned()),
    }
}

/// The text of gate.toml.
pub fn gate_toml(suites: &[Suite], limit: &Budget, why: &str) -> String {
    let mut out = String::from(
        "# irgate's configuration, written by `irgate init` (`irgate --help`, and irgate's\n\
         # docs/gate.md, \"Budgets\").\n\
         #\n\
         # The callgrind suites `irgate run` runs: bench targets written with gungraun or\n\
         # iai-callgrind. `features` builds a suite with cargo features; `args` adds runner\n\
         # arguments after irgate's own.\n",
    );
    for suite in suites {
        let _ = write!(
            out,
            "\n[[suite]]\npackage = {}\nbench = {}\n",
            toml_string(&suite.package),
            toml_string(&suite.bench)
        );
        if !suite.features.is_empty() {
            let list: Vec<String> = suite.features.iter().map(|f| toml_string(f)).collect();
            let _ = writeln!(out, "features = [{}]", list.join(", "));
        }
    }
    let _ = write!(
        out,
        "\n# A gated metric of a benchmark fails the gate when it grows by more than the larger of\n\
         # `relative_pct` percent of its baseline and `absolute` counts. The absolute slack is\n\
         # {why}.\n\
         # A +10% change of that benchmark fails; one instruction moved by code layout passes.\n\
         # Per-benchmark budgets go in [[overrides]] (globs over benchmark ids).\n\
         [budgets]\nIr = {{ relative_pct = {:?}, absolute = {} }}\n",
        limit.relative_pct, limit.absolute
    );
    out
}

/// `"text"` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::Counts;
    use std::path::Path;

    #[test]
    fn the_budget_follows_the_smallest_benchmark() {
        let results = |irs: &[u64]| Results {
            benchmarks: irs
                .iter()
                .enumerate()
                .map(|(i, ir)| (format!("g::f/{i}"), Counts::from([("Ir".to_owned(), *ir)])))
                .collect(),
            ..Results::default()
        };
        let (limit, why) = chosen_budget(&results(&[20, 5_000]));
        assert_eq!(limit.absolute, 1);
        assert!(why.contains("g::f/0 at 20 Ir"), "{why}");
        // +10% of 20 Ir fails, +1 Ir passes.
        assert!(crate::config::budgets::allowance(&limit, 20) < 2.0);
        assert!(crate::config::budgets::allowance(&limit, 20) >= 1.0);
        assert_eq!(chosen_budget(&results(&[300])).0.absolute, 15);
        assert_eq!(chosen_budget(&results(&[90_000])).0.absolute, 50);
    }

    #[test]
    fn after_calibration_the_default_is_its_largest_budget_with_no_relative_part() {
        // What calibration suggests for spreads of 0 and 2 Ir (`Spread::suggested`).
        let (limit, why) = calibrated_budget(&[1, 3]);
        assert_eq!((limit.relative_pct, limit.absolute), (0.0, 3));
        assert!(
            why.starts_with("calibrated:") && why.contains("2 benchmarks"),
            "{why}"
        );
        assert_eq!(calibrated_budget(&[1]).0.absolute, 1);
    }

    #[test]
    fn the_written_gate_toml_parses_back() {
        let suites = vec![Suite {
            package: "core".into(),
            bench: "iai".into(),
            features: vec!["callgrind".into()],
            args: Vec::new(),
        }];
        let limit = Budget {
            relative_pct: 1.0,
            absolute: 3,
        };
        let text = gate_toml(&suites, &limit, "why");
        let config = Config::parse(&text, Path::new("gate.toml")).unwrap();
        assert_eq!(config.suites, suites);
        assert_eq!(config.budgets_for("a::b")["Ir"], limit);
    }
}
