//! The change-aware part of every report, as plain text (each renderer escapes it for its
//! target): why a failing benchmark is the change's, and what the change map covered.

use std::collections::BTreeMap;

use crate::model::code::CodeRecord;
use crate::model::{ChangeMap, ChangedFunction, Report, Row, Status, Touch};
use crate::text::{plural, short_commit};

/// The verdict of a benchmark that did not run (`irgate run --only-touched`), in every report.
pub const CARRIED: &str = "carried, not run";

/// How many changed functions a row names before "and N more".
pub const NAMED: usize = 3;

/// Why `row` (failing, or moved without executing changed code) is or is not the change's, in one
/// sentence; `None` when the report does not map the change or the row needs no reason.
pub fn why(report: &Report, row: &Row) -> Option<String> {
    let map = report.change.as_ref()?;
    let touch = row.touch.as_ref()?;
    if !row.fails && row.status != Status::Layout {
        return None;
    }
    Some(match touch {
        Touch::Untouched if row.status == Status::Layout => {
            "executed none of the changed code: moved within the address budget".to_owned()
        }
        Touch::Untouched => "executed none of the changed code, yet moved beyond the address \
                             budget: a possible selection blind spot (or the environment, or \
                             nondeterminism)"
            .to_owned(),
        touched => selected_because(map, touched),
    })
}

/// Why a touched benchmark counts as touched (or that it is not), in one phrase: the changed
/// functions it executed, the changed files it may read, or why it has no record.
pub fn selected_because(map: &ChangeMap, touch: &Touch) -> String {
    match touch {
        Touch::Runs { functions } => {
            let named: Vec<&ChangedFunction> = functions
                .iter()
                .filter_map(|i| map.functions.get(*i))
                .collect();
            format!("executes changed code: {}", functions_text(&named))
        }
        Touch::Reads { reason } => format!("counted as touched: {reason}"),
        Touch::Unrecorded { reason } => format!("counted as touched: {reason}"),
        Touch::Untouched => "executes none of the changed code".to_owned(),
    }
}

/// `name (file:lines)`, the first few, then how many more.
pub fn functions_text(functions: &[&ChangedFunction]) -> String {
    let mut parts: Vec<String> = functions
        .iter()
        .take(NAMED)
        .map(|f| {
            let host = f
                .host()
                .map(|host| format!(", inlined into `{host}`"))
                .unwrap_or_default();
            format!("`{}` ({}){host}", f.label(), f.location())
        })
        .collect();
    if functions.len() > NAMED {
        parts.push(format!("and {} more", functions.len() - NAMED));
    }
    parts.join(", ")
}

/// The line every report carries when benchmarks did not run (`irgate run --only-touched`): how
/// many ran of how many, and why the others did not, with the code record's commit when the
/// report maps the change from it.
pub fn carried(report: &Report) -> Option<String> {
    let carried = report.carried_count();
    if carried == 0 {
        return None;
    }
    let total = report.benchmark_count();
    let record = match &report.change {
        Some(map) if map.unmapped.is_none() && !map.base.is_empty() => {
            format!("{}, the baselines' code record", short_commit(&map.base))
        }
        _ => "the baselines' code record".to_owned(),
    };
    Some(format!(
        "Ran {} of {} (`--only-touched`): the other {carried} executed no code changed since \
         {record}, and read no changed file: not run, their baseline counts carried.",
        total - carried,
        plural(total, "benchmark"),
    ))
}

/// One line on what the change map covered: the compared commits, how many benchmarks run the
/// changed code, how many moved without executing it; or why the change was not mapped (always
/// said: it is why every benchmark ran). `None` when the change was mapped and no benchmark moved
/// (nothing for the map to explain), or the report maps no change. Followed by what the change
/// did to gate.toml when it was judged by the base's.
pub fn summary(report: &Report) -> Option<String> {
    let map = report.change.as_ref()?;
    let config = map
        .config_changed
        .as_ref()
        .map(|changed| format!("{changed}."));
    let said: Vec<String> = [mapped(report, map), config]
        .into_iter()
        .flatten()
        .collect();
    (!said.is_empty()).then(|| said.join(" "))
}

