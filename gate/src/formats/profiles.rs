//! Per-function profiles: where each benchmark's instructions go, function by function.
//!
//! `irgate run` reads the callgrind output files gungraun writes next to each summary
//! (`callgrind.<function>.<id>.out`), reduces each benchmark to self and inclusive Ir per
//! function ([`irgate_callgrind::Profile`], functions under 0.05% of the total left out; the
//! cost of code inlined into a function split by the project's own inlined function, read from
//! the benchmark binary's line tables at the instruction addresses callgrind records) and
//! writes them beside the results, with the call stacks the flame graphs are drawn from:
//! `target/irgate/results.profiles.json` for `target/irgate/results.json`. `irgate refresh` keeps
//! the profiles next to the accepted counts, one file per group, without the stacks:
//!
//! ```json
//! {
//!   "schema_version": 2,
//!   "event": "Ir",
//!   "benchmarks": {
//!     "filter::passthrough/n8": {
//!       "total": 122,
//!       "floor": 1,
//!       "functions": {
//!         "codec::filter::Chain::apply": {
//!           "file": "codec/src/filter.rs", "self": 40, "inclusive": 56,
//!           "callers": ["callgrind::filter::passthrough"]
//!         }
//!       }
//!     }
//!   }
//! }
//! ```
//!
//! in `baselines/profiles/<group>.json` (the baseline loader reads only `baselines/*.json`).
//! Keys are sorted, so a refresh's diff shows which functions moved. A benchmark whose callgrind
//! file cannot be read (cut off, corrupt, too large, of another run) has no profile: the run's
//! file says why under `unreadable` (benchmark id: reason), and only that benchmark goes
//! unexplained. Schema 2 added `unattributed` (a profile's cost outside any function) and
//! `unreadable`; files of schema 1 are still read.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufReader;
use std::path::{Path, PathBuf};

use irgate_callgrind::{FLOOR_PARTS, Options, Profile, flame, normalize_file};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::formats::{self, baseline::group_of, summary, unique::map as unique};
use crate::model::{Counts, Processes, Results};

/// The schema version of profile files this irgate writes.
pub const SCHEMA_VERSION: u32 = 2;

/// The older schema version this irgate still reads (no `unattributed`, no `unreadable`).
const SCHEMA_VERSION_1: u32 = 1;

/// The event profiles are taken of.
pub const EVENT: &str = "Ir";

/// The subdirectory of the baseline directory that holds the baseline profiles.
pub const BASELINE_DIR: &str = "profiles";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    schema_version: u32,
    event: String,
    #[serde(deserialize_with = "unique")]
    benchmarks: BTreeMap<String, Profile>,
    /// Per benchmark, Ir per call stack (`a;b;c`): only in a run's file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(deserialize_with = "unique")]
    stacks: BTreeMap<String, BTreeMap<String, u64>>,
    /// Why a benchmark of the run has no profile: only in a run's file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(deserialize_with = "unique")]
    unreadable: BTreeMap<String, String>,
}

/// The profiles of a run (or of the baselines, then without stacks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profiles {
    /// Compact profile by benchmark id.
    pub benchmarks: BTreeMap<String, Profile>,
    /// Ir per call stack by benchmark id (a run's only), for flame graphs.
    pub stacks: BTreeMap<String, BTreeMap<String, u64>>,
    /// Why a benchmark has no profile, by benchmark id (a run's only).
    pub unreadable: BTreeMap<String, String>,
}

impl Profiles {
    /// Adds `other`'s profiles, stacks and reasons.
    pub fn extend(&mut self, other: Profiles) {
        self.benchmarks.extend(other.benchmarks);
        self.stacks.extend(other.stacks);
        self.unreadable.extend(other.unreadable);
    }

    /// Keeps only the benchmarks `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.benchmarks.retain(|id, _| keep(id));
        self.stacks.retain(|id, _| keep(id));
        self.unreadable.retain(|id, _| keep(id));
    }

    /// No profile and no reason.
    pub fn is_empty(&self) -> bool {
        self.benchmarks.is_empty() && self.unreadable.is_empty()
    }
}

