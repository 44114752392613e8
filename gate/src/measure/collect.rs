//! Collecting counts: the suites to run, checked before anything is built; running them into
//! merged results; reading summaries or results taken elsewhere; writing results and their
//! per-function profiles.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::formats::{self, profiles, results, summary};
use crate::id::Origins;
use crate::measure::fingerprint;
use crate::measure::library::{Kind, Library};
use crate::measure::record;
use crate::measure::shard::Shard;
use crate::measure::suite;
use crate::measure::suite_run::{self, Settings};
use crate::measure::workspace::Workspace;
use crate::model::code::{CodeRecord, Keep};
use crate::model::{Processes, Results};
use crate::paths::Resolved;

/// Writes `results` where `paths` says, and says so.
pub fn write_results(paths: &Resolved, results: &Results) -> Result<()> {
    results::write(&paths.results, results)?;
    let from = if results.suites.is_empty() {
        String::new()
    } else {
        format!(" from {}", results.suites.join(", "))
    };
    crate::note!(
        "wrote {} ({} benchmarks{from})",
        paths.results.display(),
        results.benchmarks.len(),
    );
    Ok(())
}

/// Where the suites' runners wrote their files: `<home>/<package>/<bench>` for each suite that
/// ran, in the home of each library that ran them (its fingerprint's `library`:
/// `$GUNGRAUN_HOME` or `$IAI_CALLGRIND_HOME`, else `gungraun` or `iai` in the target directory).
/// The other library's home is not read: after a suite moved from iai-callgrind to gungraun (or
/// back), its old files there are another library's run.
pub fn runner_output(results: &Results, root: &Path) -> Vec<PathBuf> {
    let target = crate::paths::target_dir(root);
    let ran: Vec<&str> = results
        .fingerprint
        .library
        .split(", ")
        .filter_map(|library| library.split_whitespace().next())
        .collect();
    let homes: Vec<PathBuf> = [Kind::Gungraun, Kind::IaiCallgrind]
        .into_iter()
        .filter(|kind| ran.contains(&kind.crate_name()))
        .map(|kind| {
            crate::env::var_os(kind.home_env())
                .map_or_else(|| target.join(kind.default_home()), PathBuf::from)
        })
        .collect();
    suite_dirs(results, &homes)
}

/// When the run of `results` started (its fingerprint's date, to the second, taken before the
/// suites run); `None` when the date cannot be read. Summaries older than that are an earlier
/// run's, left in the library's home.
pub fn run_started(results: &Results) -> Option<std::time::SystemTime> {
    let date = chrono::DateTime::parse_from_rfc3339(&results.fingerprint.date).ok()?;
    let seconds = u64::try_from(date.timestamp()).ok()?;
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
}

