//! The report as GitHub markdown: the pull-request comment body and the step summary.
//!
//! Built to a [`Limit`] by construction: the verdict first, then sections in the order of
//! importance, each row in exactly one of them: the environment fields that differ; the failed
//! results, furthest over budget first; the results that moved most; the regressions accepted on
//! purpose, with their reasons; the other results to look at (stale, new, vanished); where the
//! instructions of each benchmark over budget went; the drift triage; every other result,
//! collapsed. Rows are added in that order while they fit, measured after escaping; from the
//! first that does not, everything after is left out, and one line says how many of each kind
//! and where the full report is. The environment fingerprint and how to accept a change close it.
//! A new kind of row is one more `Section` in `sections`.
//!
//! Everything that comes from a run (benchmark names, reasons, fingerprint values) is escaped by
//! [`crate::text::markdown`] so it cannot open HTML, markdown or mention anyone, nor reorder or
//! hide text: names and values go into code spans, prose is entity- and backslash-escaped with a
//! zero-width space after `@` and `#`.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::config::metrics::IR;
use crate::model::{
    Attribution, Budget, ChangedFunction, EnvDelta, FieldMismatch, Fingerprint, Mode, Outcome,
    Report, Row, Status, Touch,
};
use crate::select::text::CARRIED;
use crate::text::markdown::{code, prose, prose_spans};
use crate::text::{plural, short_commit, signed, signed_delta, signed_pct, thousands};

mod explained;
mod limit;

pub use explained::explanation;
pub use limit::{GITHUB_COMMENT_CHARS, GITHUB_STEP_SUMMARY_BYTES, Limit, MARGIN, Unit};

/// How many results that did not fail the "Moved most" section shows.
pub const MOVED_MOST_ROWS: usize = 10;

/// Renders `report` within `limit` (see the module's documentation for the layout).
pub fn render(report: &Report, limit: Limit) -> String {
    let mut out = verdict(report);
    for line in [
        crate::select::text::carried(report),
        crate::select::text::summary(report),
        crate::render::measured_nothing(report),
    ]
    .into_iter()
    .flatten()
    {
        let _ = write!(out, "{}\n\n", prose_spans(&line));
    }
    let tail = footer(report);
    let sections = sections(report, limit);
    let everything: Vec<(&str, usize)> = sections
        .iter()
        .map(|section| (section.kind, section.items.len() + section.more))
        .collect();
    let reserve = limit.len(&tail) + limit.len(&left_out(&everything, limit, &report.attribution));
    let mut room = limit.max.saturating_sub(limit.len(&out) + reserve);
    let mut omitted: Vec<(&str, usize)> = Vec::new();
    for section in &sections {
        let fitting = if omitted.is_empty() {
            section.fitting(room, limit)
        } else {
            None
        };
        let shown = fitting.unwrap_or(0);
        if fitting.is_some() && (shown > 0 || section.items.is_empty()) {
            let rendered = section.render(shown);
            room = room.saturating_sub(limit.len(&rendered));
            out.push_str(&rendered);
        }
        if shown < section.items.len() + section.more {
            omitted.push((section.kind, section.items.len() + section.more - shown));
        }
    }
    if !omitted.is_empty() {
        out.push_str(&left_out(&omitted, limit, &report.attribution));
    }
    if limit.len(&out) + limit.len(&tail) <= limit.max {
        out.push_str(&tail);
    }
    limit.cut(&mut out);
    out
}

/// One part of the report that lists items (table rows or collapsed blocks): `before`, as many
/// items as fit, `after`.
struct Section {
    /// What one item is, for the line on what was left out: "failed result".
    kind: &'static str,
    before: String,
    items: Vec<String>,
    /// Items past `items`, never rendered: more than could fit in any limit.
    more: usize,
    after: String,
}

impl Section {
    /// How many of the items fit in `room` with the section's frame (a prefix, so the order of
    /// importance holds); `None` when not even the frame does.
    fn fitting(&self, room: usize, limit: Limit) -> Option<usize> {
        let mut used = limit.len(&self.before) + limit.len(&self.after);
        if used > room {
            return None;
        }
        let mut shown = 0;
        for item in &self.items {
            used += limit.len(item);
            if used > room {
                break;
            }
            shown += 1;
        }
        Some(shown)
    }

