//! Reading gungraun and iai-callgrind summaries (`summary.json`) into benchmark ids and counts.
//!
//! Schemas 6 and 7 (iai-callgrind 0.16, gungraun 0.17 and later) are read with
//! `gungraun-summary`; the older ones (2 to 5: iai-callgrind 0.12 to 0.15) by the paths their
//! models put the totals at (see `legacy_metrics`).
//!
//! A benchmark's id is `<group>::<function>` from the last two segments of the summary's module
//! path (`<file>::<group>::<function>`), then `/<id>` when the bench has one:
//! `frame::encode_compressed/512`. Callgrind metrics keep gungraun's names (`Ir`,
//! `EstimatedCycles`, ...); DHAT metrics are prefixed: `dhat.TotalBytes`. Rates (`L1HitRate`, ...)
//! are derived, not counts, and are left out, however their numbers are written.

use std::path::{Path, PathBuf};

use gungraun_summary::either_or_both::EitherOrBoth;
use gungraun_summary::util::{self, SummaryByVersion};
use gungraun_summary::{error::Error as SummaryError, v6, v7};
use serde::Serialize;

use crate::config::metrics::IR;
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
    /// The wall milliseconds the runner took for the benchmark (under valgrind, with whatever
    /// else ran at the same time), where its summary says (`duration_ns`, schema 7: gungraun 0.20).
    pub duration_ms: Option<u64>,
    /// A binary benchmark's run (schemas 6 and 7); `None` for a library benchmark and for the
    /// summaries of iai-callgrind 0.12 to 0.15, which are read by their totals only.
    pub binary: Option<BinaryRun>,
}

/// A binary benchmark's run: where its callgrind files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryRun {
    /// The benchmark's output directory (`output_dir`, schema 7; the directory of
    /// `summary_output`, schema 6), when the summary names one.
    pub output_dir: Option<PathBuf>,
}

/// What kind of benchmark a summary is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A library benchmark: a function, run in the bench binary's own process.
    Library,
    /// A binary benchmark: a program, whose setup runs in the bench binary (`harness`, when the
    /// summary names it) outside valgrind.
    Binary {
        /// The bench binary, absolute.
        harness: Option<std::path::PathBuf>,
    },
}

/// The kind of benchmark the summary at `path` is of (`kind`, and `benchmark_exe` relative to
/// `project_root`); a library benchmark when the summary does not say.
pub fn kind(path: &Path) -> Result<Kind> {
    #[derive(serde::Deserialize)]
    struct Probe {
        kind: Option<String>,
        benchmark_exe: Option<std::path::PathBuf>,
        project_root: Option<std::path::PathBuf>,
    }
    let bytes = crate::formats::read_bounded(path, crate::formats::MAX_BYTES)?;
    let probe: Probe = serde_json::from_slice(&bytes)
        .map_err(|e| Error::invalid(path.display(), format!("not a valid summary: {e}")))?;
    Ok(match probe.kind.as_deref() {
        Some("BinaryBenchmark") => Kind::Binary {
            harness: probe
                .benchmark_exe
                .map(|exe| probe.project_root.unwrap_or_default().join(exe)),
        },
        _ => Kind::Library,
    })
}

/// A metric value as a summary holds it.
enum Value {
    Int(u64),
    Float(f64),
}

/// Reads the summary at `path`.
pub fn read(path: &Path) -> Result<Measurement> {
    let bytes = crate::formats::read_bounded(path, crate::formats::MAX_BYTES)?;
    parse(&bytes, &path.display().to_string())
}