/// Reads the profiles and coverage records of every benchmark of `results` from the callgrind
/// files under `dir` (a gungraun output directory), with source paths relative to `root`. A
/// benchmark whose files cannot be read, or whose callgrind total is not its counted Ir (a file
/// left from another run), gets no profile and no record but a reason, with a warning: the
/// others keep theirs.
///
/// With `since` (a run here), a summary written before it is skipped: an earlier run's, left in
/// the library's home (a benchmark of this run that wrote no new one then has no profile).
pub fn collect(
    dir: &Path,
    root: &Path,
    results: &Results,
    since: Option<std::time::SystemTime>,
) -> Result<Profiles> {
    let mut profiles = Profiles::default();
    let mut objects = irgate_callgrind::inline::Objects::default();
    let stale = |path: &Path| {
        since.is_some_and(|since| {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .is_ok_and(|modified| modified < since)
        })
    };
    for summary_path in summary::find(dir)? {
        if stale(&summary_path) {
            continue;
        }
        let id = summary::read(&summary_path)?.id;
        // A binary benchmark's callgrind files hold its whole process.
        let counted = results.benchmarks.get(&id).and_then(|c| c.get(EVENT));
        let Some(ir) = results.process.whole_count(&id, EVENT, counted.copied()) else {
            continue;
        };
        let bench_dir = summary_path.parent().unwrap_or(dir);
        match benchmark(bench_dir, root, ir, &mut objects) {
            Ok(None) => {}
            Ok(Some(Profiled { profile, stacks })) => {
                profiles
                    .benchmarks
                    .insert(id.clone(), profile.compact(FLOOR_PARTS));
                profiles.stacks.insert(id, stacks);
            }
            Err(reason) => {
                let reason = printable(&reason);
                crate::warning!("no per-function profile of {id}: {reason}");
                profiles.unreadable.insert(id, reason);
            }
        }
    }
    Ok(profiles)
}

/// A benchmark's profile and its Ir per call stack.
struct Profiled {
    profile: Profile,
    stacks: BTreeMap<String, u64>,
}

/// One benchmark's profile and call stacks from the callgrind files in `dir`,
/// whose total must be `ir` (`objects`: the debug information read so far); `None` when there is
/// no callgrind file, the reason when they cannot be used.
fn benchmark(
    dir: &Path,
    root: &Path,
    ir: u64,
    objects: &mut irgate_callgrind::inline::Objects,
) -> Result<Option<Profiled>, String> {
    let root_text = root.to_string_lossy();
    // Inlined code charged to the project's own inlined function, not its host.
    let own = format!("{}/", root_text.trim_end_matches('/'));
    let mut options = Options::default();
    options.event = Some(EVENT.to_owned());
    let mut merged: Option<Profile> = None;
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    for file in callgrind_files(dir).map_err(|e| e.to_string())? {
        let origin = file.display();
        let reader = std::fs::File::open(&file).map_err(|e| format!("{origin}: {e}"))?;
        let mut graph = irgate_callgrind::parse_with(BufReader::new(reader), &options)
            .map_err(|e| format!("{origin}: {e}"))?;
        let measured = std::fs::metadata(&file).and_then(|m| m.modified());
        if let Ok(measured) = measured {
            irgate_callgrind::inline::resolve(&mut graph, objects, measured, |f| {
                f.starts_with(&own)
            });
        }
        let profile = Profile::from_graph(&graph, EVENT, |f| normalize_file(f, &root_text))
            .ok_or_else(|| format!("{origin}: records no {EVENT}"))?;
        for (stack, cost) in flame::stacks(&graph, EVENT, |f| normalize_file(f, &root_text)) {
            *stacks.entry(stack).or_insert(0) += cost;
        }
        match &mut merged {
            None => merged = Some(profile),
            Some(all) => all.merge(profile),
        }
    }
    match merged {
        Some(profile) if profile.total != ir => Err(format!(
            "{}: callgrind files total {} Ir, the benchmark counted {ir} (files from another \
             run?)",
            dir.display(),
            profile.total
        )),
        found => Ok(found.map(|profile| Profiled { profile, stacks })),
    }
}

