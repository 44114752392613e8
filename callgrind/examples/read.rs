//! Reads one callgrind file as `irgate run` does (Ir only, within the default memory limit) and
//! prints what it holds: the command behind the reader's cost per MB in docs/explain.md.
//!
//! ```sh
//! /usr/bin/time -v cargo run --release -p irgate-callgrind --example read -- FILE
//! ```

use std::io::BufReader;

use irgate_callgrind::{Options, Profile, parse_with};

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: read FILE");
        return std::process::ExitCode::from(2);
    };
    let mut options = Options::default();
    options.event = Some("Ir".to_owned());
    let read = std::fs::File::open(&path)
        .map_err(|e| e.to_string())
        .and_then(|f| parse_with(BufReader::new(f), &options).map_err(|e| e.to_string()));
    match read {
        Ok(graph) => {
            let profile = Profile::from_graph(&graph, "Ir", str::to_owned).expect("Ir was kept");
            println!(
                "{path}: {} functions, {} Ir, {} unattributed",
                graph.nodes.len(),
                profile.total,
                profile.unattributed
            );
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{path}: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
