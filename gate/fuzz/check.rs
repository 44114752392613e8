//! The oracles of irgate's fuzz targets: the fuzz crate's library, which the targets
//! (`fuzz_targets/*.rs`) call, and which `gate/tests/it/fuzz_seeds.rs` includes to run them over the
//! committed seeds in every `cargo test`, without a fuzzer.
//!
//! Each oracle feeds one untrusted input to one of irgate's readers, through the function irgate
//! itself calls, and panics if an invariant breaks. Nothing may panic, and:
//! - an accepted input holds only valid benchmark ids (`irgate::id::check`) and count metrics
//!   (`irgate::config::metrics::is_count_metric`); where the format has a writer, what was read is written,
//!   read again and is the same;
//! - a rejected input's error names the file it came from and is one printable line: nothing in
//!   it (a file name, a key, an id) can move a terminal's cursor or start a workflow command.
//!
//! Each returns `Ok(())` when the reader accepted the input, else the error's text.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use irgate::config::{self, Config};
use irgate::error::Error;
use irgate::formats::baseline::{Baselines, GroupUpdate};
use irgate::model::Counts;

/// The outcome of one input: accepted, or the reader's error message.
pub type Outcome = Result<(), String>;

thread_local! {
    /// A scratch directory per thread (the seed test runs oracles on several threads).
    static SCRATCH: RefCell<Option<tempfile::TempDir>> = const { RefCell::new(None) };
}

/// A fresh, empty directory `name` inside this thread's scratch directory.
fn scratch(name: &str) -> PathBuf {
    SCRATCH.with(|cell| {
        let mut cell = cell.borrow_mut();
        let root = cell.get_or_insert_with(|| tempfile::tempdir().expect("a scratch directory"));
        let dir = root.path().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).expect("a scratch subdirectory");
        dir
    })
}

/// `data` written to a file `name` in a fresh scratch directory.
fn file_with(name: &str, data: &[u8]) -> PathBuf {
    let path = scratch(name.split('.').next().unwrap_or(name)).join(name);
    std::fs::write(&path, data).expect("the scratch file is written");
    path
}

/// Checks what every accepted input must hold: valid benchmark ids, count metrics.
fn valid_counts<'a>(benchmarks: impl IntoIterator<Item = (&'a String, &'a Counts)>) {
    for (id, counts) in benchmarks {
        valid_id(id);
        for metric in counts.keys() {
            valid_metric(metric);
        }
    }
}

fn valid_id(id: &str) {
    assert_eq!(irgate::id::check(id), Ok(()), "accepted id {id:?}");
}

fn valid_metric(metric: &str) {
    assert!(
        config::metrics::is_count_metric(metric),
        "accepted metric {metric:?}"
    );
}

/// Checks a rejection: the error names `origin` and is one printable line.
fn rejected(error: Error, origin: &Path) -> Outcome {
    let text = error.to_string();
    assert!(
        text.starts_with(&origin.display().to_string()),
        "the error does not name {}: {text:?}",
        origin.display()
    );
    assert!(
        !text.chars().any(char::is_control),
        "a control character in the error: {text:?}"
    );
    Err(text)
}

/// A gungraun or iai-callgrind `summary.json` (any schema), as `irgate run` reads them.
pub fn summary(data: &[u8]) -> Outcome {
    let path = file_with("summary.json", data);
    match irgate::formats::summary::read(&path) {
        Ok(measurement) => {
            valid_id(&measurement.id);
            for metric in measurement.counts.keys() {
                valid_metric(metric);
            }
            assert!(
                measurement.counts.contains_key(config::metrics::IR),
                "no Ir"
            );
            Ok(())
        }
        Err(error) => rejected(error, &path),
    }
}

/// A callgrind file, as `irgate run` reads each benchmark's (Ir only, with its executed lines),
/// with a memory limit of 16 MiB so that the fuzzer reaches it: an accepted file's self costs
/// add up to its totals, its executed lines are sorted, disjoint ranges,
/// reduce to a profile whose functions add up to its total, and unfold into stacks no larger
/// than it; a refused file's message is one printable line.
pub fn callgrind(data: &[u8]) -> Outcome {
    let mut options = irgate_callgrind::Options::default();
    options.event = Some(config::metrics::IR.to_owned());
    options.max_bytes = 16 << 20;
    options.lines = true;
    match irgate_callgrind::parse_with(data, &options) {
        Ok(graph) => {
            for ranges in graph.lines.values() {
                assert!(
                    ranges
                        .windows(2)
                        .all(|w| w[0].start() <= w[0].end() && w[0].end() + 1 < *w[1].start()),
                    "executed lines not sorted, disjoint ranges: {ranges:?}"
                );
            }
            let sum: u128 = graph.nodes.iter().map(|n| u128::from(n.self_cost[0])).sum();
            assert_eq!(
                sum,
                u128::from(graph.totals[0]),
                "self costs add up to the totals"
            );
            let profile =
                irgate_callgrind::Profile::from_graph(&graph, config::metrics::IR, str::to_owned)
                    .expect("the kept event is there");
            assert_eq!(profile.listed_self(), profile.total, "the profile adds up");
            let stacks =
                irgate_callgrind::flame::stacks(&graph, config::metrics::IR, str::to_owned);
            assert!(stacks.len() <= 2_001, "stacks are summarised");
            Ok(())
        }
        Err(error) => {
            let message = error.to_string();
            assert!(
                !message.chars().any(char::is_control),
                "a control character in {message:?}"
            );
            Err(message)
        }
    }
}

