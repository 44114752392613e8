//! The drift budget (`[drift]` in gate.toml): how much a benchmark may grow in all since an
//! anchor, a tag or commit whose counts the history recorded. Ten changes each within +1% add up
//! to +10%; this catches that sum. A benchmark over it gets a row that fails the check and says
//! since when.

use std::path::Path;

use crate::config::drift::Drift;
use crate::error::{Error, Result};
use crate::formats::history::{self as store, Run};
use crate::model::{Results, Row, Status};

/// The anchor's recorded run, and how rows name it.
#[derive(Debug, Clone)]
pub struct Anchor {
    /// `v0.3.0 (0123456789, 2026-11-11)`.
    pub label: String,
    /// The run of the anchor's commit (the earliest, if it was recorded more than once).
    pub run: Run,
}

/// Finds the run of `since` in the history in `history`: `since` is resolved to a commit by git
/// in `root` (a tag, a branch, a commit), else taken as a commit hash or a prefix of one.
pub fn find_anchor(since: &str, root: &Path, history: &Path) -> Result<Anchor> {
    let commit = resolve(since, root);
    let runs = store::load(history)?;
    let origin = format!("[drift] since = {}", crate::id::escaped(since));
    let Some(commit) = commit else {
        return Err(Error::invalid(
            origin,
            format!(
                "not a tag or commit of the repository in {}, nor a commit hash",
                root.display()
            ),
        ));
    };
    let run = runs
        .into_iter()
        .find(|run| run.commit.starts_with(&commit))
        .ok_or_else(|| {
            Error::invalid(
                &origin,
                format!(
                    "commit {commit} has no run in the history {}: record it with `irgate \
                     history add`, or name an anchor the history holds (runs.html lists them)",
                    history.display()
                ),
            )
        })?;
    let label = if run.commit.starts_with(since) {
        format!("{} ({})", run.short_commit(), run.date.format("%Y-%m-%d"))
    } else {
        format!(
            "{since} ({}, {})",
            run.short_commit(),
            run.date.format("%Y-%m-%d")
        )
    };
    Ok(Anchor { label, run })
}

/// The commit `since` names: git's answer in `root`, else `since` itself when it is 7 to 64
/// lowercase hex digits.
fn resolve(since: &str, root: &Path) -> Option<String> {
    if let Some(commit) = crate::git::resolve(root, since) {
        return Some(commit);
    }
    let hex = since
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex && (7..=64).contains(&since.len())).then(|| since.to_owned())
}

/// A failing row for each benchmark and metric of `results` that grew by more than its `drift`
/// budget since `anchor`. The anchor's counts must come from the same environment as the results.
pub fn rows(results: &Results, drift: &Drift, anchor: &Anchor) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let anchored = &anchor.run.results;
    let mismatches =
        crate::model::fingerprint::mismatches(&anchored.fingerprint, &results.fingerprint);
    if let Some(m) = mismatches.first() {
        return Err(Error::invalid(
            format!("[drift] since {}", anchor.label),
            format!(
                "the anchor's counts were taken in another environment ({}: `{}` there, `{}` \
                 here), so growth since then cannot be measured: move the anchor to a run taken \
                 in this environment",
                m.field, m.baseline, m.current
            ),
        ));
    }
    for (id, counts) in &results.benchmarks {
        let Some(old) = anchored.benchmarks.get(id) else {
            continue;
        };
        for (metric, limit) in &drift.budgets {
            let (Some(&baseline), Some(&new)) = (old.get(metric), counts.get(metric)) else {
                continue;
            };
            // A binary benchmark's program count against an anchor's whole process's (taken
            // before the split), or the other way: the whole process's on both sides.
            let (baseline, new) = if anchored.process.is_program(id, metric)
                == results.process.is_program(id, metric)
            {
                (baseline, new)
            } else {
                let whole = |side: &Results, count| {
                    side.process
                        .whole_count(id, metric, Some(count))
                        .unwrap_or(count)
                };
                (whole(anchored, baseline), whole(results, new))
            };
            if new as f64 - baseline as f64 > crate::config::budgets::allowance(limit, baseline) {
                rows.push(Row {
                    benchmark: id.clone(),
                    metric: metric.clone(),
                    baseline: Some(baseline),
                    new: Some(new),
                    limit: Some(*limit),
                    status: Status::OverBudget,
                    fails: true,
                    since: Some(anchor.label.clone()),
                    accepted: None,
                    touch: None,
                });
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Budget, Counts};

    /// Results holding `cli::tool/run` at `ir`, whose whole process counted `whole` when given
    /// (a run after the split), else `ir` is the whole process's (before it).
    fn results(ir: u64, whole: Option<u64>) -> Results {
        let mut results = Results::default();
        results.fingerprint.date = "2026-11-20T10:00:00Z".into();
        results.fingerprint.commit = "a".repeat(40);
        let id = "cli::tool/run".to_owned();
        results
            .benchmarks
            .insert(id.clone(), Counts::from([("Ir".to_owned(), ir)]));
        if let Some(whole) = whole {
            results
                .process
                .whole
                .insert(id, Counts::from([("Ir".to_owned(), whole)]));
        }
        results
    }

    #[test]
    fn a_binary_benchmark_drifts_by_its_whole_process_against_an_anchor_before_the_split() {
        let drift = Drift {
            since: "v1".to_owned(),
            budgets: [(
                "Ir".to_owned(),
                Budget {
                    relative_pct: 0.0,
                    absolute: 10,
                },
            )]
            .into(),
        };
        let anchor = |results| Anchor {
            label: "v1".to_owned(),
            run: Run::from_results(results, None, false, "r").unwrap(),
        };
        // The anchor counted the whole process (307,417); the program now counts 4,085 of a
        // whole 307,500: +83 since then, over the budget of 10, not -303,332.
        let before = anchor(results(307_417, None));
        let grown = rows(&results(4_085, Some(307_500)), &drift, &before).unwrap();
        assert_eq!(
            grown
                .iter()
                .map(|r| (r.baseline, r.new))
                .collect::<Vec<_>>(),
            [(Some(307_417), Some(307_500))]
        );
        // Both split: the program's counts.
        let after = anchor(results(4_085, Some(307_417)));
        let grown = rows(&results(4_100, Some(305_000)), &drift, &after).unwrap();
        assert_eq!(
            grown
                .iter()
                .map(|r| (r.baseline, r.new))
                .collect::<Vec<_>>(),
            [(Some(4_085), Some(4_100))]
        );
    }
}
