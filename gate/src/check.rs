//! `irgate check`: compare the latest results with the baselines and print the verdict.

use std::process::ExitCode;

use crate::baseline::Baselines;
use crate::compare::{self, Policy};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::{Fingerprint, Mode, Outcome, Report};
use crate::paths::Paths;
use crate::report::{self, Format};
use crate::results;
use crate::suite;

/// What `irgate check` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The report's format.
    pub format: Format,
    /// Every row, even when every budget holds (table format).
    pub full: bool,
    /// How strict the verdict is.
    pub policy: Policy,
    /// Compare with the base side of `irgate run --base` instead of the baselines (A/B).
    pub base: bool,
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate check`; the exit code is the outcome's.
///
/// When the inputs are unusable, the table format returns the error; the machine-read formats
/// (markdown, json) print an undecided report that carries it, so a pull-request comment built from
/// them still says why the gate could not decide.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let report = match compare_inputs(options) {
        Ok(report) if report.mode != Mode::Baselines => report,
        Ok(mut report) => {
            let paths = options.paths.resolve()?;
            let dir = crate::explain::flamegraph_dir(&paths.results);
            crate::explain::attach(&mut report, &paths.results, &paths.baselines, &dir);
            report
        }
        Err(error) if options.format != Format::Table => {
            eprintln!("irgate: error: {error}");
            Report {
                mode: Default::default(),
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
    report::print(&report::render(&report, options.format, options.full));
    Ok(ExitCode::from(report.outcome.exit_code()))
}

/// Reads the results, baselines and budgets named by `options` and compares them.
fn compare_inputs(options: &Options) -> Result<Report> {
    let paths = options.paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let results = results::read(&paths.results)?;
    let skipped = suite::missing(&config.suites, &results.suites);
    if !skipped.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            format!(
                "suite(s) {} declared in gate.toml did not run (these results come from: {}): run \
                 every suite (`irgate run`), or merge every suite's results (`irgate run --from`)",
                skipped.join(", "),
                if results.suites.is_empty() {
                    "no known suite".to_owned()
                } else {
                    results.suites.join(", ")
                }
            ),
        ));
    }
    if results.benchmarks.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            "holds no benchmarks: run `irgate run` again",
        ));
    }
    let (baselines, mode) = if options.base {
        let path = crate::ab::base_results_path(&paths.results);
        let base = results::read(&path).map_err(|error| match error {
            Error::MissingResults { .. } => Error::Tool(format!(
                "{}: no base side: take both sides with `irgate run --base REV`",
                path.display()
            )),
            other => other,
        })?;
        let mode = Mode::Ab {
            commit: base.fingerprint.commit.clone(),
        };
        (Baselines::from_results(&base, &path), mode)
    } else {
        let baselines = Baselines::load_nonempty(&paths.baselines)?;
        (baselines, Mode::Baselines)
    };
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
    let mut report = compare::compare(&results, &baselines, &config, options.policy);
    report.mode = mode;
    Ok(report)
}
