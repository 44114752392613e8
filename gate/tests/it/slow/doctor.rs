//! `irgate doctor` on this machine's real fingerprint (valgrind, rustc, git): the environment it
//! shows, and that baselines taken here match it.

use crate::doctor::field_value;
use crate::harness::{Run, Sandbox, collecting, output, summaries};

/// `irgate ARGS` in `sandbox`, collecting this machine's fingerprint.
fn here(sandbox: &Sandbox, args: &[&str]) -> Run {
    output(collecting(sandbox.dir.path()).args(args))
}

/// A sandbox whose baselines were taken on this machine: `irgate run --from` records this
/// machine's fingerprint with the fixture summaries, `irgate refresh` writes them.
fn repository_with_baselines_from_here() -> Sandbox {
    let sandbox = Sandbox::new();
    let run = here(
        &sandbox,
        &[
            "run",
            "--from",
            &summaries("base"),
            "--results",
            "results.json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let refresh = here(&sandbox, &["refresh", "--results", "results.json"]);
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    sandbox
}

#[test]
fn doctor_shows_this_environment_and_that_it_matches_baselines_taken_here() {
    let sandbox = repository_with_baselines_from_here();
    let doctor = here(&sandbox, &["doctor"]);
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
fn doctor_without_baselines_prints_the_environment_and_says_so() {
    let sandbox = Sandbox::with_config("[budgets]\nIr = { absolute = 1 }\n");
    let doctor = here(&sandbox, &["doctor"]);
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
