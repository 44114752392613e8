//! What `irgate refresh` says: the baseline files it writes, benchmark by benchmark.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::config::metrics::IR;
use crate::formats::baseline::{Baselines, Change, GroupUpdate};
use crate::git::Commit;
use crate::text::{signed_pct, thousands};

/// What baselines of results taken on a working tree with uncommitted changes lack.
pub fn dirty_warning(commit: &Commit) -> String {
    format!(
        "the results were taken with uncommitted changes: the baselines record commit \
         `{commit}`, code that is in no commit, so `irgate check --on-env-mismatch=remeasure` \
         cannot measure it again and `irgate history add` refuses the run; commit first, then \
         `irgate run && irgate refresh`, for baselines of a commit"
    )
}

/// What the refresh does, file by file, then a summary line.
pub fn describe(
    updates: &[GroupUpdate],
    baselines: &Baselines,
    results: &std::collections::BTreeMap<String, crate::model::Counts>,
) -> String {
    let mut out = String::new();
    let (mut added, mut changed, mut removed, mut unchanged) = (0, 0, 0, 0);
    for update in updates {
        let verb = match (&update.group, update.write) {
            (None, _) => "removed",
            (Some(_), true) => "written",
            (Some(_), false) => "unchanged, not rewritten",
        };
        let count = |is_added: bool, is_removed: bool| {
            update
                .changes
                .iter()
                .filter(|c| c.old.is_none() == is_added && c.new.is_none() == is_removed)
                .count()
        };
        let (file_added, file_changed, file_removed) =
            (count(true, false), count(false, false), count(false, true));
        let _ = writeln!(
            out,
            "{}: {file_added} added, {file_changed} changed, {file_removed} removed, {} unchanged \
             ({verb})",
            update.path.display(),
            update.unchanged
        );
        (added, changed, removed) = (
            added + file_added,
            changed + file_changed,
            removed + file_removed,
        );
        unchanged += update.unchanged;
        let width = update.changes.iter().map(|c| c.id.len()).max().unwrap_or(0);
        for change in &update.changes {
            let _ = writeln!(out, "  {:<width$}  {}", change.id, describe_change(change));
        }
    }
    let kept = baselines
        .ids()
        .filter(|id| !results.contains_key(*id))
        .count()
        - removed;
    let _ = writeln!(
        out,
        "irgate: {added} added, {changed} changed, {removed} removed, {unchanged} unchanged; \
         {kept} baselines of benchmarks that did not run are kept"
    );
    out
}

/// One benchmark's change of baseline, in one phrase.
fn describe_change(change: &Change) -> String {
    let ir = |counts: &crate::model::Counts| counts.get(IR).copied();
    match (&change.old, &change.new) {
        (None, Some(new)) => format!("added: Ir {}", ir(new).map_or("-".into(), thousands)),
        (Some(_), None) => "removed: did not run".to_owned(),
        (Some(old), Some(new)) => {
            let mut text = match (ir(old), ir(new)) {
                (Some(a), Some(b)) if a != b => {
                    let pct = (b as f64 - a as f64) * 100.0 / a.max(1) as f64;
                    format!(
                        "Ir {} -> {} ({})",
                        thousands(a),
                        thousands(b),
                        signed_pct(pct)
                    )
                }
                (_, Some(b)) => format!("Ir {} unchanged", thousands(b)),
                _ => String::new(),
            };
            let others: BTreeSet<&str> = old
                .keys()
                .chain(new.keys())
                .filter(|m| *m != IR && old.get(*m) != new.get(*m))
                .map(String::as_str)
                .collect();
            if !others.is_empty() {
                let others: Vec<&str> = others.into_iter().collect();
                let _ = write!(text, "; also changed: {}", others.join(", "));
            }
            text
        }
        (None, None) => String::new(),
    }
}
