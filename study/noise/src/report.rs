//! Renders a [`Study`]: an aligned table for a terminal, a markdown table for the README, with a
//! summary of what each method could gate on this machine.

use std::fmt::Write;

use super::stats::{self, Detection, Verdict};
use super::study::{Row, Study};
use irgate::model::Budget;
use irgate::text::thousands;

/// A time in nanoseconds, with a unit that keeps three or four significant digits.
pub fn time(ns: f64) -> String {
    match ns {
        ns if ns < 10.0 => format!("{ns:.2} ns"),
        ns if ns < 1e3 => format!("{ns:.1} ns"),
        ns if ns < 1e6 => format!("{:.2} µs", ns / 1e3),
        ns if ns < 1e9 => format!("{:.2} ms", ns / 1e6),
        ns => format!("{:.2} s", ns / 1e9),
    }
}

fn pct(value: f64) -> String {
    format!("{value:.1}%")
}

/// A percentage that may be tiny: two decimals, or `<0.01%`.
fn small_pct(value: f64) -> String {
    if value < 0.01 {
        "<0.01%".to_owned()
    } else {
        format!("{value:.2}%")
    }
}

fn whole_pct(value: f64) -> String {
    format!("{value:.0}%")
}

fn signed_pct(value: f64) -> String {
    format!("{value:+.1}%")
}

fn budget(limit: &Budget) -> String {
    format!("+{}%/+{}", limit.relative_pct, limit.absolute)
}

fn detection(d: &Detection) -> String {
    match d.verdict {
        Verdict::Flaps | Verdict::FalseAlarm => {
            format!("{} ({}/{})", d.verdict.label(), d.alarms, d.pairs)
        }
        verdict => verdict.label().to_owned(),
    }
}

/// The header and the cells of every row, and which columns are numbers.
fn cells(study: &Study) -> (Vec<String>, Vec<Vec<String>>, Vec<bool>) {
    let injected = study.injected_features.is_some();
    let mut header: Vec<String> = [
        "benchmark",
        "time (median)",
        "time spread",
        "time CV",
        "time min–max",
        "Ir",
        "Ir spread",
        "time gate needs",
        "Ir gate needs",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut numeric = vec![false, true, true, true, true, true, true, true, true];
    if injected {
        header.extend(
            [
                "slowdown (Ir)",
                "time change",
                "time gate",
                "Ir budget",
                "Ir gate",
            ]
            .map(str::to_owned),
        );
        numeric.extend([true, true, false, true, false]);
    }
    let rows = study
        .benchmarks
        .iter()
        .map(|row| {
            let mut line = vec![
                row.id.clone(),
                time(row.time.median),
                pct(row.time.spread_pct),
                pct(row.time.cv_pct),
                format!("{}–{}", time(row.time.min), time(row.time.max)),
                thousands(row.ir_spread.median as u64),
                ir_spread(row),
                whole_pct(row.time_budget_pct),
                format!(
                    "+{} Ir ({})",
                    row.ir_min_regression,
                    small_pct(row.ir_min_regression as f64 / row.ir_spread.median * 100.0)
                ),
            ];
            if let Some(s) = &row.slowdown {
                line.extend([
                    match s.ir_added {
                        0 => "0".to_owned(),
                        added => format!(
                            "{added:+} ({})",
                            signed_pct(added as f64 / row.ir_spread.median * 100.0)
                        ),
                    },
                    signed_pct(s.time_change_pct),
                    detection(&s.time_gate),
                    budget(&s.ir_budget),
                    detection(&s.ir_gate),
                ]);
            }
            line
        })
        .collect();
    (header, rows, numeric)
}

fn ir_spread(row: &Row) -> String {
    let spread = row.ir_spread.max - row.ir_spread.min;
    if spread == 0.0 {
        "0".to_owned()
    } else {
        format!(
            "{} ({})",
            thousands(spread as u64),
            pct(row.ir_spread.spread_pct)
        )
    }
}

/// The study as an aligned table and its summary, for a terminal.
pub fn table(study: &Study) -> String {
    let (header, rows, numeric) = cells(study);
    let mut lines = vec![header];
    lines.extend(rows);
    let mut out = irgate::text::align(&lines, |i| numeric[i]);
    out.push('\n');
    out.push_str(&summary(study).join("\n"));
    out.push('\n');
    out
}

/// The study as a markdown table and its summary, for the README.
pub fn markdown(study: &Study) -> String {
    let (header, rows, numeric) = cells(study);
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let align: Vec<&str> = numeric
        .iter()
        .map(|&n| if n { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "|{}|", align.join("|"));
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i == 0 {
                    format!("`{cell}`")
                } else {
                    cell.clone()
                }
            })
            .collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
    for line in summary(study) {
        let _ = writeln!(out, "- {line}");
    }
    out
}

