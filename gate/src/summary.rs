//! Reading gungraun summaries (`summary.json`, schema v6 or v7) into benchmark ids and counts.
//!
//! A benchmark's id is `<group>::<function>` from the last two segments of the summary's module
//! path (`<file>::<group>::<function>`), then `/<id>` when the bench has one:
//! `frame::encode_compressed/512`. Callgrind metrics keep gungraun's names (`Ir`,
//! `EstimatedCycles`, ...); DHAT metrics are prefixed: `dhat.TotalBytes`. Rates (`L1HitRate`, ...)
//! are derived floats, not counts, and are left out.

use std::path::{Path, PathBuf};

use gungraun_summary::either_or_both::EitherOrBoth;
use gungraun_summary::util::{self, SummaryByVersion};
use gungraun_summary::{error::Error as SummaryError, v6, v7};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::Counts;

/// The file name gungraun gives a summary with `--save-summary=json`.
pub const FILE_NAME: &str = "summary.json";

/// One benchmark's counts, from one summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measurement {
    /// Benchmark id, e.g. `frame::encode_compressed/512`.
    pub id: String,
    /// Counts by metric.
    pub counts: Counts,
}

/// A metric value as a summary holds it.
enum Value {
    Int(u64),
    Float(f64),
}

/// Reads the summary at `path`.
pub fn read(path: &Path) -> Result<Measurement> {
    let bytes = std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(&bytes, &path.display().to_string())
}

/// Parses one summary; `origin` names it in errors (a path, or a line of `cargo bench` output).
pub fn parse(bytes: &[u8], origin: &str) -> Result<Measurement> {
    let summary = util::parse_slice(bytes).map_err(|error| {
        let message = match error {
            SummaryError::UnsupportedVersion(version) => format!(
                "unsupported gungraun summary schema version `{version}`: irgate reads versions 6 \
                 and 7 (gungraun 0.16 and later)"
            ),
            SummaryError::ParseError(message) if message.starts_with("EOF") => {
                format!("truncated gungraun summary: {message}")
            }
            other => format!("not a valid gungraun summary: {other}"),
        };
        Error::invalid(origin, message)
    })?;
    let (module_path, bench_id, metrics) = match summary {
        SummaryByVersion::V7(summary) => (
            summary.module_path,
            summary.id,
            metrics_v7(&summary.profiles),
        ),
        SummaryByVersion::V6(summary) => (
            summary.module_path,
            summary.id,
            metrics_v6(&summary.profiles),
        ),
        other => {
            return Err(Error::invalid(
                origin,
                format!(
                    "unsupported gungraun summary schema version {:?}",
                    other.version()
                ),
            ));
        }
    };
    let id = benchmark_id(&module_path, bench_id.as_deref());
    let mut counts = Counts::new();
    for (name, value) in metrics {
        match value {
            Value::Int(count) => {
                counts.insert(name, count);
            }
            Value::Float(_) if name.ends_with("Rate") => {}
            Value::Float(value) => {
                return Err(Error::invalid(
                    origin,
                    format!("{id}: metric {name} is {value}, not a count (a non-negative integer)"),
                ));
            }
        }
    }
    if !counts.contains_key("Ir") {
        return Err(Error::invalid(
            origin,
            format!("{id}: no Callgrind Ir count (did the benchmark run under callgrind?)"),
        ));
    }
    Ok(Measurement { id, counts })
}

/// The id of a benchmark from its module path (`file::group::function`) and optional bench id.
pub fn benchmark_id(module_path: &str, bench_id: Option<&str>) -> String {
    let segments: Vec<&str> = module_path.split("::").collect();
    let start = segments.len().saturating_sub(2);
    let name = segments[start..].join("::");
    match bench_id {
        Some(id) => format!("{name}/{id}"),
        None => name,
    }
}

/// Every `summary.json` below `dir`, sorted by path.
pub fn find(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current).map_err(|source| Error::Read {
            path: current.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| Error::Read {
                path: current.clone(),
                source,
            })?;
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if entry.file_name() == FILE_NAME {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The new values of the callgrind and DHAT totals of a v7 summary.
fn metrics_v7(profiles: &v7::Profiles) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for profile in &profiles.0 {
        match &profile.data.total.metrics {
            v7::ToolMetricResults::Callgrind(results) => {
                push_v7(&mut out, "", results.0.iter());
            }
            v7::ToolMetricResults::Dhat(results) => {
                push_v7(&mut out, "dhat.", results.0.iter());
            }
            _ => {}
        }
    }
    out
}

fn push_v7<'a, K: Serialize + 'a>(
    out: &mut Vec<(String, Value)>,
    prefix: &str,
    results: impl Iterator<Item = (&'a K, &'a v7::MetricResult)>,
) {
    for (kind, result) in results {
        if let Some(value) = new_value(&result.values) {
            out.push((
                format!("{prefix}{}", metric_name(kind)),
                match value {
                    v7::Metric::Int(v) => Value::Int(*v),
                    v7::Metric::Float(v) => Value::Float(*v),
                },
            ));
        }
    }
}

/// The new values of the callgrind and DHAT totals of a v6 summary.
fn metrics_v6(profiles: &v6::Profiles) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for profile in &profiles.0 {
        match &profile.summaries.total.summary {
            v6::ToolMetricSummary::Callgrind(summary) => push_v6(&mut out, "", summary.0.iter()),
            v6::ToolMetricSummary::Dhat(summary) => push_v6(&mut out, "dhat.", summary.0.iter()),
            _ => {}
        }
    }
    out
}

fn push_v6<'a, K: Serialize + 'a>(
    out: &mut Vec<(String, Value)>,
    prefix: &str,
    results: impl Iterator<Item = (&'a K, &'a v6::MetricsDiff)>,
) {
    for (kind, diff) in results {
        if let Some(value) = new_value(&diff.metrics) {
            out.push((
                format!("{prefix}{}", metric_name(kind)),
                match value {
                    v6::Metric::Int(v) => Value::Int(*v),
                    v6::Metric::Float(v) => Value::Float(*v),
                },
            ));
        }
    }
}

/// The new side of a new/old pair (gungraun keeps the new value on the left).
fn new_value<T>(values: &EitherOrBoth<T>) -> Option<&T> {
    values.as_ref().left()
}

/// A metric's name as gungraun serializes it (`Ir`, `TotalBytes`).
fn metric_name<K: Serialize>(kind: &K) -> String {
    match serde_json::to_value(kind) {
        Ok(serde_json::Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_the_last_two_module_path_segments() {
        assert_eq!(
            benchmark_id("callgrind::frame::encode_compressed", Some("512")),
            "frame::encode_compressed/512"
        );
        assert_eq!(
            benchmark_id("callgrind::filter::alloc", None),
            "filter::alloc"
        );
        assert_eq!(benchmark_id("alone", None), "alone");
    }
}