/// [`summary`]'s line on the change map `map` of `report`.
fn mapped(report: &Report, map: &ChangeMap) -> Option<String> {
    let head = if map.head.is_empty() {
        "the working tree".to_owned()
    } else {
        short_commit(&map.head).to_owned()
    };
    let span = if map.base.is_empty() {
        format!("to {head}")
    } else {
        format!("{} to {head}", short_commit(&map.base))
    };
    // Said whether or not anything moved: it is why a selected run ran every benchmark.
    if let Some(reason) = &map.unmapped {
        let held = if report.carried.is_empty() {
            "every benchmark ran and is held to its budget"
        } else {
            "every benchmark that ran is held to its budget"
        };
        return Some(format!(
            "Change map ({span}): not mapped, so {held}: {reason}"
        ));
    }
    let moved = report
        .rows
        .iter()
        .any(|r| !matches!(r.status, Status::Ok | Status::Info) || r.baseline != r.new);
    if !moved {
        return None;
    }
    let touched = report.touched_count();
    Some(format!(
        "Change map ({span}): {}; {} the changed code; {} moved without executing it.",
        scope(map),
        if touched == 1 {
            "1 benchmark executes".to_owned()
        } else {
            format!("{touched} benchmarks execute")
        },
        plural(report.tally(Status::Layout, false), "benchmark")
    ))
}

fn scope(map: &ChangeMap) -> String {
    let functions = plural(map.functions.len(), "changed function");
    match map.files.len() {
        0 => functions,
        n => format!(
            "{functions}, {} that benchmarks reading files at run time may read",
            plural(n, "changed file")
        ),
    }
}

/// Why the benchmarks of `unrecorded` (id to reason) have no code record: one clause per reason,
/// with the benchmarks it holds for (the first few, then how many more).
pub fn unrecorded(unrecorded: &BTreeMap<String, String>) -> String {
    let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, reason) in unrecorded {
        by_reason.entry(reason).or_default().push(id);
    }
    let clauses: Vec<String> = by_reason
        .into_iter()
        .map(|(reason, ids)| {
            let mut named: Vec<String> =
                ids.iter().take(NAMED).map(|id| format!("`{id}`")).collect();
            if ids.len() > NAMED {
                named.push(format!("{} more", ids.len() - NAMED));
            }
            format!("{} ({})", reason, named.join(", "))
        })
        .collect();
    clauses.join("; ")
}

/// Why a code record (`whose`: "the baselines'") that holds no benchmark cannot serve: what kept
/// each benchmark out of it, or that the run that took it recorded none.
pub fn empty_record(whose: &str, record: &CodeRecord) -> String {
    if record.unrecorded.is_empty() {
        format!(
            "{whose} code record holds no benchmark: take one with `irgate run --record`, then \
             `irgate refresh`"
        )
    } else {
        format!(
            "{whose} code record holds no benchmark, and taking it again gives the same: {}",
            unrecorded(&record.unrecorded)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_record_says_what_kept_its_benchmarks_out_not_to_take_it_again() {
        let mut record = CodeRecord::default();
        assert!(
            empty_record("the baselines'", &record)
                .ends_with("take one with `irgate run --record`, then `irgate refresh`")
        );
        let why = "suite `s/b`: iai-callgrind 0.12.3's runner writes every part of a run into one \
                   callgrind file";
        for id in ["g::a/1", "g::b/1", "g::c/1", "g::d/1"] {
            record.unrecorded.insert(id.into(), why.into());
        }
        record
            .unrecorded
            .insert("g::zero/1".into(), "it measured 0 Ir".into());
        let text = empty_record("the baselines'", &record);
        assert_eq!(
            text,
            format!(
                "the baselines' code record holds no benchmark, and taking it again gives the \
                 same: it measured 0 Ir (`g::zero/1`); {why} (`g::a/1`, `g::b/1`, `g::c/1`, 1 \
                 more)"
            )
        );
        assert!(!text.contains("--record"), "{text}");
    }
}
