//! `irgate bisect`: which commits of a range moved each benchmark's count (docs/bisect.md).

use std::num::NonZeroUsize;
use std::process::ExitCode;

use crate::bisect::{self, Request};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::measure::collect::Selection;
use crate::paths::Paths;

/// What `irgate bisect` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only benchmarks whose id matches this glob.
    pub filter: Option<String>,
    /// A revision with the old counts.
    pub good: String,
    /// A descendant of it with the new counts.
    pub bad: String,
    /// The most builds to make (both ends included).
    pub max_builds: Option<usize>,
    /// Only these suites.
    pub suites: Vec<String>,
    /// Cargo features added to every suite.
    pub features: Vec<String>,
    /// How many benchmarks run at once.
    pub jobs: Option<NonZeroUsize>,
    /// JSON instead of the text table.
    pub json: bool,
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate bisect`.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let paths = options.paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let filter = options.filter.as_deref().map(Filter::new).transpose()?;
    for rev in [&options.good, &options.bad] {
        crate::git::revision(rev).map_err(Error::Tool)?;
    }
    if options.max_builds.is_some_and(|n| n < 2) {
        return Err(Error::Tool(
            "--max-builds must be at least 2: both ends are built".to_owned(),
        ));
    }
    let found = bisect::bisect(Request {
        config: &config,
        paths: &paths,
        selection: Selection {
            suites: &options.suites,
            features: &options.features,
            jobs: options.jobs,
            ..Selection::default()
        },
        filter: filter.as_ref(),
        good: &options.good,
        bad: &options.bad,
        max_builds: options.max_builds,
    })?;
    let out = if options.json {
        crate::bisect::format::json(&found)
    } else {
        crate::bisect::text::table(&found)
    };
    crate::text::print(&out);
    Ok(ExitCode::SUCCESS)
}