/// What a binary benchmark's gated counts are: the program's alone, or the whole process's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// The program's counts of the metrics callgrind's events give (the events, and gungraun's
    /// sums of them: `L1hits`, `LLhits`, `RamHits`, `TotalRW`, `EstimatedCycles`).
    Split(Counts),
    /// Why only the whole process's counts are known.
    Unsplit(String),
}

/// The counts of a binary benchmark's program alone, from its callgrind files in `dir`, for the
/// metrics of `whole` (its whole process's counts, as its summary holds them) that callgrind's
/// events give. Each file (a process, a thread, a part) adds the cost of the frames the
/// program's code starts in ([`irgate_callgrind::program_cost`]), or its whole total when it
/// runs none (a thread the program started without a Rust frame, a child process without
/// `main`): code the program started is its own. Unsplit when no file holds such a frame, or
/// when the files' totals are not `whole`'s (files of another run).
pub fn program(dir: &Path, whole: &Counts) -> Program {
    match program_events(dir, whole) {
        Ok(counts) => Program::Split(counts),
        Err(reason) => Program::Unsplit(printable(&reason)),
    }
}

/// The counts a benchmark is gated on, from its summary's `measurement`: a binary benchmark's
/// program's ([`program`]), its whole process's kept in `process.whole`, or its whole process's
/// with the reason in `process.unsplit`; a library benchmark's as measured.
pub fn gated(measurement: &summary::Measurement, process: &mut Processes) -> Counts {
    let Some(binary) = &measurement.binary else {
        return measurement.counts.clone();
    };
    let whole = &measurement.counts;
    let found = match &binary.output_dir {
        Some(dir) => program(dir, whole),
        None => Program::Unsplit("its summary names no output directory".to_owned()),
    };
    match found {
        Program::Split(own) => {
            let mut counts = whole.clone();
            counts.extend(own.iter().map(|(m, c)| (m.clone(), *c)));
            let kept = whole
                .iter()
                .filter(|(m, _)| own.contains_key(*m))
                .map(|(m, c)| (m.clone(), *c))
                .collect();
            process.whole.insert(measurement.id.clone(), kept);
            counts
        }
        Program::Unsplit(reason) => {
            crate::warning!(
                "{}: gated on the whole process's count: {reason}",
                crate::text::terminal(&measurement.id)
            );
            process.unsplit.insert(measurement.id.clone(), reason);
            whole.clone()
        }
    }
}

fn program_events(dir: &Path, whole: &Counts) -> Result<Counts, String> {
    let files = callgrind_files(dir).map_err(|e| e.to_string())?;
    if files.is_empty() {
        return Err(format!("no callgrind file in {}", dir.display()));
    }
    let (mut program, mut total): (BTreeMap<String, u64>, BTreeMap<String, u64>) =
        Default::default();
    let mut entered = false;
    for file in &files {
        let origin = file.display();
        let reader = std::fs::File::open(file).map_err(|e| format!("{origin}: {e}"))?;
        let graph = irgate_callgrind::parse(BufReader::new(reader))
            .map_err(|e| format!("{origin}: {e}"))?;
        let cost = irgate_callgrind::program_cost(&graph);
        entered |= cost.is_some();
        let cost = cost.unwrap_or_else(|| graph.totals.clone());
        for (i, event) in graph.events.iter().enumerate() {
            let sum = |map: &mut BTreeMap<String, u64>, value: Option<&u64>| {
                let at = map.entry(event.clone()).or_insert(0);
                *at = at.saturating_add(value.copied().unwrap_or(0));
            };
            sum(&mut program, cost.get(i));
            sum(&mut total, graph.totals.get(i));
        }
    }
    if !entered {
        return Err(
            "its callgrind files hold no frame of the program's `main` (neither the Rust \
             runtime's `__rust_begin_short_backtrace` nor `main`)"
                .to_owned(),
        );
    }
    let (program, total) = (with_sums(&program), with_sums(&total));
    let mut counts = Counts::new();
    for (metric, &count) in whole {
        match (program.get(metric), total.get(metric)) {
            (Some(&own), Some(&all)) if all == count => {
                counts.insert(metric.clone(), own);
            }
            (Some(_), Some(&all)) => {
                return Err(format!(
                    "{}: callgrind files total {all} {metric}, the benchmark counted {count} \
                     (files from another run?)",
                    dir.display()
                ));
            }
            _ => {}
        }
    }
    if !counts.contains_key(EVENT) {
        return Err(format!(
            "{}: callgrind files record no {EVENT}",
            dir.display()
        ));
    }
    Ok(counts)
}

