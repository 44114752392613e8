//! The metrics gate.toml may name: callgrind's counts and DHAT's, as gungraun names them.

use toml::Spanned;

use super::Source;
use crate::error::Result;
use crate::model::Metric;

/// The metric every configuration gates unless told otherwise, and that every baseline stores.
pub const IR: &str = "Ir";

/// Whether `name` is a count metric irgate can gate: a callgrind event (not a rate) or `dhat.` and
/// a DHAT metric, as gungraun names them.
pub fn is_count_metric(name: &str) -> bool {
    let parses = |value: &str, dhat: bool| {
        let value = serde_json::Value::String(value.to_owned());
        if dhat {
            serde_json::from_value::<gungraun_summary::v7::DhatMetric>(value).is_ok()
        } else {
            serde_json::from_value::<gungraun_summary::v7::EventKind>(value).is_ok()
        }
    };
    match name.strip_prefix("dhat.") {
        Some(dhat) => parses(dhat, true),
        None => !name.ends_with("Rate") && parses(name, false),
    }
}

/// Callgrind's metrics that come from its cache simulation. They depend on where the measured
/// program's stack and data lie, which moves with the checkout path and the environment the
/// benchmark is started with (docs/container.md#cache-metrics), so they are gated only between
/// runs at the same path in the same environment.
pub const CACHE_METRICS: &[&str] = &[
    "I1mr",
    "D1mr",
    "D1mw",
    "ILmr",
    "DLmr",
    "DLmw",
    "L1hits",
    "LLhits",
    "RamHits",
    "EstimatedCycles",
];

/// Why `name` is refused where a metric is expected (see [`is_count_metric`]).
pub fn unknown_metric(name: &str) -> String {
    format!(
        "unknown metric `{name}`: use a callgrind count such as `Ir` or `EstimatedCycles`, or \
         `dhat.` and a DHAT metric such as `dhat.TotalBytes`"
    )
}

/// A metric name from the file; an error at it when irgate cannot gate it.
pub(super) fn parse(src: &Source, name: &Spanned<String>) -> Result<Metric> {
    if is_count_metric(name.get_ref()) {
        Ok(name.get_ref().clone())
    } else {
        Err(src.at(name.span(), unknown_metric(name.get_ref())))
    }
}
