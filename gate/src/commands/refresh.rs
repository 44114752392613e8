//! `irgate refresh`: write the latest results as the new baselines and show what changed.

use std::process::ExitCode;

use crate::config::Config;
use crate::error::Result;
use crate::git::Commit;
use crate::measure::refresh;
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
    let plan = refresh::plan(
        &config,
        &paths,
        args.filter.as_deref(),
        (args.prune, args.dry_run),
    )?;
    print(&render::describe(
        &plan.updates,
        &plan.baselines,
        &plan.results.benchmarks,
    ));
    let commit = Commit::parse(&plan.results.fingerprint.commit);
    if commit.dirty {
        crate::warning!("{}", render::dirty_warning(&commit));
    }
    if args.dry_run {
        print("(dry run: nothing written)\n");
    } else {
        for line in plan.write(&paths)? {
            println!("{line}");
        }
        // Baselines git ignores would be left out of the commit without a word.
        crate::commands::warn_ignored(&paths.root, &refresh::files_under(&paths.baselines));
    }
    Ok(ExitCode::SUCCESS)
}
