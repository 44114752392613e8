//! `irgate check`: compare the latest results with the baselines and print the verdict.

use std::process::ExitCode;

use crate::error::Result;
use crate::explain::BaseProfiles;
use crate::judge::verdict::{self, Judging};
use crate::model::{Mode, Report};
use crate::paths::Paths;
use crate::render::Format;
use crate::select::base_config;

/// What `irgate check` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The report's format.
    pub format: Format,
    /// Every row, even when every budget holds (table format).
    pub full: bool,
    /// Where the files are.
    pub paths: Paths,
    /// How the verdict is reached.
    pub judging: Judging,
    /// The published dashboard: the markdown report links failing benchmarks to their charts.
    pub dashboard_url: Option<String>,
    /// The most characters the markdown format writes (`--max-chars`); `None`: the step
    /// summary's limit, 1 MiB.
    pub max_chars: Option<usize>,
}

/// Runs `irgate check`; the exit code is the outcome's.
///
/// When the inputs are unusable, the table format returns the error; the machine-read formats
/// (markdown, json) print an undecided report that carries it, so a pull-request comment built from
/// them still says why the gate could not decide.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let judged = options.paths.resolve().and_then(|paths| {
        // With `--record-from` (a pull request's base), gate.toml is the base's, as the record is.
        let judged = base_config::load(&paths, options.judging.record_from.as_deref())?;
        let mut report = verdict::reach(&paths, &judged.config, &options.judging)?;
        if let Some(change) = &mut report.change {
            change.config_changed = judged.changed;
        }
        Ok((paths, report))
    });
    let report = match judged {
        Ok((paths, mut report)) if matches!(report.mode, Mode::Baselines | Mode::Ab { .. }) => {
            let base_side = paths.base_side();
            let base = if options.judging.base {
                BaseProfiles::Run(&base_side)
            } else {
                BaseProfiles::Baselines(&paths.baselines)
            };
            crate::explain::attach(&mut report, &paths, base);
            report.attribution.dashboard_url = options.dashboard_url.clone();
            report
        }
        Ok((_, report)) => report,
        Err(error) if options.format != Format::Table => {
            crate::note!("error: {}", crate::text::terminal(&error.to_string()));
            Report::undecided(error.to_string())
        }
        Err(error) => return Err(error),
    };
    let limit = options
        .max_chars
        .map_or(crate::render::markdown::Limit::STEP_SUMMARY, |max| {
            crate::render::markdown::Limit::chars(max)
        });
    crate::text::print(&crate::render::render(
        &report,
        options.format,
        options.full,
        limit,
    ));
    Ok(ExitCode::from(report.outcome.exit_code()))
}
