//! `irgate check --format json`: the report as JSON, schema version 2 (version 1, still read, had
//! no `build` in its fingerprint).
//!
//! ```json
//! {
//!   "schema_version": 2,
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
//! Added in version 1: on a row with status `accepted` (over budget, let pass by an `[[accept]]`
//! entry of gate.toml), `accepted`: `{reason, until, origin}`, e.g. `{"reason": "checksums (#42)",
//! "until": "until 2026-12-31", "origin": "gate.toml:20"}`; absent on every other row.
//! Added in version 1: `mode`, what the run was compared with: `{"kind": "baselines"}` (the
//! committed baselines) or `{"kind": "ab", "commit": "..."}` (a base commit measured in the same
//! job, `irgate run --base`). A report without it was compared with the baselines.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::model::{
    Accepted, Budget, FieldMismatch, Fingerprint, Metric, Mode, Outcome, Report, Status,
};

/// The schema version of the JSON report: 2 records the build settings in the fingerprint.
pub const SCHEMA_VERSION: u32 = 2;

/// The schema versions `parse` reads (1 had no `build`, read as
/// [`crate::model::BUILD_UNRECORDED`]).
pub const READABLE_VERSIONS: &[u32] = &[1, 2];

#[derive(Serialize)]
struct JsonReport<'a> {
    schema_version: u32,
    outcome: &'a Outcome,
    exit_code: u8,
    mode: &'a Mode,
    fingerprint: &'a Fingerprint,
    env_mismatches: &'a [FieldMismatch],
    rows: Vec<JsonRow<'a>>,
    #[serde(flatten)]
    attribution: &'a crate::model::Attribution,
}

#[derive(Serialize)]
struct JsonRow<'a> {
    benchmark: &'a str,
    metric: &'a Metric,
    baseline: Option<u64>,
    new: Option<u64>,
    change_pct: Option<f64>,
    limit: Option<Budget>,
    status: Status,
    fails: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accepted: Option<&'a Accepted>,
}

/// Renders `report` as pretty JSON with a final newline.
pub fn render(report: &Report) -> String {
    let json = JsonReport {
        schema_version: SCHEMA_VERSION,
        outcome: &report.outcome,
        exit_code: report.outcome.exit_code(),
        mode: &report.mode,
        fingerprint: &report.fingerprint,
        env_mismatches: &report.env_mismatches,
        rows: report
            .rows
            .iter()
            .map(|row| JsonRow {
                benchmark: &row.benchmark,
                metric: &row.metric,
                baseline: row.baseline,
                new: row.new,
                change_pct: row.change_pct().map(|pct| (pct * 1000.0).round() / 1000.0),
                limit: row.limit,
                status: row.status,
                fails: row.fails,
                since: row.since.as_deref(),
                accepted: row.accepted.as_ref(),
            })
            .collect(),
        attribution: &report.attribution,
    };
    let mut text = inert(&serde_json::to_string_pretty(&json).expect("a report serializes"));
    text.push('\n');
    text
}

/// Pretty JSON text with the characters serde leaves raw that a terminal acts on (DEL, C1 controls)
/// or that reorder or hide text ([`crate::text::is_deceptive`]) written as `\uXXXX` escapes: the
/// same JSON, inert where it is printed. All are in the basic plane and, outside strings, pretty
/// JSON is ASCII with line breaks, so only string contents change.
pub fn inert(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if (c.is_control() && c != '\n') || crate::text::is_deceptive(c) {
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
            "schema version {} of the JSON report is not one this irgate reads (1 or 2)",
            stored.schema_version
        )));
    }
    let exit_code = stored.exit_code;
    let report = stored.report;
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

/// The JSON report as `report::json` writes it: the report with its schema version and exit code.
#[derive(Deserialize)]
struct StoredReport {
    schema_version: u32,
    exit_code: u8,
    #[serde(flatten)]
    report: Report,
}
