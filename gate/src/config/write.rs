//! Writing into gate.toml: what a calibration learned ([`calibrated`]) as marked entries, the
//! rest of the file kept as it was, comments included.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::Config;
use super::budgets::DEFAULT_LAYOUT_BUDGET;
use super::metrics::IR;
use crate::error::{Error, Result};

/// The comment that marks the entries calibration owns.
const MARK: &str = "# irgate calibrate";

/// What a calibration writes into gate.toml.
#[derive(Debug, Clone, Default)]
pub struct Calibrated<'a> {
    /// The builds compared, named in the comments.
    pub builds: &'a [String],
    /// Each budgeted benchmark with its absolute Ir budget.
    pub budgets: Vec<(&'a str, u64)>,
    /// The benchmarks two cold builds of one tree disagreed on, and the likely cause; `None`
    /// when reproducibility was not checked.
    pub nondeterministic: Option<(BTreeSet<String>, String)>,
    /// Whether they are written `info = true` (shown, never gated).
    pub info: bool,
    /// The learned address budget, when there is one.
    pub layout: Option<LearnedLayout<'a>>,
}

/// An address budget learned from the benchmarks perturbed builds left untouched.
#[derive(Debug, Clone)]
pub struct LearnedLayout<'a> {
    /// The budget in Ir.
    pub budget: u64,
    /// The largest spread it was learned from, in Ir.
    pub spread: u64,
    /// How many benchmarks it was learned from.
    pub sample: usize,
    /// The perturbed builds it was learned from.
    pub builds: &'a [String],
}

/// `text` (gate.toml at `path`) with the budgets of `calibrated` as marked `[[overrides]]`, one
/// per budget value, its unreproducible benchmarks as a marked `[[nondeterministic]]` entry, and
/// its learned address budget, when above the default, as a marked `[layout]` (unless gate.toml
/// has a `[layout]` of its own), replacing the ones an earlier calibration wrote.
pub fn calibrated(text: &str, path: &Path, calibrated: &Calibrated) -> Result<String> {
    let builds = calibrated.builds;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::invalid(path.display(), e.to_string()))?;
    if let Some((ids, cause)) = &calibrated.nondeterministic {
        write_nondeterministic(&mut doc, path, ids, cause, calibrated.info)?;
    }
    let mut by_budget: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for &(benchmark, budget) in &calibrated.budgets {
        by_budget.entry(budget).or_default().push(benchmark);
    }
    let overrides = doc
        .entry("overrides")
        .or_insert_with(|| toml_edit::ArrayOfTables::new().into())
        .as_array_of_tables_mut()
        .ok_or_else(|| Error::invalid(path.display(), "`overrides` is not an array of tables"))?;
    overrides.retain(|table| {
        !table
            .decor()
            .prefix()
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    for (budget, ids) in by_budget {
        let mut table = toml_edit::Table::new();
        table.decor_mut().set_prefix(format!(
            "\n{MARK} ({}): 1.5 times the largest Ir shift seen, at least 1 Ir.\n",
            builds.join(", ")
        ));
        let mut list = toml_edit::Array::new();
        for id in ids {
            list.push_formatted(toml_edit::Value::from(id).decorated("\n    ", ""));
        }
        list.set_trailing("\n");
        list.set_trailing_comma(true);
        table["benchmarks"] = toml_edit::value(list);
        let mut limit = toml_edit::InlineTable::new();
        limit.insert("relative_pct", 0.0.into());
        limit.insert("absolute", (budget as i64).into());
        let mut budgets = toml_edit::Table::new();
        budgets.set_dotted(true);
        budgets.insert(IR, toml_edit::value(limit));
        table.insert("budgets", toml_edit::Item::Table(budgets));
        overrides.push(table);
    }
    let own_layout = doc.get("layout").is_some_and(|layout| {
        !layout
            .as_table()
            .and_then(|t| t.decor().prefix())
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    if !own_layout {
        doc.remove("layout");
        if let Some(learned) = &calibrated.layout
            && learned.budget > DEFAULT_LAYOUT_BUDGET.absolute
        {
            let mut limit = toml_edit::InlineTable::new();
            limit.insert("absolute", (learned.budget as i64).into());
            let mut layout = toml_edit::Table::new();
            layout.decor_mut().set_prefix(format!(
                "\n{MARK} ({}): the address budget of a benchmark that runs none of a change's \
                 code,\n# learned from {} left untouched by {}: 1.5 times their largest spread \
                 ({} Ir), at least {}.\n",
                builds.join(", "),
                crate::text::plural(learned.sample, "benchmark"),
                crate::text::terminal(&learned.builds.join(", ")),
                learned.spread,
                DEFAULT_LAYOUT_BUDGET.absolute
            ));
            layout.insert(IR, toml_edit::value(limit));
            doc.insert("layout", toml_edit::Item::Table(layout));
        }
    }
    let text = doc.to_string();
    Config::parse(&text, path)?;
    Ok(text)
}

/// Replaces the marked `[[nondeterministic]]` entry of `doc` with one naming `ids` (none when
/// there are none), with their likely `cause`; entries written by hand are kept.
fn write_nondeterministic(
    doc: &mut toml_edit::DocumentMut,
    path: &Path,
    ids: &BTreeSet<String>,
    cause: &str,
    info: bool,
) -> Result<()> {
    let entries = doc
        .entry("nondeterministic")
        .or_insert_with(|| toml_edit::ArrayOfTables::new().into())
        .as_array_of_tables_mut()
        .ok_or_else(|| {
            Error::invalid(
                path.display(),
                "`nondeterministic` is not an array of tables",
            )
        })?;
    entries.retain(|table| {
        !table
            .decor()
            .prefix()
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    if !ids.is_empty() {
        let mut table = toml_edit::Table::new();
        let then = if info {
            "Shown for information, never gated (info = true): make the build reproducible, \
             then remove this entry to gate them again."
        } else {
            "A moved count is undecided (exit 2) until the build is reproducible (then remove \
             this entry), or until `info = true` here."
        };
        // File names under OUT_DIR are the build's: escaped, so none starts a line of gate.toml.
        let cause = crate::text::terminal(cause).into_owned();
        table.decor_mut().set_prefix(format!(
            "\n{MARK}: two builds of this tree from nothing at one path counted these benchmarks \
             differently,\n# so no budget can tell a change from the build. Likely cause: {cause}.\n\
             # {then}\n"
        ));
        let mut list = toml_edit::Array::new();
        for id in ids {
            list.push_formatted(toml_edit::Value::from(id.as_str()).decorated("\n    ", ""));
        }
        list.set_trailing("\n");
        list.set_trailing_comma(true);
        table["benchmarks"] = toml_edit::value(list);
        if info {
            table["info"] = toml_edit::value(true);
        }
        entries.push(table);
    }
    if entries.is_empty() {
        doc.remove("nondeterministic");
    }
    Ok(())
}
