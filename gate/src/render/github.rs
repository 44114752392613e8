//! What irgate says to GitHub: the markdown body with the load section within a size, and the
//! workflow commands (annotations) for the log, every value escaped.

use crate::formats::load::LoadComparison;
use crate::model::{Outcome, Report, Row};
use crate::render::markdown::{self, Limit};
use crate::text::{signed_pct, terminal};

/// The markdown report and the load section (if any) under its own heading, apart from the
/// gated counts, within `limit`. The section gets the room the report leaves, and at least a
/// quarter of the limit: what does not fit in it is left out with a line saying so. (The section
/// is measured in bytes, never fewer than characters, so it keeps either kind of limit.)
pub fn with_load(report: &Report, load: Option<&LoadComparison>, limit: Limit) -> String {
    let Some(load) = load else {
        return markdown::render(report, limit);
    };
    let natural = limit.len(&markdown::render(report, limit));
    let room = limit.max.saturating_sub(natural + 1).max(limit.max / 4);
    let mut section = crate::render::load::markdown(load, room);
    if section.is_empty() && LOAD_LEFT_OUT.len() <= room {
        section = LOAD_LEFT_OUT.to_owned();
    }
    let report = markdown::render(report, limit.less(section.len() + 1));
    format!("{report}\n{section}")
}

/// Said in place of a load comparison whose heading alone does not fit.
const LOAD_LEFT_OUT: &str = "*The load comparison is left out: not even its heading fits within \
                             GitHub's size limit.*\n";

/// The most `::error` annotations printed; GitHub shows 10 per step.
const MAX_ANNOTATIONS: usize = 10;

/// GitHub Actions workflow commands for the report: an `::error` per failing row (at most
/// `MAX_ANNOTATIONS`, then one saying how many more), one for an undecided gate, a `::warning`
/// for a report without a verdict.
pub fn annotations(report: &Report) -> Vec<String> {
    match &report.outcome {
        Outcome::Undecided { reason } => {
            return vec![format!(
                "::error title={}::{}",
                escape_property("irgate could not decide"),
                escape_data(reason)
            )];
        }
        Outcome::NoVerdict { reason } => {
            return vec![format!(
                "::warning title={}::{}",
                escape_property("irgate: no verdict"),
                escape_data(reason)
            )];
        }
        Outcome::Passed | Outcome::Failed { .. } => {}
    }
    let failing: Vec<&Row> = report.rows.iter().filter(|r| r.fails).collect();
    let mut lines: Vec<String> = failing
        .iter()
        .take(MAX_ANNOTATIONS)
        .map(|row| {
            let title = format!("{} {}", row.benchmark, row.status.label());
            format!(
                "::error title={}::{}",
                escape_property(&title),
                escape_data(&describe(row))
            )
        })
        .collect();
    if failing.len() > MAX_ANNOTATIONS {
        let more = failing.len() - MAX_ANNOTATIONS;
        lines.push(format!(
            "::error title=irgate::{more} more failing benchmarks: see the step summary"
        ));
    }
    lines
}

/// One line about a row: `frame::encode/512 Ir: 194516 -> 198406 (+2.00%), budget max(1%, 50)`.
fn describe(row: &Row) -> String {
    let count = |n: Option<u64>| n.map_or_else(|| "none".to_owned(), |n| n.to_string());
    let mut text = format!(
        "{} {}: {} -> {}",
        row.benchmark,
        row.metric,
        count(row.baseline),
        count(row.new)
    );
    if let Some(pct) = row.change_pct() {
        text.push_str(&format!(" ({})", signed_pct(pct)));
    }
    if let Some(limit) = row.limit {
        text.push_str(&format!(", budget {}", limit));
    }
    if let Some(since) = &row.since {
        text.push_str(&format!(", in all since {since}"));
    }
    text
}

/// Escapes a workflow command's message: `%`, CR and LF as the runner reads them back, so the
/// message stays one line and no text in it can start a command of its own; any other control
/// character, or one that reorders or hides text, as [`crate::text::terminal`] does, since the
/// line is printed to the log as it is.
pub fn escape_data(text: &str) -> String {
    let text = text
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    terminal(&text).into_owned()
}

/// Escapes a workflow command's property value: as data, plus `:` and `,`, so `::` or a comma in
/// a benchmark name cannot end the properties early.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
