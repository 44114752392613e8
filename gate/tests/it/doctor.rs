//! `irgate doctor` on the fingerprint fixture, and the other direction of the environment check:
//! baselines whose fingerprint names another toolchain or valgrind than this run's are refused by
//! `irgate check` and reported field by field by `irgate doctor`. Doctor on this machine's real
//! fingerprint: slow::doctor.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::harness::Sandbox;

/// A sandbox whose baselines were taken in the environment `irgate` sees (`irgate run --from`
/// the fixture summaries, `irgate refresh`): results base.json.
fn repository_with_baselines() -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.baselines();
    sandbox
}

fn baseline_files(sandbox: &Sandbox) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(sandbox.path("baselines"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

fn edit_fingerprint(file: &Path, field: &str, value: &str) {
    let mut baseline: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    baseline["fingerprint"][field] = json!(value);
    std::fs::write(file, serde_json::to_string_pretty(&baseline).unwrap()).unwrap();
}

/// The value `irgate doctor` shows here for `field` (the words after the field's name).
pub fn field_value(stdout: &str, field: &str) -> String {
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
fn a_baseline_taken_with_another_toolchain_or_valgrind_is_refused_naming_the_field() {
    let sandbox = repository_with_baselines();
    let files = baseline_files(&sandbox);
    assert!(files.len() >= 2, "{files:?}");
    let here = sandbox.irgate(&["doctor"]).stdout;
    let (rustc_here, valgrind_here) = (field_value(&here, "rustc"), field_value(&here, "valgrind"));
    // One group was taken with another rustc; every group with another valgrind.
    edit_fingerprint(&files[0], "rustc", "1.96.0");
    for file in &files {
        edit_fingerprint(file, "valgrind", "valgrind-3.25.0");
    }
    let group = files[0].file_stem().unwrap().to_str().unwrap();

    let check = sandbox.irgate(&["check", "--results", "base.json"]);
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

    let doctor = sandbox.irgate(&["doctor"]);
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
fn doctor_refuses_a_broken_baseline_file() {
    let sandbox = repository_with_baselines();
    let file = &baseline_files(&sandbox)[0];
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, &text[..text.len() / 2]).unwrap();
    let doctor = sandbox.irgate(&["doctor"]);
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
    let sandbox = repository_with_baselines();
    let mut child = sandbox
        .command()
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
