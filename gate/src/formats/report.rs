//! `irgate check --format json`: the report as JSON, schema version 4 (versions 1 to 3 are still
//! read: 1 had no `build` in its fingerprint, 2 no change map, 3 repeated an accepted row's
//! `[[accept]]` entry on the row). Its JSON Schema, generated from these types by [`schema`], is
//! kept in `docs/report.schema.json`.
//!
//! ```json
//! {
//!   "schema_version": 4,
//!   "outcome": { "kind": "failed", "count": 1 },
//!   "exit_code": 1,
//!   "mode": { "kind": "baselines" },
//!   "fingerprint": { "rustc": "1.95.0", ... },
//!   "env_mismatches": [ { "field": "valgrind", "baseline": "valgrind-3.24.0", "current": "valgrind-3.19.0" } ],
//!   "rows": [
//!     {
//!       "benchmark": "filter::scan/512", "metric": "Ir",
//!       "baseline": 2778, "new": 4520, "change_pct": 62.707,
//!       "limit": { "relative_pct": 1.0, "absolute": 50 },
//!       "status": "over_budget", "fails": true
//!     }
//!   ]
//! }
//! ```
//!
//! `outcome.kind` is `passed`, `failed` (with `count`, the number of failing benchmarks),
//! `undecided` or `no_verdict` (both with `reason`). `status` is `over_budget`, `accepted`, `new`,
//! `stale`, `vanished`, `ok` or `info`. `baseline`, `new`, `change_pct` (rounded to 3 decimals) and `limit`
//! are `null` where they do not apply. Rows come worst first. Fields are only ever added within a
//! schema version.
//!
//! Added in version 1: `explanations`, one per benchmark over budget whose profiles exist on both
//! sides: `{benchmark, base_total, new_total, movers, rest, inclusive, flamegraph}`; a mover is
//! `{function, file, kind, base_self, new_self, base_inclusive, new_inclusive, inlined_from}`
//! with `kind` one of `changed`, `added`, `removed`, `renamed` (+ `from`), `inlined`
//! (+ `inlined`: the functions now inlined), `outlined` (+ `outlined`); `rest` is
//! `{base, new, functions}`. `explanation_note` says why benchmarks over budget are not
//! explained. Both are absent when empty.
//!
//! Added in version 1: `since` on a row of the drift budget (gate.toml's `[drift]`): the anchor,
//! e.g. `"v0.3.0 (0123456789ab, 2026-11-11)"`, whose count `baseline` is; the row judges the
//! growth since then. Absent on other rows.
//! Version 4: `accepts`, the `[[accept]]` entries of gate.toml that let rows pass, each once:
//! `{reason, until, origin}`, e.g. `{"reason": "checksums (#42)", "until": "until 2026-12-31",
//! "origin": "gate.toml:20"}`; on a row with status `accepted` (over budget, let pass by one),
//! `accept`: the index of its entry in `accepts`. Both absent when nothing was accepted. (Versions
//! 1 to 3 wrote the entry itself on each accepted row, as `accepted`: one long reason over
//! thousands of rows made a report of hundreds of megabytes.)
//! Added in version 1: `mode`, what the run was compared with: `{"kind": "baselines"}` (the
//! committed baselines) or `{"kind": "ab", "commit": "..."}` (a base commit measured in the same
//! job, `irgate run --base`). A report without it was compared with the baselines.
//!
//! Added in version 3, change-aware verdicts (docs/gate.md#change-aware-verdicts): `change`, the
//! compared change mapped onto the benchmarks, `{base, head, everything, functions, unmapped}`
//! (`head` empty for the working tree; `functions`: `{file, name, lines}` with `lines` as
//! `{first, last}`); on each gated row, `touch`: `{"kind": "untouched"}`, `{"kind": "runs",
//! "functions": [indices into change.functions]}`, `{"kind": "everything"}`, `{"kind": "unseen",
//! "functions": [...]}` or `{"kind": "unrecorded", "reason": "..."}`; the status `layout` (moved
//! beyond its budget without running changed code, within the layout budget: passes). All absent
//! when the change is not mapped. `carried`: the benchmarks that did not run (`irgate run
//! --only-touched`), whose counts are the baselines'; absent when every benchmark ran.
//! Added within version 4: `change.config_changed`, what the change did to gate.toml when it was
//! judged by the base's gate.toml (`--record-from`); absent when it did nothing.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::{
    Accepted, Budget, FieldMismatch, Fingerprint, Metric, Mode, Outcome, Report, Status,
};

/// The schema version of the JSON report: 2 records the build settings in the fingerprint, 3 the
/// change map, 4 each `[[accept]]` entry once (`accepts`, rows' `accept`).
pub const SCHEMA_VERSION: u32 = 4;

/// The schema versions `parse` reads (1 had no `build`, read as
/// [`crate::model::BUILD_UNRECORDED`]; 2 had no change map; 1 to 3 have `accepted` on rows).
pub const READABLE_VERSIONS: &[u32] = &[1, 2, 3, 4];

