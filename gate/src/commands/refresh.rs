//! `irgate refresh`: write the latest results as the new baselines and show what changed.

use std::collections::BTreeSet;
use std::process::ExitCode;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::formats::baseline::{self, Baselines, Selection};
use crate::formats::results;
use crate::git::Commit;
use crate::measure::{refresh, suite};
use crate::paths::Paths;
use crate::render::refresh as render;
use crate::text::print;

/// What `irgate refresh` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only benchmarks whose id matches this glob.
    pub filter: Option<String>,
    /// Also delete in-scope baselines of benchmarks that did not run.
    pub prune: bool,
    /// Show what would change, write nothing.
    pub dry_run: bool,
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate refresh`.
pub fn execute(args: &Options) -> Result<ExitCode> {
    let paths = args.paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let results = results::read(&paths.results)?;
    results.require_measured(&paths.results.display().to_string(), "a refresh")?;
    let skipped = suite::missing(&config.suites, &results.suites);
    if args.prune && !skipped.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            format!(
                "--prune would delete the baselines of suite(s) that did not run ({}): run every \
                 suite first",
                skipped.join(", ")
            ),
        ));
    }
    let filter = args.filter.as_deref().map(Filter::new).transpose()?;
    if !args.dry_run {
        std::fs::create_dir_all(&paths.baselines)
            .map_err(|source| Error::write(&paths.baselines, source))?;
    }
    let baselines = match Baselines::load(&paths.baselines) {
        Err(Error::MissingBaselineDir { .. }) if args.dry_run => Baselines {
            dir: paths.baselines.clone(),
            groups: Default::default(),
        },
        other => other?,
    };
    if let Some(filter) = &filter {
        let ids = || results.benchmarks.keys().map(String::as_str);
        let pruned = args.prune && baselines.ids().any(|id| filter.matches(id));
        if !ids().any(|id| filter.matches(id)) && !pruned {
            return Err(filter.matched_nothing(ids()));
        }
    }
    let in_scope = |id: &str| filter::in_scope(filter.as_ref(), id);
    let metrics = config.stored_metrics();
    let required: BTreeSet<String> = config.gated_metrics();
    let updates = baseline::plan_refresh(
        &baselines,
        &results,
        &Selection {
            in_scope: &in_scope,
            metrics: &metrics,
            required: &required,
            prune: args.prune,
        },
    )?;
    print(&render::describe(&updates, &baselines, &results.benchmarks));
    let commit = Commit::parse(&results.fingerprint.commit);
    if commit.dirty {
        eprintln!("irgate: warning: {}", render::dirty_warning(&commit));
    }
    if args.dry_run {
        print("(dry run: nothing written)\n");
    } else {
        baseline::write_updates(&updates)?;
        for line in refresh::profiles(&paths, &in_scope)? {
            println!("{line}");
        }
        println!("{}", refresh::code(&paths, &results, &in_scope)?);
        // Baselines git ignores would be left out of the commit without a word.
        crate::commands::warn_ignored(&paths.root, &refresh::files_under(&paths.baselines));
    }
    Ok(ExitCode::SUCCESS)
}
