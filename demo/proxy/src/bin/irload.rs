//! irload: the load tool. `echo` is the mock backend, `run` loads an address (the backend
//! directly, or the proxy in front of it), `stress` adds malformed connections to a run, and
//! `compare` reads the JSON reports of several runs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use proxy::compare;
use proxy::load::LoadConfig;
use proxy::report::{Report, SCHEMA};
use proxy::server::{self, Limits};
use proxy::wire::Wire;
use tokio::net::TcpListener;

/// Open-loop load against a backend or the proxy in front of it, on loopback.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the mock backend: every packet comes back to its sender.
    Echo(EchoArgs),
    /// Load an address and report latency and throughput.
    Run(RunArgs),
    /// Load an address while malformed connections hit it; fails unless every one of them is
    /// closed, no packet of the load is lost and the target is up afterwards.
    Stress(StressArgs),
    /// Compare the JSON reports of runs of one profile: NEW (e.g. proxied) against BASE (e.g.
    /// direct). Informational: the exit status says only whether the comparison could be made.
    Compare(CompareArgs),
}

#[derive(Args)]
struct WireArgs {
    /// Compression threshold in bytes (omit: compression off).
    #[arg(long)]
    threshold: Option<usize>,
    /// Encrypt with AES-128-CFB8 under the load-testing key.
    #[arg(long)]
    encrypt: bool,
}

impl WireArgs {
    fn wire(&self) -> Wire {
        Wire {
            threshold: self.threshold,
            encrypt: self.encrypt,
        }
    }
}

#[derive(Args)]
struct EchoArgs {
    /// Address to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:25565")]
    listen: SocketAddr,
    #[command(flatten)]
    wire: WireArgs,
    /// Close a connection that sends nothing for this many seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle_timeout: u64,
    /// Stop after this many seconds (default: run until interrupted).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86400))]
    exit_after: Option<u64>,
}

#[derive(Args)]
struct LoadArgs {
    /// The address to load (loopback only).
    #[arg(long)]
    target: SocketAddr,
    /// The run's name in reports, e.g. `direct` or `proxied`.
    #[arg(long, default_value = "run")]
    label: String,
    /// Concurrent connections.
    #[arg(long, default_value_t = 2)]
    connections: usize,
    /// Packets per second on each connection.
    #[arg(long, default_value_t = 1000)]
    rate: u32,
    /// Payload bytes per packet (at least 16).
    #[arg(long, default_value_t = 256)]
    payload: usize,
    #[command(flatten)]
    wire: WireArgs,
    /// Seconds of warm-up, sent but not measured.
    #[arg(long, default_value_t = 2)]
    warmup: u64,
    /// Seconds measured.
    #[arg(long, default_value_t = 10)]
    duration: u64,
    /// Seconds to wait for the last echoes, and the longest silence tolerated.
    #[arg(long, default_value_t = 5)]
    drain: u64,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

impl LoadArgs {
    fn config(&self) -> LoadConfig {
        LoadConfig {
            target: self.target,
            label: self.label.clone(),
            connections: self.connections,
            rate: self.rate,
            payload: self.payload,
            wire: self.wire.wire(),
            warmup: Duration::from_secs(self.warmup),
            duration: Duration::from_secs(self.duration),
            drain: Duration::from_secs(self.drain),
        }
    }
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    load: LoadArgs,
}

#[derive(Args)]
struct StressArgs {
    #[command(flatten)]
    load: LoadArgs,
    /// Seconds the target may take to close a malformed connection: more than its idle timeout.
    #[arg(long, default_value_t = 35, value_parser = clap::value_parser!(u64).range(1..=3600))]
    close_within: u64,
}

#[derive(Args)]
struct CompareArgs {
    /// Reports of the base side (e.g. the backend directly), one per run.
    #[arg(long, num_args = 1.., required = true)]
    base: Vec<PathBuf>,
    /// Reports of the new side (e.g. through the proxy), one per run.
    #[arg(long, num_args = 1.., required = true)]
    new: Vec<PathBuf>,
    /// Significance level of the Mann-Whitney U test.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Markdown,
    Json,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Echo(args) => echo(args),
        Command::Run(args) => finish(&args.load, proxy::load::run(&args.load.config())),
        Command::Stress(args) => finish(
            &args.load,
            proxy::stress::run(&args.load.config(), Duration::from_secs(args.close_within)),
        ),
        Command::Compare(args) => compare_runs(&args),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("irload: {message}");
    ExitCode::from(2)
}

fn echo(args: EchoArgs) -> ExitCode {
    if let Err(error) = proxy::logging::init("IRLOAD_LOG") {
        return fail(error);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => return fail(error),
    };
    runtime.block_on(async {
        let listener = match TcpListener::bind(args.listen).await {
            Ok(listener) => listener,
            Err(error) => return fail(format!("cannot listen on {}: {error}", args.listen)),
        };
        match listener.local_addr() {
            Ok(addr) => println!("irload echo listening on {addr}"),
            Err(error) => return fail(error),
        }
        let limits = Limits {
            idle: Duration::from_secs(args.idle_timeout),
            ..Limits::default()
        };
        let shutdown = proxy::logging::shutdown(args.exit_after);
        server::echo(listener, args.wire.wire(), limits, shutdown).await;
        ExitCode::SUCCESS
    })
}

/// Prints a run's report, writes its JSON, and exits 1 unless the run was clean.
fn finish<E: std::fmt::Display>(args: &LoadArgs, report: Result<Report, E>) -> ExitCode {
    let report = match report {
        Ok(report) => report,
        Err(error) => return fail(error),
    };
    print!("{}", report.to_text());
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("a report serializes");
        if let Err(error) = std::fs::write(path, json + "\n") {
            return fail(format!("cannot write {}: {error}", path.display()));
        }
    }
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        eprintln!("irload: the run was not clean (see above)");
        ExitCode::from(1)
    }
}

fn read_report(path: &Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| format!("{} is not JSON: {error}", path.display()))?;
    if value.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
        return Err(format!(
            "{} is not an irload report of schema {SCHEMA}",
            path.display()
        ));
    }
    serde_json::from_value(value)
        .map_err(|error| format!("{} is not a valid irload report: {error}", path.display()))
}

fn compare_runs(args: &CompareArgs) -> ExitCode {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return fail(format!(
            "--alpha must be between 0 and 1, got {}",
            args.alpha
        ));
    }
    let read = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| read_report(p))
            .collect::<Result<Vec<_>, _>>()
    };
    let (base, new) = match (read(&args.base), read(&args.new)) {
        (Ok(base), Ok(new)) => (base, new),
        (Err(error), _) | (_, Err(error)) => return fail(error),
    };
    let comparison = match compare::compare(&base, &new, args.alpha) {
        Ok(comparison) => comparison,
        Err(error) => return fail(error),
    };
    match args.format {
        Format::Text => print!("{}", comparison.to_text()),
        Format::Markdown => print!("{}", comparison.to_markdown()),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&comparison.file).expect("a comparison serializes")
        ),
    }
    ExitCode::SUCCESS
}
