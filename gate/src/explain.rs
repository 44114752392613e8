//! Where the instructions went: the per-function explanation of a benchmark's change, attached
//! to every benchmark over budget by `irgate check` and given for any benchmark by
//! `irgate explain BENCH`, with a differential flame graph (SVG) per explained benchmark.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use irgate_callgrind::{Explanation, Kind, Profile, explain, flame};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::formats::profiles::{self, Profiles};
use crate::measure::paths::Resolved;
use crate::model::{Report, Status};
use crate::render::Format;
use crate::text::{plural, signed, signed_delta, terminal, thousands};

/// The most functions listed per benchmark; the rest is summed as one line.
pub const MOVERS: usize = 8;

/// The directory, beside the results file, that `irgate check` writes flame graphs to.
pub const FLAMEGRAPH_DIR: &str = "flamegraphs";

/// The explanations a report carries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribution {
    /// One per explained benchmark, in the report's row order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explanations: Vec<Explained>,
    /// Why benchmarks over budget are not explained, when they are not (one line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation_note: Option<String>,
    /// Where the flame graphs can be downloaded (the measuring workflow run's page): set by
    /// `irgate comment` from `IRGATE_ARTIFACTS_URL`, never read from a report.
    #[serde(skip)]
    pub artifacts_url: Option<String>,
    /// The published dashboard (`irgate history render`): failing benchmarks link to their
    /// charts there. Set by `--dashboard-url`, never read from a report.
    #[serde(skip)]
    pub dashboard_url: Option<String>,
}

/// The flame graph link from `IRGATE_ARTIFACTS_URL`, when it is a plain `https://` URL.
pub fn artifacts_url_from_env() -> Option<String> {
    let url = std::env::var("IRGATE_ARTIFACTS_URL").ok()?;
    crate::render::is_plain_https(&url).then_some(url)
}

/// One benchmark's explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explained {
    /// The benchmark id.
    pub benchmark: String,
    /// Where its Ir went.
    #[serde(flatten)]
    pub explanation: Explanation,
    /// The differential flame graph's file name, in the flame graph directory (the CI
    /// artifact), when one was drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flamegraph: Option<String>,
}

/// The note given when the baselines carry no profiles.
pub const NO_BASELINE_PROFILES: &str = "no per-function profile in the baselines, so no \
    explanation of where the instructions went: `irgate run && irgate refresh`, where the \
    baselines are taken, stores them in baselines/profiles/";

