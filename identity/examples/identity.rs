//! The code identity of linked objects, for measuring and diagnosing it by hand.
//!
//! `cargo run --release -p irgate-identity --example identity -- OBJECT` reads one object (a bench binary
//! linked with `--emit-relocs`, its link map beside it as `OBJECT.map`) and prints its size, its
//! number of function keys, how long the read took and why extents were coarse, if they were.
//! With a second object, `-- OBJECT OTHER`, it also lists the keys whose digest differs between
//! the two (or that one of them lacks).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use irgate_identity::{Identity, read};

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let (first, other) = match args.as_slice() {
        [first] => (first, None),
        [first, other] => (first, Some(other)),
        _ => {
            eprintln!("usage: identity OBJECT [OTHER]");
            return ExitCode::from(2);
        }
    };
    let Some(a) = timed(first) else {
        return ExitCode::FAILURE;
    };
    if let Some(other) = other {
        let Some(b) = timed(other) else {
            return ExitCode::FAILURE;
        };
        let changed = a.differing(&b);
        println!(
            "{} of {} keys differ:",
            changed.len(),
            a.functions.len().max(b.functions.len())
        );
        for key in changed {
            println!("  {key}");
        }
    }
    ExitCode::SUCCESS
}

/// Reads `path`'s identity and prints what it took.
fn timed(path: &Path) -> Option<Identity> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let start = Instant::now();
    match read(path, &[]) {
        Ok(identity) => {
            println!(
                "{}: {size} bytes, {} function keys in {:?}; imprecise: {}",
                path.display(),
                identity.functions.len(),
                start.elapsed(),
                identity.imprecise.as_deref().unwrap_or("no")
            );
            Some(identity)
        }
        Err(error) => {
            eprintln!("identity: {error}");
            None
        }
    }
}
