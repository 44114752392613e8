//! The committed baselines: one JSON file per benchmark group (`baselines/frame.json` holds every
//! `frame::...` benchmark), so a refresh shows up in a pull request next to what changed.
//!
//! ```json
//! {
//!   "schema_version": 2,
//!   "fingerprint": { "rustc": "1.95.0", "valgrind": "valgrind-3.24.0", ... },
//!   "benchmarks": {
//!     "frame::decode/32": {
//!       "Ir": 442
//!     }
//!   }
//! }
//! ```
//!
//! Keys are sorted, counts are integers, and each file records the environment its counts were
//! taken in. As in results files, `process` and `unsplit` (optional) say what `benchmarks` holds
//! for binary benchmarks (`model::Processes`): the program's counts, with the whole process's
//! in `process` (information), or the whole process's, with the reason in `unsplit`. A binary
//! benchmark in neither has the whole process's counts (a baseline taken before irgate split
//! them): `check` then compares the whole process's counts on both sides and says why. Files are replaced atomically (temporary file + rename).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::formats;
use crate::model::fingerprint;
use crate::model::{Counts, Fingerprint, Metric, Processes, Results};

/// The schema version of baseline files this irgate writes: 2 records the build settings in the
/// fingerprint (`build`).
pub const SCHEMA_VERSION: u32 = 2;

/// The schema versions it reads: 1 (before `build`, read as [`crate::model::BUILD_UNRECORDED`]) and 2.
pub const READABLE_VERSIONS: &[u32] = &[1, 2];

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    schema_version: u32,
    fingerprint: Fingerprint,
    #[serde(deserialize_with = "formats::strict_benchmarks")]
    benchmarks: BTreeMap<String, Counts>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::strict_benchmarks"
    )]
    process: BTreeMap<String, Counts>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    unsplit: BTreeMap<String, String>,
}

/// The baselines of one benchmark group, as its file holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The environment the counts were taken in.
    pub fingerprint: Fingerprint,
    /// Counts by benchmark id.
    pub benchmarks: BTreeMap<String, Counts>,
    /// What `benchmarks` holds for binary benchmarks.
    pub process: Processes,
}

/// Every baseline in a directory, by group.
#[derive(Debug, Clone, PartialEq)]
pub struct Baselines {
    /// The directory.
    pub dir: PathBuf,
    /// Baselines by group name.
    pub groups: BTreeMap<String, Group>,
}

pub use crate::id::group_of;

