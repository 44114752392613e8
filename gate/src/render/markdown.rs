//! The report as GitHub markdown: the pull-request comment body and the step summary.
//!
//! Layout: the verdict first; the environment differences, if any; a table of the benchmarks that
//! need attention (over budget, accepted, stale, new, vanished); the regressions accepted on
//! purpose with their reasons; where the instructions of each benchmark
//! over budget went, collapsed ("Where the +3,890 Ir of ... went"); every row in a collapsed `<details>`; the
//! environment fingerprint; how to accept a change. Under a length cap the tables lose rows (the
//! full table first), never the verdict.
//!
//! Everything that comes from a run (benchmark names, reasons, fingerprint values) is escaped so it
//! cannot open HTML, markdown or mention anyone: names and values go into code spans, prose is
//! entity- and backslash-escaped with a zero-width space after `@` and `#`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use irgate_callgrind::Kind;

use crate::model::{
    Budget, EnvDelta, Explained, FieldMismatch, Fingerprint, Mode, Outcome, Report, Row, Status,
};
use crate::text::{
    is_deceptive, plural, short_commit, signed, signed_delta, signed_pct, thousands,
};

/// GitHub's limit on a job step summary (`$GITHUB_STEP_SUMMARY`): 1 MiB.
pub const STEP_SUMMARY_MAX: usize = 1024 * 1024;

/// The longest a benchmark name, metric or fingerprint value is shown.
const MAX_VALUE_CHARS: usize = 200;

/// The longest a free-text reason is shown.
const MAX_PROSE_CHARS: usize = 2_000;

/// Renders `report` in at most `max_len` bytes (bytes are never fewer than characters, so a
/// byte cap keeps GitHub's character limits).
pub fn render(report: &Report, max_len: usize) -> String {
    let head = verdict(report);
    let dashboard = report.attribution.dashboard_url.as_deref();
    let tail = footer(report);
    let tables = [
        mismatch_table(&report.env_mismatches),
        triage_table(report),
        attention_table(&report.rows, dashboard),
        accepted_table(&report.rows),
    ];

    let mut out = head;
    let mut room = max_len.saturating_sub(out.len() + tail.len());
    for table in tables.iter().flatten() {
        let rendered = table.render_within(room);
        room -= rendered.len();
        out.push_str(&rendered);
    }
    let explained = explanations(report, room);
    room -= explained.len();
    out.push_str(&explained);
    if let Some(table) = full_table(&report.rows, dashboard) {
        out.push_str(&table.render_within(room));
    }
    if out.len() + tail.len() <= max_len {
        out.push_str(&tail);
    }
    truncate_at_char(&mut out, max_len);
    out
}

/// A collapsed section per explained benchmark, as many as fit in `room` (then a line saying how
/// many did not), and the note on benchmarks that could not be explained.
fn explanations(report: &Report, room: usize) -> String {
    let attribution = &report.attribution;
    let mut out = String::new();
    let note = attribution
        .explanation_note
        .as_ref()
        .map(|note| format!("*Where the instructions went:* {}\n\n", prose(note)))
        .unwrap_or_default();
    let url = attribution.artifacts_url.as_deref();
    let sections: Vec<String> = attribution
        .explanations
        .iter()
        .map(|e| explanation(e, url))
        .collect();
    let omitted = |n: usize| {
        format!(
            "*{} of where the instructions went not shown, to stay within GitHub's size limit; \
             `irgate explain BENCH` shows one.*\n\n",
            plural(n, "more explanation")
        )
    };
    let reserve = note.len() + omitted(sections.len()).len();
    let mut shown = 0;
    for section in &sections {
        if out.len() + section.len() + reserve > room {
            break;
        }
        out.push_str(section);
        shown += 1;
    }
    if shown < sections.len() {
        out.push_str(&omitted(sections.len() - shown));
    }
    if out.len() + note.len() <= room {
        out.push_str(&note);
    }
    out
}

