//! What `irgate refresh` keeps with the baselines besides their counts: the run's per-function
//! profiles and its code record, for the benchmarks whose baseline is now the run's.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::formats::baseline::{self, Baselines, GroupUpdate, Selection};
use crate::formats::{code, profiles, results};
use crate::git::Commit;
use crate::measure::suite;
use crate::model::Results;
use crate::model::code::{CodeRecord, Executed, Object};
use crate::paths::Resolved;

/// What a refresh writes: the latest results, the baselines they update, the files they change.
#[derive(Debug)]
pub struct Plan {
    /// The latest results.
    pub results: Results,
    /// The baselines before the refresh.
    pub baselines: Baselines,
    /// Each baseline file's update.
    pub updates: Vec<GroupUpdate>,
    /// Only benchmarks whose id matches it.
    filter: Option<Filter>,
}

impl Plan {
    /// Whether the refresh covers benchmark `id`.
    pub fn in_scope(&self, id: &str) -> bool {
        filter::in_scope(self.filter.as_ref(), id)
    }

    /// Writes the updates, then the profiles and code record kept with the baselines; what it did,
    /// in lines to print.
    pub fn write(&self, paths: &Resolved) -> Result<Vec<String>> {
        baseline::write_updates(&self.updates)?;
        let in_scope = |id: &str| self.in_scope(id);
        let mut said = profiles(paths, &in_scope)?;
        said.push(code(paths)?);
        Ok(said)
    }
}

/// Plans the refresh of the baselines of `paths` with its latest results under `config`: only
/// benchmarks `filter` matches, deleting in-scope baselines of benchmarks that did not run with
/// `prune`; with `dry_run`, creates no directory.
pub fn plan(
    config: &Config,
    paths: &Resolved,
    filter: Option<&str>,
    (prune, dry_run): (bool, bool),
) -> Result<Plan> {
    let results = results::read(&paths.results)?;
    results.require_measured(&paths.results.display().to_string(), "a refresh")?;
    let skipped = suite::missing(&config.suites, &results.suites);
    if prune && !skipped.is_empty() {
        return Err(Error::invalid(
            paths.results.display(),
            format!(
                "--prune would delete the baselines of suite(s) that did not run ({}): run every \
                 suite first",
                skipped.join(", ")
            ),
        ));
    }
    let filter = filter.map(Filter::new).transpose()?;
    if !dry_run {
        std::fs::create_dir_all(&paths.baselines)
            .map_err(|source| Error::write(&paths.baselines, source))?;
    }
    let baselines = match Baselines::load(&paths.baselines) {
        Err(Error::MissingBaselineDir { .. }) if dry_run => Baselines {
            dir: paths.baselines.clone(),
            groups: Default::default(),
        },
        other => other?,
    };
    if let Some(filter) = &filter {
        let ids = || results.benchmarks.keys().map(String::as_str);
        let pruned = prune && baselines.ids().any(|id| filter.matches(id));
        if !ids().any(|id| filter.matches(id)) && !pruned {
            return Err(filter.matched_nothing(ids()));
        }
    }
    let in_scope = |id: &str| filter::in_scope(filter.as_ref(), id);
    let metrics = config.stored_metrics();
    let required: BTreeSet<String> = config.gated_metrics();
    let updates = baseline::plan_refresh(
        &baselines,
        &results,
        &Selection {
            in_scope: &in_scope,
            metrics: &metrics,
            required: &required,
            prune,
        },
    )?;
    Ok(Plan {
        results,
        baselines,
        updates,
        filter,
    })
}

