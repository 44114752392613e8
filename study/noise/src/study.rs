//! The measured study: per benchmark, the clean runs of both suites, optionally the runs with the
//! injected slowdown, and what each gate makes of them.

use serde::{Deserialize, Serialize};

use super::stats::{self, Detection, Spread};
use irgate::config;
use irgate::model::Budget;

/// The schema version of the study files this irgate reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole noise study, as `irgate noise --format json` prints it and `noise.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Runs of each suite per variant (clean, and slowed when injected).
    pub repetitions: usize,
    /// The criterion settings of the wall-clock runs.
    pub wall_clock: WallClockSettings,
    /// The cargo features that injected the slowdown, when it was.
    pub injected_features: Option<String>,
    /// One row per benchmark, in id order.
    pub benchmarks: Vec<Row>,
}

/// How each wall-clock run was measured (criterion's command-line settings).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WallClockSettings {
    /// `--warm-up-time`, seconds per benchmark.
    pub warm_up_secs: f64,
    /// `--measurement-time`, seconds per benchmark.
    pub measurement_secs: f64,
    /// `--sample-size`, samples per benchmark.
    pub sample_size: usize,
}

/// One benchmark's measurements and verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Benchmark id, e.g. `pipeline::uncompressed_empty/b512`.
    pub id: String,
    /// Criterion's median time of each clean run, in nanoseconds.
    pub time_ns: Vec<f64>,
    /// How the clean runs' medians scatter.
    pub time: Spread,
    /// The smallest whole-percent time budget that raised no alarm between clean runs: the
    /// smallest regression a time gate could catch here without false alarms.
    pub time_budget_pct: f64,
    /// The Ir of each clean run.
    pub ir: Vec<u64>,
    /// How the clean runs' Ir scatter (zero, when the counts are deterministic).
    pub ir_spread: Spread,
    /// The smallest increase an Ir gate could catch without false alarms: the observed spread
    /// plus one instruction.
    pub ir_min_regression: u64,
    /// The runs with the injected slowdown, when there were any.
    pub slowdown: Option<Slowdown>,
}

/// A benchmark's runs with the injected slowdown, and whether each gate saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slowdown {
    /// Criterion's median time of each slowed run, in nanoseconds.
    pub time_ns: Vec<f64>,
    /// The Ir of each slowed run.
    pub ir: Vec<u64>,
    /// The instructions the slowdown added (median slowed minus median clean): the ground truth
    /// of how much work was injected. Zero for benchmarks that do not run the slowed code.
    pub ir_added: i64,
    /// The change of the median time, in percent (positive is slower).
    pub time_change_pct: f64,
    /// The time gate, at [`Row::time_budget_pct`].
    pub time_gate: Detection,
    /// The Ir budget of this benchmark in gate.toml.
    pub ir_budget: Budget,
    /// The Ir gate, at [`Slowdown::ir_budget`].
    pub ir_gate: Detection,
}

/// One variant's runs of one benchmark: a median time and an Ir count per run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Runs {
    /// Median time per run, in nanoseconds.
    pub time_ns: Vec<f64>,
    /// Ir per run.
    pub ir: Vec<u64>,
}

