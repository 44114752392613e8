//! `irgate bisect`'s refusals of bad input, before anything is built (no valgrind): a revision
//! that names no commit or looks like an option, --good not an ancestor of --bad. The bisection
//! itself is proved by scripts/bisect-fixture.sh.

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
