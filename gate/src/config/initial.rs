//! The first gate.toml, as `irgate init` writes it: the suites found and a budget chosen for the
//! sizes measured (or by calibration).

use std::fmt::Write as _;

use crate::config::suite::Suite;
use crate::model::Budget;

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

/// The budget when the suites ran but were not calibrated (`init --no-calibrate`): what
/// calibration gives with irgate's measurement build (1 Ir, no relative part), so that a +2 Ir
/// slowdown of the smallest benchmark fails as it would after calibration. A relative part, or a
/// slack taken from the smallest benchmark's size, let small regressions of every larger one
/// through (a +9 Ir slowdown of a 554 Ir benchmark passed under the 27 Ir that 5% of it gave).
pub fn uncalibrated_budget() -> (Budget, String) {
    (
        Budget {
            relative_pct: 0.0,
            absolute: 1,
        },
        "1 Ir, what calibration gives with irgate's measurement build (not calibrated here: \
         `irgate calibrate --write` measures it)"
            .to_owned(),
    )
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
         # Counts repeat exactly for one build, so the slack only absorbs what code layout moves.\n\
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
    use std::path::Path;

    #[test]
    fn without_calibration_a_slowdown_of_two_instructions_fails() {
        let (limit, why) = uncalibrated_budget();
        assert_eq!((limit.relative_pct, limit.absolute), (0.0, 1));
        assert!(why.contains("irgate calibrate --write"), "{why}");
        // +2 Ir fails on the smallest and on the largest benchmark alike; +1 Ir passes.
        for baseline in [20, 554, 90_000_000] {
            let allowance = crate::config::budgets::allowance(&limit, baseline);
            assert!((1.0..2.0).contains(&allowance), "{baseline}: {allowance}");
        }
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