/// The report as the JSON format writes it; [`schema`] gives its JSON Schema.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(
    title = "irgate report",
    description = "`irgate check --format json`: the verdict, the environment and a row per \
                   benchmark and metric, worst first."
)]
struct JsonReport<'a> {
    /// The schema version (fields are only ever added within one).
    schema_version: u32,
    /// The verdict.
    outcome: &'a Outcome,
    /// The exit code `irgate check` gives: 0 passed (or no verdict), 1 failed, 2 undecided.
    exit_code: u8,
    /// What the run was compared with.
    mode: &'a Mode,
    /// The run's environment.
    fingerprint: &'a Fingerprint,
    /// The fields where the baselines' environment differs from the run's.
    env_mismatches: &'a [FieldMismatch],
    /// A row per benchmark and metric, worst first.
    rows: Vec<JsonRow<'a>>,
    /// The `[[accept]]` entries that let rows over budget pass, each once (rows name theirs by
    /// index, `accept`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    accepts: Vec<&'a Accepted>,
    #[serde(flatten)]
    attribution: &'a crate::model::Attribution,
    /// The compared change mapped onto the benchmarks (change-aware verdicts).
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<&'a crate::model::ChangeMap>,
    /// The benchmarks that did not run (`irgate run --only-touched`): their counts are the
    /// baselines'.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    carried: &'a [String],
}

/// One benchmark and metric.
#[derive(Serialize, schemars::JsonSchema)]
struct JsonRow<'a> {
    /// The benchmark id (untrusted text from the suite).
    benchmark: &'a str,
    /// The metric, e.g. `Ir`.
    metric: &'a Metric,
    /// The baseline's count (or the drift anchor's, with `since`); null for a new benchmark.
    baseline: Option<u64>,
    /// The run's count; null for a vanished benchmark.
    new: Option<u64>,
    /// The change in percent of the baseline, rounded to 3 decimals.
    change_pct: Option<f64>,
    /// The budget that applied, when both counts exist.
    limit: Option<Budget>,
    /// The row's status.
    status: Status,
    /// Whether the row fails the gate.
    fails: bool,
    /// On a drift row: the anchor, whose count `baseline` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<&'a str>,
    /// On an accepted row: the index in `accepts` of the `[[accept]]` entry that let it pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    accept: Option<usize>,
    /// Whether the benchmark runs code the compared change touched.
    #[serde(skip_serializing_if = "Option::is_none")]
    touch: Option<&'a crate::model::Touch>,
}

/// Where the report's JSON Schema is kept, from the workspace root (a test keeps it current).
pub const SCHEMA_FILE: &str = "docs/report.schema.json";

/// The JSON Schema of the report this irgate writes, pretty, with a final newline: for the tools
/// that read `irgate check --format json`.
pub fn schema() -> String {
    let mut text = serde_json::to_string_pretty(&schemars::schema_for!(JsonReport))
        .expect("a schema serializes");
    text.push('\n');
    text
}

/// Renders `report` as pretty JSON with a final newline.
pub fn render(report: &Report) -> String {
    let mut accepts: Vec<&Accepted> = Vec::new();
    let mut indices = Vec::with_capacity(report.rows.len());
    for row in &report.rows {
        indices.push(row.accepted.as_ref().map(|accepted| {
            accepts
                .iter()
                .position(|a| *a == accepted)
                .unwrap_or_else(|| {
                    accepts.push(accepted);
                    accepts.len() - 1
                })
        }));
    }
    let rows = report
        .rows
        .iter()
        .zip(indices)
        .map(|(row, accept)| JsonRow {
            benchmark: &row.benchmark,
            metric: &row.metric,
            baseline: row.baseline,
            new: row.new,
            change_pct: row.change_pct().map(|pct| (pct * 1000.0).round() / 1000.0),
            limit: row.limit,
            status: row.status,
            fails: row.fails,
            since: row.since.as_deref(),
            accept,
            touch: row.touch.as_ref(),
        })
        .collect();
    let json = JsonReport {
        schema_version: SCHEMA_VERSION,
        outcome: &report.outcome,
        exit_code: report.outcome.exit_code(),
        mode: &report.mode,
        fingerprint: &report.fingerprint,
        env_mismatches: &report.env_mismatches,
        rows,
        accepts,
        attribution: &report.attribution,
        change: report.change.as_ref(),
        carried: &report.carried,
    };
    let mut text = inert(&serde_json::to_string_pretty(&json).expect("a report serializes"));
    text.push('\n');
    text
}

