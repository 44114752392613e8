//! gate.toml as a pull request's base has it. With `--record-from REV` (the CI flow), the
//! `[change]` rules, budgets, suites and every other setting are read from commit REV, as the
//! code record is, never from the tree under test: a pull request that loosens them is judged by
//! the base's until it is merged. Only its `[[accept]]` entries apply at once, since the report
//! lists each with its reason for the reviewer (SECURITY.md). What it changed is said.
//!
//! Every key and path here comes from the repository under test: untrusted text, to escape
//! where it is written.

use std::path::Path;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::git;
use crate::paths::Resolved;
use crate::text::short_commit;

/// The most bytes of a gate.toml read from a commit.
const MAX_BYTES: u64 = 4 << 20;

/// The configuration a run or check judges by, and what the tree under test changed in it.
#[derive(Debug)]
pub struct Judged {
    /// The base's gate.toml (the built-in default where the base has none), with the tree's
    /// `[[accept]]` entries.
    pub config: Config,
    /// What the tree's gate.toml changed, said in one sentence; `None` when nothing.
    pub changed: Option<String>,
}

/// The configuration at `paths`: with `record_from` (a revision), that commit's, with the tree's
/// `[[accept]]` entries, and what the tree changed; else the tree's gate.toml (or the default).
pub fn load(paths: &Resolved, record_from: Option<&str>) -> Result<Judged> {
    let tree = Config::load_or_default(&paths.config, paths.config_named)?;
    match record_from {
        None => Ok(Judged {
            config: tree,
            changed: None,
        }),
        Some(rev) => from_base(paths, rev, tree),
    }
}

/// gate.toml at commit `rev` (the built-in default where it has none), with `tree`'s
/// `[[accept]]` entries (`tree`: the working tree's configuration); says what the working tree
/// changed.
fn from_base(paths: &Resolved, rev: &str, tree: Config) -> Result<Judged> {
    let root = &paths.root;
    let commit = git::resolve(root, rev).ok_or_else(|| {
        Error::Tool(format!(
            "`{}` names no commit in this checkout: fetch it (actions/checkout with \
             `fetch-depth: 0`) so that gate.toml is read from it",
            crate::text::terminal(rev)
        ))
    })?;
    let short = short_commit(&commit).to_owned();
    let relative = git::in_repository(root, &paths.config).map_err(|why| {
        Error::Tool(format!(
            "{}: gate.toml must be in the repository to be read from {short}: {why}",
            paths.config.display()
        ))
    })?;
    let base_text = git::blob(root, &commit, &relative, MAX_BYTES)
        .map_err(|why| Error::Tool(format!("{short}:{relative}: {why}")))?
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let tree_text = match std::fs::read_to_string(&paths.config) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(Error::read(&paths.config, source)),
    };
    let mut config = match &base_text {
        Some(text) => Config::parse(text, Path::new(&format!("{short}:{relative}")))?,
        None => Config::default(),
    };
    config.accepts = tree.accepts;
    let changed = changes(base_text.as_deref(), tree_text.as_deref()).map(|what| {
        format!(
            "gate.toml changed since {short} ({what}): the base's rules apply until merged{}",
            if base_text.is_none() {
                " (it has none: the built-in default budget)"
            } else {
                ""
            }
        )
    });
    if let Some(changed) = &changed {
        crate::note!("{}", crate::text::terminal(changed));
    }
    Ok(Judged { config, changed })
}

/// What differs between the gate.toml texts `base` and `tree` (`None`: no file): the top-level
/// keys whose values differ (`[change]`, `[[suite]]`, `[[accept]]`: the last applies at once),
/// or that the file is new, gone or unreadable; `None` when they are the same.
pub fn changes(base: Option<&str>, tree: Option<&str>) -> Option<String> {
    if base == tree {
        return None;
    }
    let (Some(base), Some(tree)) = (base, tree) else {
        return Some(if base.is_none() { "added" } else { "removed" }.to_owned());
    };
    let (Ok(old), Ok(new)) = (
        toml::from_str::<toml::Table>(base),
        toml::from_str::<toml::Table>(tree),
    ) else {
        return Some("its text; one side does not parse".to_owned());
    };
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let named: Vec<String> = keys
        .into_iter()
        .filter(|key| old.get(*key) != new.get(*key))
        .map(|key| {
            let value = new.get(key).or(old.get(key));
            let section = match value {
                Some(toml::Value::Array(items)) if items.iter().all(toml::Value::is_table) => {
                    format!("[[{key}]]")
                }
                Some(toml::Value::Table(_)) => format!("[{key}]"),
                _ => key.clone(),
            };
            if key == "accept" {
                format!("{section}, which applies now")
            } else {
                section
            }
        })
        .collect();
    if named.is_empty() {
        // Only comments or layout changed.
        None
    } else {
        Some(named.join(", "))
    }
}

#[cfg(test)]
mod tests;
