//! `irgate-noise`: this project's measured case for gating on instruction counts. Runs the wall-clock suite
//! (criterion) and the callgrind suite K times each on the same commit, and reports per benchmark
//! how much time and Ir move between runs, so the smallest regression each method can gate here
//! without false alarms; with `--inject-slowdown`, also whether each gate catches a known
//! slowdown at its budget.

mod report;
mod stats;
mod study;
mod wallclock;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use irgate::config::suite::Suite;
use irgate::config::{self, Config};
use irgate::error::{Error, Result};
use irgate::filter::Filter;
use irgate::formats;
use irgate::measure::collect::{self, Place, Selection};
use irgate::paths::Paths;
use study::{Row, Runs, Study, WallClockSettings};

/// How `irgate-noise` prints the study.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// An aligned table and a summary.
    Table,
    /// A markdown table and a summary, as in demo/benches/README.md.
    Markdown,
    /// Every run's numbers and every verdict.
    Json,
}

/// Arguments of `irgate-noise`.
#[derive(Debug, Parser)]
#[command(
    name = "irgate-noise",
    version,
    about = "Measure how much time and Ir move between runs here, and whether each gate catches a \
             known slowdown.",
    long_about = ABOUT
)]
struct NoiseArgs {
    /// Only benchmarks whose id matches this glob, e.g. 'pipeline::*' or '*/b512'
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Runs of each suite (for each of clean and slowed)
    #[arg(short = 'k', long, default_value_t = 5, value_name = "K",
          value_parser = clap::value_parser!(u32).range(2..))]
    pub repetitions: u32,
    /// Also run both suites with the slowdown injected, and report whether each gate catches it
    #[arg(long)]
    pub inject_slowdown: bool,
    /// The cargo features that inject the slowdown
    #[arg(long, default_value = "codec/inject-slowdown", value_name = "FEATURES")]
    pub slowdown_features: String,
    /// criterion's warm-up time per benchmark and run
    #[arg(long, default_value_t = 0.2, value_name = "SECS", value_parser = positive_secs)]
    pub warm_up_time: f64,
    /// criterion's measurement time per benchmark and run
    #[arg(long, default_value_t = 0.5, value_name = "SECS", value_parser = positive_secs)]
    pub measurement_time: f64,
    /// criterion's samples per benchmark and run (at least 10)
    #[arg(long, default_value_t = 30, value_name = "N",
          value_parser = clap::value_parser!(u32).range(10..))]
    pub sample_size: u32,
    /// The cargo package holding both suites
    #[arg(long, default_value = "benches", value_name = "NAME")]
    pub package: String,
    /// The callgrind (gungraun) bench target
    #[arg(long, default_value = "callgrind", value_name = "NAME")]
    pub bench: String,
    /// The wall-clock (criterion) bench target, with the same benchmark ids
    #[arg(long, default_value = "criterion", value_name = "NAME")]
    pub wall_clock_bench: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Budget configuration, for the Ir gate's budgets [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run nothing: print the study saved by an earlier run (target/irgate/noise/noise.json)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["filter", "inject_slowdown"])]
    pub from: Option<PathBuf>,
}

/// The long help of `irgate-noise`.
const ABOUT: &str = "\
Measure, on this machine, how much wall-clock time and instruction counts move between runs of
the same commit, and what that means for a gate on each.

