//! Where the instructions went: the per-function explanation of a benchmark's change, attached
//! to every benchmark over budget by `irgate check` and given for any benchmark by `irgate
//! explain`, with a differential flame graph (SVG) per explained benchmark.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use irgate_callgrind::{Profile, explain, flame};

use crate::formats::profiles::{self, Profiles};
use crate::model::{Explained, Report, Status};
use crate::paths::Resolved;
use crate::text::{signed, terminal};

/// The most functions listed per benchmark; the rest is summed as one line.
pub const FUNCTIONS_LISTED: usize = 8;

/// The note given when the baselines carry no profiles.
pub const NO_BASELINE_PROFILES: &str = "no per-function profile in the baselines, so no \
    explanation of where the instructions went: `irgate run && irgate refresh`, where the \
    baselines are taken, stores them in baselines/profiles/";

/// Where the profiles a run is compared with are.
#[derive(Debug, Clone, Copy)]
pub enum BaseProfiles<'a> {
    /// The baselines directory (its `profiles/`).
    Baselines(&'a Path),
    /// The base side of `irgate run --base` (A/B): the profiles beside its results.
    Run(&'a Resolved),
}

/// The most benchmarks a note names with the reason they are not explained.
const NOTE_NAMES: usize = 5;

/// Attaches an explanation to every benchmark over budget in `report`, from the run's profiles
/// (beside the results of `paths`) and `base`'s; draws their flame graphs beside the results. Missing
/// profiles leave a note saying which benchmarks and why, never an error: the verdict stands
/// without them.
pub fn attach(report: &mut Report, paths: &Resolved, base: BaseProfiles) {
    let failing: Vec<(String, Option<u64>, Option<u64>)> = report
        .rows
        .iter()
        .filter(|r| {
            r.status == Status::OverBudget && r.metric == profiles::EVENT && r.since.is_none()
        })
        .map(|r| {
            // A binary benchmark's profiles are of its whole process.
            match report.attribution.processes.get(&r.benchmark) {
                Some(process) => {
                    let whole = process
                        .whole
                        .get(profiles::EVENT)
                        .copied()
                        .unwrap_or_default();
                    (r.benchmark.clone(), whole.baseline, whole.new)
                }
                None => (r.benchmark.clone(), r.baseline, r.new),
            }
        })
        .collect();
    if failing.is_empty() {
        return;
    }
    let (run, base_profiles) = match load(paths, base) {
        Ok(both) => both,
        Err(note) => {
            report.attribution.explanation_note = Some(note);
            return;
        }
    };
    let flamegraphs = paths.flamegraphs();
    let mut missing = Vec::new();
    for (id, old, new) in failing {
        match unexplained(&id, (old, new), &run, &base_profiles, base) {
            Some(reason) => missing.push(format!("{id}: {reason}")),
            None => report.attribution.explanations.extend(explain_one(
                &id,
                &run,
                &base_profiles,
                Some(&flamegraphs),
            )),
        }
    }
    if missing.is_empty() {
        return;
    }
    let no_baseline = missing.iter().all(|m| m.ends_with(NO_BASELINE_PROFILE));
    report.attribution.explanation_note = Some(
        if report.attribution.explanations.is_empty()
            && no_baseline
            && matches!(base, BaseProfiles::Baselines(_))
        {
            NO_BASELINE_PROFILES.to_owned()
        } else {
            let more = missing.len().saturating_sub(NOTE_NAMES);
            let mut note = format!(
                "{} over budget not explained: {}",
                missing.len(),
                missing[..missing.len() - more].join("; ")
            );
            if more > 0 {
                let _ = write!(note, "; and {more} more");
            }
            note
        },
    );
}

/// The reason a benchmark with counts `old` -> `new` cannot be explained, if it cannot.
fn unexplained(
    id: &str,
    (old, new): (Option<u64>, Option<u64>),
    run: &Profiles,
    base: &BTreeMap<String, Profile>,
    side: BaseProfiles,
) -> Option<String> {
    if let Some(reason) = run.unreadable.get(id) {
        return Some(format!("its profile could not be read: {reason}"));
    }
    let Some(profile) = run.benchmarks.get(id) else {
        return Some("no profile in this run".to_owned());
    };
    let Some(base_profile) = base.get(id) else {
        return Some(match side {
            BaseProfiles::Baselines(_) => NO_BASELINE_PROFILE.to_owned(),
            BaseProfiles::Run(_) => "no profile of the base side".to_owned(),
        });
    };
    // Profiles that are not of these very counts (taken by another run) would mislead.
    (Some(base_profile.total) != old || Some(profile.total) != new)
        .then(|| "its profiles are not of these counts (taken by another run)".to_owned())
}

/// The reason of a benchmark whose baselines hold no profile of it.
const NO_BASELINE_PROFILE: &str = "no baseline profile (refresh the baselines to store it)";

/// Both sides' profiles, or the note saying what is missing.
fn load(
    paths: &Resolved,
    base: BaseProfiles,
) -> Result<(Profiles, BTreeMap<String, Profile>), String> {
    let read = |paths: &Resolved| {
        let path = paths.profiles();
        match profiles::read_run(&path) {
            Ok(Some(run)) => Ok(run),
            Ok(None) => Err(format!(
                "no per-function profiles beside the results ({}): `irgate run` writes them",
                path.display()
            )),
            Err(error) => Err(format!("per-function profiles unreadable: {error}")),
        }
    };
    let run = read(paths)?;
    let base = match base {
        BaseProfiles::Run(base_side) => read(base_side)?.benchmarks,
        BaseProfiles::Baselines(dir) => match profiles::load_baseline(dir) {
            Ok(base) if base.is_empty() => return Err(NO_BASELINE_PROFILES.to_owned()),
            Ok(base) => base,
            Err(error) => return Err(format!("baseline profiles unreadable: {error}")),
        },
    };
    Ok((run, base))
}

/// Explains one benchmark; `None` when either side has no profile of it.
pub fn explain_one(
    id: &str,
    run: &Profiles,
    base: &BTreeMap<String, Profile>,
    flamegraph_dir: Option<&Path>,
) -> Option<Explained> {
    let (old, new) = (base.get(id)?, run.benchmarks.get(id)?);
    let explanation = explain(old, new, FUNCTIONS_LISTED);
    let flamegraph = flamegraph_dir.and_then(|dir| {
        let stacks = run.stacks.get(id)?;
        let title = format!("{id}: {} Ir", signed(explanation.delta()));
        let svg = match flame::differential_svg(stacks, old, new, &title) {
            Ok(svg) => svg,
            Err(error) => {
                crate::warning!("no flame graph of {id}: {}", terminal(&error.to_string()));
                return None;
            }
        };
        let name = flamegraph_name(id);
        let path = dir.join(&name);
        match crate::formats::write_atomic(&path, svg.as_bytes()) {
            Ok(()) => Some(name),
            Err(error) => {
                crate::warning!("{error}");
                None
            }
        }
    });
    Some(Explained {
        benchmark: id.to_owned(),
        explanation,
        flamegraph,
    })
}

/// A benchmark id as a file name: `filter::passthrough/n8` -> `filter.passthrough.n8.svg`.
pub fn flamegraph_name(id: &str) -> String {
    let safe: String = id
        .replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '.'
            }
        })
        .collect();
    format!("{safe}.svg")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flame_graph_names_are_safe_file_names() {
        assert_eq!(
            flamegraph_name("filter::passthrough/n8"),
            "filter.passthrough.n8.svg"
        );
        assert_eq!(flamegraph_name("a::../../x"), "a.......x.svg");
    }
}
