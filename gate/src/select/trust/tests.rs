use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::*;
use crate::formats::baseline::Group;
use crate::git::for_tests as git;
use crate::model::code::{Executed, Object};
use crate::model::{Counts, Fingerprint};

const BENCH: &str = "release/deps/callgrind";

fn counts(ir: u64) -> Counts {
    BTreeMap::from([("Ir".to_owned(), ir)])
}

fn entry(ir: Option<u64>) -> Executed {
    Executed {
        functions: BTreeMap::from([(BENCH.to_owned(), BTreeSet::from(["main".to_owned()]))]),
        counts: ir.map(counts).unwrap_or_default(),
        ..Executed::default()
    }
}

/// A record of `commit`: `g::a/x` measured at Ir 100, `g::b/y` at 200, `g::c/z` executing
/// nothing.
fn record(commit: &str) -> CodeRecord {
    CodeRecord {
        commit: commit.to_owned(),
        identity: irgate_identity::VERSION,
        objects: BTreeMap::from([(
            BENCH.to_owned(),
            Object {
                functions: BTreeMap::from([("main".to_owned(), "1".repeat(32))]),
                whole: "2".repeat(32),
                ..Object::default()
            },
        )]),
        benchmarks: BTreeMap::from([
            ("g::a/x".to_owned(), entry(Some(100))),
            ("g::b/y".to_owned(), entry(Some(200))),
            (
                "g::c/z".to_owned(),
                Executed {
                    counts: counts(300),
                    ..Executed::default()
                },
            ),
        ]),
        unrecorded: BTreeMap::new(),
    }
}

/// Baselines where `g::b/y` was refreshed (without a record) to Ir 250.
fn baselines(dir: &Path) -> Baselines {
    Baselines {
        dir: dir.to_owned(),
        groups: BTreeMap::from([(
            "g".to_owned(),
            Group {
                fingerprint: Fingerprint::default(),
                benchmarks: BTreeMap::from([
                    ("g::a/x".to_owned(), counts(100)),
                    ("g::b/y".to_owned(), counts(250)),
                    ("g::c/z".to_owned(), counts(300)),
                ]),
                process: Default::default(),
            },
        )]),
    }
}

/// A repository with one commit, and its paths.
fn repository(root: &Path) -> (Resolved, String) {
    git(root, &["init", "--quiet"]);
    std::fs::write(root.join("lib.rs"), "fn main() {}\n").unwrap();
    git(root, &["add", "lib.rs"]);
    git(root, &["commit", "--quiet", "-m", "one"]);
    let paths = Resolved {
        root: root.to_owned(),
        config: root.join("gate.toml"),
        config_named: false,
        baselines: root.join("baselines"),
        results: root.join("target/irgate/results.json"),
    };
    (paths, crate::git::resolve(root, "HEAD").unwrap())
}

fn store(paths: &Resolved, record: &CodeRecord) {
    code::write(&paths.baselines.join(code::BASELINE_FILE), record).unwrap();
}

#[test]
fn an_entry_describes_only_the_baseline_of_its_counts() {
    let two = |ir, cycles| {
        BTreeMap::from([
            ("Ir".to_owned(), ir),
            ("EstimatedCycles".to_owned(), cycles),
        ])
    };
    let with = |counts: Counts| Executed {
        counts,
        ..Executed::default()
    };
    let (c1, c2) = ("a".repeat(40), "b".repeat(40));
    let of = |entry: Counts, baseline: &Counts, at: &str| {
        code::mismatch(&with(entry), &c1, (baseline, at))
    };
    assert_eq!(of(counts(5), &two(5, 9), &c2), None);
    assert_eq!(of(two(5, 9), &two(5, 9), &c2), None);
    let why = of(counts(5), &counts(6), &c1).unwrap();
    assert!(
        why.contains("another count than its baseline (Ir 5 recorded, 6 in the baseline)")
            && why.contains("without `irgate run --record`"),
        "{why}"
    );
    let why = of(two(5, 9), &two(5, 10), &c1).unwrap();
    assert!(why.contains("EstimatedCycles 9 recorded, 10"), "{why}");
    // No Ir on one side: nothing says it describes it.
    let cycles = BTreeMap::from([("EstimatedCycles".to_owned(), 9)]);
    assert!(of(cycles.clone(), &cycles, &c1).is_some());
    // No counts at all (schema_version 1): only a baseline measured at the record's own clean
    // commit, the same code.
    assert_eq!(of(Counts::new(), &counts(5), &c1), None);
    let why = of(Counts::new(), &counts(5), &c2).unwrap();
    assert!(
        why.contains("schema_version 1") && why.contains("another commit"),
        "{why}"
    );
    let dirty = format!("{c1}-dirty");
    assert!(code::mismatch(&with(Counts::new()), &dirty, (&counts(5), &dirty)).is_some());
}

