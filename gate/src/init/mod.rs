//! What `irgate init` sets up in a workspace ([`set_up`]): its suites and their libraries, a check
//! that nothing would be overwritten, the suites' first run (recording what each benchmark
//! executed, as `irgate run --record` does) with the budget it suggests, the
//! reproducibility check, and the files to write (gate.toml, and with `ci` the workflows and the
//! image pins). Nothing is written here: the command writes [`Setup::files`].

pub mod setup;
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::calibrate::{self, Calibration, Spread, Variant};
use crate::config::Config;
use crate::config::budgets::DEFAULT_BUDGET;
use crate::config::initial::{calibrated_budget, gate_toml, uncalibrated_budget};
use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::init::setup::ci_files;
use crate::measure::collect;
use crate::measure::library::Library;
use crate::measure::suite;
use crate::measure::workspace::Workspace;
use crate::model::Results;
use crate::model::code::CodeRecord;
use crate::paths::{CONFIG_FILE, Paths};

/// What `irgate init` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Also write the GitHub workflows and the image pins.
    pub ci: bool,
    /// Run the suites once to choose the budget from their sizes.
    pub run: bool,
    /// Also calibrate (with `run`): is the build reproducible?
    pub calibrate: bool,
    /// Overwrite files that exist.
    pub force: bool,
    /// The branch the history workflow records (default: the repository's default branch).
    pub default_branch: Option<String>,
}

/// The reproducibility check as `init` ran it.
#[derive(Debug, Clone)]
pub struct Calibrated {
    /// Its calibration.
    pub calibration: Calibration,
    /// The counts of its first build (a copy of the tree at a path of the checkout's length).
    pub copy: Option<Results>,
    /// How long it took, in seconds.
    pub seconds: f64,
}

/// The code record `irgate init` leaves for `irgate refresh`, as its next steps tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recording {
    /// Every benchmark was recorded (or, not run, every suite's library records).
    Every,
    /// Some benchmarks have no record, by id with why: they run on every change.
    Partial(BTreeMap<String, String>),
    /// No benchmark can be recorded, and why: `--only-touched` runs everything.
    Nothing(String),
}

/// What `irgate init` found, measured and would write.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The workspace root.
    pub root: PathBuf,
    /// The suites found, with their libraries.
    pub suites: Vec<(Suite, Library)>,
    /// The checkout's counts, when the suites were run.
    pub ran: Option<Results>,
    /// What the code record can hold: the record that run took, or what the suites' libraries
    /// allow when they were not run.
    pub recording: Recording,
    /// The reproducibility check, when it ran.
    pub calibrated: Option<Calibrated>,
    /// The files to write, with their text: gate.toml first.
    pub files: Vec<(PathBuf, String)>,
    /// What the user should know about the CI files.
    pub notes: Vec<String>,
    /// The branch the history workflow records, with `ci`.
    pub branch: Option<String>,
}

/// Sets up the workspace of `cwd` as `request` asks, short of writing: `found` hears of the suites
/// before anything is checked or run. Fails, before running anything, when a file it would write
/// exists and `force` is not set.
pub fn set_up(
    cwd: &Path,
    request: &Request,
    found: impl FnOnce(&Path, &[(Suite, Library)]),
) -> Result<Setup> {
    let workspace = Workspace::load(cwd)?;
    let root = workspace.root.clone();
    let suites = suite::resolve(&[], &workspace)?
        .into_iter()
        .map(|s| {
            let library = s.library(&workspace)?;
            Ok((s, library))
        })
        .collect::<Result<Vec<(Suite, Library)>>>()?;
    found(&root, &suites);
    let libraries: Vec<Library> = suites.iter().map(|(_, l)| l.clone()).collect();
    let only_suites: Vec<Suite> = suites.iter().map(|(s, _)| s.clone()).collect();

    // Everything that can be checked is checked before the suites are built and run.
    let ci = if request.ci {
        Some(ci_files(
            &root,
            &libraries,
            request.default_branch.as_deref(),
        )?)
    } else {
        None
    };
    let mut planned = vec![root.join(CONFIG_FILE)];
    planned.extend(
        ci.iter()
            .flat_map(|c| c.files.iter().map(|(path, _)| path.clone())),
    );
    if !request.force
        && let Some(existing) = planned.iter().find(|path| path.exists())
    {
        return Err(Error::Tool(format!(
            "{} exists: irgate is set up here already, and init does not overwrite it (--force \
             does); nothing was run or written",
            existing.display()
        )));
    }

    let mut config = Config::default();
    config.suites = only_suites.clone();
    let (ran, calibrated) = if request.run {
        // The paths are resolved once, when the suites are run (and calibrated).
        let paths = Paths::default().resolve()?;
        // A recording run, as `irgate run --record`: `irgate refresh` then takes the baselines
        // with the code record that `--only-touched` and the change map need.
        let selection = collect::Selection {
            record: true,
            ..collect::Selection::default()
        };
        crate::measure::take::write((&paths, &config, &selection), None, (None, &[]), None)?;
        let results = crate::formats::results::read(&paths.results)?;
        let record = crate::formats::code::read(&paths.code_record())?.unwrap_or_default();
        let calibrated = if request.calibrate {
            Some(reproducibility(&config, &paths)?)
        } else {
            None
        };
        (Some((results, record)), calibrated)
    } else {
        (None, None)
    };
    let recording = recording(ran.as_ref().map(|(_, record)| record), &suites);
    let ran = ran.map(|(results, _)| results);
    let (limit, why) = match (&calibrated, &ran) {
        (Some(c), _) => {
            let suggested: Vec<u64> = c
                .calibration
                .spreads
                .iter()
                .map(Spread::suggested)
                .collect();
            calibrated_budget(&suggested)
        }
        (None, Some(_)) => uncalibrated_budget(),
        (None, None) => (
            DEFAULT_BUDGET,
            "the default (the suites were not run: --no-run)".to_owned(),
        ),
    };
    let mut config_text = gate_toml(&only_suites, &limit, &why);
    if let Some(c) = &calibrated {
        // Benchmarks whose build is not reproducible are written as `info`, with why: the first
        // gate passes on them, and the comment says what to fix.
        config_text =
            calibrate::write_budgets(&config_text, &root.join(CONFIG_FILE), &c.calibration, true)?;
    }
    let mut files = vec![(root.join(CONFIG_FILE), config_text)];
    let (mut notes, mut branch) = (Vec::new(), None);
    if let Some(ci) = ci {
        files.extend(ci.files);
        notes.extend(ci.notes);
        branch = Some(ci.branch);
    }
    Ok(Setup {
        root,
        suites,
        ran,
        recording,
        calibrated,
        files,
        notes,
        branch,
    })
}