/// Callgrind's events with gungraun's sums of them, where their events are there: `TotalRW`
/// (`Ir + Dr + Dw`), `RamHits` (`ILmr + DLmr + DLmw`), `LLhits` (`I1mr + D1mr + D1mw -
/// RamHits`), `L1hits` (`TotalRW - RamHits - LLhits`) and `EstimatedCycles` (`L1hits + 5
/// LLhits + 35 RamHits`).
fn with_sums(events: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    let mut all = events.clone();
    let sum = |names: &[&str]| -> Option<u64> {
        names
            .iter()
            .try_fold(0u64, |s, n| Some(s.saturating_add(*events.get(*n)?)))
    };
    if let Some(total_rw) = sum(&["Ir", "Dr", "Dw"]) {
        all.insert("TotalRW".to_owned(), total_rw);
        if let (Some(l1_misses), Some(ram)) = (
            sum(&["I1mr", "D1mr", "D1mw"]),
            sum(&["ILmr", "DLmr", "DLmw"]),
        ) {
            let ll = l1_misses.saturating_sub(ram);
            let l1 = total_rw.saturating_sub(ram).saturating_sub(ll);
            all.insert("RamHits".to_owned(), ram);
            all.insert("LLhits".to_owned(), ll);
            all.insert("L1hits".to_owned(), l1);
            all.insert(
                "EstimatedCycles".to_owned(),
                l1.saturating_add(ll.saturating_mul(5))
                    .saturating_add(ram.saturating_mul(35)),
            );
        }
    }
    all
}