/// `<home>/<package>/<bench>` for each suite of `results` and each of `homes`, where it exists.
/// The runner names the directory after the bench binary's crate name, whose `-` are `_`
/// (`rawzip-bench/rawzip_bench_gungraun` for the bench target `rawzip-bench-gungraun`).
pub fn suite_dirs(results: &Results, homes: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for suite in &results.suites {
        let crate_name = match suite.split_once('/') {
            Some((package, bench)) => format!("{package}/{}", bench.replace('-', "_")),
            None => suite.clone(),
        };
        for home in homes {
            for name in [suite, &crate_name] {
                let dir = home.join(name);
                if dir.is_dir() && !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs
}

/// Writes the per-function profiles of `results` beside them, read from the callgrind files in
/// `sources` (gungraun output directories) or from the profiles beside results files there. A
/// failure is a warning: profiles explain a verdict, they never decide one.
pub fn write_profiles(
    sources: &[PathBuf],
    paths: &Resolved,
    results: &Results,
    since: Option<std::time::SystemTime>,
) {
    let path = paths.profiles();
    let mut all = profiles::Profiles::default();
    for source in sources {
        let found = if source.is_dir() && !source.join(results::FILE_NAME).is_file() {
            profiles::collect(source, &paths.root, results, since)
        } else {
            let file = if source.is_dir() {
                source.join(results::FILE_NAME)
            } else {
                source.clone()
            };
            read_profiles(&Resolved {
                results: file,
                ..paths.clone()
            })
        };
        match found {
            Ok(found) => all.extend(found),
            Err(error) => crate::warning!("no per-function profiles: {error}"),
        }
    }
    all.retain(|id| results.benchmarks.contains_key(id));
    let written = if all.benchmarks.is_empty() && all.unreadable.is_empty() {
        formats::remove_if_present(&path)
    } else {
        profiles::write_run(&path, &all)
    };
    match written {
        Ok(()) if !all.benchmarks.is_empty() => crate::note!(
            "wrote {} (per-function profiles of {} benchmarks)",
            path.display(),
            all.benchmarks.len()
        ),
        Ok(()) => {}
        Err(error) => crate::warning!("{error}"),
    }
}

/// The profiles beside the results of `paths`, empty when there are none.
fn read_profiles(paths: &Resolved) -> Result<profiles::Profiles> {
    Ok(profiles::read_run(&paths.profiles())?.unwrap_or_default())
}

/// Writes the code record of a run beside its results (`paths`), and says what it holds.
pub fn write_code(paths: &Resolved, code: &CodeRecord) -> Result<()> {
    let path = paths.code_record();
    formats::code::write(&path, code)?;
    if !code.benchmarks.is_empty() || !code.unrecorded.is_empty() {
        crate::note!(
            "wrote {} (what {} benchmarks executed, {} without a record)",
            path.display(),
            code.benchmarks.len(),
            code.unrecorded.len()
        );
    }
    Ok(())
}

/// Which suites run, and how.
#[derive(Debug, Clone, Copy, Default)]
pub struct Selection<'a> {
    /// Only these suites (all when empty).
    pub suites: &'a [String],
    /// Cargo features added to each.
    pub features: &'a [String],
    /// How many benchmarks run at once (default: one per core).
    pub jobs: Option<NonZeroUsize>,
    /// Only the benchmarks of this shard.
    pub shard: Option<&'a Shard>,
    /// Benchmarks not to run: they run none of the changed code (`run --only-touched`).
    pub skip: Option<&'a BTreeSet<String>>,
    /// Also record what each benchmark's process executes (`run --record`): a second pass of
    /// every benchmark that ran.
    pub record: bool,
    /// With `record`: an earlier record whose entries a suite keeps instead of a second pass, when
    /// every benchmark of it that ran is one the record may keep ([`record::keeps`]).
    pub keep: Option<&'a Keep>,
}

impl Selection<'_> {
    /// The features asked for, sorted, each once: what results record.
    pub fn features(&self) -> Vec<String> {
        let mut features = self.features.to_vec();
        features.sort();
        features.dedup();
        features
    }

    /// How many benchmarks run at once: the number asked for, else one per core.
    pub fn jobs(&self) -> usize {
        self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            NonZeroUsize::get,
        )
    }
}

/// The suites to run and their libraries, checked before anything is built: valgrind is there,
/// every library is supported and its runner installed at the same version.
pub fn prepare(
    config: &Config,
    selection: &Selection,
    workspace: &Workspace,
) -> Result<Vec<(Suite, Library)>> {
    let mut suites = suite::select(suite::resolve(&config.suites, workspace)?, selection.suites)?;
    for suite in &mut suites {
        suite.features.extend(selection.features.iter().cloned());
    }
    // Said once per run: a run that builds for the code identity first, or measures two sides,
    // prepares the same suites again.
    static SAID: std::sync::Once = std::sync::Once::new();
    if config.suites.is_empty() {
        let names: Vec<String> = suites.iter().map(Suite::name).collect();
        SAID.call_once(|| {
            crate::note!(
                "gate.toml declares no [[suite]]: running the callgrind suites found in the \
                 workspace: {}",
                names.join(", ")
            );
        });
    }
    let prepared = suites
        .into_iter()
        .map(|suite| {
            let library = suite.library(workspace)?;
            Ok((suite, library))
        })
        .collect::<Result<Vec<_>>>()?;
    let valgrind = Command::new("valgrind").arg("--version").output();
    if !valgrind.is_ok_and(|out| out.status.success()) {
        return Err(Error::Tool(
            "valgrind is not installed: install your distribution's `valgrind` package \
             (Debian: apt-get install valgrind), or run the gate in the pinned image"
                .to_owned(),
        ));
    }
    for (i, (suite, library)) in prepared.iter().enumerate() {
        if let Some((other, _)) = prepared[..i]
            .iter()
            .find(|(_, l)| l.kind == library.kind && l.version != library.version)
        {
            return Err(Error::Tool(format!(
                "suites `{}` and `{}` use different versions of {}: one runner cannot serve both; \
                 run them separately with --suite and merge with --from",
                other.name(),
                suite.name(),
                library.kind.crate_name()
            )));
        }
        library.runner()?;
    }
    Ok(prepared)
}

