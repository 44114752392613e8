//! The command line: every argument and help text of irgate, turned into each command's plain
//! options. Nothing below this module knows of clap.

mod args;
mod help;

pub use args::*;

use std::process::ExitCode;

use clap::Parser;

use crate::calibrate::Variant;
#[cfg(feature = "github")]
use crate::commands::comment;
use crate::commands::{
    bisect, calibrate, check, doctor, explain, history, init, refresh, run, runner,
};
use crate::judge::compare::{EnvPolicy, Policy};
use crate::judge::verdict::Judging;
use crate::paths::Paths;
use crate::render::Format;
use crate::render::dashboard::Site;

/// Reads irgate's command line from the process's arguments; on bad usage, or `--help`, prints
/// clap's message and exits.
pub fn parse() -> Cli {
    Cli::parse()
}

impl Command {
    /// Runs the command: the dispatch table from each command line to its command's options.
    pub fn execute(&self) -> crate::error::Result<ExitCode> {
        match self {
            Command::Init(args) => init::execute(&args.into()),
            Command::Run(args) => run::execute(&args.into()),
            Command::Check(args) => check::execute(&args.into()),
            Command::Refresh(args) => refresh::execute(&args.into()),
            Command::Doctor(args) => doctor::execute(&args.into()),
            Command::Runner(RunnerCommand::Install(args)) => runner::install(&args.into()),
            Command::Runner(RunnerCommand::Path(args)) => runner::path(&args.into()),
            Command::Calibrate(args) => calibrate::execute(&args.into()),
            Command::Bisect(args) => bisect::execute(&args.into()),
            Command::Explain(args) => explain::execute(&args.into()),
            Command::History(HistoryCommand::Add(args)) => history::add(&args.into()),
            Command::History(HistoryCommand::Render(args)) => history::render(&args.into()),
            #[cfg(feature = "github")]
            Command::Comment(args) => comment::execute(&args.into()),
        }
    }
}

impl From<&InitArgs> for init::Options {
    fn from(args: &InitArgs) -> Self {
        init::Options {
            ci: args.ci,
            run: !args.no_run,
            calibrate: !args.no_calibrate,
            force: args.force,
            default_branch: args.default_branch.clone(),
        }
    }
}

impl From<&RunArgs> for run::Options {
    fn from(args: &RunArgs) -> Self {
        run::Options {
            filter: args.filter.clone(),
            from: args.from.clone(),
            suites: args.suites.clone(),
            features: args.features.clone(),
            jobs: args.jobs,
            base: args.base.clone(),
            shard: args.shard,
            only_touched: args.only_touched,
            record_from: args.record_from.clone(),
            dry_run: args.dry_run,
            record: args.record,
            paths: (&args.paths).into(),
        }
    }
}

impl From<&CheckArgs> for check::Options {
    fn from(args: &CheckArgs) -> Self {
        check::Options {
            format: args.format.into(),
            full: args.full,
            paths: (&args.paths).into(),
            judging: Judging {
                policy: Policy {
                    strict: args.strict,
                    allow_new: args.allow_new,
                    on_env_mismatch: match args.on_env_mismatch {
                        EnvPolicyArg::Fail => EnvPolicy::Fail,
                        EnvPolicyArg::Warn => EnvPolicy::Warn,
                        EnvPolicyArg::Remeasure => EnvPolicy::Remeasure,
                    },
                },
                base: args.base,
                change_map: !args.no_change_map,
                record_from: args.record_from.clone(),
                history: args.history.clone(),
            },
            dashboard_url: args.dashboard_url.clone(),
            max_chars: args.max_chars.map(|n| n as usize),
        }
    }
}

impl From<&RefreshArgs> for refresh::Options {
    fn from(args: &RefreshArgs) -> Self {
        refresh::Options {
            filter: args.filter.clone(),
            prune: args.prune,
            dry_run: args.dry_run,
            paths: (&args.paths).into(),
        }
    }
}

impl From<&DoctorArgs> for doctor::Options {
    fn from(args: &DoctorArgs) -> Self {
        doctor::Options {
            paths: (&args.paths).into(),
        }
    }
}

impl From<&CalibrateArgs> for calibrate::Options {
    fn from(args: &CalibrateArgs) -> Self {
        calibrate::Options {
            results: args.results.clone(),
            variants: args.variants.iter().map(|&v| v.into()).collect(),
            jobs: args.jobs,
            write: args.write,
            paths: Paths {
                config: args.config.clone(),
                ..Paths::default()
            },
        }
    }
}

impl From<VariantArg> for Variant {
    fn from(arg: VariantArg) -> Variant {
        match arg {
            VariantArg::Base => Variant::Base,
            VariantArg::Rebuild => Variant::Rebuild,
            VariantArg::Version => Variant::Version,
            VariantArg::Unrelated => Variant::Unrelated,
        }
    }
}

impl From<&ExplainArgs> for explain::Options {
    fn from(args: &ExplainArgs) -> Self {
        explain::Options {
            benchmark: args.benchmark.clone(),
            format: args.format.into(),
            paths: (&args.paths).into(),
        }
    }
}

impl From<&HistoryAddArgs> for history::AddOptions {
    fn from(args: &HistoryAddArgs) -> Self {
        history::AddOptions {
            history: args.history.clone(),
            results: args.results.clone(),
            commit: args.commit.clone(),
            refreshed: args.refreshed,
            bisect: args.bisect.clone(),
            report: args.report.clone(),
            paths: Paths::default(),
        }
    }
}

impl From<&HistoryRenderArgs> for history::RenderOptions {
    fn from(args: &HistoryRenderArgs) -> Self {
        history::RenderOptions {
            history: args.history.clone(),
            out: args.out.clone(),
            site: Site {
                window: args.window,
                repo_url: args.repo_url.clone(),
            },
        }
    }
}

#[cfg(feature = "github")]
impl From<&CommentArgs> for comment::Options {
    fn from(args: &CommentArgs) -> Self {
        comment::Options {
            report: args.report.clone(),
            repo: args.repo.clone(),
            pr: args.pr,
            head_sha: args.head_sha.clone(),
            author: args.author.clone(),
            post: !args.no_post,
            load: args.load.clone(),
            dashboard_url: args.dashboard_url.clone(),
        }
    }
}

impl From<&RunnerArgs> for runner::Options {
    fn from(args: &RunnerArgs) -> Self {
        runner::Options {
            paths: Paths {
                config: args.config.clone(),
                ..Paths::default()
            },
        }
    }
}

impl From<&PathArgs> for Paths {
    fn from(args: &PathArgs) -> Paths {
        Paths {
            config: args.config.clone(),
            baselines: args.baselines.clone(),
            results: args.results.clone(),
        }
    }
}

impl From<&BisectArgs> for bisect::Options {
    fn from(args: &BisectArgs) -> Self {
        bisect::Options {
            filter: args.filter.clone(),
            good: args.good.clone(),
            bad: args.bad.clone(),
            max_builds: args.max_builds,
            suites: args.suites.clone(),
            features: args.features.clone(),
            jobs: args.jobs,
            json: args.format == BisectFormatArg::Json,
            paths: Paths {
                config: args.config.clone(),
                ..Paths::default()
            },
        }
    }
}

impl From<FormatArg> for Format {
    fn from(arg: FormatArg) -> Format {
        match arg {
            FormatArg::Table => Format::Table,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Json => Format::Json,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
