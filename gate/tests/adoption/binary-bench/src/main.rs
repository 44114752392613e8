//! `tool N`: the Collatz step counts of 1..=N, summed, and a digest of the report.

use std::process::ExitCode;

/// The number of Collatz steps from `n` down to 1.
#[inline(never)]
pub fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n > 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

/// FNV-1a of `bytes`.
#[inline(never)]
pub fn digest(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

fn main() -> ExitCode {
    let Some(limit) = std::env::args().nth(1).and_then(|n| n.parse::<u64>().ok()) else {
        eprintln!("usage: tool N");
        return ExitCode::from(2);
    };
    let total: u64 = (1..=limit).map(|n| u64::from(collatz_steps(n))).sum();
    let report = format!("{limit} numbers, {total} steps");
    println!("{report}, digest {:08x}", digest(report.as_bytes()));
    ExitCode::SUCCESS
}
