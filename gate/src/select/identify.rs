//! The code identity of what the suites build, built and run nowhere: what `run --only-touched`
//! and bisection compare with a record.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::error::Result;
use crate::measure::collect::{Place, Selection, prepare};
use crate::measure::record;
use crate::measure::suite_run::{self, Settings};
use crate::measure::workspace::Workspace;
use crate::model::code::Object;
use crate::paths::Resolved;

/// The code identity of the objects the selected suites build in the workspace's target
/// directory (or where `place` says), built here and run nowhere (what `run --only-touched`
/// compares with the baselines' record), with the suites whose runner cannot run a selection of
/// benchmarks and why.
pub fn build_code(
    paths: &Resolved,
    config: &Config,
    selection: &Selection,
    place: Option<&Place>,
) -> Result<(BTreeMap<String, Object>, Vec<String>)> {
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
    for (suite, library) in &prepared {
        if let Err(error) =
            crate::measure::shard::check_runner("--only-touched", &suite.name(), library)
        {
            refusals.push(error.to_string());
        }
        crate::note!("building suite {} for its code identity", suite.name());
        for artifact in suite_run::artifacts(suite, library, &settings)? {
            if let Some(key) = record::object_key(&built, &artifact) {
                objects.insert(key, artifact);
            }
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
    Ok((identities, refusals))
}