/// Stores the run's per-function profiles of the refreshed benchmarks in baselines/profiles/,
/// and drops stored ones that no longer match their benchmark's baseline Ir; what it did, in lines
/// to print.
fn profiles(paths: &Resolved, in_scope: &dyn Fn(&str) -> bool) -> Result<Vec<String>> {
    let baselines = paths.baselines.as_path();
    let mut said = Vec::new();
    let run = profiles::read_run(&paths.profiles())?;
    if run.is_none() {
        said.push(format!(
            "irgate: no per-function profiles beside the results: {}/ not updated",
            baselines.join(profiles::BASELINE_DIR).display()
        ));
    }
    let run = run.unwrap_or_default();
    let after = Baselines::load(baselines)?;
    // A profile is of the whole process: a binary benchmark's whole Ir.
    let ir = |id: &str| {
        let counted = after
            .get(id)
            .and_then(|(counts, _)| counts.get(IR).copied());
        match after.process(id) {
            Some(process) => process.whole_count(id, IR, counted),
            None => counted,
        }
    };
    let keep = |id: &str| in_scope(id) && ir(id) == run.benchmarks.get(id).map(|p| p.total);
    let valid = |id: &str, profile: &irgate_callgrind::Profile| ir(id) == Some(profile.total);
    let touched = profiles::write_baseline(baselines, &run, &keep, &valid)?;
    if !touched.is_empty() {
        said.push(format!(
            "irgate: per-function profiles: {} written or removed in {}/",
            touched.len(),
            baselines.join(profiles::BASELINE_DIR).display()
        ));
    }
    Ok(said)
}

/// Keeps the code record with the baselines, `code/record.json`, so that each entry describes its
/// benchmark's baseline as written ([`merge`]); what it did, in a line to print.
fn code(paths: &Resolved) -> Result<String> {
    let baselines = paths.baselines.as_path();
    let path = baselines.join(code::BASELINE_FILE);
    let run = code::read(&paths.code_record())?
        .filter(|run| !run.benchmarks.is_empty() || !run.unrecorded.is_empty());
    let stored = code::read(&path).unwrap_or_else(|error| {
        crate::warning!("the stored code record is replaced: {error}");
        None
    });
    let after = Baselines::load(baselines)?;
    let had = stored.as_ref().map_or(0, |s| s.benchmarks.len());
    let Some(record) = merge(run.clone(), stored, &after) else {
        return Ok(format!(
            "irgate: no code record beside the results and none with the baselines ({} not \
             written): take one with `irgate run --record`, then `irgate refresh`; without it \
             `--only-touched` runs every benchmark",
            path.display()
        ));
    };
    code::write(&path, &record)?;
    if run.is_none() {
        let removed = had - record.benchmarks.len();
        if removed == 0 {
            return Ok(format!(
                "irgate: no code record beside the results (taken without `irgate run --record`): \
                 the {had} entries of {} still describe their baselines",
                path.display()
            ));
        }
        return Ok(format!(
            "irgate: no code record beside the results (taken without `irgate run --record`): \
             {removed} of the {had} entries of {} no longer describe their baselines and were \
             removed; those benchmarks run on every change (`--only-touched`) until `irgate run \
             --record` and `irgate refresh` take the record again",
            path.display()
        ));
    }
    Ok(record_line(&record, &path))
}

/// refresh's last line for a record written to `path`: what it holds, at which commit, and, for
/// one taken with uncommitted changes, that `--only-touched` cannot trust it.
fn record_line(record: &CodeRecord, path: &std::path::Path) -> String {
    let commit = Commit::parse(&record.commit);
    let mut line = format!(
        "irgate: code record: what {} benchmarks executed, at {}{}, in {}",
        record.benchmarks.len(),
        crate::text::short_commit(&commit.hash),
        if commit.dirty { "-dirty" } else { "" },
        path.display()
    );
    if commit.dirty {
        line.push_str(
            ": taken with uncommitted changes, code that is in no commit, so `--only-touched` \
             runs every benchmark until the record is taken again on a commit (commit, then \
             `irgate run --record && irgate refresh`)",
        );
    }
    line
}

