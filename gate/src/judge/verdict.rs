//! The verdict of `irgate check`: the results read and checked against the suites, the compared
//! side (baselines, or A/B's base side), the accepted changes and the drift anchor, the change
//! mapped onto the benchmarks, and drift triage when the environment differs.

use std::path::PathBuf;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::formats::baseline::Baselines;
use crate::formats::results;
use crate::judge::compare::{self, EnvPolicy, Judgement, Policy};
use crate::measure::collect::Selection;
use crate::measure::suite;
use crate::model::{EnvDelta, Mode, Report, Results};
use crate::paths::Resolved;
use crate::select::map::{baselines_commit, compared};

/// How `irgate check` judges: its judging options as the command line gave them (`cli` makes
/// this once from its arguments), taken by [`reach`] as they are.
#[derive(Debug, Clone, Default)]
pub struct Judging {
    /// How strict the verdict is.
    pub policy: Policy,
    /// Compare with the base side of `irgate run --base` instead of the baselines (A/B).
    pub base: bool,
    /// Map the change onto the benchmarks (change-aware verdicts); else every benchmark counts
    /// as touched.
    pub change_map: bool,
    /// Read the baselines' code record from this revision (a pull request's base), not the
    /// working tree.
    pub record_from: Option<String>,
    /// The history directory, where the drift budget's anchor is recorded.
    pub history: Option<PathBuf>,
}

/// Reads the results at `paths` and the compared side `judging` names and judges them under
/// `config`; with the environment differing from the baselines' and [`EnvPolicy::Remeasure`],
/// measures the baselines' commit again here (drift triage).
pub fn reach(paths: &Resolved, config: &Config, judging: &Judging) -> Result<Report> {
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
    let (baselines, mode) = if judging.base {
        let side = paths.base_side();
        let base = results::read(&side.results).map_err(|error| match error {
            Error::MissingResults { .. } => Error::Tool(format!(
                "{}: no base side: take both sides with `irgate run --base REV`",
                side.results.display()
            )),
            other => other,
        })?;
        let mode = Mode::Ab {
            commit: base.fingerprint.commit.clone(),
        };
        (Baselines::from_results(&base, &side.results), mode)
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
        config,
        chrono::Utc::now().date_naive(),
        &results.fingerprint.commit,
        &paths.root,
    )?;
    for warning in crate::judge::accept::warnings(config, chrono::Utc::now().date_naive(), &ids) {
        crate::warning!("{}", crate::text::terminal(&warning));
    }
    let anchor = match &config.drift {
        None => None,
        Some(drift) => {
            let Some(history) = judging.history.as_deref() else {
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
    let mapped = if judging.change_map {
        compared(
            config,
            paths,
            (&results, &baselines),
            (&mode, judging.record_from.as_deref()),
            &ids,
        )
    } else {
        None
    };
    let report = compare::judge(&Judgement {
        results: &results,
        baselines: &baselines,
        config,
        policy: judging.policy,
        mode: &mode,
        anchor: anchor.as_ref(),
        change: mapped.as_ref(),
    })?;
    if report.env_mismatches.is_empty()
        || report.mode != Mode::Baselines
        || judging.policy.on_env_mismatch != EnvPolicy::Remeasure
    {
        return Ok(report);
    }
    triage(paths, config, judging, &results, &baselines, report)
}

/// Drift triage: the environment differs from the baselines', so their commit is measured again
/// here beside the working tree (A/B), and the report gates what the code moved (that commit here
/// -> the working tree) and shows what the environment moved (baseline -> that commit here).
fn triage(
    paths: &Resolved,
    config: &Config,
    judging: &Judging,
    results: &Results,
    baselines: &Baselines,
    drifted: Report,
) -> Result<Report> {
    let commit = baselines_commit(baselines, results)?;
    crate::note!(
        "the environment differs from the baselines' ({}): measuring their commit {} again \
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
        keep: None,
    };
    let sides = crate::measure::ab::measure(paths, config, &selection, filter.as_ref(), &commit)?;
    let policy = Policy {
        on_env_mismatch: EnvPolicy::Fail,
        ..judging.policy
    };
    let base = Baselines::from_results(&sides.base, &paths.base_side().results);
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
