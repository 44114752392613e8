//! What every test of the binary shares: a sandbox repository, running `irgate` in it with a
//! clean environment and the one fingerprint fixture, the fixtures' paths, and reading what it
//! did.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use irgate::model::{Budget, Fingerprint, Row, Status};
use serde_json::Value;

/// gate/tests/fixtures: summaries, profiles, a history series, the fingerprint.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// The one fingerprint the tests' counts carry: `irgate` reads it instead of collecting this
/// machine's (`IRGATE_FINGERPRINT`), and tests that build reports by hand use it too.
pub const FINGERPRINT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/fingerprint.json"
);

/// The budget most tests gate with: +1% and at least +50 Ir.
pub const GATE_TOML: &str = "[budgets]\nIr = { relative_pct = 1.0, absolute = 50 }\n";

/// The path of `name` under tests/fixtures.
pub fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

/// The path of the gungraun summaries `set` (base, slowdown, v6) under tests/fixtures/summaries.
pub fn summaries(set: &str) -> String {
    fixture(&format!("summaries/{set}"))
}

/// The fingerprint fixture as JSON.
pub fn fingerprint_json() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FINGERPRINT).unwrap()).unwrap()
}

/// The fingerprint fixture.
pub fn fingerprint() -> Fingerprint {
    serde_json::from_value(fingerprint_json()).unwrap()
}

/// An irgate run: exit code and output.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

/// `irgate` run from `dir`, with none of this environment's settings that would change where it
/// looks or what it records, and the fingerprint fixture instead of this machine's.
pub fn irgate(dir: &Path) -> Command {
    let mut command = collecting(dir);
    command.env("IRGATE_FINGERPRINT", FINGERPRINT);
    command
}

/// [`irgate`] that collects this machine's fingerprint (valgrind, rustc, git): for the tests
/// about that fingerprint.
pub fn collecting(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_irgate"));
    command
        .current_dir(dir)
        .env_remove("IRGATE_FINGERPRINT")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("GUNGRAUN_HOME")
        .env_remove("IAI_CALLGRIND_HOME")
        .env_remove("IRGATE_ENVIRONMENT");
    command
}

/// `command`'s exit code and output.
pub fn output(command: &mut Command) -> Run {
    command.output().unwrap().into()
}

/// A scratch repository: gate.toml, baselines/, results files.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    /// A sandbox gated by [`GATE_TOML`].
    pub fn new() -> Sandbox {
        Sandbox::with_config(GATE_TOML)
    }

    /// A sandbox whose gate.toml is `config`.
    pub fn with_config(config: &str) -> Sandbox {
        let sandbox = Sandbox::empty();
        sandbox.write("gate.toml", config);
        sandbox
    }

    /// A sandbox without gate.toml.
    pub fn empty() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// `name` in the sandbox (`""`: the sandbox itself).
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `text` to `name`, creating its directory.
    pub fn write(&self, name: &str, text: &str) {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    pub fn read_json(&self, name: &str) -> Value {
        serde_json::from_str(&self.read(name)).unwrap()
    }

    /// Applies `edit` to the JSON of `name`.
    pub fn edit_json(&self, name: &str, edit: impl FnOnce(&mut Value)) {
        let mut value = self.read_json(name);
        edit(&mut value);
        self.write(name, &serde_json::to_string_pretty(&value).unwrap());
    }

    /// `irgate` in the sandbox, to add arguments to.
    pub fn command(&self) -> Command {
        irgate(self.dir.path())
    }

    /// `irgate ARGS` in the sandbox.
    pub fn irgate(&self, args: &[&str]) -> Run {
        output(self.command().args(args))
    }

    /// `irgate ARGS`, which must exit 0.
    pub fn ok(&self, args: &[&str]) -> Run {
        let run = self.irgate(args);
        assert_eq!(run.code, 0, "irgate {args:?}: {}{}", run.stdout, run.stderr);
        run
    }

    /// `irgate check --results RESULTS EXTRA`.
    pub fn check(&self, results: &str, extra: &[&str]) -> Run {
        let mut args = vec!["check", "--results", results];
        args.extend_from_slice(extra);
        self.irgate(&args)
    }

    /// `irgate run --from` the fixture summaries `set` into results file `name`, then `edit`
    /// applied to its JSON.
    pub fn results(&self, set: &str, name: &str, edit: impl FnOnce(&mut Value)) {
        self.ok(&["run", "--from", &summaries(set), "--results", name]);
        self.edit_json(name, edit);
    }

    /// Results base.json from the `base` summaries, and baselines in baselines/ from them.
    pub fn baselines(&self) {
        self.results("base", "base.json", |_| {});
        self.ok(&["refresh", "--results", "base.json"]);
    }

    /// `git ARGS` in the sandbox, which must succeed; its trimmed stdout.
    pub fn git(&self, args: &[&str]) -> String {
        git(self.dir.path(), args)
    }
}

/// `git ARGS` in `dir` as a throwaway user, which must succeed; its trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The benchmarks that fail in a JSON report, in its order.
pub fn failing(report: &str) -> Vec<String> {
    let report: Value = serde_json::from_str(report).unwrap();
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["fails"] == true)
        .map(|row| row["benchmark"].as_str().unwrap().to_owned())
        .collect()
}

/// `run` could not decide (exit 2), without a panic, saying every one of `fragments`.
pub fn assert_error(run: &Run, fragments: &[&str]) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    for fragment in fragments {
        assert!(
            run.stderr.contains(fragment),
            "missing `{fragment}` in: {}",
            run.stderr
        );
    }
}

/// Copies the tree `from` to `to`; the files copied.
pub fn copy_dir(from: &Path, to: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(to).unwrap();
    let mut copied = Vec::new();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copied.extend(copy_dir(&entry.path(), &target));
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            copied.push(target);
        }
    }
    copied
}

/// A row of `benchmark`'s Ir, with the budget "+1% and at least +50 Ir" when it has both counts.
pub fn row(
    benchmark: &str,
    baseline: Option<u64>,
    new: Option<u64>,
    status: Status,
    fails: bool,
) -> Row {
    Row {
        benchmark: benchmark.into(),
        metric: "Ir".into(),
        baseline,
        new,
        limit: (baseline.is_some() && new.is_some()).then_some(Budget {
            relative_pct: 1.0,
            absolute: 50,
        }),
        status,
        fails,
        since: None,
        accepted: None,
        touch: None,
    }
}

/// `markdown` without its code spans (CommonMark: a run of N backticks up to the next run of
/// exactly N), where nothing is interpreted.
pub fn outside_code_spans(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let run = after.len() - after.trim_start_matches('`').len();
        let body = &after[run..];
        let close = (0..body.len()).find(|&i| {
            body.is_char_boundary(i)
                && body[i..].starts_with(&"`".repeat(run))
                && !body[i + run..].starts_with('`')
                && (i == 0 || !body[..i].ends_with('`'))
        });
        match close {
            Some(i) => rest = &body[i + run..],
            None => {
                out.push_str(&after[..run]);
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}