/// Parses one summary; `origin` names it in errors (a path, or a line of `cargo bench` output).
pub fn parse(bytes: &[u8], origin: &str) -> Result<Measurement> {
    #[derive(serde::Deserialize)]
    struct Probe {
        version: Option<String>,
    }
    if let Ok(Probe {
        version: Some(version),
    }) = serde_json::from_slice::<Probe>(bytes)
        && matches!(version.as_str(), "2" | "3" | "4" | "5")
    {
        let value: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| Error::invalid(origin, format!("not a valid summary: {e}")))?;
        let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_owned);
        let module_path = text("module_path")
            .ok_or_else(|| Error::invalid(origin, "summary without `module_path`"))?;
        let metrics = legacy_metrics(&value);
        return measurement(&module_path, text("id").as_deref(), metrics, None, origin);
    }
    let summary = util::parse_slice(bytes).map_err(|error| {
        let message = match error {
            SummaryError::UnsupportedVersion(version) => format!(
                "unsupported summary schema version `{version}`: irgate reads versions 2 to 7 \
                 (iai-callgrind 0.12 to gungraun 0.20)"
            ),
            SummaryError::ParseError(message) if message.starts_with("EOF") => {
                format!("truncated gungraun summary: {message}")
            }
            other => format!("not a valid gungraun summary: {other}"),
        };
        Error::invalid(origin, message)
    })?;
    let (module_path, bench_id, metrics, duration_ms, binary) = match summary {
        SummaryByVersion::V7(summary) => (
            summary.module_path,
            summary.id,
            metrics_v7(&summary.profiles),
            Some(summary.duration_ns / 1_000_000),
            (summary.kind == v7::BenchmarkKind::BinaryBenchmark).then_some(BinaryRun {
                output_dir: Some(summary.output_dir),
            }),
        ),
        SummaryByVersion::V6(summary) => (
            summary.module_path,
            summary.id,
            metrics_v6(&summary.profiles),
            None,
            (summary.kind == v6::BenchmarkKind::BinaryBenchmark).then(|| BinaryRun {
                output_dir: summary
                    .summary_output
                    .and_then(|output| output.path.parent().map(Path::to_owned)),
            }),
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
    let mut measured = measurement(
        &module_path,
        bench_id.as_deref(),
        metrics,
        duration_ms,
        origin,
    )?;
    measured.binary = binary;
    Ok(measured)
}

/// The measurement of a benchmark from its module path, id, metric values and duration.
fn measurement(
    module_path: &str,
    bench_id: Option<&str>,
    metrics: Vec<(String, Value)>,
    duration_ms: Option<u64>,
    origin: &str,
) -> Result<Measurement> {
    let id = benchmark_id(module_path, bench_id);
    crate::id::check(&id).map_err(|message| Error::invalid(origin, message))?;
    let mut counts = Counts::new();
    for (name, value) in metrics {
        match value {
            // A rate may come back as `0` from a tool that rewrote `0.0`: still a rate.
            _ if name.ends_with("Rate") => {}
            _ if !crate::config::metrics::is_count_metric(&name) => {
                return Err(Error::invalid(
                    origin,
                    format!("{id}: {}", crate::config::metrics::unknown_metric(&name)),
                ));
            }
            Value::Int(count) => {
                counts.insert(name, count);
            }
            Value::Float(value) => {
                return Err(Error::invalid(
                    origin,
                    format!(
                        "{id}: metric {name}: {}",
                        crate::formats::not_a_count(value)
                    ),
                ));
            }
        }
    }
    if !counts.contains_key(IR) {
        return Err(Error::invalid(
            origin,
            format!("{id}: no Callgrind Ir count (did the benchmark run under callgrind?)"),
        ));
    }
    Ok(Measurement {
        id,
        counts,
        duration_ms,
        binary: None,
    })
}

/// The new values of the callgrind and DHAT totals of a summary of schema 2 to 5:
/// - 2 (iai-callgrind 0.12, 0.13): `callgrind_summary.summaries[].events.<Ir>.new`, summed over
///   the parts;
/// - 3 (0.14): `callgrind_summary.callgrind_run.total.summary.<Ir>.metrics`, `{"Left": N}` or
///   `{"Both": [N, old]}`;
/// - 4 (0.15.0, labelled 3, and 0.15.1): `profiles[].summaries.total.summary.Callgrind.<Ir>
///   .metrics` (and `.Dhat.` for DHAT), as in 3;
/// - 5 (0.15.2): as 4, with each value wrapped as `{"Int": N}` or `{"Float": x}`.
fn legacy_metrics(summary: &serde_json::Value) -> Vec<(String, Value)> {
    use serde_json::Value as Json;
    let scalar = |v: &Json| match v {
        Json::Number(n) => n
            .as_u64()
            .map(Value::Int)
            .or_else(|| n.as_f64().map(Value::Float)),
        Json::Object(o) => match (o.get("Int"), o.get("Float")) {
            (Some(i), _) => i.as_u64().map(Value::Int),
            (_, Some(f)) => f.as_f64().map(Value::Float),
            _ => None,
        },
        _ => None,
    };
    // `{"Left": v}` or `{"Both": [v, old]}`: the new side.
    let new_side = |metrics: &Json| {
        metrics
            .get("Left")
            .or_else(|| metrics.get("Both").and_then(|both| both.get(0)))
            .and_then(scalar)
    };
    let mut out = Vec::new();
    let mut push_all = |prefix: &str, kinds: &serde_json::Map<String, Json>| {
        for (name, entry) in kinds {
            if let Some(value) = entry.get("metrics").and_then(new_side) {
                out.push((format!("{prefix}{name}"), value));
            }
        }
    };
    if let Some(profiles) = summary.get("profiles").and_then(Json::as_array) {
        for profile in profiles {
            let total = profile.pointer("/summaries/total/summary");
            if let Some(kinds) = total
                .and_then(|t| t.get("Callgrind"))
                .and_then(Json::as_object)
            {
                push_all("", kinds);
            }
            if let Some(kinds) = total.and_then(|t| t.get("Dhat")).and_then(Json::as_object) {
                push_all("dhat.", kinds);
            }
        }
    } else if let Some(kinds) = summary
        .pointer("/callgrind_summary/callgrind_run/total/summary")
        .and_then(Json::as_object)
    {
        push_all("", kinds);
    } else if let Some(parts) = summary
        .pointer("/callgrind_summary/summaries")
        .and_then(Json::as_array)
    {
        let mut sums: std::collections::BTreeMap<String, u64> = Default::default();
        for part in parts {
            for (name, event) in part
                .get("events")
                .and_then(Json::as_object)
                .into_iter()
                .flatten()
            {
                if let Some(new) = event.get("new").and_then(Json::as_u64) {
                    *sums.entry(name.clone()).or_default() += new;
                }
            }
        }
        out.extend(sums.into_iter().map(|(name, n)| (name, Value::Int(n))));
    }
    out
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
        let entries =
            std::fs::read_dir(&current).map_err(|source| Error::read(&current, source))?;
        for entry in entries {
            let entry = entry.map_err(|source| Error::read(&current, source))?;
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

    fn legacy(json: &str) -> Measurement {
        parse(json.as_bytes(), "test").unwrap()
    }

    #[test]
    fn reads_the_totals_of_schemas_2_to_5() {
        let v2 = r#"{"version":"2","module_path":"b::g::f","id":"x","callgrind_summary":
            {"summaries":[{"events":{"Ir":{"new":10,"old":null},"Dr":{"new":4}}},
                          {"events":{"Ir":{"new":5}}}]}}"#;
        let m = legacy(v2);
        assert_eq!(m.id, "g::f/x");
        assert_eq!(m.counts["Ir"], 15);
        assert_eq!(m.counts["Dr"], 4);

        let v3 = r#"{"version":"3","module_path":"b::g::f","id":null,"callgrind_summary":
            {"callgrind_run":{"total":{"summary":{"Ir":{"metrics":{"Both":[42,40]}}}}}}}"#;
        let m = legacy(v3);
        assert_eq!((m.id.as_str(), m.counts["Ir"]), ("g::f", 42));

        let v4 = r#"{"version":"4","module_path":"b::g::f","id":"a","profiles":[
            {"tool":"Callgrind","summaries":{"total":{"summary":{"Callgrind":
                {"Ir":{"metrics":{"Left":7}},"EstimatedCycles":{"metrics":{"Left":9}}}}}}},
            {"tool":"DHAT","summaries":{"total":{"summary":{"Dhat":
                {"TotalBytes":{"metrics":{"Left":64}}}}}}}]}"#;
        let m = legacy(v4);
        assert_eq!(m.counts["Ir"], 7);
        assert_eq!(m.counts["EstimatedCycles"], 9);
        assert_eq!(m.counts["dhat.TotalBytes"], 64);

        let v5 = r#"{"version":"5","module_path":"b::g::f","id":"a","profiles":[
            {"tool":"Callgrind","summaries":{"total":{"summary":{"Callgrind":
                {"Ir":{"metrics":{"Both":[{"Int":8},{"Int":7}]}},
                 "L1HitRate":{"metrics":{"Left":{"Float":99.5}}}}}}}}]}"#;
        let m = legacy(v5);
        assert_eq!(m.counts["Ir"], 8);
        assert!(!m.counts.contains_key("L1HitRate"));
    }

    #[test]
    fn a_legacy_summary_without_ir_is_refused() {
        let error = parse(
            br#"{"version":"3","module_path":"b::g::f","callgrind_summary":{}}"#,
            "s.json",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("no Callgrind Ir count"), "{error}");
    }

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

    #[test]
    fn rates_rewritten_as_whole_numbers_are_still_rates() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/summaries/base/varint/encode.v127/summary.json"
        );
        let mut value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
        let metrics = value
            .pointer_mut("/profiles/0/data/total/metrics")
            .and_then(serde_json::Value::as_object_mut)
            .unwrap();
        // What a JSON tool writes for 0.0 and for a whole rate.
        metrics["D1MissRate"]["values"]["new"] = serde_json::json!(0);
        metrics["L1HitRate"]["values"]["new"] = serde_json::json!(100);
        let bytes = serde_json::to_vec(&value).unwrap();
        let measurement = parse(&bytes, "rewritten.json").unwrap();
        assert_eq!(measurement.id, "varint::encode/v127");
        assert!(measurement.counts.contains_key(IR));
        assert!(!measurement.counts.keys().any(|name| name.ends_with("Rate")));
    }
}

#[cfg(test)]
mod binary_tests {
    use super::*;

    #[test]
    fn a_binary_benchmarks_summary_names_its_output_directory() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/profiled/base/filter/passthrough.n8/summary.json");
        let library = read(&path).unwrap();
        assert_eq!(library.binary, None);
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        json["kind"] = "BinaryBenchmark".into();
        let binary = parse(json.to_string().as_bytes(), "test").unwrap();
        assert_eq!(binary.counts, library.counts);
        assert_eq!(
            binary.binary.unwrap().output_dir.unwrap(),
            Path::new("/work/targets/explain/gungraun/benches/callgrind/filter/passthrough.n8")
        );
    }
}
