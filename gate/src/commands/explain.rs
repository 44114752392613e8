//! `irgate explain BENCH`: where one benchmark's instructions went, against its baseline
//! profile, with its differential flame graph.

use std::process::ExitCode;

use crate::error::{Error, Result};
use crate::explain::{NO_BASELINE_PROFILES, explain_one};
use crate::formats::profiles;
use crate::paths::Paths;
use crate::render::Format;
use crate::render::explanation::text;

/// What `irgate explain` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The benchmark id.
    pub benchmark: String,
    /// How to print it.
    pub format: Format,
    /// Where the files are.
    pub paths: Paths,
}

/// `irgate explain BENCH`: prints where the benchmark's instructions went between the baseline
/// profile and the latest run's, in `format`, and draws its flame graph. Exit 0, or an error
/// (exit 2) when either side has no profile of it.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let paths = &options.paths.resolve()?;
    let (benchmark, format) = (options.benchmark.as_str(), options.format);
    let run_path = paths.profiles();
    let run = profiles::read_run(&run_path)?.ok_or_else(|| {
        Error::invalid(
            run_path.display(),
            "no per-function profiles: run `irgate run` first",
        )
    })?;
    let base = profiles::load_baseline(&paths.baselines)?;
    let known = || {
        run.benchmarks
            .keys()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(reason) = run.unreadable.get(benchmark) {
        return Err(Error::invalid(
            run_path.display(),
            format!("no profile of `{benchmark}`: its callgrind file could not be read: {reason}"),
        ));
    }
    if !run.benchmarks.contains_key(benchmark) {
        return Err(Error::UnknownBenchmark {
            filter: benchmark.to_owned(),
            known: known(),
        });
    }
    if !base.contains_key(benchmark) {
        return Err(Error::invalid(
            paths.baselines.join(profiles::BASELINE_DIR).display(),
            format!("no baseline profile of `{benchmark}`: {NO_BASELINE_PROFILES}"),
        ));
    }
    let dir = paths.flamegraphs();
    let explained = explain_one(benchmark, &run, &base, Some(&dir)).expect("both sides checked");
    let text = match format {
        Format::Table => text(&explained, ""),
        Format::Markdown => crate::render::markdown::explanation(&explained, None),
        Format::Json => {
            let mut json = crate::formats::report::inert(
                &serde_json::to_string_pretty(&explained).expect("serializes"),
            );
            json.push('\n');
            json
        }
    };
    print!("{text}");
    if let Format::Table = format
        && let Some(line) = gated(paths, benchmark)
    {
        println!("{}", crate::text::terminal(&line));
    }
    if let (Format::Table, Some(name)) = (format, &explained.flamegraph) {
        println!("differential flame graph: {}", dir.join(name).display());
    }
    Ok(ExitCode::SUCCESS)
}

/// What a binary benchmark is gated on, with its counts on both sides, when the results and
/// baselines say it is one: the profile above is of its whole process.
fn gated(paths: &crate::paths::Resolved, benchmark: &str) -> Option<String> {
    use crate::config::metrics::IR;
    let results = crate::formats::results::read(&paths.results).ok()?;
    let baselines = crate::formats::baseline::Baselines::load(&paths.baselines).ok()?;
    let new = results.benchmarks.get(benchmark)?.get(IR).copied();
    let old = baselines
        .get(benchmark)
        .and_then(|(c, _)| c.get(IR).copied());
    let both_program = results.process.is_program(benchmark, IR)
        && baselines
            .process(benchmark)
            .is_some_and(|p| p.is_program(benchmark, IR));
    let count = |n: Option<u64>| n.map_or_else(|| "–".to_owned(), crate::text::thousands);
    if both_program {
        Some(format!(
            "gated: the program's Ir (its main, without the process's start-up and exit): {} -> \
             {}; the rows above are of the whole process",
            count(old),
            count(new)
        ))
    } else if results.process.is_binary(benchmark) {
        Some("gated: the whole process's Ir (`irgate check` says why): the rows above".to_owned())
    } else {
        None
    }
}
