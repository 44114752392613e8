//! The measurement is irgate's alone (issue 47): the settings a repository or the environment
//! could use to change what callgrind counts, against the real runner (gungraun 0.20.0, as
//! `irgate runner` installs it or `GUNGRAUN_RUNNER` names it) on the `gbench` fixture.

use std::path::{Path, PathBuf};

use crate::harness::{FIXTURES, Run, assert_error, copy_dir, irgate, output};

/// The toggles that stopped the measurement in issue 47: collection flips at every call of these
/// functions, so a benchmark counts some other part of its process.
const TOGGLES: &str = "--toggle-collect=*varint_encode* --toggle-collect=*alloc*";

/// A copy of the `gbench` suite in a temporary directory, and the target directory its builds
/// share across the tests (so the suite is built once).
fn gbench() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(FIXTURES).join("gbench"), &dir.path().join("g"));
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("measurement-gbench");
    (dir, target)
}

/// `irgate run` in the copy at `dir`, building into `target`, with `env` added.
fn run(dir: &Path, target: &Path, env: &[(&str, &str)]) -> Run {
    let mut command = irgate(&dir.join("g"));
    command
        .arg("run")
        .env("CARGO_TARGET_DIR", target)
        .envs(env.iter().copied());
    output(&mut command)
}

/// Each benchmark's Ir in the results a run wrote into `target`.
fn irs(target: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(target.join("irgate/results.json")).unwrap();
    let results: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut irs: Vec<(String, u64)> = results["benchmarks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(id, counts)| (id.clone(), counts["Ir"].as_u64().unwrap()))
        .collect();
    irs.sort();
    irs
}

#[test]
fn a_repository_that_sets_the_runners_valgrind_args_is_refused_before_anything_runs() {
    let (dir, target) = gbench();
    let cargo = dir.path().join("g/.cargo");
    std::fs::create_dir_all(&cargo).unwrap();
    std::fs::write(
        cargo.join("config.toml"),
        format!("[env]\nGUNGRAUN_VALGRIND_ARGS = \"{TOGGLES}\"\n"),
    )
    .unwrap();
    let refused = run(dir.path(), &target, &[]);
    assert_error(
        &refused,
        &[
            "g/.cargo/config.toml",
            "`[env] GUNGRAUN_VALGRIND_ARGS`",
            "remove it",
        ],
    );
    // Nothing was measured.
    assert!(!refused.stderr.contains("[1/6]"), "{}", refused.stderr);
}

#[test]
fn a_runner_set_above_the_workspace_is_refused_too() {
    let (dir, target) = gbench();
    let cargo = dir.path().join(".cargo");
    std::fs::create_dir_all(&cargo).unwrap();
    std::fs::write(
        cargo.join("config"),
        "[target.'cfg(target_os = \"linux\")']\nrunner = \"env\"\n",
    )
    .unwrap();
    assert_error(
        &run(dir.path(), &target, &[]),
        &[
            ".cargo/config",
            "`[target.cfg(target_os = \"linux\")] runner`",
        ],
    );
}

#[test]
fn a_suite_that_passes_the_runner_valgrind_args_is_refused() {
    let (dir, target) = gbench();
    std::fs::write(
        dir.path().join("g/gate.toml"),
        format!(
            "[[suite]]\npackage = \"gbench\"\nbench = \"callgrind\"\n\
             args = [\"--valgrind-args={TOGGLES}\"]\n"
        ),
    )
    .unwrap();
    assert_error(
        &run(dir.path(), &target, &[]),
        &["gate.toml", "suite `gbench/callgrind`", "`--valgrind-args`"],
    );
}

#[test]
fn the_environments_toggles_valgrind_opts_and_a_valgrindrc_move_no_count() {
    let (dir, target) = gbench();
    let plain = run(dir.path(), &target, &[]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let counted = irs(&target);
    assert_eq!(counted.len(), 6, "{counted:?}");
    // Each would stop or shift collection if valgrind or the runner read it.
    for rc in [
        dir.path().join("g/.valgrindrc"),
        dir.path().join(".valgrindrc"),
    ] {
        std::fs::write(rc, "--instr-atstart=no\n").unwrap();
    }
    let hostile = run(
        dir.path(),
        &target,
        &[
            ("GUNGRAUN_VALGRIND_ARGS", TOGGLES),
            ("GUNGRAUN_ENV_CLEAR", "no"),
            ("VALGRIND_OPTS", "--instr-atstart=no"),
        ],
    );
    assert_eq!(hostile.code, 0, "{}", hostile.stderr);
    assert!(
        hostile.stderr.contains(
            "ignoring GUNGRAUN_ENV_CLEAR, GUNGRAUN_VALGRIND_ARGS, VALGRIND_OPTS from the \
             environment"
        ),
        "{}",
        hostile.stderr
    );
    assert_eq!(irs(&target), counted);
}
