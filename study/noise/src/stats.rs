//! The statistics of the noise study: the spread of repeated measurements, the smallest budget a
//! gate could use without false alarms, and whether a gate at its budget sees a slowdown.
//!
//! A gate compares a new measurement with a baseline and fails when the new one is larger by more
//! than an allowance. Repeating the same commit K times gives K measurements; every ordered pair
//! of them is a baseline and a run that should pass. A budget above the observed spread (the
//! largest pair ratio, `max / min - 1`) raises no alarm on any of those pairs. With a slowdown
//! injected, every pair (clean run as the baseline, slowed run as the new one) is a run that
//! should fail.

use serde::{Deserialize, Serialize};

/// How repeated measurements of one benchmark scatter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The median of the measurements.
    pub median: f64,
    /// The smallest measurement.
    pub min: f64,
    /// The largest measurement.
    pub max: f64,
    /// `(max - min) / min`, in percent: the largest change seen between two runs of the same code.
    pub spread_pct: f64,
    /// Coefficient of variation (sample standard deviation over mean), in percent.
    pub cv_pct: f64,
}

/// The spread of `values`; `None` when there are none.
pub fn spread(values: &[f64]) -> Option<Spread> {
    let median = median(values)?;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Spread {
        median,
        min,
        max,
        spread_pct: if min > 0.0 {
            (max - min) / min * 100.0
        } else {
            0.0
        },
        cv_pct: cv_pct(values),
    })
}

/// The median of `values` (the mean of the middle two for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// The coefficient of variation of `values` in percent: the sample standard deviation (n - 1)
/// over the mean. Zero for fewer than two values or a zero mean.
pub fn cv_pct(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 || mean == 0.0 {
        return 0.0;
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    variance.sqrt() / mean * 100.0
}

/// The smallest whole-percent time budget strictly above `spread_pct`: a time gate with it would
/// have raised no alarm between any two of the observed runs. (It is a lower bound: more runs
/// see more spread.)
pub fn time_budget_pct(spread_pct: f64) -> f64 {
    spread_pct.floor() + 1.0
}

/// What a gate said about one benchmark over every (baseline, new) pair of runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Slowed, and every pair failed the gate.
    Caught,
    /// Slowed, and some pairs failed the gate, some passed: the verdict depends on the run.
    Flaps,
    /// Slowed, and every pair passed: the gate is blind to it.
    Missed,
    /// Not slowed, and every pair passed.
    Quiet,
    /// Not slowed, yet some pairs failed the gate.
    FalseAlarm,
}

impl Verdict {
    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Caught => "caught",
            Verdict::Flaps => "flaps",
            Verdict::Missed => "missed",
            Verdict::Quiet => "quiet",
            Verdict::FalseAlarm => "false alarm",
        }
    }
}

/// A gate's judgement of one benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detection {
    /// The pairs (baseline run, new run) that failed the gate.
    pub alarms: usize,
    /// The pairs judged.
    pub pairs: usize,
    /// The verdict.
    pub verdict: Verdict,
}

/// Judges a gate that fails a run when `new > baseline + allowance(baseline)`, over every pair of
/// a `baseline` run and a `new` run. `slowed` says whether the code under `new` really does more
/// work, which decides between caught/flaps/missed and quiet/false alarm.
pub fn judge(
    baseline: &[f64],
    new: &[f64],
    allowance: impl Fn(f64) -> f64,
    slowed: bool,
) -> Detection {
    let pairs = baseline.len() * new.len();
    let alarms = baseline
        .iter()
        .map(|&b| new.iter().filter(|&&n| n > b + allowance(b)).count())
        .sum();
    let verdict = match (slowed, alarms) {
        (true, 0) => Verdict::Missed,
        (true, a) if a == pairs => Verdict::Caught,
        (true, _) => Verdict::Flaps,
        (false, 0) => Verdict::Quiet,
        (false, _) => Verdict::FalseAlarm,
    };
    Detection {
        alarms,
        pairs,
        verdict,
    }
}

