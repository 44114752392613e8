//! `irgate --help` and every command's long help.

use crate::harness::Sandbox;

#[test]
fn help_explains_each_command() {
    let sandbox = Sandbox::new();
    let help = sandbox.irgate(&["--help"]);
    assert_eq!(help.code, 0);
    for fragment in [
        "irgate init",
        "irgate run",
        "irgate check",
        "irgate refresh",
        "irgate doctor",
        "irgate explain",
        "irgate history",
        "irgate calibrate",
        "irgate runner",
        "irgate bisect",
        "Exit codes",
        "0 every budget holds",
    ] {
        assert!(help.stdout.contains(fragment), "{fragment}");
    }
    // Every command explains itself in its own long help.
    for (command, fragment) in [
        ("init", "cargo metadata"),
        ("run", "GLIBC_TUNABLES"),
        ("check", "exit 0 when every budget holds"),
        ("refresh", "replaced atomically"),
        ("doctor", "field by field"),
        ("explain", "differential flame graph"),
        ("calibrate", "layout-sensitive"),
        ("runner", "exact callgrind runner"),
        ("bisect", "moves that cancel out"),
    ] {
        let help = sandbox.irgate(&[command, "--help"]);
        assert_eq!(help.code, 0, "{command}: {}", help.stderr);
        assert!(help.stdout.contains(fragment), "{command}: {}", help.stdout);
    }
    // `comment` exists with the `github` feature only (`cargo test --workspace` builds without).
    let comment = sandbox.irgate(&["comment", "--help"]);
    if cfg!(feature = "github") {
        assert_eq!(comment.code, 0, "{}", comment.stderr);
        assert!(comment.stdout.contains("never appears in any output"));
    } else {
        assert_eq!(comment.code, 2, "{}", comment.stdout);
        assert!(comment.stderr.contains("unrecognized subcommand 'comment'"));
    }
    for (command, fragment) in [
        ("runner install", "never replaced"),
        ("init", "before anything is built"),
    ] {
        let help = sandbox.irgate(&command.split(' ').chain(["--help"]).collect::<Vec<_>>());
        assert_eq!(help.code, 0, "{command}: {}", help.stderr);
        assert!(help.stdout.contains(fragment), "{command}: {}", help.stdout);
    }
    let check = sandbox.irgate(&["check", "--help"]);
    assert!(
        check.stdout.contains("--on-env-mismatch <POLICY>"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("default: +1% and at least +1 Ir"),
        "{}",
        check.stdout
    );
}
