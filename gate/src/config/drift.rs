//! `[drift]`: a cumulative budget since an anchor, a tag or commit recorded in the history.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::{Source, budgets};
use crate::error::Result;
use crate::model::{Budget, Metric};
use budgets::RawBudget;

/// `[drift]`: how much a benchmark may grow in all since an anchor.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    /// The anchor: a tag or commit (its counts come from the history).
    pub since: String,
    /// The cumulative budget of each metric it gates.
    pub budgets: BTreeMap<Metric, Budget>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrift {
    since: Spanned<String>,
    budgets: BTreeMap<Spanned<String>, RawBudget>,
}

/// The `[drift]` table; an error at an anchor git could misread, or when it gates nothing.
pub(super) fn parse(src: &Source, raw: RawDrift) -> Result<Drift> {
    let since = raw.since.get_ref();
    // The anchor reaches `git rev-parse`: a plain name, never an option.
    if since.is_empty()
        || since.len() > 200
        || since.starts_with('-')
        || !since.chars().all(|c| c.is_ascii_graphic())
    {
        return Err(src.at(
            raw.since.span(),
            format!(
                "since = {}: name a tag or commit (printable ASCII, not starting \
                 with `-`)",
                crate::id::escaped(since)
            ),
        ));
    }
    if raw.budgets.is_empty() {
        return Err(src
            .whole("[drift] has no budget: give one, e.g. `budgets.Ir = { relative_pct = 4.0 }`"));
    }
    Ok(Drift {
        since: since.clone(),
        budgets: budgets::parse(src, raw.budgets)?,
    })
}
