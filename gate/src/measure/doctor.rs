//! `irgate doctor`'s examination: this environment's fingerprint, field by field against the
//! baselines' environments, and the runner each suite's library needs.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::formats::baseline::{Baselines, Group};
use crate::measure::fingerprint;
use crate::measure::library::{Library, Runner};
use crate::measure::suite;
use crate::measure::suite_run::glibc_tunables;
use crate::measure::workspace::Workspace;
use crate::model::Fingerprint;
use crate::paths::Resolved;

/// One fingerprint field: its value here and the values the baseline files hold.
#[derive(Debug, PartialEq)]
pub struct Field {
    /// The field's name.
    pub name: &'static str,
    /// Its value here.
    pub here: String,
    /// Each distinct baseline value with the groups (files) holding it.
    pub baselines: BTreeMap<String, Vec<String>>,
}

impl Field {
    /// Whether every baseline holds the value here (none hold one: it matches).
    pub fn matches(&self) -> bool {
        self.baselines.keys().all(|value| *value == self.here)
    }
}

/// The environment here against the baselines'.
#[derive(Debug)]
pub struct Examination {
    /// This environment's fingerprint.
    pub here: Fingerprint,
    /// How many baseline files there are.
    pub groups: usize,
    /// Every fingerprint field.
    pub fields: Vec<Field>,
    /// Each distinct library of the suites, with its runner or why there is none.
    pub runners: Vec<(Library, Result<Runner>)>,
}

impl Examination {
    /// The fields that change counts and differ from a baseline's.
    pub fn differing(&self) -> Vec<&'static str> {
        self.fields
            .iter()
            .filter(|field| crate::model::fingerprint::must_match(field.name) && !field.matches())
            .map(|field| field.name)
            .collect()
    }

    /// Whether every library has its runner.
    pub fn runners_ok(&self) -> bool {
        self.runners.iter().all(|(_, runner)| runner.is_ok())
    }

    /// Whether counts taken here compare with the baselines' and every runner is there.
    pub fn passes(&self) -> bool {
        self.runners_ok() && self.differing().is_empty()
    }
}

/// Examines the environment here (the repository of `paths`, configured by `config`) against the
/// baselines.
pub fn examine(config: &Config, paths: &Resolved) -> Result<Examination> {
    let libraries = libraries(config, &paths.root);
    let here = fingerprint::collect(
        &glibc_tunables(),
        &paths.root,
        &libraries,
        crate::measure::suite_run::Build::new(config.measurement_build, &paths.root)?.describe(),
    )?;
    let groups = match Baselines::load(&paths.baselines) {
        Ok(baselines) => baselines.groups,
        Err(Error::MissingBaselineDir { .. }) => BTreeMap::new(),
        Err(error) => return Err(error),
    };
    let mut distinct = libraries;
    distinct.sort();
    distinct.dedup();
    let runners = distinct
        .into_iter()
        .map(|library| {
            let runner = library.runner();
            (library, runner)
        })
        .collect();
    Ok(Examination {
        fields: compare(&here, &groups),
        groups: groups.len(),
        here,
        runners,
    })
}

/// The libraries of the suites `irgate run` would run here (none when the workspace cannot be
/// read: the field then says `unknown`).
fn libraries(config: &Config, root: &std::path::Path) -> Vec<Library> {
    let Ok(workspace) = Workspace::load(root) else {
        return Vec::new();
    };
    suite::resolve(&config.suites, &workspace)
        .map(|suites| {
            suites
                .iter()
                .filter_map(|s| s.library(&workspace).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Every fingerprint field, with its value here and the distinct values of the baseline groups.
pub fn compare(here: &Fingerprint, groups: &BTreeMap<String, Group>) -> Vec<Field> {
    let mut fields: Vec<Field> = crate::model::fingerprint::fields(here)
        .into_iter()
        .map(|(name, here)| Field {
            name,
            here,
            baselines: BTreeMap::new(),
        })
        .collect();
    for (group, baseline) in groups {
        for (field, (_, value)) in fields
            .iter_mut()
            .zip(crate::model::fingerprint::fields(&baseline.fingerprint))
        {
            field
                .baselines
                .entry(value)
                .or_default()
                .push(group.clone());
        }
    }
    fields
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fingerprint that differs from another only in valgrind and commit.
    pub(crate) fn fingerprint(valgrind: &str, commit: &str) -> Fingerprint {
        Fingerprint {
            rustc: "1.95.0".into(),
            valgrind: valgrind.into(),
            cpu_flags: vec!["avx2".into(), "erms".into()],
            commit: commit.into(),
            ..Fingerprint::default()
        }
    }

    /// Baseline groups with these fingerprints and no benchmarks.
    pub(crate) fn groups(entries: &[(&str, Fingerprint)]) -> BTreeMap<String, Group> {
        entries
            .iter()
            .map(|(name, fingerprint)| {
                let group = Group {
                    fingerprint: fingerprint.clone(),
                    benchmarks: BTreeMap::new(),
                    process: Default::default(),
                };
                (name.to_string(), group)
            })
            .collect()
    }

    fn field<'a>(fields: &'a [Field], name: &str) -> &'a Field {
        fields.iter().find(|f| f.name == name).unwrap()
    }

    #[test]
    fn compares_every_field_and_groups_the_baselines_values() {
        let here = fingerprint("valgrind-3.24.0", "new");
        let groups = groups(&[
            ("frame", fingerprint("valgrind-3.24.0", "old")),
            ("varint", fingerprint("valgrind-3.19.0", "old")),
        ]);
        let fields = compare(&here, &groups);
        assert_eq!(fields.len(), crate::model::fingerprint::fields(&here).len());
        assert!(field(&fields, "rustc").matches());
        let valgrind = field(&fields, "valgrind");
        assert!(!valgrind.matches());
        assert_eq!(valgrind.baselines["valgrind-3.19.0"], ["varint"]);
        assert_eq!(valgrind.baselines["valgrind-3.24.0"], ["frame"]);
        assert_eq!(field(&fields, "cpu_flags").here, "avx2 erms");
    }
}
