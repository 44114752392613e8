//! `[budgets]` and `[[overrides]]`: how far each metric of a benchmark may move.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::{Pattern, Source, metrics};
use crate::error::Result;
use crate::model::{Budget, Metric};

/// The budget used when `gate.toml` gives none: "+1% and at least +1 Ir". A single instruction
/// (what code layout moves on an untouched benchmark) passes; +10% of a 20-Ir benchmark fails.
pub const DEFAULT_BUDGET: Budget = Budget {
    relative_pct: 1.0,
    absolute: 1,
};

/// The layout budget used when `gate.toml` has no `[layout]`: 16 Ir, no relative part. A
/// benchmark that runs none of a change's code is held to it. Layout moves a count by a number
/// of instructions, not a fraction of it; the largest move measured on unrelated changes is 10
/// Ir (docs/calibration.md: a codegen-unit split), and 16 is that times 1.5, rounded up to a
/// power of two. `irgate calibrate --write` raises it to what it learned, when that is more: one
/// and a half times the largest spread of a benchmark the perturbed builds provably left
/// untouched (docs/selection.md, "How the address budget is learned").
pub const DEFAULT_LAYOUT_BUDGET: Budget = Budget {
    relative_pct: 0.0,
    absolute: 16,
};

/// How much a count may move from `baseline` under `limit` before it is over budget (or stale):
/// the larger of the relative and the absolute allowance.
pub fn allowance(limit: &Budget, baseline: u64) -> f64 {
    (baseline as f64 * limit.relative_pct / 100.0).max(limit.absolute as f64)
}

#[derive(Debug, Clone)]
pub(super) struct Override {
    pub(super) patterns: Vec<Pattern>,
    pub(super) budgets: BTreeMap<Metric, Budget>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOverride {
    benchmarks: Vec<Spanned<String>>,
    budgets: BTreeMap<Spanned<String>, RawBudget>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBudget {
    relative_pct: Option<Spanned<f64>>,
    absolute: Option<Spanned<toml::Value>>,
}

/// `absolute` as a count of instructions: a whole, non-negative number. TOML's own message for a
/// float (`9.9e1`) or a negative integer names Rust's types (`expected u64`); this one says what
/// to write.
fn count(src: &Source, value: &Spanned<toml::Value>) -> Result<u64> {
    let at = |message: String| Err(src.at(value.span(), message));
    match value.get_ref() {
        toml::Value::Integer(n) => match u64::try_from(*n) {
            Ok(n) => Ok(n),
            Err(_) => at(format!(
                "absolute is {n}: a budget is a non-negative count of instructions"
            )),
        },
        toml::Value::Float(x) if x.is_finite() && x.fract() == 0.0 && *x >= 0.0 => at(format!(
            "absolute is the decimal number {x:?}: a count of instructions is a whole number, \
             written `{}`",
            *x as u64
        )),
        toml::Value::Float(x) => at(format!(
            "absolute is {x}: a budget is a whole, non-negative count of instructions"
        )),
        other => at(format!(
            "absolute is a {}: a budget is a whole, non-negative count of instructions",
            other.type_str()
        )),
    }
}

/// A table of budgets by metric; an error at the first empty, negative or unknown one.
pub(super) fn parse(
    src: &Source,
    raw: BTreeMap<Spanned<String>, RawBudget>,
) -> Result<BTreeMap<Metric, Budget>> {
    let mut out = BTreeMap::new();
    for (name, budget) in raw {
        if budget.relative_pct.is_none() && budget.absolute.is_none() {
            return Err(src.at(
                name.span(),
                format!(
                    "the budget of `{}` is empty: give `relative_pct`, `absolute` or both \
                     (`{{ absolute = 0 }}` is a zero budget)",
                    name.get_ref()
                ),
            ));
        }
        let relative_pct = match budget.relative_pct {
            Some(pct) if !pct.get_ref().is_finite() || *pct.get_ref() < 0.0 => {
                return Err(src.at(
                    pct.span(),
                    format!(
                        "relative_pct is {}: a budget is a non-negative percentage",
                        pct.get_ref()
                    ),
                ));
            }
            // `-0.0` is zero: no budget reads as `-0%`.
            Some(pct) => pct.get_ref().abs(),
            None => 0.0,
        };
        let absolute = budget
            .absolute
            .as_ref()
            .map(|value| count(src, value))
            .transpose()?;
        out.insert(
            metrics::parse(src, &name)?,
            Budget {
                relative_pct,
                absolute: absolute.unwrap_or(0),
            },
        );
    }
    Ok(out)
}

/// One `[[overrides]]` entry.
pub(super) fn parse_override(src: &Source, raw: RawOverride) -> Result<Override> {
    if raw.benchmarks.is_empty() {
        return Err(src.whole(
            "an [[overrides]] entry with `benchmarks = []` applies to nothing: name at least one \
             glob",
        ));
    }
    Ok(Override {
        patterns: Pattern::parse(src, raw.benchmarks)?,
        budgets: parse(src, raw.budgets)?,
    })
}
