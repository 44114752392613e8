//! `irgate check`: compare the latest results with the baselines and print the verdict.

use std::collections::BTreeSet;
use std::process::ExitCode;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::explain::BaseProfiles;
use crate::filter::Filter;
use crate::formats::baseline::Baselines;
use crate::formats::code;
use crate::formats::results;
use crate::git::Commit;
use crate::judge::compare::{self, EnvPolicy, Judgement, Mapped, Policy};
use crate::measure::collect::Selection;
use crate::measure::paths::{Paths, Resolved};
use crate::measure::suite;
use crate::model::code::CodeRecord;
use crate::model::{EnvDelta, Mode, Report, Results, UNKNOWN};
use crate::render::Format;

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
    /// Map the change onto the benchmarks (change-aware verdicts); else every benchmark counts
    /// as touched.
    pub change_map: bool,
    /// Where the files are.
    pub paths: Paths,
    /// The history directory, where the drift budget's anchor is recorded.
    pub history: Option<std::path::PathBuf>,
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
    let report = match compare_inputs(options) {
        Ok(mut report) if matches!(report.mode, Mode::Baselines | Mode::Ab { .. }) => {
            let paths = options.paths.resolve()?;
            let dir = crate::explain::flamegraph_dir(&paths.results);
            let base_results = crate::measure::ab::base_results_path(&paths.results);
            let base = if options.base {
                BaseProfiles::Run(&base_results)
            } else {
                BaseProfiles::Baselines(&paths.baselines)
            };
            crate::explain::attach(&mut report, &paths.results, base, &dir);
            report.attribution.dashboard_url = options.dashboard_url.clone();
            report
        }
        Ok(report) => report,
        Err(error) if options.format != Format::Table => {
            eprintln!(
                "irgate: error: {}",
                crate::text::terminal(&error.to_string())
            );
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
        let path = crate::measure::ab::base_results_path(&paths.results);
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
    let ids: std::collections::BTreeSet<&str> = baselines
        .ids()
        .chain(results.benchmarks.keys().map(String::as_str))
        .collect();
    let unmatched = config.unmatched_patterns(ids.iter().copied());
    if !unmatched.is_empty() {
        return Err(Error::invalid(
            unmatched.join(", "),
            "override or accept pattern matches no benchmark (a typo, or a benchmark that is \
             gone?)",
        ));
    }
    crate::judge::accept::refuse_expired(
        &config,
        chrono::Utc::now().date_naive(),
        &results.fingerprint.commit,
        &paths.root,
    )?;
    for warning in crate::judge::accept::warnings(&config, chrono::Utc::now().date_naive(), &ids) {
        eprintln!("irgate: warning: {}", crate::text::terminal(&warning));
    }
    let anchor = match &config.drift {
        None => None,
        Some(drift) => {
            let Some(history) = &options.history else {
                return Err(Error::invalid(
                    paths.config.display(),
                    format!(
                        "[drift] limits the growth since `{}`, whose counts are in the history: pass \
                     --history DIR (a checkout of the history branch)",
                        drift.since
                    ),
                ));
            };
            Some(crate::judge::drift::find_anchor(
                &drift.since,
                &paths.root,
                history,
            )?)
        }
    };
    let ids: Vec<String> = ids.iter().map(|id| (*id).to_owned()).collect();
    let mapped = if options.change_map {
        change_map(&config, &paths, (&results, &baselines), &mode, &ids)
    } else {
        None
    };
    let report = compare::judge(&Judgement {
        results: &results,
        baselines: &baselines,
        config: &config,
        policy: options.policy,
        mode: &mode,
        anchor: anchor.as_ref(),
        change: mapped.as_ref(),
    })?;
    if report.env_mismatches.is_empty()
        || report.mode != Mode::Baselines
        || options.policy.on_env_mismatch != EnvPolicy::Remeasure
    {
        return Ok(report);
    }
    triage(
        &config,
        &paths,
        &results,
        &baselines,
        report,
        options.policy,
    )
}

/// The change from the compared side's commit (the baselines' code record's, or A/B's base) to
/// the results' (the working tree when they were taken on uncommitted changes), mapped onto `ids`
/// through that side's code record and the results' code identity. `None` for drift triage,
/// whose change is mapped by its own run.
fn change_map(
    config: &Config,
    paths: &Resolved,
    (results, baselines): (&Results, &Baselines),
    mode: &Mode,
    ids: &[String],
) -> Option<Mapped> {
    let recorded = |record: Result<Option<CodeRecord>>, what: &str| match record {
        Ok(Some(record)) if !record.benchmarks.is_empty() => Ok(record),
        Ok(_) => Err(format!(
            "{what} have no code record: take it with `irgate run --record`, then `irgate \
             refresh` for baselines"
        )),
        Err(error) => Err(error.to_string()),
    };
    let base = match mode {
        Mode::Baselines => recorded(code::load_baseline(&paths.baselines), "the baselines"),
        Mode::Ab { commit } => {
            let side = code::read(&code::run_path(&crate::measure::ab::base_results_path(
                &paths.results,
            )));
            recorded(side, "the base side").or_else(|side| {
                // The baselines' record serves when it is of the base commit.
                recorded(code::load_baseline(&paths.baselines), "the baselines")
                    .ok()
                    .filter(|b| &b.commit == commit)
                    .ok_or(side)
            })
        }
        Mode::Remeasured { .. } => return None,
    };
    let head_code = match code::read(&code::run_path(&paths.results)) {
        Ok(Some(code)) if !code.objects.is_empty() => Ok(code),
        Ok(_) => Err(format!(
            "{}: the results have no code identity (taken with --from, or by an older irgate)",
            code::run_path(&paths.results).display()
        )),
        Err(error) => Err(error.to_string()),
    };
    let head = Commit::parse(&results.fingerprint.commit);
    let head = if head.dirty || head.hash == UNKNOWN || head.hash.is_empty() {
        None
    } else {
        Some(head.hash.as_str())
    };
    let mut mapped = crate::judge::changes::map(
        paths,
        (base.as_ref().map_err(Clone::clone), head),
        head_code.as_ref().map(|c| &c.objects).map_err(Clone::clone),
        config,
        ids,
    );
    if mapped.map.base.is_empty() {
        // Not mapped for want of a record: the span still starts where the comparison does.
        mapped.map.base = match mode {
            Mode::Ab { commit } => commit.clone(),
            _ => baselines_commit(baselines, results).unwrap_or_default(),
        };
    }
    Some(mapped)
}

/// Drift triage: the environment differs from the baselines', so their commit is measured again
/// here beside the working tree (A/B), and the report gates what the code moved (that commit here
/// -> the working tree) and shows what the environment moved (baseline -> that commit here).
fn triage(
    config: &Config,
    paths: &Resolved,
    results: &Results,
    baselines: &Baselines,
    drifted: Report,
    policy: Policy,
) -> Result<Report> {
    let commit = baselines_commit(baselines, results)?;
    eprintln!(
        "irgate: the environment differs from the baselines' ({}): measuring their commit {} again \
         here, beside the working tree",
        drifted
            .env_mismatches
            .iter()
            .map(|m| m.field.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        crate::text::terminal(crate::text::short_commit(&commit))
    );
    // One filter narrows the run as it narrowed the results; several run everything.
    let filter = match results.filters.as_slice() {
        [one] => Some(Filter::new(one)?),
        _ => None,
    };
    // The working tree is measured again as the results were taken: the same suites, features.
    let selection = Selection {
        suites: &results.suites,
        features: &results.features,
        jobs: None,
        shard: None,
        skip: None,
        record: false,
    };
    let sides = crate::measure::ab::measure(config, &selection, paths, filter.as_ref(), &commit)?;
    let policy = Policy {
        on_env_mismatch: EnvPolicy::Fail,
        ..policy
    };
    let base = Baselines::from_results(
        &sides.base,
        &crate::measure::ab::base_results_path(&paths.results),
    );
    let environment = sides
        .base
        .benchmarks
        .iter()
        .filter_map(|(id, counts)| {
            Some(EnvDelta {
                benchmark: id.clone(),
                baseline: *baselines.get(id)?.0.get(IR)?,
                remeasured: *counts.get(IR)?,
            })
        })
        .collect();
    let mut report = compare::judge(&Judgement {
        results: &sides.head,
        baselines: &base,
        config,
        policy,
        mode: &Mode::Remeasured {
            commit,
            environment,
        },
        anchor: None,
        change: None,
    })?;
    // Shown for what they are: the environment's differences, which no longer decide.
    if report.env_mismatches.is_empty() {
        report.env_mismatches = drifted.env_mismatches;
    }
    Ok(report)
}

/// The commit the baselines of the benchmarks in `results` were taken at: one commit, clean, or
/// an error saying why it cannot be measured again.
fn baselines_commit(baselines: &Baselines, results: &Results) -> Result<String> {
    let commits: BTreeSet<&str> = results
        .benchmarks
        .keys()
        .filter_map(|id| baselines.get(id))
        .map(|(_, fingerprint)| fingerprint.commit.as_str())
        .collect();
    let origin = baselines.dir.display();
    match commits.into_iter().collect::<Vec<_>>().as_slice() {
        [commit] if Commit::parse(commit).dirty => Err(Error::invalid(
            origin,
            format!(
                "the baselines were taken on a working tree with uncommitted changes \
                 (`{commit}`): that code cannot be measured again; refresh them on a clean \
                 checkout to triage drift"
            ),
        )),
        [commit] if *commit == UNKNOWN || commit.is_empty() => Err(Error::invalid(
            origin,
            "the baselines record no commit: refresh them in a git checkout to triage drift",
        )),
        [commit] => Ok((*commit).to_owned()),
        [] => Err(Error::invalid(
            origin,
            "no benchmark of the results has a baseline: nothing to triage",
        )),
        several => Err(Error::invalid(
            origin,
            format!(
                "the baselines were taken at several commits ({}): drift triage measures one; \
                 refresh them together",
                several.join(", ")
            ),
        )),
    }
}