impl Row {
    /// Judges one benchmark from its clean runs and, optionally, its slowed runs under the Ir
    /// budget `ir_budget`. `None` when a variant has no runs of either kind.
    pub fn new(id: &str, clean: &Runs, slowed: Option<&Runs>, ir_budget: Budget) -> Option<Row> {
        let clean_ir: Vec<f64> = clean.ir.iter().map(|&ir| ir as f64).collect();
        let time = stats::spread(&clean.time_ns)?;
        let ir_spread = stats::spread(&clean_ir)?;
        let time_budget_pct = stats::time_budget_pct(time.spread_pct);
        let slowdown = match slowed {
            None => None,
            Some(slowed) => {
                let slowed_ir: Vec<f64> = slowed.ir.iter().map(|&ir| ir as f64).collect();
                let slowed_time = stats::median(&slowed.time_ns)?;
                let ir_added = (stats::median(&slowed_ir)? - ir_spread.median).round() as i64;
                let really_slower = ir_added > 0;
                Some(Slowdown {
                    time_ns: slowed.time_ns.clone(),
                    ir: slowed.ir.clone(),
                    ir_added,
                    time_change_pct: (slowed_time / time.median - 1.0) * 100.0,
                    time_gate: stats::judge(
                        &clean.time_ns,
                        &slowed.time_ns,
                        stats::relative_allowance(time_budget_pct),
                        really_slower,
                    ),
                    ir_budget,
                    ir_gate: stats::judge(
                        &clean_ir,
                        &slowed_ir,
                        |baseline| config::budgets::allowance(&ir_budget, baseline as u64),
                        really_slower,
                    ),
                })
            }
        };
        Some(Row {
            id: id.to_owned(),
            time_ns: clean.time_ns.clone(),
            time,
            time_budget_pct,
            ir: clean.ir.clone(),
            ir_min_regression: (ir_spread.max - ir_spread.min) as u64 + 1,
            ir_spread,
            slowdown,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Verdict;

    const BUDGET: Budget = Budget {
        relative_pct: 1.0,
        absolute: 50,
    };

    fn runs(time_ns: &[f64], ir: &[u64]) -> Runs {
        Runs {
            time_ns: time_ns.to_vec(),
            ir: ir.to_vec(),
        }
    }

    #[test]
    fn a_clean_row_states_what_each_gate_could_catch() {
        let row = Row::new(
            "pipeline::uncompressed_empty/b512",
            &runs(&[120.0, 131.0, 124.0, 122.0, 126.0], &[487; 5]),
            None,
            BUDGET,
        )
        .unwrap();
        assert_eq!(row.time.median, 124.0);
        assert!((row.time.spread_pct - 11.0 / 120.0 * 100.0).abs() < 1e-9);
        assert_eq!(row.time_budget_pct, 10.0);
        assert_eq!(row.ir_spread.spread_pct, 0.0);
        assert_eq!(row.ir_min_regression, 1);
        assert_eq!(row.slowdown, None);
    }

    #[test]
    fn the_injected_slowdown_is_caught_by_ir_where_time_flaps() {
        // +70 Ir on 487 (+14%); time +5% on a 9% spread.
        let row = Row::new(
            "pipeline::uncompressed_empty/b512",
            &runs(&[120.0, 131.0, 124.0], &[487; 3]),
            Some(&runs(&[126.0, 135.0, 130.0], &[557; 3])),
            BUDGET,
        )
        .unwrap();
        let slowdown = row.slowdown.unwrap();
        assert_eq!(slowdown.ir_added, 70);
        assert_eq!(slowdown.ir_gate.verdict, Verdict::Caught);
        assert_eq!(row.time_budget_pct, 10.0);
        // Only 135 ns against the 120 ns baseline (allowance 132 ns) fails: 1 of 9 pairs.
        assert_eq!(slowdown.time_gate.verdict, Verdict::Flaps);
        assert_eq!(
            (slowdown.time_gate.alarms, slowdown.time_gate.pairs),
            (1, 9)
        );
        assert!((slowdown.time_change_pct - (130.0 / 124.0 - 1.0) * 100.0).abs() < 1e-9);
    }

    #[test]
    fn benchmarks_the_slowdown_does_not_touch_are_quiet_or_false_alarms() {
        let row = Row::new(
            "varint::decode/v0",
            &runs(&[8.0, 8.2, 8.1], &[21; 3]),
            Some(&runs(&[8.9, 8.1, 8.0], &[21; 3])),
            BUDGET,
        )
        .unwrap();
        let slowdown = row.slowdown.unwrap();
        assert_eq!(slowdown.ir_added, 0);
        assert_eq!(slowdown.ir_gate.verdict, Verdict::Quiet);
        // Budget 3% above a 2.5% spread; 8.9 ns is beyond every baseline + 3%.
        assert_eq!(slowdown.time_gate.verdict, Verdict::FalseAlarm);
        assert_eq!(slowdown.time_gate.alarms, 3);
    }

    #[test]
    fn a_small_slowdown_on_a_large_count_is_under_the_ir_budget() {
        // +70 Ir on 100,000: under "+1% and at least +50".
        let row = Row::new(
            "pipeline::compressed_empty/b512",
            &runs(&[9900.0, 9950.0], &[100_000; 2]),
            Some(&runs(&[9960.0, 9900.0], &[100_070; 2])),
            BUDGET,
        )
        .unwrap();
        assert_eq!(row.slowdown.unwrap().ir_gate.verdict, Verdict::Missed);
    }

    #[test]
    fn moving_counts_widen_the_ir_minimum() {
        let row = Row::new("a::b/c", &runs(&[1.0, 1.0], &[1000, 1003]), None, BUDGET).unwrap();
        assert_eq!(row.ir_min_regression, 4);
        assert!((row.ir_spread.spread_pct - 0.3).abs() < 1e-9);
    }

    /// The study file is read back by `--from`: its text is frozen here.
    #[test]
    fn a_study_round_trips_through_its_frozen_file() {
        let row = Row::new("a::b/c", &runs(&[10.5, 11.25], &[40, 40]), None, BUDGET).unwrap();
        let study = Study {
            schema_version: SCHEMA_VERSION,
            repetitions: 2,
            wall_clock: WallClockSettings {
                warm_up_secs: 0.2,
                measurement_secs: 0.5,
                sample_size: 30,
            },
            injected_features: None,
            benchmarks: vec![row],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("noise.json");
        irgate::formats::write_json_atomic(&path, &study).unwrap();
        insta::assert_snapshot!(std::fs::read_to_string(&path).unwrap());
        let read = irgate::formats::read_versioned::<Study>(&path, "noise study", SCHEMA_VERSION);
        assert_eq!(read.unwrap(), study);
        let error = irgate::formats::read_versioned::<Study>(&path, "noise study", 2)
            .unwrap_err()
            .to_string();
        assert!(error.contains("unsupported schema_version 1"), "{error}");
    }

    #[test]
    fn no_runs_no_row() {
        assert_eq!(Row::new("a::b/c", &Runs::default(), None, BUDGET), None);
    }
}