Runs the callgrind suite K times (under `irgate run`'s determinism settings) and the criterion
suite K times (short warm-up and measurement times). Their files go to target/irgate/noise/
(GUNGRAUN_HOME, and a CRITERION_HOME per criterion run), apart from other runs' and from your
criterion baselines. Per benchmark it reports the median of the runs' median times, their spread
(max/min - 1) and coefficient of variation, and the spread of Ir. From that: the smallest
regression a time gate could catch without a false alarm between any two of the runs (the next
whole percent above the spread), and for Ir the spread plus one instruction.

With --inject-slowdown, both suites also run K times built with the slowdown features (a fixed
amount of extra work in the codec's filter chain), interleaved with the clean wall-clock runs.
Every pair (clean run, slowed run) is judged by the time gate at its budget above and by the Ir
gate at its gate.toml budget: caught (every pair fails), flaps (some do), missed (none does), and
for benchmarks the slowdown does not touch (no added Ir), quiet or false alarm.

Takes about K x (0.5 s + warm-up + measurement + 0.2 s) per benchmark and variant: all 132
benchmarks, K=5, both variants took 29 minutes on 2 cores. Narrow it with FILTER, or print a saved
study again with --from.

Exit codes: 0 done; 1 an instruction count moved between runs of the same code (a determinism
bug); 2 a suite failed or its output could not be read.";

fn positive_secs(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() => Ok(secs),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// One build of the suites: clean, or with the slowdown features.
struct Variant<'a> {
    name: &'static str,
    features: Option<&'a str>,
}

fn main() -> ExitCode {
    let args = NoiseArgs::parse();
    execute(&args).unwrap_or_else(|error| {
        eprintln!("irgate-noise: error: {error}");
        ExitCode::from(2)
    })
}

/// Runs the study, or prints a saved one.
fn execute(args: &NoiseArgs) -> Result<ExitCode> {
    let study = match &args.from {
        Some(path) => formats::read_versioned(path, "noise study", study::SCHEMA_VERSION)?,
        None => {
            let (study, saved) = measure(args)?;
            eprintln!("irgate-noise: wrote {}", saved.display());
            study
        }
    };
    match args.format {
        Format::Table => print!("{}", report::table(&study)),
        Format::Markdown => print!("{}", report::markdown(&study)),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&study).expect("the study serializes")
        ),
    }
    let moved = study
        .benchmarks
        .iter()
        .filter(|row| row.ir_spread.spread_pct > 0.0)
        .count();
    Ok(if moved == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("irgate-noise: the Ir of {moved} benchmarks moved between runs of the same code");
        ExitCode::from(1)
    })
}

