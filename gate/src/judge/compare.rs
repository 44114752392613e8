//! Baselines + results + budgets -> a [`Report`]: a row per benchmark and metric, and the verdict.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{self, Config};
use crate::error::Result;
use crate::filter::Filter;
use crate::formats::baseline::Baselines;
use crate::judge::drift::Anchor;
use crate::model::fingerprint;
use crate::model::{
    Accepted, Attribution, Counts, FieldMismatch, Mode, Outcome, Process, Processes, Report,
    Results, Row, Status, Touch, Whole,
};
use crate::select::map::Mapped;

/// What to do when the run's environment differs from the baselines'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvPolicy {
    /// Refuse to judge: exit 2, naming the differing fields.
    #[default]
    Fail,
    /// Show the comparison without a verdict: exit 0.
    Warn,
    /// Measure the baselines' commit again here and gate the code's change only (`irgate
    /// check` does; a comparison alone refuses, as with `Fail`).
    Remeasure,
}

/// How strict the verdict is.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policy {
    /// Improvements beyond the budget (a stale baseline) fail.
    pub strict: bool,
    /// Benchmarks without a baseline pass.
    pub allow_new: bool,
    /// What an environment mismatch does.
    pub on_env_mismatch: EnvPolicy,
}

/// What a judgement weighs: the results against the baselines (or the base side) under the
/// budgets and `[[accept]]` entries of the config, and, with `[drift]`, the growth since its anchor.
#[derive(Debug, Clone, Copy)]
pub struct Judgement<'a> {
    /// The counts judged.
    pub results: &'a Results,
    /// What they are compared with.
    pub baselines: &'a Baselines,
    /// The budgets, overrides, accepted regressions and drift budget.
    pub config: &'a Config,
    /// How strict the verdict is.
    pub policy: Policy,
    /// What the baselines are (the report says so).
    pub mode: &'a Mode,
    /// The drift budget's anchor, found in the history, when the config has `[drift]`.
    pub anchor: Option<&'a Anchor>,
    /// The compared change mapped onto the benchmarks, for change-aware verdicts: a benchmark
    /// that runs none of it is held to the layout budget. `None`: every benchmark as touched.
    pub change: Option<&'a Mapped>,
}