/// Where the profiles a run is compared with are.
#[derive(Debug, Clone, Copy)]
pub enum BaseProfiles<'a> {
    /// The baselines directory (its `profiles/`).
    Baselines(&'a Path),
    /// The base side's results of `irgate run --base` (A/B): the profiles beside them.
    Run(&'a Path),
}

/// The most benchmarks a note names with the reason they are not explained.
const NOTE_NAMES: usize = 5;

/// Attaches an explanation to every benchmark over budget in `report`, from the run's profiles
/// (beside `results`) and `base`'s; draws their flame graphs into `flamegraph_dir`. Missing
/// profiles leave a note saying which benchmarks and why, never an error: the verdict stands
/// without them.
pub fn attach(report: &mut Report, results: &Path, base: BaseProfiles, flamegraph_dir: &Path) {
    let failing: Vec<(String, Option<u64>, Option<u64>)> = report
        .rows
        .iter()
        .filter(|r| {
            r.status == Status::OverBudget && r.metric == profiles::EVENT && r.since.is_none()
        })
        .map(|r| (r.benchmark.clone(), r.baseline, r.new))
        .collect();
    if failing.is_empty() {
        return;
    }
    let (run, base_profiles) = match load(results, base) {
        Ok(both) => both,
        Err(note) => {
            report.attribution.explanation_note = Some(note);
            return;
        }
    };
    let mut missing = Vec::new();
    for (id, old, new) in failing {
        match unexplained(&id, (old, new), &run, &base_profiles, base) {
            Some(reason) => missing.push(format!("{id}: {reason}")),
            None => report.attribution.explanations.extend(explain_one(
                &id,
                &run,
                &base_profiles,
                Some(flamegraph_dir),
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
    results: &Path,
    base: BaseProfiles,
) -> Result<(Profiles, BTreeMap<String, Profile>), String> {
    let read = |results: &Path| {
        let path = profiles::run_path(results);
        match profiles::read_run(&path) {
            Ok(Some(run)) => Ok(run),
            Ok(None) => Err(format!(
                "no per-function profiles beside the results ({}): `irgate run` writes them",
                path.display()
            )),
            Err(error) => Err(format!("per-function profiles unreadable: {error}")),
        }
    };
    let run = read(results)?;
    let base = match base {
        BaseProfiles::Run(base_results) => read(base_results)?.benchmarks,
        BaseProfiles::Baselines(dir) => match profiles::load_baseline(dir) {
            Ok(base) if base.is_empty() => return Err(NO_BASELINE_PROFILES.to_owned()),
            Ok(base) => base,
            Err(error) => return Err(format!("baseline profiles unreadable: {error}")),
        },
    };
    Ok((run, base))
}

/// Explains one benchmark; `None` when either side has no profile of it.
fn explain_one(
    id: &str,
    run: &Profiles,
    base: &BTreeMap<String, Profile>,
    flamegraph_dir: Option<&Path>,
) -> Option<Explained> {
    let (old, new) = (base.get(id)?, run.benchmarks.get(id)?);
    let explanation = explain(old, new, MOVERS);
    let flamegraph = flamegraph_dir.and_then(|dir| {
        let stacks = run.stacks.get(id)?;
        let title = format!("{id}: {} Ir", signed(explanation.delta()));
        let svg = match flame::differential_svg(stacks, old, new, &title) {
            Ok(svg) => svg,
            Err(error) => {
                eprintln!(
                    "irgate: warning: no flame graph of {id}: {}",
                    terminal(&error.to_string())
                );
                return None;
            }
        };
        let name = flamegraph_name(id);
        let path = dir.join(&name);
        match crate::formats::write_atomic(&path, svg.as_bytes()) {
            Ok(()) => Some(name),
            Err(error) => {
                eprintln!("irgate: warning: {error}");
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

/// The flame graph directory for a results file.
pub fn flamegraph_dir(results: &Path) -> PathBuf {
    results.with_file_name(FLAMEGRAPH_DIR)
}

/// `irgate explain BENCH`: prints where the benchmark's instructions went between the baseline
/// profile and the latest run's, in `format`, and draws its flame graph. Exit 0, or an error
/// (exit 2) when either side has no profile of it.
pub fn execute(benchmark: &str, paths: &Resolved, format: Format) -> Result<ExitCode> {
    let run_path = profiles::run_path(&paths.results);
    let run = profiles::read_run(&run_path)?.ok_or_else(|| {
        Error::invalid(
            run_path.display(),
            "no per-function profiles: run `irgate run` first",
        )
    })?;
    let base = profiles::load_baseline(&paths.baselines)?;
    let known = || {
        run.benchmarks
            .keys()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(reason) = run.unreadable.get(benchmark) {
        return Err(Error::invalid(
            run_path.display(),
            format!("no profile of `{benchmark}`: its callgrind file could not be read: {reason}"),
        ));
    }
    if !run.benchmarks.contains_key(benchmark) {
        return Err(Error::UnknownBenchmark {
            filter: benchmark.to_owned(),
            known: known(),
        });
    }
    if !base.contains_key(benchmark) {
        return Err(Error::invalid(
            paths.baselines.join(profiles::BASELINE_DIR).display(),
            format!("no baseline profile of `{benchmark}`: {NO_BASELINE_PROFILES}"),
        ));
    }
    let dir = flamegraph_dir(&paths.results);
    let explained = explain_one(benchmark, &run, &base, Some(&dir)).expect("both sides checked");
    let text = match format {
        Format::Table => text(&explained, ""),
        Format::Markdown => crate::render::markdown::explanation(&explained, None),
        Format::Json => {
            let mut json = crate::formats::report::inert(
                &serde_json::to_string_pretty(&explained).expect("serializes"),
            );
            json.push('\n');
            json
        }
    };
    print!("{text}");
    if let (Format::Table, Some(name)) = (format, &explained.flamegraph) {
        println!("differential flame graph: {}", dir.join(name).display());
    }
    Ok(ExitCode::SUCCESS)
}

/// What a mover's kind adds to its name, e.g. `renamed from old` (empty for a plain change).
pub fn kind_note(kind: &Kind) -> String {
    match kind {
        Kind::Changed => String::new(),
        Kind::Added { .. } => "new".to_owned(),
        Kind::Removed => "gone".to_owned(),
        Kind::Renamed { from } => format!("renamed from {from}"),
        Kind::Inlined { inlined } => format!("now inlines {}", inlined.join(", ")),
        Kind::Outlined { outlined } => format!("no longer inlines {}", outlined.join(", ")),
        Kind::InlinedInto { host } => format!("inlined into {host}"),
    }
}

/// The explanation as indented text, each line prefixed by `indent`.
pub fn text(explained: &Explained, indent: &str) -> String {
    let e = &explained.explanation;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{indent}where the {} Ir of {} went (self Ir by function):",
        signed(e.delta()),
        terminal(&explained.benchmark)
    );
    let show_inclusive = e.movers.iter().any(|m| m.inclusive_delta() != m.delta());
    let mut lines = vec![
        [
            "function",
            "baseline",
            "new",
            "change",
            "incl. change",
            "file",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for m in &e.movers {
        let mut name = terminal(&m.function).into_owned();
        let note = kind_note(&m.kind);
        if !note.is_empty() {
            let _ = write!(name, " ({})", terminal(&note));
        }
        if m.outside_main {
            let _ = write!(name, " ({OUTSIDE_MAIN})");
        }
        let mut file = terminal(&m.file).into_owned();
        if let Some((from, delta)) = m.inlined_from.first() {
            let _ = write!(
                file,
                "; {} of it inlined from {}",
                signed(*delta),
                terminal(from)
            );
        }
        if let Kind::Added { called_from } = &m.kind
            && !called_from.is_empty()
        {
            let _ = write!(file, "; called from {}", terminal(&called_from.join(", ")));
        }
        let count = |n: u64, present: bool| {
            if present {
                thousands(n)
            } else {
                "-".to_owned()
            }
        };
        lines.push(vec![
            name,
            count(m.base_self, !matches!(m.kind, Kind::Added { .. })),
            count(m.new_self, !matches!(m.kind, Kind::Removed)),
            signed(m.delta()),
            signed(m.inclusive_delta()),
            file,
        ]);
    }
    let rest = e.rest;
    lines.extend(
        (rest.functions > 0 || rest.base > 0 || rest.new > 0).then(|| {
            vec![
                format!("everything else ({})", plural(e.rest.functions, "function")),
                thousands(e.rest.base),
                thousands(e.rest.new),
                signed(signed_delta(e.rest.new, e.rest.base)),
                String::new(),
                String::new(),
            ]
        }),
    );
    lines.extend(e.unattributed.map(|u| {
        vec![
            UNATTRIBUTED.to_owned(),
            thousands(u.base),
            thousands(u.new),
            signed(signed_delta(u.new, u.base)),
            String::new(),
            String::new(),
        ]
    }));
    if !show_inclusive {
        for line in &mut lines {
            line.remove(4);
        }
    }
    let last_number = if show_inclusive { 4 } else { 3 };
    for line in crate::text::align(&lines, |i| (1..=last_number).contains(&i)).lines() {
        let _ = writeln!(out, "{indent}  {line}");
    }
    for i in &e.inclusive {
        let _ = writeln!(
            out,
            "{indent}  inclusive: {} {} -> {} ({}, of which self {})",
            terminal(&i.function),
            thousands(i.base),
            thousands(i.new),
            signed(signed_delta(i.new, i.base)),
            signed(i.self_delta)
        );
    }
    out
}

/// What a function outside the program's `main` is, in a whole-program run.
pub const OUTSIDE_MAIN: &str = "outside main: process start-up or exit";

/// The label of the line of cost outside any function.
pub const UNATTRIBUTED: &str = "no function (callgrind's count before the program's first function, \
     outside the total)";

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
