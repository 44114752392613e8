//! The terminal report: the rows that need attention, worst first, then the verdict.
//!
//! ```text
//! benchmark          baseline     new   change  budget        verdict
//! filter::scan/s512     2,778   4,520  +62.71%  max(1%, 50)   FAIL over budget
//!
//! FAIL: 1 of 2 benchmarks failed the gate (1 over budget).
//! ```
//!
//! Rows within budget are left out (and informational rows that did not move), with the largest
//! movers named in one line; `full` lists every row.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::config::metrics::IR;
use crate::model::{Budget, EnvDelta, Mode, Outcome, Report, Row, Status};
use crate::text::{align, short_commit, signed_pct, terminal, thousands};

/// How many movers within budget the summary names.
const MOVERS_NAMED: usize = 3;

/// Renders `report` for a terminal: every row when `full`, else the rows that need attention.
pub fn render(report: &Report, full: bool) -> String {
    let mut out = String::new();
    if !report.env_mismatches.is_empty() {
        out.push_str("The environment differs from the baselines':\n");
        for m in &report.env_mismatches {
            let _ = writeln!(
                out,
                "  {}: baseline `{}`, this run `{}`",
                terminal(&m.field),
                terminal(&m.baseline),
                terminal(&m.current)
            );
        }
        out.push('\n');
    }

    let shown: Vec<&Row> = report
        .rows
        .iter()
        .filter(|row| full || needs_attention(row))
        .collect();
    if !shown.is_empty() {
        let with_metric = shown.iter().any(|row| row.metric != IR);
        let mut lines = vec![header(with_metric)];
        lines.extend(
            shown
                .iter()
                .map(|row| cells(row, with_metric, report.is_carried(&row.benchmark))),
        );
        let first_number = if with_metric { 2 } else { 1 };
        let table = align(&lines, |i| (first_number..first_number + 3).contains(&i));
        let mut table_lines = table.lines();
        out.extend(table_lines.next().map(|header| format!("{header}\n")));
        for (row, line) in shown.iter().zip(table_lines) {
            out.push_str(line);
            out.push('\n');
            // Where the instructions went, under the row that failed.
            let explained = report.attribution.explanations.iter().find(|e| {
                row.status == Status::OverBudget
                    && row.metric == IR
                    && row.since.is_none()
                    && e.benchmark == row.benchmark
            });
            if let Some(why) = crate::select::text::why(report, row) {
                let _ = writeln!(out, "    {}", terminal(&why));
            }
            if let Some(gated) = crate::render::gated_line(report, row) {
                let _ = writeln!(out, "    {}", terminal(&gated));
            }
            if let Some(explained) = explained {
                out.push_str(&crate::render::explanation::text(explained, "    "));
            }
        }
        out.push('\n');
    }
    if !full && let Some(movers) = movers(report) {
        out.push_str(&movers);
    }
    out.push_str(&accepted(report));
    out.push_str(&verdict(report));
    out.push('\n');
    for line in [
        crate::select::text::carried(report),
        crate::select::text::summary(report),
        crate::render::measured_nothing(report),
    ]
    .into_iter()
    .flatten()
    {
        let _ = writeln!(out, "{}", terminal(&line));
    }
    match &report.mode {
        Mode::Baselines => {}
        Mode::Ab { commit } => {
            let _ = writeln!(
                out,
                "A/B: compared with the base commit {} measured in the same job.",
                terminal(short_commit(commit))
            );
        }
        Mode::Remeasured {
            commit,
            environment,
        } => out.push_str(&triage(report, commit, environment, full)),
    }
    if let Some(note) = &report.attribution.explanation_note {
        let _ = writeln!(out, "note: {}", terminal(note));
    }
    out
}

