//! The code identity of what the suites build, built and run nowhere: what `run --only-touched`
//! and bisection compare with a record.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::error::Result;
use crate::measure::collect::{Place, Selection, prepare};
use crate::measure::library::Library;
use crate::measure::record;
use crate::measure::suite_run::{self, Settings};
use crate::measure::workspace::Workspace;
use crate::model::code::Object;
use crate::paths::Resolved;

/// What [`build_code`] found.
#[derive(Debug)]
pub struct Built {
    /// The code identity of each object the suites build, by its key.
    pub objects: BTreeMap<String, Object>,
    /// Why a suite's benchmarks cannot be left out of a run, one line per such suite.
    pub refusals: Vec<String>,
    /// The suites whose runner runs all of their benchmarks or none (iai-callgrind 0.14.1 to
    /// 0.16), each with its library and the ids it lists.
    pub whole: Vec<(String, Library, Vec<String>)>,
}

/// The code identity of the objects the selected suites build in the workspace's target
/// directory (or where `place` says), built here and run nowhere (what `run --only-touched`
/// compares with the baselines' record), with the suites whose runner cannot leave out a
/// selection of benchmarks and why, and the benchmarks of those that run whole or not at all.
pub fn build_code(
    paths: &Resolved,
    config: &Config,
    selection: &Selection,
    place: Option<&Place>,
) -> Result<Built> {
    let workspace = Workspace::load(&paths.root)?;
    let prepared = prepare(config, selection, &workspace)?;
    let tunables = suite_run::glibc_tunables();
    let scratch = workspace.target_dir.join("irgate");
    let build = suite_run::Build::new(config.measurement_build, &workspace.root)?
        .linked_for_identity(&scratch)?;
    let target = place.map(|p| p.target.clone());
    let built = target
        .clone()
        .unwrap_or_else(|| workspace.target_dir.clone());
    let settings = Settings {
        root: &workspace.root,
        scratch: &scratch,
        tunables: &tunables,
        dhat: config.needs_dhat(),
        filter: None,
        home: None,
        target: target.as_deref(),
        label: place.map_or("", |p| p.label),
        jobs: selection.jobs(),
        build: &build,
        shard: None,
        skip: None,
    };
    let mut objects = BTreeMap::new();
    let mut refusals = Vec::new();
    let mut whole = Vec::new();
    for (suite, library) in &prepared {
        if let Err(why) = library.skips() {
            refusals.push(format!("suite `{}`: {why}", suite.name()));
        }
        crate::note!("building suite {} for its code identity", suite.name());
        for artifact in suite_run::artifacts(suite, library, &settings)? {
            if let Some(key) = record::object_key(&built, &artifact) {
                objects.insert(key, artifact);
            }
        }
        if library.lists() && !library.filters_ids() {
            let listed = suite_run::list(suite, library, &settings)?;
            let ids = listed.into_iter().map(|(id, _)| id).collect();
            whole.push((suite.name(), library.clone(), ids));
        }
    }
    let (identities, failed) =
        record::identities(&objects, &record::roots(&workspace.root), &BTreeMap::new());
    // A shared object without an identity is named where it matters: as the reason a benchmark
    // that executes it is touched. An executable without one is worth a warning here.
    for (key, why) in failed.iter().filter(|(key, _)| !key.ends_with(".so")) {
        crate::warning!(
            "no code identity of {}: {}",
            crate::text::terminal(key),
            crate::text::terminal(why)
        );
    }
    Ok(Built {
        objects: identities,
        refusals,
        whole,
    })
}