/// One benchmark's explanation as a collapsed section: "Where the +3,890 Ir went".
pub fn explanation(explained: &Explained, artifacts_url: Option<&str>) -> String {
    let e = &explained.explanation;
    let mut out = String::new();
    let _ = write!(
        out,
        "<details><summary>Where the {} Ir of {} went</summary>\n\n",
        signed(e.delta()),
        html_code(&explained.benchmark)
    );
    out.push_str(
        "| Function | Baseline | New | Change | Inclusive change | File |\n\
         |:--|--:|--:|--:|--:|:--|\n",
    );
    for m in &e.movers {
        let note = crate::render::explanation::kind_note(&m.kind);
        let function = crate::text::elide_generics(&m.function);
        let mut name = if note.is_empty() {
            code(&function)
        } else {
            format!(
                "{} ({})",
                code(&function),
                prose(&crate::text::elide_generics(&note))
            )
        };
        if m.outside_main {
            let _ = write!(name, " ({})", crate::render::explanation::OUTSIDE_MAIN);
        }
        let count = |n: u64, present: bool| {
            if present {
                thousands(n)
            } else {
                "–".to_owned()
            }
        };
        let mut file = if m.file.is_empty() {
            String::new()
        } else {
            code(&m.file)
        };
        if let Some((from, delta)) = m.inlined_from.first() {
            let _ = write!(
                file,
                ", {} of it inlined from {}",
                signed(*delta),
                code(from)
            );
        }
        if let Kind::Added { called_from } = &m.kind {
            for caller in called_from.iter().take(3) {
                let _ = write!(file, ", called from {}", code(caller));
            }
        }
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {file} |",
            count(m.base_self, !matches!(m.kind, Kind::Added { .. })),
            count(m.new_self, !matches!(m.kind, Kind::Removed)),
            signed(m.delta()),
            signed(m.inclusive_delta()),
        );
    }
    let rest = e.rest;
    let _ = (rest.functions > 0 || rest.base > 0 || rest.new > 0).then(|| {
        writeln!(
            out,
            "| everything else ({}) | {} | {} | {} | | |",
            plural(e.rest.functions, "function"),
            thousands(e.rest.base),
            thousands(e.rest.new),
            signed(signed_delta(e.rest.new, e.rest.base)),
        )
    });
    if let Some(u) = e.unattributed {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | | |",
            crate::render::explanation::UNATTRIBUTED,
            thousands(u.base),
            thousands(u.new),
            signed(signed_delta(u.new, u.base)),
        );
    }
    out.push('\n');
    for i in &e.inclusive {
        let _ = writeln!(
            out,
            "**Inclusive:** {} {} → {} ({}, of which its own code {})\n",
            code(&crate::text::elide_generics(&i.function)),
            thousands(i.base),
            thousands(i.new),
            signed(signed_delta(i.new, i.base)),
            signed(i.self_delta)
        );
    }
    if let Some(name) = &explained.flamegraph {
        let artifact = match artifacts_url {
            Some(url) => format!("[`irgate-flamegraphs` artifact]({url})"),
            None => "`irgate-flamegraphs` artifact".to_owned(),
        };
        let _ = writeln!(
            out,
            "Differential flame graph: {} in the workflow run's {artifact}.\n",
            code(name)
        );
    }
    out.push_str("</details>\n\n");
    out
}