/// The regressions let pass on purpose, one line per benchmark: which entry, why, until when.
fn accepted(report: &Report) -> String {
    let mut out = String::new();
    let mut seen = BTreeSet::new();
    for row in &report.rows {
        if let Some(a) = &row.accepted
            && seen.insert(&row.benchmark)
        {
            let _ = writeln!(
                out,
                "Accepted on purpose: {} by {} ({}): {}",
                terminal(&row.benchmark),
                terminal(&a.origin),
                terminal(&a.until),
                terminal(&a.reason)
            );
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Drift triage: one sentence, then what the environment moved each benchmark by (those it moved,
/// largest first; the first few unless `full`).
fn triage(report: &Report, commit: &str, environment: &[EnvDelta], full: bool) -> String {
    let mut out = format!(
        "Drift triage: the environment differs from the baselines', so their commit {} was \
         measured again here: the environment moved {} (baseline -> that commit here), the code \
         moved {} (that commit here -> this change); only the code's move is gated.\n",
        terminal(short_commit(commit)),
        super::moved(environment.iter().map(EnvDelta::change_pct)),
        super::moved(
            report
                .rows
                .iter()
                .filter(|r| r.metric == IR)
                .filter_map(Row::change_pct)
        ),
    );
    let mut moved: Vec<&EnvDelta> = environment
        .iter()
        .filter(|e| e.baseline != e.remeasured)
        .collect();
    moved.sort_by(|a, b| b.change_pct().abs().total_cmp(&a.change_pct().abs()));
    let shown = if full {
        moved.len()
    } else {
        moved.len().min(MOVERS_NAMED * 3)
    };
    if shown > 0 {
        let mut lines = vec![vec![
            "benchmark".to_owned(),
            "baseline".to_owned(),
            "here".to_owned(),
            "environment".to_owned(),
        ]];
        lines.extend(moved[..shown].iter().map(|e| {
            vec![
                terminal(&e.benchmark).into_owned(),
                thousands(e.baseline),
                thousands(e.remeasured),
                signed_pct(e.change_pct()),
            ]
        }));
        out.push('\n');
        out.push_str(&align(&lines, |i| i > 0));
        if shown < moved.len() {
            let _ = writeln!(out, "... {} more (--full)", moved.len() - shown);
        }
    }
    out
}

/// Whether a row is shown without `--full`: it fails or is not plainly within budget, or it is an
/// informational metric that moved.
fn needs_attention(row: &Row) -> bool {
    match row.status {
        Status::Ok => false,
        Status::Info => row.baseline != row.new,
        _ => true,
    }
}

/// `Largest movers within budget: a +0.52%, b -0.10%.`, or `None` when nothing within budget
/// moved.
fn movers(report: &Report) -> Option<String> {
    // A carried row (not run) kept its count by construction: it says nothing here.
    let ran = |row: &&Row| row.status == Status::Ok && !report.is_carried(&row.benchmark);
    let mut moved: Vec<(&Row, f64)> = report
        .rows
        .iter()
        .filter(ran)
        .filter_map(|row| Some((row, row.change_pct()?)))
        .filter(|(_, pct)| *pct != 0.0)
        .collect();
    if moved.is_empty() {
        let within = report.rows.iter().any(|r| ran(&r));
        return within.then(|| "Every benchmark within budget kept its exact count.\n".to_owned());
    }
    moved.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let names: Vec<String> = moved
        .iter()
        .take(MOVERS_NAMED)
        .map(|(row, pct)| {
            let metric = if row.metric == IR {
                String::new()
            } else {
                format!(" {}", terminal(&row.metric))
            };
            format!("{}{metric} {}", terminal(&row.benchmark), signed_pct(*pct))
        })
        .collect();
    Some(format!(
        "{} moved within budget; the largest: {} (--full lists every row).\n",
        moved.len(),
        names.join(", ")
    ))
}

fn header(with_metric: bool) -> Vec<String> {
    let mut cells = vec!["benchmark"];
    if with_metric {
        cells.push("metric");
    }
    cells.extend(["baseline", "new", "change", "budget", "verdict"]);
    cells.into_iter().map(str::to_owned).collect()
}

/// A row's cells; a `carried` row (not run) shows its baseline count and no new one.
fn cells(row: &Row, with_metric: bool, carried: bool) -> Vec<String> {
    let mut cells = vec![terminal(&row.benchmark).into_owned()];
    if with_metric {
        cells.push(terminal(&row.metric).into_owned());
    }
    cells.push(row.baseline.map_or("-".to_owned(), thousands));
    if carried {
        cells.extend(["not run".to_owned(), "-".to_owned()]);
        cells.push(row.limit.as_ref().map_or("-".to_owned(), Budget::to_string));
        cells.push(crate::select::text::CARRIED.to_owned());
        return cells;
    }
    cells.push(row.new.map_or("-".to_owned(), thousands));
    cells.push(row.change_pct().map_or("-".to_owned(), signed_pct));
    cells.push(row.limit.as_ref().map_or("-".to_owned(), Budget::to_string));
    let status = row.status.label();
    cells.push(if row.fails {
        format!("FAIL {status}")
    } else {
        status.to_owned()
    });
    if let (Some(since), Some(verdict)) = (&row.since, cells.last_mut()) {
        verdict.push_str(&format!(" since {}", terminal(since)));
    }
    cells
}

/// The closing sentence: the verdict and what to do about it. Only rows that fail the gate are
/// counted as failures; the others are named apart.
fn verdict(report: &Report) -> String {
    let total = super::counted(report);
    let statuses = [
        (Status::OverBudget, "over budget", "over budget"),
        (
            Status::Accepted,
            "accepted on purpose",
            "accepted on purpose",
        ),
        (Status::New, "new without a baseline", "new"),
        (Status::Stale, "stale under --strict", "stale"),
        (
            Status::Layout,
            "",
            "moved without executing changed code (within the address budget)",
        ),
        (
            Status::Unexplained,
            "",
            "moved beyond the address budget without executing changed code (a possible selection blind spot)",
        ),
        (
            Status::Nondeterministic,
            "",
            "moved, but its build is not reproducible ([[nondeterministic]]: undecided)",
        ),
        (Status::Vanished, "vanished", "vanished"),
    ];
    let (mut failing, mut passing) = (Vec::new(), Vec::new());
    for (status, fails, passes) in statuses {
        let (all, failed) = (report.tally(status, false), report.tally(status, true));
        if failed > 0 {
            failing.push(format!("{failed} {fails}"));
        }
        if all > failed {
            passing.push(format!("{} {passes}", all - failed));
        }
    }
    let listed = |notes: &[String]| {
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join(", "))
        }
    };
    let mut text = match &report.outcome {
        Outcome::Passed => format!(
            "PASS: every budget holds over {total}{}.\n",
            listed(&passing)
        ),
        Outcome::Failed { count } => {
            let mut text = format!(
                "FAIL: {count} of {total} failed the gate{}.",
                listed(&failing)
            );
            if !passing.is_empty() {
                text.push_str(&format!(" Not failing: {}.", passing.join(", ")));
            }
            text.push('\n');
            text
        }
        Outcome::Undecided { reason } => format!("UNDECIDED: {}.\n", terminal(reason)),
        Outcome::NoVerdict { reason } => format!("NO VERDICT: {}.\n", terminal(reason)),
    };
    let new_fails = report
        .rows
        .iter()
        .any(|r| r.status == Status::New && r.fails);
    if new_fails {
        text.push_str(
            "New benchmarks need a baseline: commit, then `irgate run --record` and `irgate \
             refresh FILTER` (a record taken with uncommitted changes makes `--only-touched` run \
             everything), or pass --allow-new.\n",
        );
    }
    if report.tally(Status::Stale, false) > 0 {
        text.push_str(
            "Stale baselines: `irgate refresh FILTER` after `irgate run --record` on a committed tree \
             locks in the gain (with the code record `--only-touched` trusts).\n",
        );
    }
    text.pop();
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Budget, Fingerprint};

    fn row(benchmark: &str, status: Status, fails: bool) -> Row {
        Row {
            benchmark: benchmark.into(),
            metric: "Ir".into(),
            baseline: Some(100),
            new: Some(200),
            limit: Some(Budget {
                relative_pct: 1.0,
                absolute: 0,
            }),
            status,
            fails,
            since: None,
            accepted: None,
            touch: None,
        }
    }

    #[test]
    fn the_verdict_counts_only_failures_as_failures() {
        let mut rows: Vec<Row> = (0..5)
            .map(|i| row(&format!("a::over/{i}"), Status::OverBudget, true))
            .collect();
        rows.extend((0..3).map(|i| row(&format!("a::stale/{i}"), Status::Stale, false)));
        rows.extend((0..28).map(|i| row(&format!("a::ok/{i}"), Status::Ok, false)));
        let mut report = Report {
            mode: Mode::Baselines,
            outcome: Outcome::Failed { count: 5 },
            rows,
            fingerprint: Fingerprint::default(),
            env_mismatches: Vec::new(),
            attribution: Default::default(),
            change: None,
            carried: Vec::new(),
        };
        assert_eq!(
            verdict(&report).lines().next().unwrap(),
            "FAIL: 5 of 36 benchmarks failed the gate (5 over budget). Not failing: 3 stale."
        );
        report.rows[5].fails = true;
        report.outcome = Outcome::Failed { count: 6 };
        assert_eq!(
            verdict(&report).lines().next().unwrap(),
            "FAIL: 6 of 36 benchmarks failed the gate (5 over budget, 1 stale under --strict). Not \
             failing: 2 stale."
        );
        report.rows.truncate(5);
        report.rows.iter_mut().for_each(|r| r.fails = false);
        report.rows[0].status = Status::Accepted;
        report.rows.truncate(1);
        report.outcome = Outcome::Passed;
        assert_eq!(
            verdict(&report),
            "PASS: every budget holds over 1 benchmark (1 accepted on purpose)."
        );
    }

    #[test]
    fn a_carried_row_says_it_was_not_run_and_nothing_measured_is_named() {
        let mut rows = vec![row("a::ran/1", Status::Ok, false)];
        let mut carried = row("a::carried/1", Status::Ok, false);
        carried.new = carried.baseline;
        let mut folded = row("a::folded/1", Status::Ok, false);
        (folded.baseline, folded.new) = (Some(0), Some(0));
        rows.extend([carried, folded]);
        let report = Report {
            mode: Mode::Baselines,
            outcome: Outcome::Passed,
            rows,
            fingerprint: Fingerprint::default(),
            env_mismatches: Vec::new(),
            attribution: Default::default(),
            change: None,
            carried: vec!["a::carried/1".into()],
        };
        let full = render(&report, true);
        let line = full
            .lines()
            .find(|l| l.starts_with("a::carried/1"))
            .unwrap();
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "a::carried/1",
                "100",
                "not",
                "run",
                "-",
                "max(1%,",
                "0)",
                "carried,",
                "not",
                "run"
            ],
            "{full}"
        );
        assert!(
            full.contains(
                "PASS: every budget holds over 2 benchmarks run (of 3).\nRan 2 of 3 benchmarks \
                 (`--only-touched`): the other 1 executed no code changed since the baselines' \
                 code record, and read no changed file: not run, their baseline counts carried."
            ),
            "{full}"
        );
        assert!(
            full.contains(
                "Measures nothing: 1 benchmark measures 0 Ir (`a::folded/1`): the compiler folded \
                 its body away"
            ) && full.contains("`std::hint::black_box`")
                && full.contains("runs it on every change"),
            "{full}"
        );
        // The one that ran moved; the carried one is not counted among those that kept their count.
        let short = render(&report, false);
        assert!(short.contains("1 moved within budget"), "{short}");
        assert!(!short.contains("a::carried/1"), "{short}");
    }
}