/// Where a run builds and writes its files, when not where the workspace says.
#[derive(Debug, Clone)]
pub struct Place<'a> {
    /// Cargo's target directory.
    pub target: PathBuf,
    /// The library's output directory (`None`: the library's default, in `target`).
    pub home: Option<PathBuf>,
    /// Put before each progress line.
    pub label: &'a str,
}

impl Place<'_> {
    /// A directory of the run's own: cargo builds into `<dir>/target` and the library writes its
    /// output to `<dir>/home`.
    pub fn in_dir<'a>(dir: &Path, label: &'a str) -> Place<'a> {
        Place {
            target: dir.join("target"),
            home: Some(dir.join("home")),
            label,
        }
    }
}

/// Runs the selected suites once: their merged counts, built and written where `place` says
/// (else the workspace's target directory and the library's default), with the code record of
/// the build: the identity of the objects the suites built and, with `selection.record`, what
/// each benchmark that ran executed.
pub fn run_with_code(
    paths: &Resolved,
    config: &Config,
    selection: &Selection,
    filter: Option<&Filter>,
    place: Option<&Place>,
) -> Result<(Results, CodeRecord)> {
    let workspace = Workspace::load(&paths.root)?;
    let prepared = prepare(config, selection, &workspace)?;
    let libraries: Vec<Library> = prepared.iter().map(|(_, l)| l.clone()).collect();
    let tunables = suite_run::glibc_tunables();
    let scratch = workspace.target_dir.join("irgate");
    let build = suite_run::Build::new(config.measurement_build, &workspace.root)?
        .linked_for_identity(&scratch)?;
    let fingerprint = fingerprint::collect(&tunables, &paths.root, &libraries, build.describe())?;
    if fingerprint.aslr != "off" {
        crate::warning!(
            "ASLR could not be disabled (setarch -R failed); recorded as aslr={}",
            fingerprint.aslr
        );
    }
    let (target, home) = (
        place.map(|p| p.target.clone()),
        place.and_then(|p| p.home.clone()),
    );
    let settings = Settings {
        root: &workspace.root,
        scratch: &scratch,
        tunables: &tunables,
        dhat: config.needs_dhat(),
        filter,
        home: home.as_deref(),
        target: target.as_deref(),
        label: place.map_or("", |p| p.label),
        jobs: selection.jobs(),
        build: &build,
        shard: selection.shard,
        skip: selection.skip,
    };
    let mut benchmarks = BTreeMap::new();
    let mut durations_ms = BTreeMap::new();
    let mut process = Processes::default();
    let mut origins = Origins::default();
    let mut listed = Vec::new();
    let built = target
        .clone()
        .unwrap_or_else(|| workspace.target_dir.clone());
    let mut code = CodeRecord::default();
    let mut objects: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut executed: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    let mut kept = BTreeSet::new();
    for (suite, library) in &prepared {
        crate::note!("suite {} ({library})", suite.name());
        for artifact in linked(suite, library, &settings)? {
            if let Some(key) = record::object_key(&built, &artifact) {
                objects.insert(key, artifact);
            }
        }
        let run = suite_run::run(suite, library, &settings)?;
        listed.extend(run.listed);
        // The record pass counts the whole process, as callgrind does.
        let measured: BTreeMap<String, u64> = run
            .benchmarks
            .iter()
            .filter_map(|(id, counts)| {
                let ir = run.process.whole_count(id, IR, counts.get(IR).copied())?;
                Some((id.clone(), ir))
            })
            .collect();
        for (id, counts) in run.benchmarks {
            origins.insert(&id, format!("suite `{}`", suite.name()))?;
            benchmarks.insert(id, counts);
        }
        durations_ms.extend(run.durations_ms);
        process.extend(run.process);
        if let (true, false, Err(why)) = (selection.record, measured.is_empty(), library.records())
        {
            let why = format!(
                "suite `{}`: {why}, so its benchmarks always run",
                suite.name()
            );
            crate::warning!("no code record: {why}");
            for id in measured.keys() {
                code.unrecorded.insert(id.clone(), why.clone());
            }
        } else if let Some(keep) = selection.keep.filter(|keep| {
            selection.record
                && !measured.is_empty()
                && measured.keys().all(|id| {
                    benchmarks
                        .get(id)
                        .is_some_and(|counts| record::keeps(keep, id, counts, &objects))
                })
        }) {
            crate::note!(
                "suite {}: not recorded again: {} executed none of the code that changed since \
                 the baselines' record ({}) and counted the same Ir; their entries are kept",
                suite.name(),
                crate::text::plural(measured.len(), "benchmark"),
                crate::text::short_commit(&keep.record.commit)
            );
            kept.extend(measured.keys().cloned());
        } else if selection.record && !measured.is_empty() {
            let found = crate::measure::record_pass::record_suite(
                suite,
                library,
                &settings,
                &scratch,
                (&built, &workspace.root),
                &measured,
            )?;
            objects.extend(found.objects);
            for (key, addresses) in found.executed {
                executed.entry(key).or_default().extend(addresses);
            }
            code.benchmarks.extend(found.benchmarks);
            code.unrecorded.extend(found.unrecorded);
        }
    }
    // The data references of the code kept entries executed come from their record: an object
    // only they executed code of is read with none of its own.
    if let Some(keep) = selection.keep {
        for id in &kept {
            for key in keep.record.benchmarks[id].functions.keys() {
                executed.entry(key.clone()).or_default();
            }
        }
    }
    let (identities, failed) =
        record::identities(&objects, &record::roots(&workspace.root), &executed);
    // Only objects some benchmark executed matter (a dependency's shared object that nothing
    // loads, built without the workspace's link flags, is no one's concern).
    for (key, why) in failed.iter().filter(|(key, _)| executed.contains_key(*key)) {
        crate::warning!(
            "no code identity of {}: {}",
            crate::text::terminal(key),
            crate::text::terminal(why)
        );
    }
    code.objects = identities;
    if let Some(keep) = selection.keep {
        code.keep_from(&keep.record, &kept);
    }
    if selection.record {
        code.add_constructors();
        code.add_listing(
            &prepared
                .iter()
                .map(|(s, _)| s.bench.replace('-', "_"))
                .collect(),
            selection.keep.map(|keep| &keep.record),
        );
        code.mark_unknown(&failed);
        code.narrow_to_executed();
    }
    let matched_none = |f: &Filter| !listed.iter().any(|id| f.matches(id));
    if let Some(filter) = filter.filter(|f| benchmarks.is_empty() && matched_none(f)) {
        return Err(filter.matched_nothing(listed.iter().map(String::as_str)));
    }
    if let Some(shard) = selection.shard.filter(|_| benchmarks.is_empty()) {
        crate::note!(
            "shard {} holds no benchmark of the selection: its results are empty",
            shard.part
        );
    }
    // Each entry keeps the counts its run measured: it describes a baseline of these counts.
    for (id, executed) in &mut code.benchmarks {
        executed.counts = benchmarks.get(id).cloned().unwrap_or_default();
    }
    code.commit = fingerprint.commit.clone();
    code.identity = irgate_identity::VERSION;
    let results = Results {
        fingerprint,
        suites: prepared.iter().map(|(s, _)| s.name()).collect(),
        features: selection.features(),
        filters: filter.map(|f| vec![f.text.clone()]).unwrap_or_default(),
        benchmarks,
        durations_ms,
        carried: Vec::new(),
        shard: selection.shard.map(|shard| shard.part),
        process,
    };
    Ok((results, code))
}