    /// The section with its first `shown` items.
    fn render(&self, shown: usize) -> String {
        format!(
            "{}{}{}",
            self.before,
            self.items[..shown].concat(),
            self.after
        )
    }
}

/// The one line on what was left out to stay within `limit`, by kind, and where the full report is.
fn left_out(omitted: &[(&str, usize)], limit: Limit, attribution: &Attribution) -> String {
    let counts: Vec<String> = omitted.iter().map(|(kind, n)| plural(*n, kind)).collect();
    let run = match attribution.artifacts_url.as_deref() {
        Some(url) => format!("[the workflow run]({url})"),
        None => "the workflow run".to_owned(),
    };
    let mut out = format!(
        "*Left out to stay within {}: {}. The full report is the `irgate-report` artifact of \
         {run} (`irgate check --format json` writes it)",
        limit.describe(),
        counts.join(", ")
    );
    if let Some(url) = attribution.dashboard_url.as_deref() {
        let _ = write!(
            out,
            "; every benchmark's chart is on [the dashboard]({url})"
        );
    }
    if omitted.iter().any(|(kind, _)| *kind == EXPLANATION) {
        out.push_str("; `irgate explain BENCH` shows where one benchmark's instructions went");
    }
    out.push_str(".*\n\n");
    out
}

/// The kind of an explanation's section, named in the line on what was left out.
const EXPLANATION: &str = "explanation";

/// The fewest characters (or bytes) a table row takes: a limit of `max` holds at most
/// `max / SHORTEST_ROW` rows, so no more are rendered.
const SHORTEST_ROW: usize = 32;