impl Baselines {
    /// Reads every `<group>.json` in `dir`. The directory must exist; it may be empty.
    pub fn load(dir: &Path) -> Result<Baselines> {
        if !dir.is_dir() {
            return Err(Error::MissingBaselineDir {
                dir: dir.to_owned(),
            });
        }
        let read_error = |source| Error::read(dir, source);
        let mut groups = BTreeMap::new();
        for entry in std::fs::read_dir(dir).map_err(read_error)? {
            let path = entry.map_err(read_error)?.path();
            // A name that is not UTF-8 is checked (and refused) like any other, never skipped.
            let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
                continue;
            };
            // Skip other files and the temporary files of an interrupted refresh.
            let Some(group) = name
                .strip_suffix(".json")
                .filter(|_| !name.starts_with('.'))
            else {
                continue;
            };
            if let Err(message) = crate::id::check_group(group) {
                return Err(Error::invalid(
                    path.display(),
                    format!("not a baseline file name: {message}"),
                ));
            }
            let file: BaselineFile = formats::read_versions(&path, "baseline", READABLE_VERSIONS)?;
            if let Some(stray) = file.benchmarks.keys().find(|id| group_of(id) != group) {
                return Err(Error::invalid(
                    path.display(),
                    format!(
                        "benchmark `{stray}` belongs in {}.json: each file holds one group",
                        group_of(stray)
                    ),
                ));
            }
            if let Some(id) = file
                .benchmarks
                .iter()
                .find(|(_, c)| !c.contains_key(IR))
                .map(|(id, _)| id)
            {
                return Err(Error::invalid(
                    path.display(),
                    format!(
                        "benchmark `{id}` has no `Ir` count: a baseline is malformed without it"
                    ),
                ));
            }
            let process = crate::formats::results::checked_processes(
                &path.display().to_string(),
                &file.benchmarks,
                Processes {
                    whole: file.process,
                    unsplit: file.unsplit,
                },
            )?;
            groups.insert(
                group.to_owned(),
                Group {
                    fingerprint: file.fingerprint,
                    benchmarks: file.benchmarks,
                    process,
                },
            );
        }
        Ok(Baselines {
            dir: dir.to_owned(),
            groups,
        })
    }

    /// Like [`Baselines::load`], but an empty directory is an error: there is nothing to compare
    /// with.
    pub fn load_nonempty(dir: &Path) -> Result<Baselines> {
        let baselines = Self::load(dir)?;
        if baselines.groups.values().all(|g| g.benchmarks.is_empty()) {
            return Err(Error::NoBaselines {
                dir: dir.to_owned(),
            });
        }
        Ok(baselines)
    }

    /// The counts of a run as baselines, grouped as baseline files group them: A/B compares the
    /// working tree with the base side's run (read from `origin`).
    pub fn from_results(results: &Results, origin: &Path) -> Baselines {
        let mut groups: BTreeMap<String, Group> = BTreeMap::new();
        for (id, counts) in &results.benchmarks {
            groups
                .entry(group_of(id).to_owned())
                .or_insert_with(|| Group {
                    fingerprint: results.fingerprint.clone(),
                    benchmarks: BTreeMap::new(),
                    process: Processes::default(),
                })
                .benchmarks
                .insert(id.clone(), counts.clone());
        }
        for group in groups.values_mut() {
            let mut process = results.process.clone();
            process.retain(|id| group.benchmarks.contains_key(id));
            group.process = process;
        }
        Baselines {
            dir: origin.to_owned(),
            groups,
        }
    }

    /// The file that holds `group`.
    pub fn path_of(&self, group: &str) -> PathBuf {
        self.dir.join(format!("{group}.json"))
    }

    /// A benchmark's baseline counts and the fingerprint they were taken with.
    pub fn get(&self, id: &str) -> Option<(&Counts, &Fingerprint)> {
        let group = self.groups.get(group_of(id))?;
        Some((group.benchmarks.get(id)?, &group.fingerprint))
    }

    /// What a benchmark's baseline holds if it is a binary benchmark ([`Processes`]).
    pub fn process(&self, id: &str) -> Option<&Processes> {
        self.groups.get(group_of(id)).map(|g| &g.process)
    }

    /// Every benchmark id with a baseline, sorted.
    pub fn ids(&self) -> impl Iterator<Item = &str> + Clone {
        self.groups
            .values()
            .flat_map(|g| g.benchmarks.keys().map(String::as_str))
    }
}

/// One benchmark's baseline before and after a refresh.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Benchmark id.
    pub id: String,
    /// The counts before (absent when added).
    pub old: Option<Counts>,
    /// The counts after (absent when pruned).
    pub new: Option<Counts>,
}

/// What a refresh does to one group's file.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupUpdate {
    /// The file.
    pub path: PathBuf,
    /// The group's baselines after the refresh; `None` when it ends up empty (the file goes).
    pub group: Option<Group>,
    /// The benchmarks that changed.
    pub changes: Vec<Change>,
    /// Refreshed benchmarks whose counts did not change.
    pub unchanged: usize,
    /// Whether the file must be written: counts changed, or the environment did.
    pub write: bool,
}

/// What to refresh.
pub struct Selection<'a> {
    /// Whether a benchmark id is in scope (matches the filter, if any).
    pub in_scope: &'a dyn Fn(&str) -> bool,
    /// The metrics to store.
    pub metrics: &'a BTreeSet<Metric>,
    /// The metrics that must be present (gated ones).
    pub required: &'a BTreeSet<Metric>,
    /// Also delete in-scope baselines whose benchmark did not run.
    pub prune: bool,
}