/// What the study shows, in sentences.
pub fn summary(study: &Study) -> Vec<String> {
    let rows = &study.benchmarks;
    let n = rows.len();
    let mut lines = Vec::new();
    let Some(worst) = rows
        .iter()
        .max_by(|a, b| a.time.spread_pct.total_cmp(&b.time.spread_pct))
    else {
        return vec!["No benchmark was measured.".to_owned()];
    };
    let spreads: Vec<f64> = rows.iter().map(|r| r.time.spread_pct).collect();
    let budgets: Vec<f64> = rows.iter().map(|r| r.time_budget_pct).collect();
    let settings = study.wall_clock;
    lines.push(format!(
        "Wall clock ({n} benchmarks, {k} runs each; criterion, {w} s warm-up, {m} s measurement, \
         {s} samples): the median time moved by {median_spread} between runs of the same code on \
         the median benchmark, and by up to {worst_spread} (`{worst}`). A time gate quiet on \
         every pair of these runs needs a budget of {median_budget} on the median benchmark and \
         up to {max_budget}.",
        k = study.repetitions,
        w = settings.warm_up_secs,
        m = settings.measurement_secs,
        s = settings.sample_size,
        median_spread = pct(stats::median(&spreads).unwrap_or(0.0)),
        worst_spread = pct(worst.time.spread_pct),
        worst = worst.id,
        median_budget = whole_pct(stats::median(&budgets).unwrap_or(0.0)),
        max_budget = whole_pct(budgets.iter().copied().fold(0.0, f64::max)),
    ));
    let exact = rows
        .iter()
        .filter(|r| r.ir_spread.spread_pct == 0.0)
        .count();
    lines.push(if exact == n {
        format!(
            "Instruction counts: identical in all {k} runs of all {n} benchmarks, so an Ir gate \
             can fail on +1 instruction without a false alarm.",
            k = study.repetitions
        )
    } else {
        format!(
            "Instruction counts: identical in every run for {exact} of {n} benchmarks; {moved} \
             moved between runs of the same code, which is a determinism bug to find and fix.",
            moved = n - exact
        )
    });
    if let Some(features) = &study.injected_features {
        let slowed: Vec<&Row> = rows
            .iter()
            .filter(|r| r.slowdown.as_ref().is_some_and(|s| s.ir_added > 0))
            .collect();
        let count = |gate: fn(&Row) -> Verdict, verdict: Verdict| {
            rows.iter().filter(|r| gate(r) == verdict).count()
        };
        let time_gate: fn(&Row) -> Verdict = |r| {
            r.slowdown
                .as_ref()
                .map_or(Verdict::Quiet, |s| s.time_gate.verdict)
        };
        let ir_gate: fn(&Row) -> Verdict = |r| {
            r.slowdown
                .as_ref()
                .map_or(Verdict::Quiet, |s| s.ir_gate.verdict)
        };
        let added: Vec<f64> = slowed
            .iter()
            .filter_map(|r| Some(r.slowdown.as_ref()?.ir_added as f64))
            .collect();
        let range = if added.is_empty() {
            "nothing".to_owned()
        } else {
            format!(
                "+{} to +{} Ir",
                added.iter().copied().fold(f64::INFINITY, f64::min),
                added.iter().copied().fold(0.0, f64::max)
            )
        };
        let floor = slowed
            .iter()
            .filter(|r| {
                r.slowdown
                    .as_ref()
                    .is_some_and(|s| s.ir_added as u64 >= r.ir_min_regression)
            })
            .count();
        let untouched = n - slowed.len();
        let alarms = |gate: fn(&Row) -> Verdict| match untouched {
            0 => String::new(),
            u => format!(
                ", with false alarms on {} of the {u} that did not change",
                count(gate, Verdict::FalseAlarm)
            ),
        };
        lines.push(format!(
            "Injected slowdown (`--features {features}`): {s} of {n} benchmarks do {range} more \
             work{rest}. The Ir gate at its gate.toml budget caught {ic}, flapped on {if_} and \
             missed {im}{ir_alarms}; at its noise floor (+1 Ir above the observed spread) it would \
             catch {floor} of {s}. The time gate at the budget above its spread caught {tc}, \
             flapped on {tf} (failed in some pairs of runs, passed in others) and missed \
             {tm}{time_alarms}.",
            s = slowed.len(),
            rest = match untouched {
                0 => String::new(),
                u => format!("; the other {u} do not run the slowed code"),
            },
            ic = count(ir_gate, Verdict::Caught),
            if_ = count(ir_gate, Verdict::Flaps),
            im = count(ir_gate, Verdict::Missed),
            ir_alarms = alarms(ir_gate),
            tc = count(time_gate, Verdict::Caught),
            tf = count(time_gate, Verdict::Flaps),
            tm = count(time_gate, Verdict::Missed),
            time_alarms = alarms(time_gate),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::{Runs, WallClockSettings};

    fn study() -> Study {
        let limit = Budget {
            relative_pct: 1.0,
            absolute: 50,
        };
        let slowed = Row::new(
            "pipeline::uncompressed_empty/b512",
            &Runs {
                time_ns: vec![120.0, 131.0, 124.0],
                ir: vec![487; 3],
            },
            Some(&Runs {
                time_ns: vec![126.0, 135.0, 130.0],
                ir: vec![557; 3],
            }),
            limit,
        );
        let untouched = Row::new(
            "varint::decode/v0",
            &Runs {
                time_ns: vec![8.0, 8.2, 8.1],
                ir: vec![21; 3],
            },
            Some(&Runs {
                time_ns: vec![8.0, 8.1, 8.1],
                ir: vec![21; 3],
            }),
            limit,
        );
        Study {
            schema_version: crate::study::SCHEMA_VERSION,
            repetitions: 3,
            wall_clock: WallClockSettings {
                warm_up_secs: 0.2,
                measurement_secs: 0.5,
                sample_size: 30,
            },
            injected_features: Some("codec/inject-slowdown".to_owned()),
            benchmarks: vec![slowed.unwrap(), untouched.unwrap()],
        }
    }

    #[test]
    fn times_get_a_readable_unit() {
        assert_eq!(time(0.536), "0.54 ns");
        assert_eq!(time(82.5), "82.5 ns");
        assert_eq!(time(9_912.0), "9.91 µs");
        assert_eq!(time(1_232_000.0), "1.23 ms");
    }

    #[test]
    fn the_markdown_table_puts_both_spreads_and_both_verdicts_side_by_side() {
        let text = markdown(&study());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "| benchmark | time (median) | time spread | time CV | time min–max | Ir | Ir spread \
             | time gate needs | Ir gate needs | slowdown (Ir) | time change | time gate \
             | Ir budget | Ir gate |"
        );
        assert_eq!(
            lines[2],
            "| `pipeline::uncompressed_empty/b512` | 124.0 ns | 9.2% | 4.5% | 120.0 ns–131.0 ns \
             | 487 | 0 | 10% | +1 Ir (0.21%) | +70 (+14.4%) | +4.8% | flaps (1/9) | +1%/+50 | caught |"
        );
        assert!(
            lines[3].ends_with("| 0 | +0.0% | quiet | +1%/+50 | quiet |"),
            "{}",
            lines[3]
        );
        assert!(text.contains("Instruction counts: identical in all 3 runs of all 2 benchmarks"));
        assert!(
            text.contains(
                "1 of 2 benchmarks do +70 to +70 Ir more work; the other 1 do not run the \
                 slowed code. The Ir gate at its gate.toml budget caught 1, flapped on 0 and \
                 missed 0, with false alarms on 0 of the 1 that did not change; at its noise \
                 floor (+1 Ir above the observed spread) it would catch 1 of 1."
            ),
            "{text}"
        );
        assert!(text.contains("caught 0, flapped on 1"), "{text}");
        assert!(
            text.contains("missed 0, with false alarms on 0 of the 1"),
            "{text}"
        );
    }

    #[test]
    fn the_terminal_table_is_aligned() {
        let text = table(&study());
        let lines: Vec<&str> = text.lines().take(3).collect();
        let header_ir = lines[0].find("Ir spread").unwrap();
        assert!(lines[1].len() > header_ir && lines[2].len() > header_ir);
        assert!(lines[1].starts_with("pipeline::uncompressed_empty/b512  "));
        assert!(lines[2].starts_with("varint::decode/v0                  "));
    }
}