/// The report's sections in the order of importance, with no more rows rendered than `limit`
/// could hold; every row is in exactly one.
fn sections(report: &Report, limit: Limit) -> Vec<Section> {
    let most = limit.max / SHORTEST_ROW + 1;
    let dashboard = report.attribution.dashboard_url.as_deref();
    // Indices into the rows not yet in a section, in the report's order (worst first).
    let mut left: Vec<usize> = (0..report.rows.len()).collect();
    let mut take = |keep: &dyn Fn(&Row) -> bool| -> Vec<&Row> {
        let (taken, rest): (Vec<usize>, Vec<usize>) =
            left.iter().partition(|&&i| keep(&report.rows[i]));
        left = rest;
        taken.into_iter().map(|i| &report.rows[i]).collect()
    };
    // The report's order: failing rows furthest over budget first (`judge`), as in the table.
    let failed = take(&|row| row.fails);
    let accepted = take(&|row| row.accepted.is_some() || row.status == Status::Accepted);
    let moved: Vec<&Row> = {
        let mut movers: Vec<&Row> = report
            .rows
            .iter()
            .filter(|row| !row.fails && row.accepted.is_none())
            .filter(|row| {
                !matches!(
                    row.status,
                    Status::Accepted | Status::Layout | Status::Unexplained
                )
            })
            .filter(|row| row.change_pct().is_some_and(|pct| pct != 0.0))
            .collect();
        movers.sort_by(|a, b| magnitude(b).total_cmp(&magnitude(a)));
        movers.truncate(MOVED_MOST_ROWS);
        movers
    };
    let _ = take(&|row| moved.iter().any(|m| std::ptr::eq(*m, row)));
    let unexplained = take(&|row| row.status == Status::Unexplained);
    let layout = take(&|row| row.status == Status::Layout);
    let attention = take(&|row| {
        matches!(
            row.status,
            Status::OverBudget
                | Status::Stale
                | Status::New
                | Status::Vanished
                | Status::Unexplained
                | Status::Nondeterministic
        )
    });
    let carried = take(&|row| report.is_carried(&row.benchmark));
    let rest = take(&|_| true);

    let lines = |rows: &[&Row]| -> Vec<String> {
        rows.iter()
            .take(most)
            .map(|row| {
                if report.is_carried(&row.benchmark) {
                    carried_line(row)
                } else {
                    let gated = crate::render::gated_line(report, row).map(|g| prose_spans(&g));
                    let why = match (why(report, row), gated) {
                        (Some(why), Some(gated)) => Some(format!("{why}; {gated}")),
                        (why, gated) => why.or(gated),
                    };
                    row_line(row, dashboard, why)
                }
            })
            .collect()
    };
    let table = |kind, before: String, rows: &[&Row]| Section {
        kind,
        before: format!("{before}{ROW_HEADER}"),
        items: lines(rows),
        more: rows.len().saturating_sub(most),
        after: "\n".into(),
    };
    let mut sections = Vec::new();
    sections.extend(mismatch_table(&report.env_mismatches));
    if !failed.is_empty() {
        sections.push(table(
            "failed result",
            format!(
                "### Failed: {}, furthest over budget first\n\n",
                plural(failed.len(), "result")
            ),
            &failed,
        ));
    }
    if !moved.is_empty() {
        sections.push(table(
            "most moved result",
            format!(
                "### Moved most\n\nThe results that did not fail with the largest changes (at \
                 most {MOVED_MOST_ROWS}), largest first.\n\n"
            ),
            &moved,
        ));
    }
    if !unexplained.is_empty() {
        sections.push(table(
            "result moved without a change",
            "### Moved without executing changed code, beyond the address budget\n\n\
             irgate found no change in the code these executed or the files they read, yet they \
             moved further than addresses can move them: a possible selection blind spot (please \
             report it: docs/selection.md), or the environment, or a nondeterministic build or \
             benchmark. The \
             gate cannot decide on them.\n\n"
                .into(),
            &unexplained,
        ));
    }
    sections.extend(accepted_table(&accepted));
    if !layout.is_empty() {
        sections.push(table(
            "result moved by addresses",
            "### Moved without executing changed code: within the address budget\n\n\
             These executed none of the changed code and moved within the address budget \
             (`[layout]`): they pass.\n\n"
                .into(),
            &layout,
        ));
    }
    if !attention.is_empty() {
        sections.push(table(
            "stale, new or vanished result",
            "### Other results to look at: stale, new or vanished\n\n".into(),
            &attention,
        ));
    }
    sections.extend(explanations(&report.attribution));
    sections.extend(triage_table(report));
    if !carried.is_empty() {
        sections.push(Section {
            kind: "result not run",
            before: format!(
                "<details><summary>Not run: {}, carried from the baselines</summary>\n\n\
                 These executed none of the code that changed since the baselines' code record \
                 and read no changed file (`irgate run --only-touched`): they were not run, and \
                 the count shown is the baselines'.\n\n{ROW_HEADER}",
                plural(carried.len(), "result")
            ),
            items: lines(&carried),
            more: carried.len().saturating_sub(most),
            after: "\n</details>\n\n".into(),
        });
    }
    if !rest.is_empty() {
        sections.push(Section {
            kind: "other result",
            before: format!(
                "<details><summary>The other {} (within budget or not gated)</summary>\n\n\
                 {ROW_HEADER}",
                plural(rest.len(), "result")
            ),
            items: lines(&rest),
            more: rest.len().saturating_sub(most),
            after: "\n</details>\n\n".into(),
        });
    }
    sections
}

/// Why a failing row (or one moved by layout) is or is not the change's, in markdown: the
/// changed functions it runs, each with its changed lines linked to the pull request's diff.
fn why(report: &Report, row: &Row) -> Option<String> {
    let text = crate::select::text::why(report, row)?;
    let map = report.change.as_ref()?;
    let Some(Touch::Runs { functions }) = &row.touch else {
        return Some(prose_spans(&text));
    };
    let diff = report.attribution.diff_url.as_deref();
    let mut named: Vec<String> = functions
        .iter()
        .filter_map(|i| map.functions.get(*i))
        .take(crate::select::text::NAMED)
        .map(|f| {
            let host = f
                .host()
                .map(|host| format!(", inlined into {}", code(host)))
                .unwrap_or_default();
            format!("{} ({}){host}", code(&f.label()), lines_link(f, diff))
        })
        .collect();
    if functions.len() > crate::select::text::NAMED {
        named.push(format!(
            "and {} more",
            functions.len() - crate::select::text::NAMED
        ));
    }
    Some(format!("executes changed code: {}", named.join(", ")))
}

