//! The change-aware part of every report, as plain text (each renderer escapes it for its
//! target): why a failing benchmark is the change's, and what the change map covered.

use crate::model::{ChangeMap, ChangedFunction, Report, Row, Status, Touch};
use crate::text::{plural, short_commit};

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
        .map(|f| format!("`{}` ({})", f.label(), f.location()))
        .collect();
    if functions.len() > NAMED {
        parts.push(format!("and {} more", functions.len() - NAMED));
    }
    parts.join(", ")
}

/// The line every report carries when benchmarks did not run: how many, and why.
pub fn carried(report: &Report) -> Option<String> {
    if report.carried.is_empty() {
        return None;
    }
    Some(format!(
        "Not run: {} {} none of the changed code (irgate run --only-touched); their counts are \
         the baselines'.",
        plural(report.carried.len(), "benchmark"),
        if report.carried.len() == 1 {
            "runs"
        } else {
            "run"
        }
    ))
}

/// One line on what the change map covered: the compared commits, how many benchmarks run the
/// changed code, how many moved without executing it; or why the change was not mapped. `None`
/// when no benchmark moved (nothing for the map to explain) or the report maps no change.
pub fn summary(report: &Report) -> Option<String> {
    let map = report.change.as_ref()?;
    let moved = report
        .rows
        .iter()
        .any(|r| !matches!(r.status, Status::Ok | Status::Info) || r.baseline != r.new);
    if !moved {
        return None;
    }
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
    if let Some(reason) = &map.unmapped {
        return Some(format!(
            "Change map ({span}): not mapped, so every benchmark is held to its budget: {reason}"
        ));
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