/// The report: a row per benchmark and metric (and per drift over budget), worst first, and the
/// one verdict. A row over budget whose benchmark an `[[accept]]` entry names passes as accepted:
/// the caller refuses expired entries first ([`crate::judge::accept::refuse_expired`]). An error when the
/// drift anchor's environment differs from the results'.
pub fn judge(judgement: &Judgement) -> Result<Report> {
    let Judgement {
        results,
        baselines,
        config,
        policy,
        ..
    } = *judgement;
    // `results::read` refused any filter that is not a valid glob.
    let filters: Vec<Filter> = results
        .filters
        .iter()
        .filter_map(|f| Filter::new(f).ok())
        .collect();
    let was_run = |id: &str| filters.is_empty() || filters.iter().any(|f| f.matches(id));

    let ids: BTreeSet<&str> = results
        .benchmarks
        .keys()
        .map(String::as_str)
        .chain(baselines.ids().filter(|id| was_run(id)))
        .collect();

    let mut rows = Vec::new();
    let mut missing_metrics = Vec::new();
    let mut env_mismatches: Vec<FieldMismatch> = Vec::new();
    let mut gated_cache_metrics: BTreeSet<String> = BTreeSet::new();
    let mut processes = BTreeMap::new();
    for id in ids {
        let new = results.benchmarks.get(id);
        let old = baselines.get(id);
        let budgets = config.budgets_for(id);
        // An unmapped change leaves every row as it was: touched, its reason said once.
        let touch = judgement
            .change
            .filter(|c| c.map.unmapped.is_none())
            .map(|c| c.touch.get(id));
        let untouched = touch == Some(Some(&Touch::Untouched));
        if let (Some(_), Some((_, baseline_fingerprint))) = (new, old) {
            let mut mismatches =
                fingerprint::mismatches(baseline_fingerprint, &results.fingerprint);
            let cache: Vec<&String> = budgets
                .keys()
                .filter(|m| config::metrics::CACHE_METRICS.contains(&m.as_str()))
                .collect();
            if !cache.is_empty() {
                let layout =
                    fingerprint::cache_mismatches(baseline_fingerprint, &results.fingerprint);
                if !layout.is_empty() {
                    gated_cache_metrics.extend(cache.into_iter().cloned());
                    mismatches.extend(layout);
                }
            }
            for mismatch in mismatches {
                if !env_mismatches.contains(&mismatch) {
                    env_mismatches.push(mismatch);
                }
            }
        }
        // A build that is not reproducible: no budget applies; shown only, when gate.toml says
        // `info = true`, else any move is undecided.
        let nondeterministic = config.nondeterministic_for(id);
        let info_only = nondeterministic.is_some_and(|n| n.info);
        let mut compared = Compared::new(id, results, baselines);
        for (metric, limit) in &budgets {
            let (baseline, current) = compared.counts(metric, old.map(|o| o.0), new);
            let mut accepted = None;
            let status = match (baseline, current) {
                (Some(_), Some(_)) if info_only => Status::Info,
                (Some(baseline), Some(current))
                    if nondeterministic.is_some() && baseline != current =>
                {
                    Status::Nondeterministic
                }
                (Some(baseline), Some(current)) => {
                    let allowed = config::budgets::allowance(limit, baseline);
                    let change = current as f64 - baseline as f64;
                    if untouched && change.abs() > allowed {
                        if change.abs() <= config.layout_allowance(metric, limit, baseline) {
                            Status::Layout
                        } else {
                            Status::Unexplained
                        }
                    } else if change > allowed {
                        match config.acceptance_for(id) {
                            Some(accept) => {
                                accepted = Some(Accepted {
                                    reason: accept.reason.clone(),
                                    until: accept.until.to_string(),
                                    origin: accept.origin.clone(),
                                });
                                Status::Accepted
                            }
                            None => Status::OverBudget,
                        }
                    } else if -change > allowed {
                        Status::Stale
                    } else {
                        Status::Ok
                    }
                }
                (None, Some(_)) => Status::New,
                (Some(_), None) if new.is_some() => {
                    missing_metrics.push(format!("{id} ({metric})"));
                    Status::Vanished
                }
                (Some(_), None) => Status::Vanished,
                (None, None) => continue,
            };
            let fails = match status {
                Status::OverBudget => true,
                Status::New => !policy.allow_new,
                Status::Stale => policy.strict,
                Status::Accepted
                | Status::Layout
                | Status::Unexplained
                | Status::Nondeterministic
                | Status::Vanished
                | Status::Ok
                | Status::Info => false,
            };
            rows.push(Row {
                benchmark: id.to_owned(),
                metric: metric.clone(),
                baseline,
                new: current,
                limit: (baseline.is_some() && current.is_some() && !info_only).then_some(*limit),
                status,
                fails,
                since: None,
                accepted,
                touch: touch.map(|t| {
                    t.cloned().unwrap_or_else(|| Touch::Unrecorded {
                        reason: "not in the change map".to_owned(),
                    })
                }),
            });
        }
        for metric in config.info.iter().filter(|m| !budgets.contains_key(*m)) {
            let (baseline, current) = compared.counts(metric, old.map(|o| o.0), new);
            if baseline.is_some() || current.is_some() {
                rows.push(Row {
                    benchmark: id.to_owned(),
                    metric: metric.clone(),
                    baseline,
                    new: current,
                    limit: None,
                    status: Status::Info,
                    fails: false,
                    since: None,
                    accepted: None,
                    touch: None,
                });
            }
        }
        if let Some(process) = compared.process {
            processes.insert(id.to_owned(), process);
        }
    }
    if let (Some(drift), Some(anchor)) = (&config.drift, judgement.anchor) {
        rows.extend(crate::judge::drift::rows(results, drift, anchor)?);
    }
    sort_worst_first(&mut rows);
    let outcome = outcome(
        &rows,
        &env_mismatches,
        &gated_cache_metrics,
        &missing_metrics,
        policy,
    );
    Ok(Report {
        mode: judgement.mode.clone(),
        outcome,
        rows,
        fingerprint: results.fingerprint.clone(),
        env_mismatches,
        attribution: Attribution {
            processes,
            ..Attribution::default()
        },
        change: judgement.change.map(|c| c.map.clone()),
        carried: results.carried.clone(),
    })
}