/// What the code record holds after init's run (`record`), or, not run, what the `suites`'
/// libraries allow.
fn recording(record: Option<&CodeRecord>, suites: &[(Suite, Library)]) -> Recording {
    match record {
        Some(record) if record.benchmarks.is_empty() => {
            Recording::Nothing(crate::select::text::empty_record("the run's", record))
        }
        Some(record) if !record.unrecorded.is_empty() => {
            Recording::Partial(record.unrecorded.clone())
        }
        Some(_) => Recording::Every,
        None => {
            let refused: Vec<String> = suites
                .iter()
                .filter_map(|(suite, library)| {
                    let why = library.records().err()?;
                    Some(format!("suite `{}`: {why}", suite.name()))
                })
                .collect();
            if !suites.is_empty() && refused.len() == suites.len() {
                Recording::Nothing(refused.join("; "))
            } else {
                Recording::Every
            }
        }
    }
}

/// Calibration as `init` runs it: the reproducibility check alone, the working tree built twice
/// from nothing at one path of the checkout's length and run ([`Variant::REPRODUCIBILITY`]),
/// compared by count and by the code identity of the functions each benchmark executed. The
/// perturbed builds (`version`, `unrelated`) moved no count of the measurement build (0 of 132
/// here, 0 of 24 in the layout fixture: docs/calibration.md), and with exact selection a
/// benchmark that runs none of a change's code is held to the address budget (`[layout]`)
/// anyway, so `init` leaves them to `irgate calibrate`.
fn reproducibility(config: &Config, paths: &crate::paths::Resolved) -> Result<Calibrated> {
    let started = std::time::Instant::now();
    crate::note!(
        "init: calibrating: is the build reproducible? The workspace's packages built twice more \
         from nothing (the dependencies as this build left them), at a path as long as this \
         checkout's, and run (skip: --no-calibrate, then `irgate calibrate --write` any time)"
    );
    let builds = calibrate::measure(
        paths,
        config,
        &collect::Selection::default(),
        Variant::REPRODUCIBILITY,
    )?;
    let calibration = Calibration::of(&builds)?;
    let copy = builds.first().map(|b| b.results.clone());
    Ok(Calibrated {
        calibration,
        copy,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(version: &str) -> (Suite, Library) {
        let suite = Suite {
            package: "p".into(),
            bench: "b".into(),
            features: Vec::new(),
            args: Vec::new(),
        };
        let version = semver::Version::parse(version).unwrap();
        (
            suite,
            Library::from_crate("iai-callgrind", &version).unwrap(),
        )
    }

    #[test]
    fn init_promises_a_record_only_where_one_can_be_taken() {
        // Not run: what the libraries allow.
        assert_eq!(recording(None, &[suite("0.16.1")]), Recording::Every);
        let Recording::Nothing(why) = recording(None, &[suite("0.13.4")]) else {
            panic!("iai-callgrind 0.13 cannot be recorded");
        };
        assert!(
            why.starts_with("suite `p/b`: iai-callgrind 0.13.4's runner"),
            "{why}"
        );
        assert_eq!(
            recording(None, &[suite("0.13.4"), suite("0.14.2")]),
            Recording::Every
        );
        // Run: what the record holds.
        let mut record = CodeRecord::default();
        record
            .unrecorded
            .insert("g::f/a".into(), "it measured 0 Ir".into());
        let Recording::Nothing(why) = recording(Some(&record), &[]) else {
            panic!("an empty record records nothing");
        };
        assert_eq!(
            why,
            "the run's code record holds no benchmark, and taking it again gives the same: it \
             measured 0 Ir (`g::f/a`)"
        );
        record
            .benchmarks
            .insert("g::f/b".into(), crate::model::code::Executed::default());
        assert_eq!(
            recording(Some(&record), &[]),
            Recording::Partial(record.unrecorded.clone())
        );
        record.unrecorded.clear();
        assert_eq!(recording(Some(&record), &[]), Recording::Every);
    }
}