/// `file:120-131`, linked to those lines of the pull request's diff when `diff` (its changed
/// files page) is known: GitHub anchors a file by the SHA-256 of its path, a line by `R<n>`.
fn lines_link(function: &ChangedFunction, diff: Option<&str>) -> String {
    let text = code(&function.location());
    let Some(diff) = diff.filter(|_| !function.file.is_empty()) else {
        return text;
    };
    let hash: String = Sha256::digest(function.file.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let lines = function.lines.first().map_or_else(String::new, |l| {
        if l.first == l.last {
            format!("R{}", l.first)
        } else {
            format!("R{}-R{}", l.first, l.last)
        }
    });
    format!("[{text}]({diff}#diff-{hash}{lines})")
}

/// The size of a row's relative change, `-1` when it has none.
fn magnitude(row: &Row) -> f64 {
    row.change_pct().map_or(-1.0, f64::abs)
}

/// A collapsed block per explained benchmark, and after them the note on benchmarks that could
/// not be explained.
fn explanations(attribution: &Attribution) -> Option<Section> {
    let note = attribution
        .explanation_note
        .as_ref()
        .map(|note| format!("*Where the instructions went:* {}\n\n", prose_spans(note)))
        .unwrap_or_default();
    let url = attribution.artifacts_url.as_deref();
    let items: Vec<String> = attribution
        .explanations
        .iter()
        .map(|e| explanation(e, url))
        .collect();
    (!items.is_empty() || !note.is_empty()).then(|| Section {
        kind: EXPLANATION,
        before: String::new(),
        items,
        more: 0,
        after: note,
    })
}

/// The heading and the sentence under it.
/// What the run was compared with, as a phrase: the mode that produced the verdict.
fn compared_with(mode: &Mode) -> String {
    match mode {
        Mode::Baselines => "`baselines/`".to_owned(),
        Mode::Ab { commit } => format!(
            "the base commit {} measured in the same job (A/B)",
            code(short_commit(commit))
        ),
        Mode::Remeasured { commit, .. } => format!(
            "the baselines' commit {} measured again here (drift triage)",
            code(short_commit(commit))
        ),
    }
}

/// Drift triage in one sentence and a table: per benchmark, what the environment moved (baseline
/// -> the baselines' commit measured here) and what the code moved (that -> this change, gated).
fn triage_table(report: &Report) -> Option<Section> {
    let Mode::Remeasured {
        commit,
        environment,
    } = &report.mode
    else {
        return None;
    };
    let ir_rows: Vec<&Row> = report.rows.iter().filter(|r| r.metric == IR).collect();
    let fields: Vec<String> = report
        .env_mismatches
        .iter()
        .map(|m| code(&m.field))
        .collect();
    let before = format!(
        "### What the environment moved, and what the code moved\n\nThe environment differs from \
         the baselines' ({}), so irgate measured their commit {} again here: the environment \
         moved {} (baseline → that commit here), the code moved {} (that commit here → this \
         change), and only the code's move is gated.\n\n",
        fields.join(", "),
        code(short_commit(commit)),
        super::moved(environment.iter().map(EnvDelta::change_pct)),
        super::moved(ir_rows.iter().filter_map(|r| r.change_pct())),
    );
    let items = ir_rows
        .iter()
        .map(|row| {
            let env = environment.iter().find(|e| e.benchmark == row.benchmark);
            let count = |n: Option<u64>| n.map_or("–".to_owned(), thousands);
            format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                code(&row.benchmark),
                count(env.map(|e| e.baseline)),
                count(row.baseline),
                env.map_or("–".to_owned(), |e| signed_pct(e.change_pct())),
                count(row.new),
                row.change_pct().map_or("–".to_owned(), signed_pct),
                verdict_cell(row)
            )
        })
        .collect();
    Some(Section {
        kind: "drift triage row",
        before: format!(
            "{before}| Benchmark | Baseline | Baselines' commit here | Environment | This change \
             | Code | Verdict |\n|:--|--:|--:|--:|--:|--:|:--|\n"
        ),
        items,
        more: 0,
        after: "\n".into(),
    })
}

