//! `irgate check`: compare the latest results with the baselines and print the verdict.

use std::process::ExitCode;

use crate::baseline::Baselines;
use crate::cli::CheckArgs;
use crate::compare::{self, Policy};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::{report, results};

/// Runs `irgate check`; the exit code is the outcome's.
pub fn execute(args: &CheckArgs) -> Result<ExitCode> {
    let paths = args.paths.resolve();
    let config = Config::load_or_default(&paths.config.0, paths.config.1)?;
    let results = results::read(&paths.results)?;
    if results.benchmarks.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            "holds no benchmarks: run `irgate run` again",
        ));
    }
    let baselines = Baselines::load_nonempty(&paths.baselines)?;
    let ids = baselines
        .ids()
        .chain(results.benchmarks.keys().map(String::as_str));
    let unmatched = config.unmatched_patterns(ids);
    if !unmatched.is_empty() {
        return Err(Error::invalid(
            unmatched.join(", "),
            "override pattern matches no benchmark (a typo, or a benchmark that is gone?)",
        ));
    }
    let policy = Policy {
        strict: args.strict,
        allow_new: args.allow_new,
        on_env_mismatch: args.on_env_mismatch,
    };
    let report = compare::compare(&results, &baselines, &config, policy);
    print!("{}", report::render(&report, args.format));
    Ok(ExitCode::from(report.outcome.exit_code()))
}