/// Runs both suites and judges them; returns the study and where it was saved.
fn measure(args: &NoiseArgs) -> Result<(Study, PathBuf)> {
    let paths = Paths {
        config: args.config.clone(),
        baselines: None,
        results: None,
    };
    let resolved = paths.resolve()?;
    let mut config = Config::load_or_default(&resolved.config, resolved.config_named)?;
    let filter = args.filter.as_deref().map(Filter::new).transpose()?;
    let dir = resolved
        .results
        .parent()
        .expect("the results file is inside a directory")
        .join("noise");
    let k = args.repetitions as usize;
    let mut variants = vec![Variant {
        name: "clean",
        features: None,
    }];
    if args.inject_slowdown {
        variants.push(Variant {
            name: "slowed",
            features: Some(&args.slowdown_features),
        });
    }

    // Instruction counts: K runs of the callgrind suite per variant.
    let mut runs: Vec<BTreeMap<String, Runs>> = vec![BTreeMap::new(); variants.len()];
    for (variant, by_id) in variants.iter().zip(&mut runs) {
        for rep in 1..=k {
            eprintln!("irgate-noise: callgrind run {rep}/{k} ({})", variant.name);
            config.suites = vec![Suite {
                package: args.package.clone(),
                bench: args.bench.clone(),
                features: variant
                    .features
                    .map(|f| vec![f.to_owned()])
                    .unwrap_or_default(),
                args: Vec::new(),
            }];
            // Each variant builds and writes into a directory of its own.
            let place = Place::in_dir(&dir.join("callgrind"), "");
            let (results, _code) = collect::run_with_code(
                &resolved,
                &config,
                &Selection::default(),
                filter.as_ref(),
                Some(&place),
            )?;
            for (id, counts) in results.benchmarks {
                let ir = counts.get(config::metrics::IR).copied().ok_or_else(|| {
                    Error::Tool(format!("the callgrind suite reported no Ir for {id}"))
                })?;
                by_id.entry(id).or_default().ir.push(ir);
            }
        }
    }
    let ids: Vec<String> = runs[0].keys().cloned().collect();

    // Wall-clock time: K runs of the criterion suite per variant, the variants interleaved so
    // that drift in the machine's speed affects both alike.
    let settings = WallClockSettings {
        warm_up_secs: args.warm_up_time,
        measurement_secs: args.measurement_time,
        sample_size: args.sample_size as usize,
    };
    let seconds = (k * variants.len() * ids.len()) as f64
        * (settings.warm_up_secs + settings.measurement_secs + 0.1);
    eprintln!(
        "irgate-noise: {} wall-clock runs of {} benchmarks, about {}",
        k * variants.len(),
        ids.len(),
        if seconds < 120.0 {
            format!("{seconds:.0} s")
        } else {
            format!("{:.0} min", seconds / 60.0)
        }
    );
    for rep in 1..=k {
        for (variant, by_id) in variants.iter().zip(&mut runs) {
            let medians = wallclock::Run {
                root: &resolved.root,
                package: &args.package,
                bench: &args.wall_clock_bench,
                features: variant.features,
                ids: &ids,
                everything: filter.is_none(),
                home: dir
                    .join("criterion")
                    .join(format!("{}-{rep}", variant.name)),
                settings,
                label: format!("{} {rep}/{k}", variant.name),
            }
            .execute()?;
            for id in &ids {
                by_id
                    .entry(id.clone())
                    .or_default()
                    .time_ns
                    .push(medians[id]);
            }
        }
    }

    let mut benchmarks = Vec::new();
    for id in &ids {
        let ir_budget = config
            .budgets_for(id)
            .get(config::metrics::IR)
            .copied()
            .unwrap_or(config::budgets::DEFAULT_BUDGET);
        let slowed = match runs.get(1) {
            None => None,
            Some(by_id) => Some(by_id.get(id).ok_or_else(|| {
                Error::Tool(format!(
                    "{id}: the slowed build of the suite did not run it"
                ))
            })?),
        };
        let row = Row::new(id, &runs[0][id], slowed, ir_budget)
            .ok_or_else(|| Error::Tool(format!("{id}: no runs to compare")))?;
        benchmarks.push(row);
    }
    let study = Study {
        schema_version: study::SCHEMA_VERSION,
        repetitions: k,
        wall_clock: settings,
        injected_features: args.inject_slowdown.then(|| args.slowdown_features.clone()),
        benchmarks,
    };
    let saved = dir.join("noise.json");
    formats::write_json_atomic(&saved, &study)?;
    Ok((study, saved))
}

#[cfg(test)]
mod tests {
    /// What the study may use of irgate: its configuration, the suites' measurement, the file
    /// helpers and the shared vocabulary; never the judging, rendering or commands.
    const API: &[&str] = &[
        "config",
        "error",
        "filter",
        "formats",
        "measure::collect",
        "paths",
        "model",
        "text",
    ];

    #[test]
    fn the_study_uses_only_irgates_narrow_api() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut outside = Vec::new();
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // The study's code, its tests left out.
            let code = text.split("\n#[cfg(test)]").next().unwrap_or_default();
            for (at, _) in code.match_indices("irgate::") {
                let rest = &code[at + "irgate::".len()..];
                if !API.iter().any(|module| {
                    rest.starts_with(module)
                        && !rest[module.len()..]
                            .starts_with(|c: char| c.is_alphanumeric() || c == '_')
                }) {
                    let line = rest.lines().next().unwrap_or_default();
                    outside.push(format!("{}: irgate::{line}", path.display()));
                }
            }
        }
        assert!(
            outside.is_empty(),
            "beyond the study's API:\n{}",
            outside.join("\n")
        );
    }
}