/// Run text as an HTML `<code>` element (for `<summary>`, where markdown does not apply).
fn html_code(text: &str) -> String {
    let mut out = String::from("<code>");
    for c in sanitized(text, MAX_VALUE_CHARS).chars() {
        if !push_entity(&mut out, c) {
            out.push(c);
        }
    }
    out.push_str("</code>");
    out
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
fn triage_table(report: &Report) -> Option<Table> {
    let Mode::Remeasured {
        commit,
        environment,
    } = &report.mode
    else {
        return None;
    };
    let ir_rows: Vec<&Row> = report.rows.iter().filter(|r| r.metric == "Ir").collect();
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
    let rows = ir_rows
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
    Some(Table {
        before,
        header:
            "| Benchmark | Baseline | Baselines' commit here | Environment | This change | Code \
                 | Verdict |\n|:--|--:|--:|--:|--:|--:|:--|\n"
                .into(),
        rows,
        after: "\n".into(),
    })
}

fn verdict(report: &Report) -> String {
    let benchmarks = report.benchmark_count();
    let count = |status: Status, failing: bool| report.tally(status, failing);
    let mut out = String::new();
    match &report.outcome {
        Outcome::Passed => {
            let _ = writeln!(out, "## ✅ irgate: passed\n");
            let _ = write!(out, "No benchmark over budget ({} checked).", benchmarks);
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
                plural(benchmarks, "benchmark"),
                compared_with(&report.mode)
            );
        }
        Outcome::Undecided { reason } => {
            let _ = writeln!(out, "## ⚠️ irgate could not decide\n");
            let _ = write!(
                out,
                "**Why:** {}\n\nThe gate fails closed (exit 2) until this is fixed.",
                prose(reason)
            );
        }
        Outcome::NoVerdict { reason } => {
            let _ = writeln!(out, "## ℹ️ irgate: no verdict\n");
            let _ = write!(
                out,
                "**Why:** {}\n\nThe counts below are for information only.",
                prose(reason)
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

/// A table that can lose rows to fit: `before` + `header` + rows + `after`, all-or-nothing for
/// everything but the rows.
struct Table {
    before: String,
    header: String,
    rows: Vec<String>,
    after: String,
}

impl Table {
    /// The table in at most `room` bytes: as many rows as fit, and a line saying how many did not;
    /// nothing when not even that fits.
    fn render_within(&self, room: usize) -> String {
        let frame = self.before.len() + self.header.len() + self.after.len();
        let full = frame + self.rows.iter().map(String::len).sum::<usize>();
        if full <= room {
            return format!(
                "{}{}{}{}",
                self.before,
                self.header,
                self.rows.concat(),
                self.after
            );
        }
        let note = |left: usize| {
            format!(
                "\n*… {} not shown, to stay within GitHub's size limit; the full report is in the \
                 workflow run's artifact.*\n",
                plural(left, "more row")
            )
        };
        // The note is longest when it counts every row: reserve that much.
        let reserve = note(self.rows.len()).len();
        if frame + reserve > room {
            return String::new();
        }
        let mut used = frame + reserve;
        let mut shown = 0;
        for row in &self.rows {
            if used + row.len() > room {
                break;
            }
            used += row.len();
            shown += 1;
        }
        let rows = self.rows[..shown].concat();
        let note = note(self.rows.len() - shown);
        format!("{}{}{rows}{note}{}", self.before, self.header, self.after)
    }
}

const ROW_HEADER: &str = "| Benchmark | Metric | Baseline | New | Change | Budget | Verdict |\n\
                          |:--|:--|--:|--:|--:|:--|:--|\n";

fn mismatch_table(mismatches: &[FieldMismatch]) -> Option<Table> {
    if mismatches.is_empty() {
        return None;
    }
    let rows = mismatches
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
    Some(Table {
        before: "### Environment differs from the baselines'\n\n".into(),
        header: "| Field | Baseline | This run |\n|:--|:--|:--|\n".into(),
        rows,
        after: "\n".into(),
    })
}

fn attention_table(rows: &[Row], dashboard: Option<&str>) -> Option<Table> {
    let attention: Vec<String> = rows
        .iter()
        .filter(|r| needs_attention(r))
        .map(|row| row_line(row, dashboard))
        .collect();
    if attention.is_empty() {
        return None;
    }
    Some(Table {
        before: "### Over budget, stale, new or vanished\n\n".into(),
        header: ROW_HEADER.into(),
        rows: attention,
        after: "\n".into(),
    })
}

/// The regressions let pass on purpose: benchmark, entry, until when, reason.
fn accepted_table(rows: &[Row]) -> Option<Table> {
    let mut seen = BTreeSet::new();
    let lines: Vec<String> = rows
        .iter()
        .filter_map(|r| Some((r, r.accepted.as_ref()?)))
        .filter(|(r, _)| seen.insert(r.benchmark.as_str()))
        .map(|(r, a)| {
            format!(
                "| {} | {} | {} | {} |\n",
                code(&r.benchmark),
                code(&a.origin),
                code(&a.until),
                prose(&a.reason)
            )
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    Some(Table {
        before: "### Accepted on purpose\n\n".into(),
        header: "| Benchmark | Entry | Until | Reason |\n|:--|:--|:--|:--|\n".into(),
        rows: lines,
        after: "\n".into(),
    })
}

fn full_table(rows: &[Row], dashboard: Option<&str>) -> Option<Table> {
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        before: format!(
            "<details><summary>All {} (worst first)</summary>\n\n",
            plural(rows.len(), "result")
        ),
        header: ROW_HEADER.into(),
        rows: rows.iter().map(|row| row_line(row, dashboard)).collect(),
        after: "\n</details>\n\n".into(),
    })
}

fn needs_attention(row: &Row) -> bool {
    row.fails
        || matches!(
            row.status,
            Status::OverBudget | Status::Accepted | Status::Stale | Status::New | Status::Vanished
        )
}

/// A table row; a failing benchmark links to its chart on the `dashboard`, when published.
fn row_line(row: &Row, dashboard: Option<&str>) -> String {
    let count = |n: Option<u64>| n.map_or_else(|| "–".to_owned(), thousands);
    let change = match (row.baseline, row.new, row.change_pct()) {
        (Some(old), Some(new), _) if old == new => "±0".to_owned(),
        (Some(old), Some(new), Some(pct)) => {
            format!("{} ({})", signed_pct(pct), signed(signed_delta(new, old)))
        }
        (Some(old), Some(new), None) => signed(signed_delta(new, old)),
        _ => "–".to_owned(),
    };
    let budget = row
        .limit
        .as_ref()
        .map_or_else(|| "–".to_owned(), Budget::to_string);
    let benchmark = match dashboard {
        Some(url) if row.fails => format!(
            "[{}]({url}/{}#{})",
            code(&row.benchmark),
            crate::render::dashboard::page_of(&row.benchmark),
            crate::render::dashboard::anchor(&row.benchmark)
        ),
        _ => code(&row.benchmark),
    };
    let verdict = match &row.since {
        Some(since) => format!("{} since {}", verdict_cell(row), code(since)),
        None => verdict_cell(row).to_owned(),
    };
    format!(
        "| {benchmark} | {} | {} | {} | {} | {} | {verdict} |\n",
        code(&row.metric),
        count(row.baseline),
        count(row.new),
        change,
        budget,
    )
}

fn verdict_cell(row: &Row) -> String {
    let icon = match (row.status, row.fails) {
        (_, true) => "❌",
        (Status::New, false) => "🆕",
        (Status::Stale, false) => "⬇️",
        (Status::Layout, false) => "〰️",
        (Status::Accepted, false) => "☑️",
        (Status::Vanished, false) => "➖",
        (Status::Ok | Status::OverBudget, false) => "✅",
        (Status::Info, false) => "ℹ️",
    };
    format!("{icon} {}", row.status.label())
}

/// At most `max` characters of `text`, one line, without deceptive characters.
fn sanitized(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| {
            if c.is_control() {
                ' '
            } else if is_deceptive(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    if text.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Run text as an inline code span inside a table cell: no markdown, HTML or mention inside it
/// takes effect. `|` is escaped for the table, the fence is longer than any backtick run inside.
pub fn code(text: &str) -> String {
    let text = sanitized(text, MAX_VALUE_CHARS);
    if text.trim().is_empty() {
        return "*(none)*".to_owned();
    }
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let pad = if text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", text.replace('|', "\\|"))
}

/// Pushes `c` as an HTML entity (`<`, `>`, `&`, `"`), or followed by a zero-width space (`@`,
/// `#`, so no mention or issue link forms); `false` for any other character.
fn push_entity(out: &mut String, c: char) -> bool {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '@' => out.push_str("@&#8203;"),
        '#' => out.push_str("#&#8203;"),
        _ => return false,
    }
    true
}

/// Run text as prose: HTML entities for `<`, `>`, `&`, `"`; backslash escapes for markdown
/// punctuation; a zero-width space after `@` and `#` so no mention or issue link forms.
fn prose(text: &str) -> String {
    let mut out = String::new();
    for c in sanitized(text, MAX_PROSE_CHARS).chars() {
        if push_entity(&mut out, c) {
            continue;
        }
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '|' | '~' | '{' | '}' | '$'
            | '=' | '+' | '-' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn truncate_at_char(text: &mut String, max_len: usize) {
    if text.len() > max_len {
        let mut end = max_len;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}
