//! The history (`irgate history add`) and its dashboard (`irgate history render`) without a
//! browser: a fixture series (a refresh, an environment change, a run of part of the suite)
//! recorded as CI records it, what is refused, and that drawing is deterministic. The pages in a
//! real headless Chromium: slow::dashboard.

use std::path::{Path, PathBuf};

use crate::harness::{Run, fixture, irgate};

/// The fixture series recorded as CI records it: one `history add` per push, run 5 with
/// `--refreshed`.
pub fn recorded_history(dir: &Path) -> PathBuf {
    let history = dir.join("history");
    for n in 1..=8 {
        let mut command = irgate(dir);
        command.args(["history", "add", "--history"]).arg(&history);
        if n == 5 {
            command.arg("--refreshed");
        }
        let run: Run = command
            .arg(format!("{}/run{n}.json", fixture("history")))
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.starts_with("added "), "{}", run.stdout);
    }
    history
}

#[test]
fn a_bad_history_is_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let history = recorded_history(dir.path());
    let runs = history.join("runs");
    let first = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    std::fs::write(&first, "{\"schema_version\": 1, \"commit\": \"zz\"").unwrap();
    let run: Run = irgate(dir.path())
        .args(["history", "render", "--history"])
        .arg(&history)
        .arg("--out")
        .arg(dir.path().join("site"))
        .output()
        .unwrap()
        .into();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with(&format!("irgate: error: {}", first.display()))
            && run.stderr.contains("truncated JSON"),
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("site").exists());

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run: Run = irgate(dir.path())
        .args(["history", "render", "--out", "site", "--history"])
        .arg(&empty)
        .output()
        .unwrap()
        .into();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("the history holds no runs"),
        "{}",
        run.stderr
    );
}

/// The same history draws the same site, byte for byte, and recording it again changes nothing.
#[test]
fn the_same_history_draws_the_same_site() {
    let dir = tempfile::tempdir().unwrap();
    let history = recorded_history(dir.path());
    let again: Run = irgate(dir.path())
        .args(["history", "add", "--history"])
        .arg(&history)
        .arg(fixture("history/run8.json"))
        .output()
        .unwrap()
        .into();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.starts_with("already recorded: "),
        "{}",
        again.stdout
    );
    let render = |out: &str| {
        let run: Run = irgate(dir.path())
            .args(["history", "render", "--out", out, "--history"])
            .arg(&history)
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{}", run.stderr);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join(out))
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let first = render("one");
    assert_eq!(first.len(), 4);
    assert_eq!(first, render("two"));
}
