//! `irgate doctor` end to end, and the other direction of the environment check: baselines whose
//! fingerprint names another toolchain or valgrind than this machine's are refused by `irgate
//! check` and reported field by field by `irgate doctor`.

use std::path::{Path, PathBuf};

mod support;

use support::Run;

use serde_json::{Value, json};

const SUMMARIES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/summaries/base");

fn irgate(dir: &Path, args: &[&str]) -> Run {
    support::irgate(dir).args(args).output().unwrap().into()
}

/// A scratch repository whose baselines were taken on this machine: `irgate run --from` records
/// this machine's fingerprint with the fixture summaries, `irgate refresh` writes them.
fn repository_with_baselines_from_here() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gate.toml"),
        "[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n",
    )
    .unwrap();
    let run = irgate(
        dir.path(),
        &["run", "--from", SUMMARIES, "--results", "results.json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let refresh = irgate(dir.path(), &["refresh", "--results", "results.json"]);
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    dir
}

fn baseline_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("baselines"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

fn edit_fingerprint(file: &Path, field: &str, value: &str) {
    let mut baseline: Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    baseline["fingerprint"][field] = json!(value);
    std::fs::write(file, serde_json::to_string_pretty(&baseline).unwrap()).unwrap();
}

/// The value `irgate doctor` shows here for `field` (the words after the field's name).
fn field_value(stdout: &str, field: &str) -> String {
    stdout
        .lines()
        .find_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().take(2).position(|word| *word == field)?;
            Some(words[at + 1..].join(" "))
        })
        .unwrap_or_else(|| panic!("no `{field}` line in:\n{stdout}"))
}

#[test]
fn doctor_shows_this_environment_and_that_it_matches_baselines_taken_here() {
    let dir = repository_with_baselines_from_here();
    let doctor = irgate(dir.path(), &["doctor"]);
    assert_eq!(doctor.code, 0, "{}{}", doctor.stdout, doctor.stderr);
    for field in ["rustc", "valgrind", "library", "glibc", "cpu_flags", "aslr"] {
        assert!(
            doctor.stdout.lines().any(
                |line| line.starts_with("ok ") && line.split_whitespace().nth(1) == Some(field)
            ),
            "{field} is not `ok`:\n{}",
            doctor.stdout
        );
    }
    assert!(
        doctor
            .stdout
            .contains("Every field that changes counts matches"),
        "{}",
        doctor.stdout
    );
    assert!(!doctor.stdout.contains("DIFFERS"), "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("info     host_cpu"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn a_baseline_taken_with_another_toolchain_or_valgrind_is_refused_naming_the_field() {
    let dir = repository_with_baselines_from_here();
    let files = baseline_files(dir.path());
    assert!(files.len() >= 2, "{files:?}");
    let here = irgate(dir.path(), &["doctor"]).stdout;
    let (rustc_here, valgrind_here) = (field_value(&here, "rustc"), field_value(&here, "valgrind"));
    // One group was taken with another rustc; every group with another valgrind.
    edit_fingerprint(&files[0], "rustc", "1.96.0");
    for file in &files {
        edit_fingerprint(file, "valgrind", "valgrind-3.25.0");
    }
    let group = files[0].file_stem().unwrap().to_str().unwrap();

    let check = irgate(dir.path(), &["check", "--results", "results.json"]);
    assert_eq!(check.code, 2, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains(&format!(
            "rustc (baseline `1.96.0`, this run `{rustc_here}`)"
        )),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains(&format!(
            "valgrind (baseline `valgrind-3.25.0`, this run `{valgrind_here}`)"
        )),
        "{}",
        check.stdout
    );

    let doctor = irgate(dir.path(), &["doctor"]);
    assert_eq!(doctor.code, 2, "{}", doctor.stdout);
    let lines: Vec<&str> = doctor.stdout.lines().collect();
    let differs = |field: &str| {
        lines
            .iter()
            .position(|line| {
                line.starts_with("DIFFERS") && line.split_whitespace().nth(1) == Some(field)
            })
            .unwrap_or_else(|| panic!("{field} does not differ:\n{}", doctor.stdout))
    };
    // The baselines' values follow their field, with the groups when they disagree.
    let rustc = differs("rustc");
    assert!(
        lines[rustc + 1].trim_start().starts_with("baselines: ")
            && lines[rustc + 1].contains(&format!("1.96.0 ({group})")),
        "{}",
        doctor.stdout
    );
    let valgrind = differs("valgrind");
    assert_eq!(lines[valgrind + 1].trim(), "baselines: valgrind-3.25.0");
    assert!(
        doctor
            .stdout
            .contains("2 field(s) that change counts differ: rustc, valgrind."),
        "{}",
        doctor.stdout
    );
    // Fields that do not change counts are information, never a failure.
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("info") && line.contains("commit"))
    );
}

#[test]
fn doctor_without_baselines_prints_the_environment_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gate.toml"),
        "[budgets]\nIr = { absolute = 1 }\n",
    )
    .unwrap();
    let doctor = irgate(dir.path(), &["doctor"]);
    assert_eq!(doctor.code, 0, "{}", doctor.stderr);
    assert!(
        doctor.stdout.contains("no baselines in"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("`irgate run && irgate refresh`"),
        "{}",
        doctor.stdout
    );
    assert!(!field_value(&doctor.stdout, "rustc").is_empty());
}

#[test]
fn doctor_refuses_a_broken_baseline_file() {
    let dir = repository_with_baselines_from_here();
    let file = &baseline_files(dir.path())[0];
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, &text[..text.len() / 2]).unwrap();
    let doctor = irgate(dir.path(), &["doctor"]);
    assert_eq!(doctor.code, 2, "{}", doctor.stdout);
    assert!(
        doctor
            .stderr
            .contains(&file.file_name().unwrap().to_string_lossy().to_string()),
        "{}",
        doctor.stderr
    );
}

#[test]
fn a_reader_that_goes_away_is_not_a_crash() {
    let dir = repository_with_baselines_from_here();
    let mut child = support::irgate(dir.path())
        .arg("doctor")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `irgate doctor | head -0`: the reader closes before irgate writes.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}
