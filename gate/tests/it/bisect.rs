//! `irgate bisect`'s refusals of bad input, before anything is built (no valgrind): a revision
//! that names no commit or looks like an option, --good not an ancestor of --bad; and its JSON,
//! frozen, read back as `irgate history add --bisect` reads it. The bisection itself is proved by
//! scripts/bisect-fixture.sh.

use crate::harness::Sandbox;

/// A sandbox repository with gate.toml and two branches off one commit: `trunk` (two commits)
/// and `side` (one); returns the first commit.
fn repository() -> (Sandbox, String) {
    let sandbox = Sandbox::new();
    sandbox.git(&["init", "--quiet", "--initial-branch=trunk"]);
    sandbox.write("a.txt", "1\n");
    sandbox.git(&["add", "-A"]);
    sandbox.git(&["commit", "--quiet", "-m", "first"]);
    let first = sandbox.git(&["rev-parse", "HEAD"]);
    sandbox.git(&["branch", "side"]);
    sandbox.write("a.txt", "2\n");
    sandbox.git(&["commit", "--quiet", "-am", "second"]);
    sandbox.git(&["checkout", "--quiet", "side"]);
    sandbox.write("b.txt", "x\n");
    sandbox.git(&["add", "-A"]);
    sandbox.git(&["commit", "--quiet", "-m", "on the side"]);
    sandbox.git(&["checkout", "--quiet", "trunk"]);
    (sandbox, first)
}

#[test]
fn good_must_be_an_ancestor_of_bad() {
    let (sandbox, first) = repository();
    let run = sandbox.irgate(&["bisect", "--good", "side", "--bad", "trunk"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("is not an ancestor of --bad"),
        "{}",
        run.stderr
    );
    let swapped = sandbox.irgate(&["bisect", "--good", "trunk", "--bad", &first]);
    assert_eq!(swapped.code, 2, "{}", swapped.stderr);
    assert!(
        swapped.stderr.contains("not an ancestor"),
        "{}",
        swapped.stderr
    );
    let same = sandbox.irgate(&["bisect", "--good", "trunk", "--bad", "trunk"]);
    assert_eq!(same.code, 2, "{}", same.stderr);
    assert!(same.stderr.contains("the same commit"), "{}", same.stderr);
    assert!(
        !sandbox.path("target/irgate/bisect").exists(),
        "nothing was checked out or built"
    );
}

#[test]
fn a_revision_that_names_no_commit_is_refused() {
    let (sandbox, _) = repository();
    let run = sandbox.irgate(&["bisect", "--good", "no-such-branch", "--bad", "trunk"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("`no-such-branch` names no commit"),
        "{}",
        run.stderr
    );
    let bad = sandbox.irgate(&["bisect", "--good", "trunk~1", "--bad", "trunk~9"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("`trunk~9` names no commit"),
        "{}",
        bad.stderr
    );
}

#[test]
fn a_revision_that_looks_like_an_option_is_refused() {
    let (sandbox, _) = repository();
    for args in [
        [
            "bisect",
            "--good=--upload-pack=touch pwned",
            "--bad",
            "trunk",
        ],
        ["bisect", "--good", "trunk~1", "--bad=-x"],
        ["bisect", "--good=-x", "--bad", "trunk"],
    ] {
        let run = sandbox.irgate(&args);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("starts with `-`"), "{}", run.stderr);
    }
    assert!(!sandbox.path("pwned").exists());
    let builds = sandbox.irgate(&[
        "bisect",
        "--good",
        "trunk~1",
        "--bad",
        "trunk",
        "--max-builds",
        "1",
    ]);
    assert_eq!(builds.code, 2, "{}", builds.stderr);
    assert!(builds.stderr.contains("at least 2"), "{}", builds.stderr);
}

/// The JSON of `irgate bisect --format json`, every field present, frozen: a change here is a new
/// schema version (or an added field, documented in docs/bisect.md). The history's reader takes
/// what it keeps from it.
#[test]
fn the_bisect_json_is_frozen() {
    use irgate::bisect::{
        Bisection, Linear, Move, Skipped, Undecided, Unexplained, Unreproducible,
    };
    let (good, bad) = ("1".repeat(40), "9".repeat(40));
    let bisection = Bisection {
        good: good.clone(),
        bad: bad.clone(),
        commits: 16,
        benchmarks: 5,
        unchanged: 1,
        moves: vec![
            Move {
                benchmark: "once::lonely/one".to_owned(),
                commit: "3".repeat(40),
                subject: "STEP is 5".to_owned(),
                before: Some(21),
                after: Some(29),
                functions: vec!["bisectfix::lonely".to_owned()],
                files: Vec::new(),
            },
            Move {
                benchmark: "data::table/read".to_owned(),
                commit: "4".repeat(40),
                subject: "a new table".to_owned(),
                before: None,
                after: Some(100),
                functions: Vec::new(),
                files: vec!["data/table.bin".to_owned()],
            },
        ],
        undecided: vec![Undecided {
            benchmark: "twice::shared/one".to_owned(),
            after: "5".repeat(40),
            through: "6".repeat(40),
            commits: 3,
            before: Some(15),
            count: Some(27),
            why: "--max-builds 4 reached".to_owned(),
        }],
        unreproducible: vec![Unreproducible {
            benchmark: "random::seed/one".to_owned(),
            counts: [Some(10), Some(11)],
        }],
        unexplained: vec![Unexplained {
            benchmark: "memcpy::align/one".to_owned(),
            good: 500,
            bad: 502,
        }],
        skipped: vec![Skipped {
            commit: "7".repeat(40),
            why: "cargo build failed".to_owned(),
        }],
        builds: 9,
        runs: 3,
        benchmark_runs: 12,
        measured: vec![good.clone(), bad.clone()],
        linear: Linear {
            builds: 17,
            runs: 17,
            benchmark_runs: 68,
        },
        seconds: 172.5,
    };
    let json = irgate::bisect::format::json(&bisection);
    insta::assert_snapshot!(json);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bisect.json");
    std::fs::write(&path, &json).unwrap();
    let kept = irgate::bisect::format::read(&path, &bad).unwrap();
    assert_eq!(kept.good, good);
    assert_eq!(kept.moves.len(), bisection.moves.len());
    for (kept, written) in kept.moves.iter().zip(&bisection.moves) {
        assert_eq!(
            (&kept.benchmark, &kept.commit, &kept.subject),
            (&written.benchmark, &written.commit, &written.subject)
        );
        assert_eq!((kept.before, kept.after), (written.before, written.after));
    }
    assert_eq!(kept.moves[0].functions, ["bisectfix::lonely"]);
    assert_eq!(kept.undecided.len(), 1);
    assert_eq!(kept.undecided[0].through, "6".repeat(40));
    // Read for another run's commit, it is refused.
    let error = irgate::bisect::format::read(&path, &good).unwrap_err();
    assert!(
        error.to_string().contains("not up to this run's commit"),
        "{error}"
    );
}