/// `text` with control characters (terminal escapes, line breaks) written as escapes: a reason
/// quotes a file, which is untrusted.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The callgrind output files of one benchmark: `callgrind.*.out` (and the `.out.N` of further
/// parts or threads), not the `.old` or baseline copies gungraun keeps.
fn callgrind_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let read_error = |source| Error::read(dir, source);
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_error)? {
        let path = entry.map_err(read_error)?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(rest) = name.strip_prefix("callgrind.") else {
            continue;
        };
        let current = rest.ends_with(".out")
            || rest
                .rsplit_once(".out.")
                .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if current && path.is_file() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Reads a run's profiles; `None` when the run wrote none.
pub fn read_run(path: &Path) -> Result<Option<Profiles>> {
    if !path.exists() {
        return Ok(None);
    }
    let file = read_file(path)?;
    Ok(Some(Profiles {
        benchmarks: file.benchmarks,
        stacks: file.stacks,
        unreadable: file.unreadable,
    }))
}

/// Writes a run's profiles (with stacks) atomically.
pub fn write_run(path: &Path, profiles: &Profiles) -> Result<()> {
    formats::write_json_atomic(
        path,
        &ProfileFile {
            schema_version: SCHEMA_VERSION,
            event: EVENT.to_owned(),
            benchmarks: profiles.benchmarks.clone(),
            stacks: profiles.stacks.clone(),
            unreadable: profiles.unreadable.clone(),
        },
    )
}

/// Reads a profile file of either schema and checks its event.
fn read_file(path: &Path) -> Result<ProfileFile> {
    let expected = match formats::schema_version(path)? {
        Some(v) if v == u64::from(SCHEMA_VERSION_1) => SCHEMA_VERSION_1,
        _ => SCHEMA_VERSION,
    };
    let file: ProfileFile = formats::read_versioned(path, "profiles", expected)?;
    check_event(path, &file)?;
    Ok(file)
}

fn check_event(path: &Path, file: &ProfileFile) -> Result<()> {
    if file.event != EVENT {
        return Err(Error::invalid(
            path.display(),
            format!(
                "profiles of `{}`, this irgate reads profiles of {EVENT}",
                file.event
            ),
        ));
    }
    if let Some(id) = file
        .stacks
        .keys()
        .find(|id| !file.benchmarks.contains_key(*id))
    {
        return Err(Error::invalid(
            path.display(),
            format!("stacks of `{id}`, which has no profile"),
        ));
    }
    Ok(())
}

/// Every baseline profile in `<baselines>/profiles/`; empty when there is none.
pub fn load_baseline(baselines: &Path) -> Result<BTreeMap<String, Profile>> {
    let dir = baselines.join(BASELINE_DIR);
    let mut all = BTreeMap::new();
    if !dir.is_dir() {
        return Ok(all);
    }
    for (group, path) in formats::group_files(&dir)? {
        let file = read_file(&path)?;
        if let Some(stray) = file.benchmarks.keys().find(|id| group_of(id) != group) {
            return Err(Error::invalid(
                path.display(),
                format!("profile of `{stray}` belongs in {}.json", group_of(stray)),
            ));
        }
        all.extend(file.benchmarks);
    }
    Ok(all)
}

/// Stores the profiles of `run` that `keep` accepts as baseline profiles, group by group, then
/// keeps only the stored profiles `valid` accepts (those that still match a baseline count).
/// Returns the files written or removed.
pub fn write_baseline(
    baselines: &Path,
    run: &Profiles,
    keep: &dyn Fn(&str) -> bool,
    valid: &dyn Fn(&str, &Profile) -> bool,
) -> Result<Vec<PathBuf>> {
    let dir = baselines.join(BASELINE_DIR);
    let mut stored = load_baseline(baselines)?;
    for (id, profile) in run.benchmarks.iter().filter(|(id, _)| keep(id)) {
        stored.insert(id.clone(), profile.clone());
    }
    stored.retain(|id, profile| valid(id, profile));
    let before: BTreeSet<String> = load_baseline(baselines)?
        .keys()
        .map(|id| group_of(id).to_owned())
        .collect();
    let mut groups: BTreeMap<String, BTreeMap<String, Profile>> = BTreeMap::new();
    for (id, profile) in stored {
        groups
            .entry(group_of(&id).to_owned())
            .or_default()
            .insert(id, profile);
    }
    let texts = groups
        .into_iter()
        .map(|(group, benchmarks)| {
            let file = ProfileFile {
                schema_version: SCHEMA_VERSION,
                event: EVENT.to_owned(),
                benchmarks,
                stacks: BTreeMap::new(),
                unreadable: BTreeMap::new(),
            };
            let text = serde_json::to_string_pretty(&file).expect("profiles serialize");
            (group, format!("{text}\n"))
        })
        .collect();
    formats::write_group_files(&dir, &before, texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary benchmark's output directory: one callgrind file of a Rust program whose
    /// start-up costs `startup` per event and whose `main` runs `work` per event, in callgrind's
    /// nine cache events; and its summary's measurement (the whole process's counts, with
    /// gungraun's sums).
    fn binary_run(dir: &Path, startup: u64, work: u64) -> summary::Measurement {
        let costs = |n: u64| format!("{n} {n} {n} {n} {n} {n} {n} {n} {n}");
        let text = format!(
            "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\
             fn=main\n\
             1 {start}\n\
             cfn=std::sys::backtrace::__rust_begin_short_backtrace\n\
             calls=1 1\n\
             1 {work}\n\
             fn=std::sys::backtrace::__rust_begin_short_backtrace\n\
             cfn=tool::main\n\
             calls=1 1\n\
             1 {work}\n\
             fn=tool::main\n\
             1 {work}\n\
             totals: {total}\n",
            start = costs(startup),
            work = costs(work),
            total = costs(startup + work),
        );
        std::fs::write(dir.join("callgrind.tool.run.out"), text).unwrap();
        let whole = startup + work;
        let counts = with_sums(
            &[
                "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
            ]
            .iter()
            .map(|e| (e.to_string(), whole))
            .collect(),
        );
        let mut counts: Counts = counts.into_iter().collect();
        counts.insert("dhat.TotalBytes".to_owned(), 77);
        summary::Measurement {
            id: "cli::tool/run".to_owned(),
            counts,
            duration_ms: None,
            binary: Some(summary::BinaryRun {
                output_dir: Some(dir.to_owned()),
            }),
        }
    }

    #[test]
    fn a_binary_benchmark_is_gated_on_its_programs_counts_whatever_the_start_up() {
        let dir = tempfile::tempdir().unwrap();
        let gate = |startup, work| {
            let mut process = Processes::default();
            let counts = gated(&binary_run(dir.path(), startup, work), &mut process);
            (counts, process)
        };
        let (counts, process) = gate(300_000, 4_085);
        assert_eq!(counts["Ir"], 4_085);
        assert_eq!(counts["Dr"], 4_085);
        // Gungraun's sums, of the program's events: every access an LL miss here.
        assert_eq!(counts["RamHits"], 3 * 4_085);
        assert_eq!(counts["EstimatedCycles"], 35 * 3 * 4_085);
        // DHAT's count is of the whole process: kept, and not in `process`.
        assert_eq!(counts["dhat.TotalBytes"], 77);
        let whole = &process.whole["cli::tool/run"];
        assert_eq!(whole["Ir"], 304_085);
        assert!(!whole.contains_key("dhat.TotalBytes"));
        assert!(process.is_program("cli::tool/run", "EstimatedCycles"));
        assert!(!process.is_program("cli::tool/run", "dhat.TotalBytes"));
        // The start-up moved by -2,237 (another layout): the gated counts did not.
        assert_eq!(gate(297_763, 4_085).0["Ir"], 4_085);
        // The program slower by 200, the start-up faster by more: the gated count is +200.
        assert_eq!(gate(297_763, 4_285).0["Ir"], 4_285);
        // A library benchmark's counts are its summary's, untouched.
        let mut library = binary_run(dir.path(), 300_000, 4_085);
        library.binary = None;
        let mut process = Processes::default();
        assert_eq!(gated(&library, &mut process), library.counts);
        assert_eq!(process, Processes::default());
    }

    #[test]
    fn a_binary_benchmark_without_main_or_of_other_files_is_gated_whole_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let mut measurement = binary_run(dir.path(), 300_000, 4_085);
        // Files of another run: their totals are not the summary's.
        measurement.counts.insert("Ir".to_owned(), 1);
        let mut process = Processes::default();
        assert_eq!(gated(&measurement, &mut process), measurement.counts);
        let why = &process.unsplit["cli::tool/run"];
        assert!(
            why.contains("callgrind files total 304085 Ir, the benchmark counted 1"),
            "{why}"
        );
        // No frame of main (a program without symbols).
        std::fs::write(
            dir.path().join("callgrind.tool.run.out"),
            "events: Ir\nfn=0x401000\n1 10\ntotals: 10\n",
        )
        .unwrap();
        measurement.counts = Counts::from([("Ir".to_owned(), 10)]);
        let mut process = Processes::default();
        assert_eq!(gated(&measurement, &mut process)["Ir"], 10);
        assert!(process.unsplit["cli::tool/run"].contains("no frame of the program's `main`"));
        assert!(process.whole.is_empty());
    }

    /// A profile as a baseline's file holds it: irgate-callgrind's types are built by its own
    /// code only.
    fn profile(total: u64) -> Profile {
        serde_json::from_value(serde_json::json!({
            "total": total,
            "unattributed": 0,
            "floor": 1,
            "functions": {
                "codec::filter::Chain::apply": {
                    "file": "codec/src/filter.rs",
                    "self": total,
                    "inclusive": total,
                    "callers": ["main"],
                    "inlined": {"codec/src/varint.rs": 3},
                    "outside_main": false,
                },
            },
        }))
        .unwrap()
    }

    /// The file format is a contract with committed baselines: this freezes it.
    #[test]
    fn the_baseline_profile_schema_is_frozen() {
        let dir = tempfile::tempdir().unwrap();
        let run = Profiles {
            benchmarks: BTreeMap::from([("filter::passthrough/n8".to_owned(), profile(122))]),
            stacks: BTreeMap::from([(
                "filter::passthrough/n8".to_owned(),
                BTreeMap::from([("main;apply".to_owned(), 122)]),
            )]),
            unreadable: BTreeMap::new(),
        };
        let written = write_baseline(dir.path(), &run, &|_| true, &|_, _| true).unwrap();
        assert_eq!(written, [dir.path().join("profiles/filter.json")]);
        let text = std::fs::read_to_string(&written[0]).unwrap();
        assert_eq!(
            text,
            r#"{
  "schema_version": 2,
  "event": "Ir",
  "benchmarks": {
    "filter::passthrough/n8": {
      "total": 122,
      "floor": 1,
      "functions": {
        "codec::filter::Chain::apply": {
          "file": "codec/src/filter.rs",
          "self": 122,
          "inclusive": 122,
          "callers": [
            "main"
          ],
          "inlined": {
            "codec/src/varint.rs": 3
          }
        }
      }
    }
  }
}
"#
        );
        let loaded = load_baseline(dir.path()).unwrap();
        assert_eq!(loaded, run.benchmarks);
        // Unchanged: not rewritten; a benchmark without counts any more: its profile goes.
        assert!(
            write_baseline(dir.path(), &run, &|_| true, &|_, _| true)
                .unwrap()
                .is_empty()
        );
        write_baseline(dir.path(), &Profiles::default(), &|_| true, &|_, p| {
            p.total != 122
        })
        .unwrap();
        assert!(!dir.path().join("profiles/filter.json").exists());
    }

    #[test]
    fn run_profiles_round_trip_beside_the_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.profiles.json");
        assert_eq!(read_run(&path).unwrap(), None);
        let run = Profiles {
            benchmarks: BTreeMap::from([("varint::decode/v0".to_owned(), profile(24))]),
            stacks: BTreeMap::new(),
            unreadable: BTreeMap::from([(
                "varint::decode/v1".to_owned(),
                "callgrind.decode.v1.out: cut off: no `totals:` line".to_owned(),
            )]),
        };
        write_run(&path, &run).unwrap();
        assert_eq!(read_run(&path).unwrap(), Some(run));
    }

    #[test]
    fn reads_schema_1_and_refuses_unknown_versions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("profiles")).unwrap();
        let path = dir.path().join("profiles/frame.json");
        std::fs::write(
            &path,
            r#"{"schema_version": 1, "event": "Ir", "benchmarks": {"frame::x": {"total": 7, "floor": 1, "functions": {}}}}"#,
        )
        .unwrap();
        assert_eq!(load_baseline(dir.path()).unwrap()["frame::x"].total, 7);
        let version_3 = r#"{"schema_version": 3, "event": "Ir", "benchmarks": {}}"#;
        std::fs::write(&path, version_3).unwrap();
        let error = load_baseline(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("unsupported schema_version 3") && error.contains("schema_version 2"),
            "{error}"
        );
    }

    #[test]
    fn printable_reasons_carry_no_control_characters() {
        assert_eq!(
            printable("line 3: not a callgrind line: `\u{1b}[2J\nforged`"),
            "line 3: not a callgrind line: `\\u{1b}[2J\\nforged`"
        );
    }

    #[test]
    fn refuses_malformed_profile_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |text: &str| {
            std::fs::create_dir_all(dir.path().join("profiles")).unwrap();
            std::fs::write(dir.path().join("profiles/frame.json"), text).unwrap();
        };
        write(
            r#"{"schema_version": 1, "event": "Ir", "benchmarks": {"varint::x": {"total": 1, "floor": 1, "functions": {}}}}"#,
        );
        let error = load_baseline(dir.path()).unwrap_err().to_string();
        assert!(
            error.ends_with("profile of `varint::x` belongs in varint.json"),
            "{error}"
        );
        write(r#"{"schema_version": 1, "event": "Dr", "benchmarks": {}}"#);
        let error = load_baseline(dir.path()).unwrap_err().to_string();
        assert!(
            error.ends_with("profiles of `Dr`, this irgate reads profiles of Ir"),
            "{error}"
        );
        write(r#"{"schema_version": 1, "event": "Ir", "benchmarks": {"frame::x": {"total": -1}}}"#);
        let error = load_baseline(dir.path()).unwrap_err().to_string();
        assert!(error.contains("frame.json:1:"), "{error}");
    }
}
