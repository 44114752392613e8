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
use crate::formats::baseline::group_of;
use crate::formats::{self, summary};
use crate::model::Results;

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
    benchmarks: BTreeMap<String, Profile>,
    /// Per benchmark, Ir per call stack (`a;b;c`): only in a run's file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    stacks: BTreeMap<String, BTreeMap<String, u64>>,
    /// Why a benchmark of the run has no profile: only in a run's file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
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
        let Some(&ir) = results.benchmarks.get(&id).and_then(|c| c.get(EVENT)) else {
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
        std::fs::write(
            &path,
            r#"{"schema_version": 3, "event": "Ir", "benchmarks": {}}"#,
        )
        .unwrap();
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