/// The allowance of a time budget of `budget_pct` percent over `baseline`.
pub fn relative_allowance(budget_pct: f64) -> impl Fn(f64) -> f64 {
    move |baseline| baseline * budget_pct / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_unsorted_inputs() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn coefficient_of_variation_uses_the_sample_standard_deviation() {
        // mean 10, deviations -2 0 2: sample variance 8 / 2 = 4, sd 2, cv 20%.
        assert!((cv_pct(&[8.0, 10.0, 12.0]) - 20.0).abs() < 1e-12);
        assert_eq!(cv_pct(&[5.0, 5.0, 5.0]), 0.0);
        assert_eq!(cv_pct(&[5.0]), 0.0);
        assert_eq!(cv_pct(&[]), 0.0);
    }

    #[test]
    fn spread_is_max_over_min() {
        let s = spread(&[100.0, 110.0, 104.0, 102.0]).unwrap();
        assert_eq!((s.min, s.max, s.median), (100.0, 110.0, 103.0));
        assert!((s.spread_pct - 10.0).abs() < 1e-12);
        assert!(s.cv_pct > 0.0);
        let flat = spread(&[4242.0; 5]).unwrap();
        assert_eq!((flat.spread_pct, flat.cv_pct), (0.0, 0.0));
        assert_eq!(spread(&[]), None);
    }

    #[test]
    fn the_time_budget_is_the_next_whole_percent_above_the_spread() {
        assert_eq!(time_budget_pct(0.0), 1.0);
        assert_eq!(time_budget_pct(0.4), 1.0);
        assert_eq!(time_budget_pct(3.0), 4.0);
        assert_eq!(time_budget_pct(13.7), 14.0);
    }

    #[test]
    fn a_budget_above_the_spread_raises_no_alarm_on_clean_pairs() {
        let clean = [100.0, 104.0, 107.5, 101.0];
        let budget = time_budget_pct(spread(&clean).unwrap().spread_pct);
        let d = judge(&clean, &clean, relative_allowance(budget), false);
        assert_eq!((d.alarms, d.pairs, d.verdict), (0, 16, Verdict::Quiet));
        // One percent less and the slowest run against the fastest is an alarm.
        let d = judge(&clean, &clean, relative_allowance(budget - 1.0), false);
        assert_eq!(d.verdict, Verdict::FalseAlarm);
        assert_eq!(d.alarms, 1);
    }

    #[test]
    fn slowdowns_are_caught_flap_or_are_missed() {
        let clean = [100.0, 103.0, 106.0];
        let budget = relative_allowance(7.0);
        // Every slowed run is beyond 106 * 1.07 = 113.42.
        let d = judge(&clean, &[114.0, 115.0, 120.0], &budget, true);
        assert_eq!((d.alarms, d.pairs, d.verdict), (9, 9, Verdict::Caught));
        // 109 fails only against the 100 baseline (107); 112 against 100 and 103 (110.21).
        let d = judge(&clean, &[109.0, 112.0], &budget, true);
        assert_eq!((d.alarms, d.verdict), (3, Verdict::Flaps));
        let d = judge(&clean, &[104.0, 105.0], &budget, true);
        assert_eq!((d.alarms, d.verdict), (0, Verdict::Missed));
        // The same alarms on code that did not change are false alarms.
        let d = judge(&clean, &[109.0], &budget, false);
        assert_eq!((d.alarms, d.verdict), (1, Verdict::FalseAlarm));
    }

    #[test]
    fn an_absolute_allowance_is_respected_exactly() {
        // Counts: +70 Ir against a "+1% and at least +50" budget on a 500 Ir baseline.
        let allowance = |b: f64| (b * 0.01).max(50.0);
        let d = judge(&[500.0; 3], &[570.0; 3], allowance, true);
        assert_eq!(d.verdict, Verdict::Caught);
        let d = judge(&[500.0; 3], &[550.0; 3], allowance, true);
        assert_eq!(
            d.verdict,
            Verdict::Missed,
            "exactly at the allowance passes"
        );
    }
}
