//! The wall-clock side of the noise study: one run of the criterion suite, and each benchmark's
//! median time from criterion's `<id>/new/estimates.json`.
//!
//! Each run writes into its own directory (`CRITERION_HOME`), so runs never compare with one
//! another or with a user's own criterion baselines, and the files of the last study stay there
//! to look at.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

use super::study::WallClockSettings;
use irgate::error::{Error, Result};

/// What one criterion run measures, and where.
pub struct Run<'a> {
    /// The workspace root, where cargo runs.
    pub root: &'a Path,
    /// The cargo package of the suite.
    pub package: &'a str,
    /// The criterion bench target.
    pub bench: &'a str,
    /// Cargo features to build it with.
    pub features: Option<&'a str>,
    /// The benchmark ids to run (criterion ids are the gate's).
    pub ids: &'a [String],
    /// Whether `ids` is the whole suite (then no filter is passed).
    pub everything: bool,
    /// Criterion's output directory for this run; emptied first.
    pub home: PathBuf,
    /// Measurement settings.
    pub settings: WallClockSettings,
    /// Names the run in progress lines, e.g. `clean 2/5`.
    pub label: String,
}

impl Run<'_> {
    /// Runs the suite and returns each benchmark's median time in nanoseconds.
    pub fn execute(&self) -> Result<BTreeMap<String, f64>> {
        if self.home.exists() {
            std::fs::remove_dir_all(&self.home).map_err(|source| Error::Write {
                path: self.home.clone(),
                source,
            })?;
        }
        let mut command = self.command();
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let total = self.ids.len();
        let mut done = 0;
        for line in BufReader::new(stderr).lines() {
            let line =
                line.map_err(|e| Error::Tool(format!("cannot read cargo bench output: {e}")))?;
            if let Some(id) = analyzed(&line) {
                done += 1;
                eprintln!("[wall-clock {}] [{done:>3}/{total}] {id}", self.label);
            } else if !is_chatter(&line) {
                eprintln!("{line}");
            }
        }
        let status = child
            .wait()
            .map_err(|e| Error::Tool(format!("cargo bench: {e}")))?;
        if !status.success() {
            return Err(Error::Tool(format!(
                "the wall-clock suite failed ({status}); its output is above"
            )));
        }
        let medians = read_medians(&self.home)?;
        let missing: Vec<&str> = self
            .ids
            .iter()
            .filter(|id| !medians.contains_key(*id))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Error::Tool(format!(
                "the wall-clock suite (--bench {}) measured no {}: both suites must have the same \
                 benchmark ids",
                self.bench,
                missing.join(", ")
            )));
        }
        Ok(medians)
    }

    /// `cargo bench -p <package> --bench <bench> [--features F] -- <settings> [<regex>]`.
    fn command(&self) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .current_dir(self.root)
            .env("CRITERION_HOME", &self.home)
            .args(["bench", "-p", self.package, "--bench", self.bench]);
        if let Some(features) = self.features {
            command.args(["--features", features]);
        }
        let settings = self.settings;
        command.args([
            "--".to_owned(),
            "--noplot".to_owned(),
            format!("--warm-up-time={}", settings.warm_up_secs),
            format!("--measurement-time={}", settings.measurement_secs),
            format!("--sample-size={}", settings.sample_size),
        ]);
        if !self.everything {
            command.arg(exact_regex(self.ids));
        }
        command
    }
}

/// A regex (criterion's filter syntax) matching exactly `ids`.
pub fn exact_regex(ids: &[String]) -> String {
    let alternatives: Vec<String> = ids.iter().map(|id| regex_syntax::escape(id)).collect();
    format!("^(?:{})$", alternatives.join("|"))
}

/// The id in criterion's `Benchmarking <id>: Analyzing` line, printed once per benchmark.
fn analyzed(line: &str) -> Option<&str> {
    line.strip_prefix("Benchmarking ")?
        .strip_suffix(": Analyzing")
}

/// criterion's per-phase progress, its advice to measure longer (which short runs always earn) and
/// its choice of plotting backend: not worth showing.
fn is_chatter(line: &str) -> bool {
    line.starts_with("Benchmarking ")
        || line.starts_with("Warning: Unable to complete")
        || line == "Gnuplot not found, using plotters backend"
}

#[derive(Deserialize)]
struct BenchmarkFile {
    full_id: String,
}

#[derive(Deserialize)]
struct EstimatesFile {
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
}