fn verdict(report: &Report) -> String {
    let count = |status: Status, failing: bool| report.tally(status, failing);
    let mut out = String::new();
    match &report.outcome {
        Outcome::Passed => {
            let _ = writeln!(out, "## ✅ irgate: passed\n");
            let total = report.benchmark_count();
            let _ = match report.carried_count() {
                0 => write!(out, "No benchmark over budget ({total} checked)."),
                carried => write!(
                    out,
                    "No benchmark over budget ({} of {total} run).",
                    total - carried
                ),
            };
            if report.mode != Mode::Baselines {
                let _ = write!(out, " Compared with {}.", compared_with(&report.mode));
            }
            let stale = count(Status::Stale, false);
            if stale > 0 {
                let _ = write!(
                    out,
                    " {} faster than budget (baseline stale): refresh to lock in the gain.",
                    plural(stale, "benchmark")
                );
            }
            let accepted = count(Status::Accepted, false);
            if accepted > 0 {
                let _ = write!(
                    out,
                    " {} over budget on purpose, accepted by gate.toml (listed below with the \
                     reasons).",
                    plural(accepted, "benchmark")
                );
            }
            let new = count(Status::New, false);
            if new > 0 {
                let _ = write!(
                    out,
                    " {} without a baseline yet.",
                    plural(new, "new benchmark")
                );
            }
        }
        Outcome::Failed { count: failed } => {
            let over = count(Status::OverBudget, true);
            let parts: Vec<String> = [
                (over, "over budget"),
                (count(Status::New, true), "new without a baseline"),
                (count(Status::Stale, true), "stale baseline (`--strict`)"),
                (count(Status::Vanished, true), "vanished"),
            ]
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
            if over == *failed && parts.len() == 1 {
                let _ = writeln!(
                    out,
                    "## ❌ irgate: {} over budget\n",
                    plural(over, "benchmark")
                );
            } else {
                let _ = writeln!(
                    out,
                    "## ❌ irgate: {} failed\n",
                    plural(*failed, "benchmark")
                );
                if !parts.is_empty() {
                    let _ = write!(out, "{}. ", parts.join(", "));
                }
            }
            let _ = write!(
                out,
                "Instruction counts (callgrind) of {} compared with {}.",
                super::counted(report),
                compared_with(&report.mode)
            );
        }
        Outcome::Undecided { reason } => {
            let _ = writeln!(out, "## ⚠️ irgate could not decide\n");
            let _ = write!(
                out,
                "**Why:** {}\n\nThe gate fails closed (exit 2) until this is fixed.",
                prose_spans(reason)
            );
        }
        Outcome::NoVerdict { reason } => {
            let _ = writeln!(out, "## ℹ️ irgate: no verdict\n");
            let _ = write!(
                out,
                "**Why:** {}\n\nThe counts below are for information only.",
                prose_spans(reason)
            );
        }
    }
    out.push_str("\n\n");
    out
}

/// The fingerprint and how to accept a change.
fn footer(report: &Report) -> String {
    let mut out = String::new();
    // An undecided report made before any results were read has no environment to show.
    if report.fingerprint != Fingerprint::default() {
        out.push_str("<details><summary>Environment the counts were taken in</summary>\n\n");
        out.push_str("| Field | Value |\n|:--|:--|\n");
        for (field, value) in crate::model::fingerprint::fields(&report.fingerprint) {
            let _ = writeln!(out, "| {field} | {} |", code(&value));
        }
        out.push_str("\n</details>\n\n");
    }
    if !report.env_mismatches.is_empty() {
        out.push_str(
            "**Matching environment:** counts compare only within one environment: run the gate \
             where the baselines were taken (the pinned image in CI; `irgate doctor` shows the \
             fields that differ).\n\n",
        );
    }
    out.push_str(
        "**Accepting a change:** if the new counts are intended, run `irgate run && irgate \
         refresh` in the environment the baselines were taken in, review the diff under \
         `baselines/` and commit it to this pull request. A benchmark faster than its budget \
         shows as *stale*: refresh to lock in the gain.\n",
    );
    out
}

const ROW_HEADER: &str = "| Benchmark | Metric | Baseline | New | Change | Budget | Verdict |\n\
                          |:--|:--|--:|--:|--:|:--|:--|\n";

fn mismatch_table(mismatches: &[FieldMismatch]) -> Option<Section> {
    if mismatches.is_empty() {
        return None;
    }
    let items = mismatches
        .iter()
        .map(|m| {
            format!(
                "| {} | {} | {} |\n",
                code(&m.field),
                code(&m.baseline),
                code(&m.current)
            )
        })
        .collect();
    Some(Section {
        kind: "differing environment field",
        before: "### Environment differs from the baselines'\n\n\
                 | Field | Baseline | This run |\n|:--|:--|:--|\n"
            .into(),
        items,
        more: 0,
        after: "\n".into(),
    })
}