/// The counts a benchmark's rows compare. A binary benchmark's are its program's alone when
/// both sides hold the program's count of the metric; else the whole process's on both sides
/// (one side taken before irgate split binary benchmarks, or unsplit), and the report says why.
/// A library benchmark's are its counts, as they are.
struct Compared<'a> {
    id: &'a str,
    new: &'a Processes,
    old: Option<&'a Processes>,
    /// What the report says of a binary benchmark.
    process: Option<Process>,
}

impl<'a> Compared<'a> {
    fn new(id: &'a str, results: &'a Results, baselines: &'a Baselines) -> Compared<'a> {
        let old = baselines.process(id);
        let binary = results.process.is_binary(id) || old.is_some_and(|o| o.is_binary(id));
        Compared {
            id,
            new: &results.process,
            old,
            process: binary.then(Process::default),
        }
    }

    /// The baseline's and this run's count of `metric`, from the counts each side holds.
    fn counts(
        &mut self,
        metric: &str,
        old: Option<&Counts>,
        new: Option<&Counts>,
    ) -> (Option<u64>, Option<u64>) {
        let id = self.id;
        let baseline = old.and_then(|counts| counts.get(metric).copied());
        let current = new.and_then(|counts| counts.get(metric).copied());
        let Some(process) = &mut self.process else {
            return (baseline, current);
        };
        let old_program = self.old.is_some_and(|o| o.is_program(id, metric));
        let new_program = self.new.is_program(id, metric);
        let whole = Whole {
            baseline: match self.old {
                Some(o) => o.whole_count(id, metric, baseline),
                None => baseline,
            },
            new: self.new.whole_count(id, metric, current),
        };
        process.whole.insert(metric.to_owned(), whole);
        // A side without counts (a new or vanished benchmark) takes the other's kind.
        if (old_program || old.is_none()) && (new_program || new.is_none()) {
            process.program.push(metric.to_owned());
            return (baseline, current);
        }
        if process.reason.is_none() {
            let old_unsplit = self.old.and_then(|p| p.unsplit.get(id));
            process.reason = Some(if let Some(why) = self.new.unsplit.get(id) {
                format!("this run has the whole process's count only: {why}")
            } else if let Some(why) = old_unsplit {
                format!("the baseline has the whole process's count only: {why}")
            } else if new_program {
                "the baseline holds the whole process's count (taken before irgate gated binary \
                 benchmarks on their program): `irgate refresh` stores the program's"
                    .to_owned()
            } else {
                format!(
                    "this run has the whole process's {metric} count only (results taken before \
                     irgate gated binary benchmarks on their program, or a metric callgrind's \
                     events do not give)"
                )
            });
        }
        (whole.baseline, whole.new)
    }
}

/// The verdict, decided in one place: undecided when the environments differ (or, under
/// `Warn`, no verdict) or a gated metric is missing; else failed by the benchmarks with a failing
/// row, else passed.
fn outcome(
    rows: &[Row],
    env_mismatches: &[FieldMismatch],
    gated_cache_metrics: &BTreeSet<String>,
    missing_metrics: &[String],
    policy: Policy,
) -> Outcome {
    if !env_mismatches.is_empty() {
        let fields: Vec<String> = env_mismatches
            .iter()
            .map(|m| {
                format!(
                    "{} (baseline `{}`, this run `{}`)",
                    m.field, m.baseline, m.current
                )
            })
            .collect();
        let mut reason = format!(
            "the environment differs from the baselines': {}. Counts from different environments \
             do not compare; run the gate where the baselines were taken (`irgate doctor` shows \
             the fields), or take new baselines here on purpose (`irgate run && irgate refresh`)",
            fields.join("; ")
        );
        if !gated_cache_metrics.is_empty() {
            reason.push_str(&format!(
                ". gate.toml gates {}, from callgrind's cache simulation, which moves with the \
                 checkout path and the benchmark's environment: it is gated only between runs \
                 at the same path in the same environment (the pinned container's `/irgate`)",
                gated_cache_metrics
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        match policy.on_env_mismatch {
            EnvPolicy::Fail | EnvPolicy::Remeasure => Outcome::Undecided { reason },
            EnvPolicy::Warn => Outcome::NoVerdict { reason },
        }
    } else if !missing_metrics.is_empty() {
        Outcome::Undecided {
            reason: format!(
                "gated metrics are missing from the results: {}; run `irgate run` again (it runs \
                 DHAT when gate.toml names a dhat metric)",
                missing_metrics.join(", ")
            ),
        }
    } else {
        let failed: BTreeSet<&str> = rows
            .iter()
            .filter(|r| r.fails)
            .map(|r| r.benchmark.as_str())
            .collect();
        let unexplained: BTreeSet<&str> = rows
            .iter()
            .filter(|r| r.status == Status::Unexplained)
            .map(|r| r.benchmark.as_str())
            .collect();
        let nondeterministic: BTreeSet<&str> = rows
            .iter()
            .filter(|r| r.status == Status::Nondeterministic)
            .map(|r| r.benchmark.as_str())
            .collect();
        if failed.is_empty() && !nondeterministic.is_empty() {
            let named: Vec<&str> = nondeterministic.iter().take(3).copied().collect();
            Outcome::Undecided {
                reason: format!(
                    "{} moved whose build is not reproducible ({}{}; gate.toml's \
                     [[nondeterministic]]: two cold builds of one commit counted differently): no \
                     budget tells a change from the build's randomness. Make the build \
                     reproducible (a build script's random data, data generated into OUT_DIR, \
                     hash seeds) and remove the entry, or mark it `info = true`",
                    crate::text::plural(nondeterministic.len(), "benchmark"),
                    named.join(", "),
                    if nondeterministic.len() > 3 {
                        ", ..."
                    } else {
                        ""
                    },
                ),
            }
        } else if failed.is_empty() && !unexplained.is_empty() {
            let named: Vec<&str> = unexplained.iter().take(3).copied().collect();
            Outcome::Undecided {
                reason: format!(
                    "{} moved beyond the address budget although irgate found none of the changed \
                     code in what {} executed ({}{}): a possible selection blind spot (a change \
                     the code record did not see, docs/selection.md; please report it), or the \
                     environment, or a nondeterministic build or benchmark (`irgate explain` \
                     shows where the instructions went). No calibration saw addresses move this \
                     far (`irgate calibrate` sets `[layout]` above the largest move it measures): \
                     raising `[layout]` would let such a move pass unseen",
                    crate::text::plural(unexplained.len(), "benchmark"),
                    if unexplained.len() == 1 { "it" } else { "they" },
                    named.join(", "),
                    if unexplained.len() > 3 { ", ..." } else { "" },
                ),
            }
        } else if failed.is_empty() {
            Outcome::Passed
        } else {
            Outcome::Failed {
                count: failed.len(),
            }
        }
    }
}

/// Worst first: failing rows, furthest over budget first (their change as a multiple of what the
/// budget allows), then by status (over budget, accepted, new, stale, vanished, ok, info), then
/// by the size of the change, largest first, then by name. Every report (the table, markdown,
/// JSON) shows the rows in this one order.
fn sort_worst_first(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        let magnitude = |row: &Row| row.change_pct().map_or(-1.0, f64::abs);
        let over = |row: &Row| if row.fails { overshoot(row) } else { 0.0 };
        b.fails
            .cmp(&a.fails)
            .then(over(b).total_cmp(&over(a)))
            .then(a.status.cmp(&b.status))
            .then(magnitude(b).total_cmp(&magnitude(a)))
            .then_with(|| a.benchmark.cmp(&b.benchmark))
            .then_with(|| a.metric.cmp(&b.metric))
    });
}

/// How far a row is over its budget: its change as a multiple of what the budget allows (`-1`
/// for a row without both counts and a budget, such as a new benchmark, so it comes after those
/// that have them).
fn overshoot(row: &Row) -> f64 {
    match (row.baseline, row.new, row.limit.as_ref()) {
        (Some(old), Some(new), Some(limit)) => {
            let allowance = config::budgets::allowance(limit, old);
            if allowance > 0.0 {
                (new as f64 - old as f64) / allowance
            } else {
                f64::INFINITY
            }
        }
        _ => -1.0,
    }
}

#[cfg(test)]
mod tests;