/// Plans a refresh of `baselines` from `results`: every in-scope benchmark of the results gets its
/// counts (only `metrics`) stored; baselines of benchmarks that did not run are kept unless
/// pruned. A group whose remaining baselines were taken in another environment is refused, since
/// one file holds one environment.
pub fn plan_refresh(
    baselines: &Baselines,
    results: &Results,
    selection: &Selection,
) -> Result<Vec<GroupUpdate>> {
    let mut touched: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for id in results
        .benchmarks
        .keys()
        .filter(|id| (selection.in_scope)(id))
    {
        touched.entry(group_of(id)).or_default().push(id);
    }
    if selection.prune {
        for id in baselines.ids().filter(|id| (selection.in_scope)(id)) {
            touched.entry(group_of(id)).or_default();
        }
    }

    let mut updates = Vec::new();
    for (group_name, ids) in touched {
        let old = baselines.groups.get(group_name);
        let mut benchmarks = old.map(|g| g.benchmarks.clone()).unwrap_or_default();
        let mut process = old.map(|g| g.process.clone()).unwrap_or_default();
        let mut changes = Vec::new();
        let mut unchanged = 0;
        let mut process_changed = false;
        for id in &ids {
            let mut stored = results.process.of(id);
            for whole in stored.whole.values_mut() {
                whole.retain(|metric, _| selection.metrics.contains(metric));
            }
            stored.whole.retain(|_, whole| !whole.is_empty());
            process_changed |= process.of(id) != stored;
            process.retain(|other| other != *id);
            process.extend(stored);
            let counts = stored_counts(id, &results.benchmarks[*id], selection)?;
            let previous = benchmarks.insert(id.to_string(), counts.clone());
            if previous.as_ref() == Some(&counts) {
                unchanged += 1;
            } else {
                changes.push(Change {
                    id: id.to_string(),
                    old: previous,
                    new: Some(counts),
                });
            }
        }
        if selection.prune {
            let gone: Vec<String> = benchmarks
                .keys()
                .filter(|id| (selection.in_scope)(id) && !results.benchmarks.contains_key(*id))
                .cloned()
                .collect();
            for id in gone {
                process.retain(|other| other != id);
                let previous = benchmarks.remove(&id);
                changes.push(Change {
                    id,
                    old: previous,
                    new: None,
                });
            }
        }

        let environment_changed = old.is_some_and(|g| {
            !fingerprint::mismatches(&g.fingerprint, &results.fingerprint).is_empty()
        });
        if let Some(old) = old.filter(|_| environment_changed) {
            let kept = benchmarks
                .keys()
                .find(|id| !results.benchmarks.contains_key(*id) || !(selection.in_scope)(id));
            if let Some(kept) = kept {
                let mismatch = &fingerprint::mismatches(&old.fingerprint, &results.fingerprint)[0];
                return Err(Error::invalid(
                    baselines.path_of(group_name).display(),
                    format!(
                        "taken with {} `{}`, this run with `{}`; refreshing part of it would mix \
                         environments in one file (`{kept}` was not run): refresh every benchmark \
                         of the group",
                        mismatch.field, mismatch.baseline, mismatch.current
                    ),
                ));
            }
        }
        let write = !changes.is_empty() || process_changed || environment_changed || old.is_none();
        let fingerprint = match old {
            Some(old) if !write => old.fingerprint.clone(),
            _ => results.fingerprint.clone(),
        };
        updates.push(GroupUpdate {
            path: baselines.path_of(group_name),
            group: (!benchmarks.is_empty()).then_some(Group {
                fingerprint,
                benchmarks,
                process,
            }),
            changes,
            unchanged,
            write,
        });
    }
    Ok(updates)
}

/// The counts of `id` to store: the selected metrics, with the required ones present.
fn stored_counts(id: &str, counts: &Counts, selection: &Selection) -> Result<Counts> {
    if let Some(missing) = selection.required.iter().find(|m| !counts.contains_key(*m)) {
        return Err(Error::Tool(format!(
            "{id} has no `{missing}` count in the results, but gate.toml gates it: run \
             `irgate run` again (it runs DHAT when gate.toml names a dhat metric)"
        )));
    }
    Ok(counts
        .iter()
        .filter(|(metric, _)| selection.metrics.contains(*metric))
        .map(|(metric, count)| (metric.clone(), *count))
        .collect())
}

