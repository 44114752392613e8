//! `irgate doctor`: the environment here, field by field against the baselines' environment.

use std::process::ExitCode;

use crate::config::Config;
use crate::error::Result;
use crate::paths::Paths;
use crate::text::print;

/// What `irgate doctor` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate doctor`: exit 0 when counts taken here compare with the baselines' and every
/// runner is there, else 2.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let paths = options.paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let examination = crate::measure::doctor::examine(&config, &paths)?;
    print(&crate::render::doctor::render(
        &examination,
        &paths.baselines,
    ));
    Ok(if examination.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
