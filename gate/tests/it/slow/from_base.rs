//! The configuration comes from the base (issue 47): with `--record-from BASE`, a pull request
//! is judged by the base's gate.toml, and a change to cargo's configuration touches every
//! benchmark. The real runner on the `gbench` fixture with one benchmark that reads a data file:
//! baselines and code record taken at the base, then `irgate run --only-touched --dry-run` on a
//! pull request's commit.

use std::path::{Path, PathBuf};

use crate::harness::{FIXTURES, Run, collecting, copy_dir, git, output};

/// The benchmark added to `gbench`: it reads `data/input.txt` at run time.
const READS: &str = "#[library_benchmark]\nfn reads() -> usize {\n    \
    let path = concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/data/input.txt\");\n    \
    black_box(std::fs::read(path).unwrap().len())\n}\n\n\
    library_benchmark_group!(name = io, benchmarks = reads);\n";

/// `gbench` with the `io::reads` benchmark in a git repository, its baselines and code record
/// committed: the repository, the target directory its builds share, and the base commit.
fn based() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("p");
    copy_dir(&Path::new(FIXTURES).join("gbench"), &repo);
    let bench = repo.join("benches/callgrind.rs");
    let text = std::fs::read_to_string(&bench)
        .unwrap()
        .replace(
            "library_benchmark_group!(name = varint",
            &format!("{READS}library_benchmark_group!(name = varint"),
        )
        .replace("filter);", "filter, io);");
    std::fs::write(&bench, text).unwrap();
    std::fs::create_dir_all(repo.join("data")).unwrap();
    std::fs::write(repo.join("data/input.txt"), "hello\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "target\nCargo.lock\n").unwrap();
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("from-base-gbench");
    for args in [&["run", "--record"][..], &["refresh"]] {
        let done = irgate_in(&repo, &target, args);
        assert_eq!(done.code, 0, "{args:?}: {}", done.stderr);
    }
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "baselines"]);
    let base = git(&repo, &["rev-parse", "HEAD"]);
    (dir, target, base)
}

/// `irgate ARGS` in `repo`, building into `target` (with this machine's fingerprint: the record
/// names the commit it was taken at).
fn irgate_in(repo: &Path, target: &Path, args: &[&str]) -> Run {
    output(collecting(repo).args(args).env("CARGO_TARGET_DIR", target))
}

/// The benchmarks `run --only-touched --dry-run` (with `extra`) says it runs, and its stderr.
fn selected(repo: &Path, target: &Path, extra: &[&str]) -> (Vec<String>, String) {
    let mut args = vec!["run", "--only-touched", "--dry-run"];
    args.extend(extra);
    let run = irgate_in(repo, target, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let runs = run
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("irgate: --only-touched: runs "))
        .filter_map(|l| l.split(": ").next())
        .map(str::to_owned)
        .collect();
    (runs, run.stderr)
}

// One test: the two pull requests share one build of the base.
#[test]
fn a_pull_request_is_judged_by_the_bases_gate_toml_and_cargo_configuration_touches_everything() {
    let (dir, target, base) = based();
    let repo = dir.path().join("p");

    // A pull request that changes a data file and names it inert in the same commit.
    std::fs::write(repo.join("data/input.txt"), "a longer input, read slower\n").unwrap();
    std::fs::write(repo.join("gate.toml"), "[change]\ninert = [\"data/**\"]\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "pr"]);
    let (runs, said) = selected(&repo, &target, &["--record-from", &base]);
    assert_eq!(runs, ["io::reads"], "{said}");
    assert!(said.contains("`data/input.txt`"), "{said}");
    assert!(
        said.contains("gate.toml changed since")
            && said.contains("the base's rules apply until merged"),
        "{said}"
    );
    // Judged by its own gate.toml, the file is inert: the miss issue 47 found, where the record
    // only knows that the benchmark may read files. A record that observed what it read (strace
    // on the PATH) does not read `[change] inert`: the benchmark runs all the same.
    let observed = said.contains("seen to read");
    let (runs, said) = selected(&repo, &target, &[]);
    assert!(!said.contains("gate.toml changed since"), "{said}");
    if observed {
        assert_eq!(runs, ["io::reads"], "{said}");
    } else {
        assert!(runs.is_empty(), "{said}");
    }

    // A pull request that changes cargo's configuration, and names it inert.
    git(&repo, &["reset", "--quiet", "--hard", &base]);
    std::fs::create_dir_all(repo.join(".cargo")).unwrap();
    std::fs::write(repo.join(".cargo/config.toml"), "[env]\nDATA = \"x\"\n").unwrap();
    std::fs::write(
        repo.join("gate.toml"),
        "[change]\ninert = [\".cargo/**\"]\n",
    )
    .unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "pr"]);
    for extra in [&["--record-from", base.as_str()][..], &[]] {
        let (runs, said) = selected(&repo, &target, extra);
        assert_eq!(runs.len(), 7, "{said}");
        assert!(
            said.contains(
                "`.cargo/config.toml` changed: cargo's configuration and the toolchain are inputs \
                 of every benchmark"
            ),
            "{said}"
        );
    }
}