/// The regressions let pass on purpose: the row, the entry, until when, the reason.
fn accepted_table(rows: &[&Row]) -> Option<Section> {
    if rows.is_empty() {
        return None;
    }
    let items = rows
        .iter()
        .map(|row| {
            let (origin, until, reason) = match &row.accepted {
                Some(a) => (code(&a.origin), code(&a.until), prose(&a.reason)),
                None => ("–".to_owned(), "–".to_owned(), String::new()),
            };
            format!(
                "| {} | {} | {} | {} | {} | {origin} | {until} | {reason} |\n",
                code(&row.benchmark),
                code(&row.metric),
                change_cell(row),
                budget_cell(row),
                verdict_cell(row),
            )
        })
        .collect();
    Some(Section {
        kind: "accepted regression",
        before: "### Accepted on purpose\n\n\
                 | Benchmark | Metric | Change | Budget | Verdict | Entry | Until | Reason |\n\
                 |:--|:--|--:|:--|:--|:--|:--|:--|\n"
            .into(),
        items,
        more: 0,
        after: "\n".into(),
    })
}

/// A table row; a failing benchmark links to its chart on the `dashboard`, when published, and
/// its verdict says `why` (the changed code it runs), when the report maps the change.
fn row_line(row: &Row, dashboard: Option<&str>, why: Option<String>) -> String {
    let count = |n: Option<u64>| n.map_or_else(|| "–".to_owned(), thousands);
    let benchmark = match dashboard {
        Some(url) if row.fails => format!(
            "[{}]({url}/{}#{})",
            code(&row.benchmark),
            crate::render::dashboard::page_of(&row.benchmark),
            crate::render::dashboard::anchor(&row.benchmark)
        ),
        _ => code(&row.benchmark),
    };
    let mut verdict = match &row.since {
        Some(since) => format!("{} since {}", verdict_cell(row), code(since)),
        None => verdict_cell(row).to_owned(),
    };
    if let Some(why) = why {
        let _ = write!(verdict, ": {why}");
    }
    format!(
        "| {benchmark} | {} | {} | {} | {} | {} | {verdict} |\n",
        code(&row.metric),
        count(row.baseline),
        count(row.new),
        change_cell(row),
        budget_cell(row),
    )
}

/// The row of a benchmark that did not run: its baseline count, no new one, no change.
fn carried_line(row: &Row) -> String {
    format!(
        "| {} | {} | {} | not run | – | {} | ⏭️ {CARRIED} |\n",
        code(&row.benchmark),
        code(&row.metric),
        row.baseline
            .map_or_else(|| "–".to_owned(), |n| format!("{} (carried)", thousands(n))),
        budget_cell(row),
    )
}

/// A row's change: "+2.00% (+3,890)", "±0" or "–".
fn change_cell(row: &Row) -> String {
    match (row.baseline, row.new, row.change_pct()) {
        (Some(old), Some(new), _) if old == new => "±0".to_owned(),
        (Some(old), Some(new), Some(pct)) => {
            format!("{} ({})", signed_pct(pct), signed(signed_delta(new, old)))
        }
        (Some(old), Some(new), None) => signed(signed_delta(new, old)),
        _ => "–".to_owned(),
    }
}

/// A row's budget, "–" without one.
fn budget_cell(row: &Row) -> String {
    row.limit
        .as_ref()
        .map_or_else(|| "–".to_owned(), Budget::to_string)
}

fn verdict_cell(row: &Row) -> String {
    let icon = match (row.status, row.fails) {
        (_, true) => "❌",
        (Status::New, false) => "🆕",
        (Status::Stale, false) => "⬇️",
        (Status::Layout, false) => "〰️",
        (Status::Unexplained, false) | (Status::Nondeterministic, false) => "❔",
        (Status::Accepted, false) => "☑️",
        (Status::Vanished, false) => "➖",
        (Status::Ok | Status::OverBudget, false) => "✅",
        (Status::Info, false) => "ℹ️",
    };
    format!("{icon} {}", row.status.label())
}
