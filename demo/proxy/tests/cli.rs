//! The binaries refuse bad input with a specific message and exit status 2, never a panic.

use std::process::{Command, Output};

fn irload(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_irload"))
        .args(args)
        .output()
        .unwrap()
}

fn refused(output: &Output, message: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(message),
        "expected {message:?} in: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn load_off_loopback_is_refused() {
    let output = irload(&["run", "--target", "192.0.2.1:25565", "--duration", "1"]);
    refused(&output, "192.0.2.1:25565 is not a loopback address");
}

#[test]
fn out_of_range_settings_are_refused() {
    let output = irload(&["run", "--target", "127.0.0.1:9", "--connections", "0"]);
    refused(&output, "connections must be between 1 and 256, got 0");
}

#[test]
fn compare_refuses_files_that_are_not_reports() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = dir.path().join("a.json");
    std::fs::write(&not_json, "latency: fast").unwrap();
    let other = dir.path().join("b.json");
    std::fs::write(&other, r#"{"schema": "something-else/1"}"#).unwrap();
    let [a, b] = [&not_json, &other].map(|p| p.to_str().unwrap().to_owned());
    refused(
        &irload(&["compare", "--base", &a, "--new", &b]),
        "a.json is not JSON",
    );
    refused(
        &irload(&["compare", "--base", &b, "--new", &b]),
        "b.json is not an irload report of schema irload-report/1",
    );
    refused(
        &irload(&["compare", "--base", &b, "--new", &b, "--alpha", "2"]),
        "--alpha must be between 0 and 1, got 2",
    );
    refused(
        &irload(&["compare", "--base", "/nonexistent/x.json", "--new", &b]),
        "cannot read /nonexistent/x.json",
    );
}

#[test]
fn an_unknown_filter_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_irproxy"))
        .args(["--filter", "zip"])
        .output()
        .unwrap();
    refused(&output, "unknown filter \"zip\"");
}