/// The suite's artifacts ([`suite_run::artifacts`]), each executable linked for the code identity:
/// cargo does not rebuild for a new rustc wrapper, so an executable linked before irgate linked
/// it (no link map beside it) is removed and built again, once.
fn linked(suite: &Suite, library: &Library, settings: &Settings) -> Result<Vec<PathBuf>> {
    let artifacts = suite_run::artifacts(suite, library, settings)?;
    // Only executables: a shared object may be a dependency's, which cargo builds without the
    // workspace's wrapper (it has no map however often it is built; its identity is then
    // refused, and what executes it counts as touched).
    let stale: Vec<&PathBuf> = artifacts
        .iter()
        .filter(|a| a.extension().is_none_or(|e| e != "so"))
        .filter(|a| !crate::measure::link::map_path(a).is_file())
        .collect();
    if stale.is_empty() {
        return Ok(artifacts);
    }
    for artifact in &stale {
        std::fs::remove_file(artifact).map_err(|e| Error::write(artifact, e))?;
    }
    crate::note!(
        "linking {} again for the code identity (built before irgate linked it)",
        crate::text::plural(stale.len(), "artifact")
    );
    suite_run::artifacts(suite, library, settings)
}

/// Reads results (files, or directories holding results.json) and summary directories, and
/// merges them.
pub fn read_from(
    sources: &[PathBuf],
    root: &Path,
    config: &Config,
    filter: Option<&Filter>,
) -> Result<Results> {
    let mut parts = Vec::new();
    let (mut summaries, mut summary_sources) = (Vec::new(), Vec::new());
    for source in sources {
        let results_file = source.join(results::FILE_NAME);
        if source.is_file() && source.file_name() == Some(summary::FILE_NAME.as_ref()) {
            summaries.push(source.clone());
            summary_sources.push(source.clone());
        } else if source.is_file() {
            parts.push((source.display().to_string(), results::read(source)?));
        } else if results_file.is_file() {
            parts.push((
                results_file.display().to_string(),
                results::read(&results_file)?,
            ));
        } else if source.is_dir() {
            let found = summary::find(source)?;
            if found.is_empty() {
                return Err(Error::invalid(
                    source.display(),
                    "holds no summary.json and no results.json",
                ));
            }
            summaries.extend(found);
            summary_sources.push(source.clone());
        } else {
            return Err(Error::Read {
                path: source.clone(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
    }
    if !summaries.is_empty() {
        parts.push(read_summaries(&summary_sources, summaries, root, config)?);
    }
    let mut merged = results::merge(parts)?;
    if let Some(filter) = filter {
        let all: Vec<String> = merged.benchmarks.keys().cloned().collect();
        merged.benchmarks.retain(|id, _| filter.matches(id));
        merged.process.retain(|id| filter.matches(id));
        if merged.benchmarks.is_empty() {
            return Err(filter.matched_nothing(all.iter().map(String::as_str)));
        }
        if merged.filters.is_empty() {
            merged.filters = vec![filter.text.clone()];
        }
    }
    Ok(merged)
}

/// Summaries as one results part. Summaries record no environment, so this machine's is recorded,
/// with the libraries of the workspace's suites and the build gate.toml asks for; a summary's suite is the one whose package and
/// bench target name its directory (`<home>/<package>/<bench>/...`).
fn read_summaries(
    sources: &[PathBuf],
    summaries: Vec<PathBuf>,
    root: &Path,
    config: &Config,
) -> Result<(String, Results)> {
    crate::note!(
        "read {} summaries; they record no environment, so this machine's is recorded \
         with them",
        summaries.len()
    );
    let known: Vec<(Suite, Library)> = Workspace::load(root)
        .and_then(|ws| {
            suite::resolve(&config.suites, &ws)?
                .into_iter()
                .map(|s| {
                    let library = s.library(&ws)?;
                    Ok((s, library))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut benchmarks = BTreeMap::new();
    let mut durations_ms = BTreeMap::new();
    let mut process = Processes::default();
    let mut origins = Origins::default();
    let mut suites: Vec<String> = Vec::new();
    let mut libraries: Vec<Library> = Vec::new();
    for path in summaries {
        let measurement = summary::read(&path)?;
        origins.insert(&measurement.id, path.display().to_string())?;
        let components: Vec<String> = path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let owner = known.iter().find(|(s, _)| {
            components
                .windows(2)
                .any(|w| w[0] == s.package && w[1] == s.bench)
        });
        if let Some((suite, library)) = owner
            && !suites.contains(&suite.name())
        {
            suites.push(suite.name());
            libraries.push(library.clone());
        }
        if let Some(ms) = measurement.duration_ms {
            durations_ms.insert(measurement.id.clone(), ms);
        }
        let counts = profiles::gated(&measurement, &mut process);
        benchmarks.insert(measurement.id, counts);
    }
    let origin = sources
        .iter()
        .map(|s| s.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let results = Results {
        fingerprint: fingerprint::collect(
            &suite_run::glibc_tunables(),
            root,
            &libraries,
            suite_run::Build::new(config.measurement_build, root)?.describe(),
        )?,
        suites,
        features: Vec::new(),
        filters: Vec::new(),
        benchmarks,
        durations_ms,
        carried: Vec::new(),
        shard: None,
        process,
    };
    Ok((origin, results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bench_target_with_hyphens_is_found_under_its_crate_name() {
        let home = tempfile::tempdir().unwrap();
        // The runner's directories: the package as it is, the bench target as a crate name.
        std::fs::create_dir_all(home.path().join("rawzip-bench/rawzip_bench_gungraun")).unwrap();
        std::fs::create_dir_all(home.path().join("codec/callgrind")).unwrap();
        let results = Results {
            suites: vec![
                "rawzip-bench/rawzip-bench-gungraun".into(),
                "codec/callgrind".into(),
                "gone/missing".into(),
            ],
            ..Results::default()
        };
        assert_eq!(
            suite_dirs(&results, &[home.path().to_path_buf()]),
            [
                home.path().join("rawzip-bench/rawzip_bench_gungraun"),
                home.path().join("codec/callgrind"),
            ]
        );
    }

    /// Copies the fixture gungraun output `profiled/base` into `to`, every file dated `mtime`.
    fn output(to: &Path, mtime: std::time::SystemTime) -> Results {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiled/base");
        let mut results = Results::default();
        let mut stack = vec![from.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let copy = to.join(path.strip_prefix(&from).unwrap());
                if path.is_dir() {
                    std::fs::create_dir_all(&copy).unwrap();
                    stack.push(path);
                    continue;
                }
                std::fs::copy(&path, &copy).unwrap();
                std::fs::File::options()
                    .write(true)
                    .open(&copy)
                    .unwrap()
                    .set_modified(mtime)
                    .unwrap();
                if copy.file_name() == Some(summary::FILE_NAME.as_ref()) {
                    let m = summary::read(&copy).unwrap();
                    results.benchmarks.insert(m.id, m.counts);
                }
            }
        }
        results
    }

    #[test]
    fn only_the_home_of_the_library_that_ran_is_read() {
        if ["GUNGRAUN_HOME", "IAI_CALLGRIND_HOME", "CARGO_TARGET_DIR"]
            .iter()
            .any(|var| std::env::var_os(var).is_some())
        {
            return; // The homes are elsewhere.
        }
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        for home in ["gungraun", "iai"] {
            std::fs::create_dir_all(target.join(home).join("benches/callgrind")).unwrap();
        }
        let mut results = Results {
            suites: vec!["benches/callgrind".to_owned()],
            ..Results::default()
        };
        results.fingerprint.library = "gungraun 0.20.0".to_owned();
        assert_eq!(
            runner_output(&results, dir.path()),
            [target.join("gungraun/benches/callgrind")]
        );
        results.fingerprint.library = "iai-callgrind 0.16.1".to_owned();
        assert_eq!(
            runner_output(&results, dir.path()),
            [target.join("iai/benches/callgrind")]
        );
        results.fingerprint.library = "gungraun 0.20.0, iai-callgrind 0.16.1".to_owned();
        assert_eq!(runner_output(&results, dir.path()).len(), 2);
    }

    #[test]
    fn summaries_older_than_the_run_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
        let mut results = output(dir.path(), long_ago);
        assert_eq!(results.benchmarks.len(), 2);
        let all = profiles::collect(dir.path(), dir.path(), &results, None).unwrap();
        assert_eq!(all.benchmarks.len(), 2);
        results.fingerprint.date = "2026-11-26T23:00:00Z".to_owned();
        let since = run_started(&results);
        assert!(since.is_some());
        let fresh = profiles::collect(dir.path(), dir.path(), &results, since).unwrap();
        assert!(fresh.benchmarks.is_empty(), "{:?}", fresh.benchmarks.keys());
        assert!(fresh.unreadable.is_empty());
    }
}
