//! `irgate check`: compare the latest results with the baselines and print the verdict.

use std::process::ExitCode;

use crate::baseline::Baselines;
use crate::cli::CheckArgs;
use crate::compare::{self, Policy};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::{Fingerprint, Outcome, Report};
use crate::report::Format;
use crate::{report, results};

/// Runs `irgate check`; the exit code is the outcome's.
///
/// When the inputs are unusable, the table format returns the error; the machine-read formats
/// (markdown, json) print an undecided report that carries it, so a pull-request comment built from
/// them still says why the gate could not decide.
pub fn execute(args: &CheckArgs) -> Result<ExitCode> {
    let report = match compare_inputs(args) {
        Ok(mut report) => {
            let paths = args.paths.resolve();
            let dir = crate::explain::flamegraph_dir(&paths.results);
            crate::explain::attach(&mut report, &paths.results, &paths.baselines, &dir);
            report
        }
        Err(error) if args.format != Format::Table => {
            eprintln!("irgate: error: {error}");
            Report {
                outcome: Outcome::Undecided {
                    reason: error.to_string(),
                },
                rows: Vec::new(),
                fingerprint: Fingerprint::default(),
                env_mismatches: Vec::new(),
                attribution: Default::default(),
            }
        }
        Err(error) => return Err(error),
    };
    print!("{}", report::render(&report, args.format));
    Ok(ExitCode::from(report.outcome.exit_code()))
}

/// Reads the results, baselines and budgets named by `args` and compares them.
fn compare_inputs(args: &CheckArgs) -> Result<Report> {
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
    Ok(compare::compare(&results, &baselines, &config, policy))
}