/// A results file (`target/irgate/results.json`), which may come from another repository's run.
pub fn results(data: &[u8]) -> Outcome {
    let path = file_with("results.json", data);
    match irgate::formats::results::read(&path) {
        Ok(results) => {
            valid_counts(&results.benchmarks);
            let again = scratch("again").join("results.json");
            irgate::formats::results::write(&again, &results)
                .expect("accepted results are written");
            let reread = irgate::formats::results::read(&again).expect("written results read back");
            assert_eq!(reread, results, "results round-trip");
            Ok(())
        }
        Err(error) => rejected(error, &path),
    }
}

/// A baseline file: the first line of `data` is the file's name without `.json` (it names the
/// group, and comes from the repository as much as the content does), the rest its content.
/// Inputs whose first line no file system takes as a file name are skipped.
pub fn baselines(data: &[u8]) -> Outcome {
    use std::os::unix::ffi::OsStrExt;
    let Some(newline) = data.iter().position(|&b| b == b'\n') else {
        return Ok(());
    };
    let (stem, content) = (&data[..newline], &data[newline + 1..]);
    if stem.is_empty() || stem.len() > 200 || stem.contains(&b'/') || stem.contains(&0) {
        return Ok(());
    }
    let dir = scratch("baselines");
    let mut name = stem.to_vec();
    name.extend_from_slice(b".json");
    let path = dir.join(std::ffi::OsStr::from_bytes(&name));
    std::fs::write(&path, content).expect("the scratch file is written");
    let loaded = match Baselines::load(&dir) {
        Ok(baselines) => baselines,
        Err(error) => return rejected(error, &dir),
    };
    if stem.starts_with(b".") {
        // A hidden file (an interrupted refresh's temporary file) is not a baseline.
        assert!(loaded.groups.is_empty(), "a hidden file was read");
        return Ok(());
    }
    let stem = std::str::from_utf8(stem).expect("an accepted file name is UTF-8");
    assert_eq!(
        loaded.groups.keys().collect::<Vec<_>>(),
        [stem],
        "the file is its group"
    );
    for (group, baseline) in &loaded.groups {
        valid_counts(&baseline.benchmarks);
        for id in baseline.benchmarks.keys() {
            assert_eq!(irgate::id::group_of(id), group, "{id} in {group}.json");
        }
    }
    let again = scratch("again");
    let updates: Vec<GroupUpdate> = loaded
        .groups
        .iter()
        .map(|(group, baseline)| GroupUpdate {
            path: again.join(format!("{group}.json")),
            group: Some(baseline.clone()),
            changes: Vec::new(),
            unchanged: 0,
            write: true,
        })
        .collect();
    irgate::formats::baseline::write_updates(&updates).expect("accepted baselines are written");
    let reread = Baselines::load(&again).expect("written baselines read back");
    assert_eq!(reread.groups, loaded.groups, "baselines round-trip");
    Ok(())
}

/// A `gate.toml`.
pub fn config(data: &[u8]) -> Outcome {
    let path = file_with("gate.toml", data);
    match Config::load(&path) {
        Ok(config) => {
            let gated = config.gated_metrics();
            assert!(!gated.is_empty(), "an accepted gate.toml gates nothing");
            for metric in config.stored_metrics() {
                valid_metric(&metric);
            }
            for limit in config.budgets_for("g::f/x").values() {
                assert!(
                    limit.relative_pct.is_finite() && limit.relative_pct >= 0.0,
                    "budget {limit:?}"
                );
            }
            Ok(())
        }
        Err(error) => rejected(error, &path),
    }
}

/// The JSON report of `irgate check --format json`, which `irgate comment` reads from an artifact.
/// Input that is not UTF-8 is skipped: the file is read as text before it is parsed.
pub fn report(data: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let origin = Path::new("report.json");
    match irgate::formats::report::parse(text, "report.json") {
        Ok(report) => {
            for row in &report.rows {
                valid_id(&row.benchmark);
                valid_metric(&row.metric);
            }
            let written = irgate::formats::report::render(&report);
            let reread = irgate::formats::report::parse(&written, "report.json")
                .expect("a rendered report reads back");
            assert_eq!(reread, report, "the report round-trips");
            Ok(())
        }
        Err(error) => rejected(error, origin),
    }
}