/// Applies the updates that need writing: each file is replaced atomically, and a group left
/// empty by pruning is removed.
pub fn write_updates(updates: &[GroupUpdate]) -> Result<()> {
    for update in updates.iter().filter(|u| u.write) {
        match &update.group {
            Some(group) => formats::write_json_atomic(
                &update.path,
                &BaselineFile {
                    schema_version: SCHEMA_VERSION,
                    fingerprint: group.fingerprint.clone(),
                    benchmarks: group.benchmarks.clone(),
                    process: group.process.whole.clone(),
                    unsplit: group.process.unsplit.clone(),
                },
            )?,
            None => std::fs::remove_file(&update.path)
                .map_err(|source| Error::write(&update.path, source))?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(entries: &[(&str, u64)], rustc: &str) -> Results {
        Results {
            fingerprint: Fingerprint {
                rustc: rustc.into(),
                ..Fingerprint::default()
            },
            suites: Vec::new(),
            features: Vec::new(),
            filters: Vec::new(),
            benchmarks: entries
                .iter()
                .map(|(id, ir)| {
                    let counts = Counts::from([("Ir".to_owned(), *ir), ("Dr".to_owned(), 1)]);
                    (id.to_string(), counts)
                })
                .collect(),
            durations_ms: Default::default(),
            carried: Vec::new(),
            shard: None,
            process: Default::default(),
        }
    }

    fn refresh(
        baselines: &Baselines,
        results: &Results,
        prune: bool,
        scope: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<GroupUpdate>> {
        let metrics = BTreeSet::from(["Ir".to_owned()]);
        plan_refresh(
            baselines,
            results,
            &Selection {
                in_scope: scope,
                metrics: &metrics,
                required: &metrics,
                prune,
            },
        )
    }

    #[test]
    fn refresh_writes_groups_and_keeps_what_did_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let empty = Baselines::load(dir.path()).unwrap();
        let all = |_: &str| true;
        let first = results(&[("a::x", 10), ("a::y", 20), ("b::z", 30)], "1.95.0");
        write_updates(&refresh(&empty, &first, false, &all).unwrap()).unwrap();
        let loaded = Baselines::load_nonempty(dir.path()).unwrap();
        assert_eq!(loaded.groups.len(), 2);
        assert_eq!(
            loaded.get("a::y").unwrap().0,
            &Counts::from([("Ir".to_owned(), 20)])
        );

        // A partial run: a::x changes, a::y and b::z did not run and stay.
        let second = results(&[("a::x", 11)], "1.95.0");
        let updates = refresh(&loaded, &second, false, &all).unwrap();
        assert_eq!(updates.len(), 1);
        assert_eq!(updates[0].changes[0].id, "a::x");
        write_updates(&updates).unwrap();
        let loaded = Baselines::load(dir.path()).unwrap();
        assert_eq!(loaded.get("a::x").unwrap().0["Ir"], 11);
        assert_eq!(loaded.get("a::y").unwrap().0["Ir"], 20);
        assert_eq!(loaded.get("b::z").unwrap().0["Ir"], 30);

        // Pruning in scope `a::*` drops a::y only.
        let in_a = |id: &str| id.starts_with("a::");
        write_updates(&refresh(&loaded, &second, true, &in_a).unwrap()).unwrap();
        let loaded = Baselines::load(dir.path()).unwrap();
        assert!(loaded.get("a::y").is_none());
        assert!(loaded.get("b::z").is_some());
    }

    #[test]
    fn refuses_to_mix_environments_in_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let all = |_: &str| true;
        let empty = Baselines::load(dir.path()).unwrap();
        let first = results(&[("a::x", 10), ("a::y", 20)], "1.95.0");
        write_updates(&refresh(&empty, &first, false, &all).unwrap()).unwrap();
        let loaded = Baselines::load(dir.path()).unwrap();
        let partial = results(&[("a::x", 10)], "1.96.0");
        let error = refresh(&loaded, &partial, false, &all)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("rustc `1.95.0`, this run with `1.96.0`"),
            "{error}"
        );
        // Refreshing the whole group in the new environment is fine.
        let whole = results(&[("a::x", 10), ("a::y", 20)], "1.96.0");
        let updates = refresh(&loaded, &whole, false, &all).unwrap();
        assert!(updates[0].write && updates[0].changes.is_empty());
    }

    #[test]
    fn a_benchmark_in_the_wrong_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.json"),
            serde_json::to_string(&BaselineFile {
                schema_version: SCHEMA_VERSION,
                fingerprint: Fingerprint::default(),
                benchmarks: BTreeMap::from([("b::x".to_owned(), Counts::new())]),
                process: BTreeMap::new(),
                unsplit: BTreeMap::new(),
            })
            .unwrap(),
        )
        .unwrap();
        let error = Baselines::load(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("a.json: benchmark `b::x` belongs in b.json"),
            "{error}"
        );
    }
}
