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