/// The code record to keep with `baselines` (as written by the refresh) from the `run`'s (taken by
/// `irgate run --record`) and the `stored` one: every entry of it describes its benchmark's
/// baseline (its counts are the baseline's, [`code::mismatch`]). A benchmark takes the run's
/// entry when that describes its baseline; else the stored entry when that still does and still
/// holds in the run's record: each function it executed has the same digest in the run's build
/// where that holds it (the others, and the objects the run lacks, are copied with their
/// digests), each object it depends on as a whole is the same, and it reads no files at run time
/// unless both records are of one clean commit (the record's commit moves to the run's, so a file
/// changed in between would be missed). Any other entry is dropped: that benchmark counts as
/// touched, and the record says why. Without a run's record, the stored one keeps its entries that
/// still describe their baselines. A kept entry of schema_version 1 (no counts: it describes a
/// baseline measured at its record's commit) takes its baseline's counts. `None` when there is
/// neither.
pub fn merge(
    run: Option<CodeRecord>,
    stored: Option<CodeRecord>,
    baselines: &Baselines,
) -> Option<CodeRecord> {
    let describes = |id: &str, executed: &Executed, taken: &str| {
        baselines.get(id).is_some_and(|(counts, at)| {
            code::mismatch(executed, taken, (counts, &at.commit)).is_none()
        })
    };
    let (mut record, stored) = match (run, stored) {
        (Some(run), stored) => (run, stored),
        (None, Some(stored)) => {
            let kept = CodeRecord {
                benchmarks: BTreeMap::new(),
                unrecorded: BTreeMap::new(),
                ..stored.clone()
            };
            (kept, Some(stored))
        }
        (None, None) => return None,
    };
    let dropped = "its code record no longer held when the baselines were refreshed: take it \
                   again with `irgate run --record`, then `irgate refresh`";
    let taken = record.commit.clone();
    record
        .benchmarks
        .retain(|id, executed| describes(id, executed, &taken));
    record
        .unrecorded
        .retain(|id, _| baselines.get(id).is_some());
    if let Some(stored) = stored {
        let same_commit = stored.commit == record.commit && !Commit::parse(&record.commit).dirty;
        for (id, why) in &stored.unrecorded {
            let unknown = !record.benchmarks.contains_key(id) && baselines.get(id).is_some();
            if unknown {
                record
                    .unrecorded
                    .entry(id.clone())
                    .or_insert_with(|| why.clone());
            }
        }
        for (id, executed) in &stored.benchmarks {
            if record.benchmarks.contains_key(id) || baselines.get(id).is_none() {
                continue;
            }
            // Observed inputs keep what each path held, whatever the commit: a file changed since
            // is still seen.
            let holds = describes(id, executed, &stored.commit)
                && (executed.observed.is_some() || executed.reads_files.is_none() || same_commit)
                && carry_over(&mut record, &stored, executed);
            if holds {
                // An entry of schema_version 1 that describes its baseline takes its counts.
                let mut executed = executed.clone();
                if executed.counts.is_empty() {
                    executed.counts = baselines
                        .get(id)
                        .map(|(counts, _)| counts.clone())
                        .unwrap_or_default();
                }
                record.unrecorded.remove(id);
                record.benchmarks.insert(id.clone(), executed);
            } else {
                record.unrecorded.insert(id.clone(), dropped.to_owned());
            }
        }
    }
    record.narrow_to_executed();
    Some(record)
}

/// Whether what `executed` (an entry of `stored`) executed is the same in `record`'s build: then
/// its functions and objects that `record` lacks are copied into it, with their digests, and each
/// function is joined ([`Object::join`]).
fn carry_over(record: &mut CodeRecord, stored: &CodeRecord, executed: &Executed) -> bool {
    for key in &executed.whole {
        match (stored.objects.get(key), record.objects.get(key)) {
            (Some(old), Some(new)) if old.whole == new.whole => {}
            (Some(_), None) => {}
            _ => return false,
        }
    }
    for (key, names) in &executed.functions {
        let Some(old) = stored.objects.get(key) else {
            return false;
        };
        for name in names {
            let same = match (old.functions.get(name), record.objects.get(key)) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(digest), Some(new)) => new.functions.get(name).is_none_or(|d| d == digest),
            };
            if !same {
                return false;
            }
        }
    }
    for key in executed.whole.iter().chain(executed.functions.keys()) {
        let old = &stored.objects[key];
        let new = record.objects.entry(key.clone()).or_insert_with(|| Object {
            functions: BTreeMap::new(),
            parts: BTreeMap::new(),
            path: None,
            ..old.clone()
        });
        for name in executed.functions.get(key).into_iter().flatten() {
            new.join(old, name);
        }
    }
    true
}