#[test]
fn entries_that_do_not_describe_their_baseline_count_as_unrecorded() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, head) = repository(dir.path());
    store(&paths, &record(&head));
    let trusted = baseline_record(&paths, &baselines(&paths.baselines), None).unwrap();
    assert_eq!(trusted.benchmarks.keys().collect::<Vec<_>>(), ["g::a/x"]);
    assert!(
        trusted.unrecorded["g::b/y"].contains("Ir 200 recorded, 250 in the baseline"),
        "{:?}",
        trusted.unrecorded
    );
    assert!(trusted.unrecorded["g::c/z"].contains("executed nothing"));
}

#[test]
fn a_record_of_a_commit_head_does_not_descend_from_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (paths, _) = repository(root);
    git(root, &["checkout", "--quiet", "-b", "side"]);
    std::fs::write(root.join("lib.rs"), "fn main() { slow() }\n").unwrap();
    git(root, &["commit", "--quiet", "-am", "side"]);
    let side = crate::git::resolve(root, "HEAD").unwrap();
    git(root, &["checkout", "--quiet", "trunk"]);
    store(&paths, &record(&side));
    let why = baseline_record(&paths, &baselines(&paths.baselines), None).unwrap_err();
    assert!(why.contains("which HEAD does not descend from"), "{why}");
    // A commit that is in no history at all.
    store(&paths, &record(&"f".repeat(40)));
    let why = baseline_record(&paths, &baselines(&paths.baselines), None).unwrap_err();
    assert!(why.contains("which this checkout does not hold"), "{why}");
    // Uncommitted changes and other identity rules are refused by the one check too.
    store(&paths, &record(&format!("{side}-dirty")));
    let why = baseline_record(&paths, &baselines(&paths.baselines), None).unwrap_err();
    assert!(why.contains("uncommitted changes"), "{why}");
}

#[test]
fn a_record_read_from_a_commit_ignores_the_tree_under_test_and_its_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (paths, first) = repository(root);
    let base = baselines(&paths.baselines);
    store(&paths, &record(&first));
    git(root, &["add", "baselines"]);
    git(root, &["commit", "--quiet", "-m", "record"]);
    let second = crate::git::resolve(root, "HEAD").unwrap();
    let from = baseline_record(&paths, &base, Some(&second)).unwrap();
    assert_eq!(from, baseline_record(&paths, &base, None).unwrap());
    // The tree under test brings its own record: read from the base, it is not used, and the
    // change to the baselines makes every benchmark run.
    let mut forged = record(&second);
    forged
        .benchmarks
        .get_mut("g::a/x")
        .unwrap()
        .functions
        .clear();
    forged.benchmarks.get_mut("g::a/x").unwrap().whole = BTreeSet::from([BENCH.to_owned()]);
    store(&paths, &forged);
    assert!(
        baseline_record(&paths, &base, None).is_ok(),
        "the tree's own"
    );
    let why = baseline_record(&paths, &base, Some(&second)).unwrap_err();
    assert!(
        why.contains("the change alters the baselines since")
            && why.contains("`baselines/code/record.json`"),
        "{why}"
    );
    // An untracked file under the baselines is a change too.
    git(root, &["checkout", "--quiet", "--", "baselines"]);
    std::fs::write(paths.baselines.join("g.json"), "{}").unwrap();
    let why = baseline_record(&paths, &base, Some(&second)).unwrap_err();
    assert!(why.contains("`baselines/g.json`"), "{why}");
    std::fs::remove_file(paths.baselines.join("g.json")).unwrap();
    assert_eq!(baseline_record(&paths, &base, Some(&second)).unwrap(), from);
    // A revision that names nothing, or that has no record.
    let why = baseline_record(&paths, &base, Some("nowhere")).unwrap_err();
    assert!(why.contains("names no commit"), "{why}");
}

#[test]
fn a_record_committed_as_a_link_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (paths, _) = repository(root);
    let file = paths.baselines.join(code::BASELINE_FILE);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    git(root, &["add", "baselines"]);
    git(root, &["commit", "--quiet", "-m", "a link"]);
    let base = baselines(&paths.baselines);
    let why = baseline_record(&paths, &base, Some("HEAD")).unwrap_err();
    assert!(why.contains("not a regular file"), "{why}");
    let why = baseline_record(&paths, &base, None).unwrap_err();
    assert!(why.contains("not a regular file"), "{why}");
}
