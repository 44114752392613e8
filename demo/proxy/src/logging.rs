//! What the binaries share: logging to stderr and when to stop.

use std::time::Duration;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

/// A log filter that does not parse.
#[derive(Debug, thiserror::Error)]
#[error(
    "{var}={value:?} is not a log filter (e.g. `irproxy=info,irproxy::timing=trace`): {source}"
)]
pub struct BadFilter {
    var: &'static str,
    value: String,
    source: tracing_subscriber::filter::ParseError,
}

/// Logs to stderr, filtered by the environment variable `var` (default `irproxy=info`).
pub fn init(var: &'static str) -> Result<(), BadFilter> {
    let value = std::env::var(var).unwrap_or_else(|_| "irproxy=info".to_owned());
    let targets: Targets = value.parse().map_err(|source| BadFilter {
        var,
        value: value.clone(),
        source,
    })?;
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(targets)
        .init();
    Ok(())
}

/// Completes on Ctrl-C, or after `seconds` when given.
pub async fn shutdown(seconds: Option<u64>) {
    let deadline = async {
        match seconds {
            Some(seconds) => tokio::time::sleep(Duration::from_secs(seconds)).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = deadline => {}
    }
}