/// Every file under `dir`, at any depth (none when it cannot be read).
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => dirs.push(entry.path()),
                Ok(kind) if kind.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::baseline::Group;
    use crate::model::Fingerprint;
    use irgate_identity::Parts;

    const BENCH: &str = "release/deps/callgrind";
    const PROGRAM: &str = "release/cli";

    fn object(functions: &[(&str, char)], whole: char) -> Object {
        Object {
            functions: functions
                .iter()
                .map(|(name, digest)| ((*name).to_owned(), digest.to_string().repeat(32)))
                .collect(),
            whole: whole.to_string().repeat(32),
            ..Object::default()
        }
    }

    fn entry(functions: &[&str], ir: u64) -> Executed {
        Executed {
            functions: BTreeMap::from([(
                BENCH.to_owned(),
                functions.iter().map(|f| (*f).to_owned()).collect(),
            )]),
            counts: BTreeMap::from([("Ir".to_owned(), ir)]),
            ..Executed::default()
        }
    }

    fn baselines(irs: &[(&str, u64)]) -> Baselines {
        Baselines {
            dir: "baselines".into(),
            groups: BTreeMap::from([(
                "g".to_owned(),
                Group {
                    fingerprint: Fingerprint::default(),
                    benchmarks: irs
                        .iter()
                        .map(|(id, ir)| {
                            ((*id).to_owned(), BTreeMap::from([("Ir".to_owned(), *ir)]))
                        })
                        .collect(),
                    process: Default::default(),
                },
            )]),
        }
    }

    /// The record of the baselines at commit `a…`: `g::a` runs `f`, `g::b` runs `g`, `g::c`
    /// reads files, `g::d` depends on the program as a whole, `g::h` runs `h`.
    fn stored() -> CodeRecord {
        let mut reads = entry(&["main"], 300);
        reads.reads_files = Some("calls `open64`".to_owned());
        let whole = Executed {
            whole: BTreeSet::from([PROGRAM.to_owned()]),
            counts: BTreeMap::from([("Ir".to_owned(), 400)]),
            ..Executed::default()
        };
        CodeRecord {
            commit: "a".repeat(40),
            identity: irgate_identity::VERSION,
            objects: BTreeMap::from([
                (
                    BENCH.to_owned(),
                    object(&[("main", '1'), ("f", '2'), ("g", '3'), ("h", '4')], '5'),
                ),
                (PROGRAM.to_owned(), object(&[], '6')),
            ]),
            benchmarks: BTreeMap::from([
                ("g::a/x".to_owned(), entry(&["main", "f"], 100)),
                ("g::b/x".to_owned(), entry(&["main", "g"], 200)),
                ("g::c/x".to_owned(), reads),
                ("g::d/x".to_owned(), whole),
                ("g::h/x".to_owned(), entry(&["main", "h"], 500)),
            ]),
            unrecorded: BTreeMap::new(),
        }
    }

    /// A run at commit `b…` that ran `g::a` and `g::h` only (`f` and `h` changed): refreshed
    /// for `g::a` only.
    fn run() -> CodeRecord {
        CodeRecord {
            commit: "b".repeat(40),
            identity: irgate_identity::VERSION,
            objects: BTreeMap::from([(
                BENCH.to_owned(),
                object(&[("main", '1'), ("f", '7'), ("h", '8')], '9'),
            )]),
            benchmarks: BTreeMap::from([
                ("g::a/x".to_owned(), entry(&["main", "f"], 110)),
                ("g::h/x".to_owned(), entry(&["main", "h"], 510)),
            ]),
            unrecorded: BTreeMap::new(),
        }
    }

    /// The baselines after `refresh 'g::a*'`.
    fn after() -> Baselines {
        baselines(&[
            ("g::a/x", 110),
            ("g::b/x", 200),
            ("g::c/x", 300),
            ("g::d/x", 400),
            ("g::h/x", 500),
        ])
    }

    #[test]
    fn a_filtered_refresh_keeps_the_entries_that_still_hold_in_the_new_build() {
        let merged = merge(Some(run()), Some(stored()), &after()).unwrap();
        assert_eq!(merged.commit, "b".repeat(40));
        // The refreshed one from the run; `g::b` (its code the same, or not in the run's build)
        // and `g::d` (its program not in the run's build) kept from the stored record.
        assert_eq!(
            merged.benchmarks.keys().collect::<Vec<_>>(),
            ["g::a/x", "g::b/x", "g::d/x"]
        );
        assert_eq!(merged.benchmarks["g::a/x"].counts["Ir"], 110);
        let bench = &merged.objects[BENCH];
        assert_eq!(bench.functions["f"], "7".repeat(32), "the run's digest");
        assert_eq!(
            bench.functions["g"],
            "3".repeat(32),
            "copied with its digest"
        );
        assert!(
            !bench.functions.contains_key("h"),
            "only what kept entries executed"
        );
        assert_eq!(merged.objects[PROGRAM].whole, "6".repeat(32));
        // `g::h`: its code changed since (and its run's count is not its baseline's); `g::c`
        // may read files, which may have changed between the two commits.
        for id in ["g::h/x", "g::c/x"] {
            assert!(
                merged.unrecorded[id].contains("no longer held when the baselines were refreshed"),
                "{id}: {:?}",
                merged.unrecorded
            );
        }
    }

    #[test]
    fn why_a_benchmark_has_no_record_is_kept_until_it_has_one() {
        let mut stored = stored();
        stored.unrecorded.insert(
            "g::e/x".to_owned(),
            "its region did not cost what was measured".to_owned(),
        );
        let mut after = after();
        let group = after.groups.get_mut("g").unwrap();
        group
            .benchmarks
            .insert("g::e/x".to_owned(), BTreeMap::from([("Ir".to_owned(), 9)]));
        let merged = merge(Some(run()), Some(stored), &after).unwrap();
        assert_eq!(
            merged.unrecorded["g::e/x"],
            "its region did not cost what was measured"
        );
    }

    #[test]
    fn an_entry_is_dropped_when_the_new_build_differs_in_what_it_executed() {
        // `g::b` ran `g`, which the run's build holds with another digest; `g::d`'s program
        // differs as a whole.
        let mut run = run();
        let bench = run.objects.get_mut(BENCH).unwrap();
        bench.functions.insert("g".to_owned(), "c".repeat(32));
        run.objects.insert(PROGRAM.to_owned(), object(&[], 'd'));
        run.benchmarks.get_mut("g::h/x").unwrap().functions.clear();
        let merged = merge(Some(run), Some(stored()), &after()).unwrap();
        assert_eq!(merged.benchmarks.keys().collect::<Vec<_>>(), ["g::a/x"]);
        assert!(merged.unrecorded.contains_key("g::b/x"));
        assert!(merged.unrecorded.contains_key("g::d/x"));
    }

    #[test]
    fn the_runs_entry_serves_a_benchmark_not_refreshed_when_it_describes_its_baseline() {
        // Not refreshed, but measured again at its baseline's count: the run's entry describes it.
        let after = baselines(&[("g::a/x", 110), ("g::h/x", 510)]);
        let merged = merge(Some(run()), Some(stored()), &after).unwrap();
        assert_eq!(merged.benchmarks["g::h/x"], run().benchmarks["g::h/x"]);
    }

    #[test]
    fn a_refresh_without_a_record_removes_the_entries_whose_counts_it_changed() {
        let merged = merge(None, Some(stored()), &after()).unwrap();
        assert_eq!(merged.commit, "a".repeat(40), "still the stored record's");
        assert!(
            !merged.benchmarks.contains_key("g::a/x"),
            "Ir 100 is no longer its baseline"
        );
        assert!(merged.unrecorded["g::a/x"].contains("no longer held"));
        // The others still describe their baselines, files and all (one commit).
        assert_eq!(
            merged.benchmarks.keys().collect::<Vec<_>>(),
            ["g::b/x", "g::c/x", "g::d/x", "g::h/x"]
        );
        assert_eq!(merged.objects, {
            let mut kept = stored();
            kept.benchmarks.remove("g::a/x");
            kept.narrow_to_executed();
            kept.objects
        });
        assert_eq!(merge(None, None, &after()), None);
    }

    #[test]
    fn an_entry_of_schema_version_1_is_kept_with_counts_only_when_its_baseline_is_of_its_commit() {
        let mut stored = stored();
        for executed in stored.benchmarks.values_mut() {
            executed.counts.clear();
        }
        // Measured at another commit than the record's: nothing says they describe them.
        let mut after = after();
        after.groups.get_mut("g").unwrap().fingerprint.commit = "c".repeat(40);
        let merged = merge(None, Some(stored.clone()), &after).unwrap();
        assert!(merged.benchmarks.is_empty(), "{:?}", merged.benchmarks);
        // At the record's commit: the same code; kept, with the baselines' counts.
        after.groups.get_mut("g").unwrap().fingerprint.commit = stored.commit.clone();
        let merged = merge(None, Some(stored), &after).unwrap();
        assert_eq!(merged.benchmarks.len(), 5);
        assert_eq!(merged.benchmarks["g::b/x"].counts["Ir"], 200);
    }

    #[test]
    fn stored_entries_of_the_same_commit_join_their_data_digests() {
        let mut stored = stored();
        let mut run = run();
        run.commit = stored.commit.clone();
        let parts = |offsets: &[u32]| Parts {
            code: "e".repeat(32),
            data: offsets.iter().map(|o| (*o, "f".repeat(32))).collect(),
        };
        stored.objects.get_mut(BENCH).unwrap().parts =
            BTreeMap::from([("main".to_owned(), parts(&[4, 8]))]);
        run.objects.get_mut(BENCH).unwrap().parts =
            BTreeMap::from([("main".to_owned(), parts(&[8, 12]))]);
        let merged = merge(Some(run), Some(stored), &after()).unwrap();
        assert!(
            merged.benchmarks.contains_key("g::c/x"),
            "same commit: files too"
        );
        assert_eq!(
            merged.objects[BENCH].parts["main"]
                .data
                .keys()
                .collect::<Vec<_>>(),
            [&4, &8, &12]
        );
    }

    #[test]
    fn a_function_either_side_compares_whole_stays_whole_when_joined() {
        // Listing code (or a constructor) has no parts in a record: no benchmark's record says which
        // of its data it reads, so it compares by its whole digest, and joining keeps it so.
        let parts = Parts {
            code: "e".repeat(32),
            data: BTreeMap::from([(4, "f".repeat(32))]),
        };
        for (stored_has, run_has) in [(false, true), (true, false)] {
            let mut stored = stored();
            let mut run = run();
            run.commit = stored.commit.clone();
            let with = |has: bool| {
                if has {
                    BTreeMap::from([("main".to_owned(), parts.clone())])
                } else {
                    BTreeMap::new()
                }
            };
            stored.objects.get_mut(BENCH).unwrap().parts = with(stored_has);
            run.objects.get_mut(BENCH).unwrap().parts = with(run_has);
            let merged = merge(Some(run), Some(stored), &after()).unwrap();
            assert!(
                !merged.objects[BENCH].parts.contains_key("main"),
                "stored parts {stored_has}, run parts {run_has}: {:?}",
                merged.objects[BENCH].parts
            );
        }
    }

    #[test]
    fn the_last_line_says_when_the_record_is_of_uncommitted_changes() {
        let path = std::path::Path::new("baselines/code/record.json");
        let hash = "0123456789abcdef0123456789abcdef01234567";
        let mut record = CodeRecord {
            commit: hash.to_owned(),
            ..CodeRecord::default()
        };
        record.benchmarks.insert("g::f".into(), entry(&["f"], 1));
        let clean = record_line(&record, path);
        assert!(
            clean.ends_with("executed, at 0123456789ab, in baselines/code/record.json"),
            "{clean}"
        );
        record.commit = format!("{hash}-dirty");
        let dirty = record_line(&record, path);
        assert!(
            dirty.contains("at 0123456789ab-dirty, in") && dirty.contains("runs every benchmark"),
            "{dirty}"
        );
    }
}