/// Pretty JSON text with the characters serde leaves raw that a terminal acts on (DEL, C1 controls)
/// or that reorder or hide text ([`crate::text::is_deceptive`]) written as `\uXXXX` escapes: the
/// same JSON, inert where it is printed. So is the first `#` of every `##[` (`\u0023#[`), which
/// the Actions runner reads anywhere in a line as a legacy workflow command. All are in the basic
/// plane and, outside strings, pretty JSON is ASCII with line breaks and no `#`, so only string
/// contents change.
pub fn inert(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for (at, c) in json.char_indices() {
        if (c.is_control() && c != '\n')
            || crate::text::is_deceptive(c)
            || json[at..].starts_with(crate::text::LEGACY_COMMAND)
        {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads a report back (`irgate comment` does, from an artifact: untrusted): the schema version
/// must be one it reads, the exit code must agree with the outcome, and every row must name a valid
/// benchmark id and a count metric.
pub fn parse(text: &str, origin: &str) -> Result<Report, Error> {
    let invalid = |message: String| Error::invalid(origin, message);
    let stored: StoredReport = serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "not an irgate JSON report (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    if !READABLE_VERSIONS.contains(&stored.schema_version) {
        return Err(invalid(format!(
            "schema version {} of the JSON report is not one this irgate reads (1 to 4)",
            stored.schema_version
        )));
    }
    let exit_code = stored.exit_code;
    let mut report = stored.report;
    if stored.schema_version >= 4 {
        // Each accepted row names its entry by index; the rows' own `accepted` is not read.
        let indices: StoredAccepts =
            serde_json::from_str(text).map_err(|e| invalid(format!("rows' `accept`: {e}")))?;
        for (row, index) in report.rows.iter_mut().zip(indices.rows) {
            row.accepted = match index.accept {
                None => None,
                Some(i) => Some(stored.accepts.get(i).cloned().ok_or_else(|| {
                    invalid(format!(
                        "{}: `accept` {i} names no entry of `accepts` ({} of them)",
                        row.benchmark,
                        stored.accepts.len()
                    ))
                })?),
            };
        }
    }
    for row in &report.rows {
        crate::id::check(&row.benchmark).map_err(&invalid)?;
        if !crate::config::metrics::is_count_metric(&row.metric) {
            return Err(invalid(format!(
                "{}: {}",
                row.benchmark,
                crate::config::metrics::unknown_metric(&row.metric)
            )));
        }
    }
    let expected = report.outcome.exit_code();
    if exit_code != expected {
        return Err(invalid(format!(
            "exit_code {exit_code} contradicts the outcome (exit {expected})"
        )));
    }
    Ok(report)
}

/// The JSON report as [`render`] writes it: the report with its schema version and exit code.
#[derive(Deserialize)]
struct StoredReport {
    schema_version: u32,
    exit_code: u8,
    /// Version 4: the `[[accept]]` entries rows name by index.
    #[serde(default)]
    accepts: Vec<Accepted>,
    #[serde(flatten)]
    report: Report,
}

/// Version 4's rows as far as their `[[accept]]` entry goes: its index in `accepts`.
#[derive(Deserialize)]
struct StoredAccepts {
    rows: Vec<StoredAccept>,
}

/// A row's index in `accepts`, if any.
#[derive(Deserialize)]
struct StoredAccept {
    #[serde(default)]
    accept: Option<usize>,
}

/// The largest report file read; a bigger one is not an irgate report.
const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads and validates the JSON report (untrusted: it may come from another workflow's artifact).
pub fn read(path: &Path) -> Result<Report, Error> {
    let origin = path.display().to_string();
    let read_error = |source| Error::read(path, source);
    let text = if path == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin().lock(), &mut text)
            .map_err(read_error)?;
        text
    } else {
        crate::formats::read_text_bounded(path, MAX_REPORT_BYTES)?
    };
    crate::formats::report::parse(&text, &origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Row;

    #[test]
    fn the_committed_json_schema_is_the_reports() {
        crate::formats::assert_committed_schema(SCHEMA_FILE, &schema(), "formats::report");
    }

    #[test]
    fn every_field_a_report_writes_is_in_the_schema() {
        let schema: serde_json::Value = serde_json::from_str(&schema()).unwrap();
        let mut report = Report::undecided("why".to_owned());
        report.rows.push(Row {
            benchmark: "a::b".to_owned(),
            metric: "Ir".to_owned(),
            baseline: Some(1),
            new: Some(2),
            limit: Some(Budget {
                relative_pct: 1.0,
                absolute: 1,
            }),
            status: Status::OverBudget,
            fails: true,
            since: Some("v1".to_owned()),
            accepted: None,
            touch: Some(crate::model::Touch::Runs { functions: vec![0] }),
        });
        report.change = Some(crate::model::ChangeMap {
            base: "b".to_owned(),
            head: String::new(),
            files: vec!["benches/data/input.bin".to_owned()],
            functions: vec![crate::model::ChangedFunction {
                object: "release/deps/callgrind".to_owned(),
                name: "f".to_owned(),
                how: crate::model::How::Changed,
                file: "src/lib.rs".to_owned(),
                lines: vec![crate::model::Lines { first: 1, last: 2 }],
                inlined: String::new(),
            }],
            unmapped: Some("why".to_owned()),
            config_changed: Some("gate.toml changed".to_owned()),
        });
        let written: serde_json::Value = serde_json::from_str(&render(&report)).unwrap();
        let properties = schema["properties"].as_object().unwrap();
        for key in written.as_object().unwrap().keys() {
            assert!(properties.contains_key(key), "`{key}` is not in the schema");
        }
        let row_properties = &schema["$defs"]["JsonRow"]["properties"];
        for key in written["rows"][0].as_object().unwrap().keys() {
            assert!(
                row_properties.get(key).is_some(),
                "row field `{key}` is not in the schema"
            );
        }
    }
}