/// Every benchmark's median time (ns) below a criterion output directory: the `full_id` of each
/// `new/benchmark.json` and the median point estimate of the `new/estimates.json` next to it.
pub fn read_medians(home: &Path) -> Result<BTreeMap<String, f64>> {
    let mut medians = BTreeMap::new();
    for benchmark in find_new_benchmarks(home)? {
        let dir = benchmark.parent().expect("found inside a directory");
        let id = read_json::<BenchmarkFile>(&benchmark)?.full_id;
        let estimates = dir.join("estimates.json");
        let median = read_json::<EstimatesFile>(&estimates)?
            .median
            .point_estimate;
        if !(median.is_finite() && median > 0.0) {
            return Err(Error::invalid(
                estimates.display(),
                format!("median {median} ns is not a positive time"),
            ));
        }
        if medians.insert(id.clone(), median).is_some() {
            return Err(Error::DuplicateId {
                id,
                first: home.display().to_string(),
                second: benchmark.display().to_string(),
            });
        }
    }
    Ok(medians)
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::invalid(
            path.display(),
            format!("not a criterion file of the expected shape: {e}"),
        )
    })
}

/// Every `new/benchmark.json` below `dir`, sorted.
fn find_new_benchmarks(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        let read_error = |source| Error::Read {
            path: current.clone(),
            source,
        };
        for entry in std::fs::read_dir(&current).map_err(read_error)? {
            let path = entry.map_err(read_error)?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.ends_with("new/benchmark.json") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A `new/` directory as criterion 0.8 writes it (fields trimmed to the ones read, plus one
    /// that is not, as criterion's files hold more).
    fn bench(home: &Path, dir: &str, id: &str, median: &str) {
        let new = home.join(dir).join("new");
        write(
            &new.join("benchmark.json"),
            &format!(r#"{{"group_id":"g","full_id":"{id}","title":"{id}"}}"#),
        );
        write(
            &new.join("estimates.json"),
            &format!(
                r#"{{"mean":{{"point_estimate":1.0}},"median":{{"confidence_interval":
                {{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},
                "point_estimate":{median},"standard_error":0.1}}}}"#
            ),
        );
    }

    #[test]
    fn reads_medians_by_full_id_and_ignores_other_baselines() {
        let home = tempfile::tempdir().unwrap();
        bench(
            home.path(),
            "frame__encode/b32",
            "frame::encode/b32",
            "41.5",
        );
        bench(
            home.path(),
            "varint__decode/v0",
            "varint::decode/v0",
            "8.25",
        );
        write(
            &home.path().join("varint__decode/v0/base/benchmark.json"),
            "{}",
        );
        let medians = read_medians(home.path()).unwrap();
        assert_eq!(
            medians,
            BTreeMap::from([
                ("frame::encode/b32".to_owned(), 41.5),
                ("varint::decode/v0".to_owned(), 8.25)
            ])
        );
    }

    #[test]
    fn malformed_criterion_files_name_the_file() {
        let home = tempfile::tempdir().unwrap();
        bench(home.path(), "a/b", "a::b/c", "-3");
        let error = read_medians(home.path()).unwrap_err().to_string();
        assert!(
            error.contains("estimates.json: median -3 ns is not a positive time"),
            "{error}"
        );

        let home = tempfile::tempdir().unwrap();
        write(
            &home.path().join("a/new/benchmark.json"),
            r#"{"full_id": 3}"#,
        );
        let error = read_medians(home.path()).unwrap_err().to_string();
        assert!(
            error.contains("a/new/benchmark.json: not a criterion file"),
            "{error}"
        );
    }

    #[test]
    fn the_filter_matches_exactly_the_ids() {
        let ids = ["frame::encode/b32".to_owned(), "a.b/(c)".to_owned()];
        assert_eq!(exact_regex(&ids), r"^(?:frame::encode/b32|a\.b/\(c\))$");
    }

    #[test]
    fn recognises_criterion_progress_lines() {
        assert_eq!(
            analyzed("Benchmarking frame::encode/b32: Analyzing"),
            Some("frame::encode/b32")
        );
        assert_eq!(
            analyzed("Benchmarking frame::encode/b32: Warming up for 200.00 ms"),
            None
        );
        assert!(is_chatter("Benchmarking x: Collecting 30 samples"));
        assert!(!is_chatter("thread 'main' panicked"));
    }
}
