//! Instructions per operation of each benchmark case, measured the way the Infrarust figures in
//! the README were: callgrind counts this program running a case N times and 0 times, and
//! Ir/op = (Ir(N) - Ir(0)) / N. Setup, warm-up and process start-up cancel out; the state is
//! reused from one iteration to the next, as in a proxy.

use std::path::Path;
use std::process::{Command, ExitCode};

use benches::{Case, catalog};
use clap::Parser;

/// Ir per operation of the benchmark cases, by differencing two callgrind runs.
#[derive(Parser)]
#[command(about, long_about = None)]
struct Args {
    /// Only cases whose name contains one of these strings (default: all of `benches::catalog()`).
    filters: Vec<String>,
    /// Aim for about this many instructions per measured run (sets N per case, 8 <= N <= 1000).
    #[arg(long, default_value_t = 20_000_000)]
    budget: u64,
    /// Internal: run case NAME N times, not under valgrind.
    #[arg(long, num_args = 2, value_names = ["NAME", "N"], hide = true)]
    run: Option<Vec<String>>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(run) = args.run {
        return run_case(&run[0], &run[1]);
    }
    let names: Vec<String> = catalog()
        .into_iter()
        .filter(|name| args.filters.is_empty() || args.filters.iter().any(|f| name.contains(f)))
        .collect();
    if names.is_empty() {
        eprintln!("error: no case matches {:?}", args.filters);
        return ExitCode::from(2);
    }
    let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
    println!("GLIBC_TUNABLES={tunables}");
    println!("| case | Ir/op | N |");
    println!("|---|---:|---:|");
    for name in names {
        match measure(&name, args.budget) {
            Ok((per_op, n)) => println!("| `{name}` | {per_op:.1} | {n} |"),
            Err(error) => {
                eprintln!("error: {name}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// Ir per operation of `name`, and the N it was measured with.
fn measure(name: &str, budget: u64) -> Result<(f64, u64), String> {
    let base = callgrind_ir(name, 0)?;
    let probe_n = 8;
    let probe = callgrind_ir(name, probe_n)?;
    let estimate = probe.saturating_sub(base) / probe_n;
    let n = (budget / estimate.max(1)).clamp(probe_n, 1000);
    let total = if n == probe_n {
        probe
    } else {
        callgrind_ir(name, n)?
    };
    let diff = total
        .checked_sub(base)
        .ok_or("N runs counted fewer instructions than 0 runs")?;
    Ok((diff as f64 / n as f64, n))
}

/// Total Ir of this program running `name` `n` times under callgrind, with a cleared environment
/// (only `GLIBC_TUNABLES` passes) and ASLR off.
fn callgrind_ir(name: &str, n: u64) -> Result<u64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::env::temp_dir().join(format!("ir_per_op.{}.{n}.out", std::process::id()));
    let mut command = Command::new("setarch");
    command
        .args(["-R", "valgrind", "--tool=callgrind", "-q"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args(["--run", name, &n.to_string()])
        .env_clear();
    if let Ok(tunables) = std::env::var("GLIBC_TUNABLES") {
        command.env("GLIBC_TUNABLES", tunables);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot start valgrind: {e}"))?;
    if !status.success() {
        return Err(format!("valgrind exited with {status}"));
    }
    let total = read_total(&out);
    let _ = std::fs::remove_file(&out);
    total
}

/// The `summary:` (or `totals:`) line of a callgrind output file.
fn read_total(path: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|count| count.trim().parse().ok())
        .ok_or_else(|| format!("{}: no summary line", path.display()))
}

/// Builds the case and runs it `n` times.
fn run_case(name: &str, n: &str) -> ExitCode {
    let (Some(mut case), Ok(n)) = (Case::build(name), n.parse::<u64>()) else {
        eprintln!("error: unknown case {name:?} or bad count {n:?}");
        return ExitCode::from(2);
    };
    case.run(n);
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_total_of_a_callgrind_file() {
        let dir = std::env::temp_dir().join(format!("ir_per_op_test.{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.out");
        std::fs::write(
            &good,
            "version: 1\nevents: Ir\nfn=main\n1 5\nsummary: 12345\n",
        )
        .unwrap();
        assert_eq!(read_total(&good), Ok(12345));
        let totals = dir.join("totals.out");
        std::fs::write(&totals, "events: Ir\ntotals: 77\n").unwrap();
        assert_eq!(read_total(&totals), Ok(77));
        let bad = dir.join("bad.out");
        std::fs::write(&bad, "events: Ir\n").unwrap();
        assert!(read_total(&bad).unwrap_err().contains("no summary line"));
        assert!(read_total(&dir.join("missing.out")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
