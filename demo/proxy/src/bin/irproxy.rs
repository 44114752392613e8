//! irproxy: the intercepting proxy. Clients connect to `--listen`; every connection is forwarded
//! to `--backend` through codec's pipeline in each direction.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use proxy::filters::FilterKind;
use proxy::server::{self, Limits, ProxyConfig};
use proxy::wire::Wire;
use tokio::net::TcpListener;

/// An intercepting Minecraft proxy for Play-state traffic, on codec's pipeline.
///
/// Logs go to stderr, filtered by IRPROXY_LOG (default `irproxy=info`); with the `timing`
/// feature, `IRPROXY_LOG=irproxy=info,irproxy::timing=trace` shows per-filter nanoseconds.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Address to accept clients on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:25566")]
    listen: SocketAddr,
    /// The backend every client is forwarded to.
    #[arg(long, default_value = "127.0.0.1:25565")]
    backend: SocketAddr,
    /// Compression threshold of the client side (omit: compression off).
    #[arg(long)]
    client_threshold: Option<usize>,
    /// Encrypt the client side (AES-128-CFB8 under the load-testing key).
    #[arg(long)]
    client_encrypt: bool,
    /// Compression threshold of the backend side (omit: compression off).
    #[arg(long)]
    backend_threshold: Option<usize>,
    /// Encrypt the backend side.
    #[arg(long)]
    backend_encrypt: bool,
    /// A filter every packet goes through, in each direction; repeat for a chain
    /// (pass, scan, count).
    #[arg(long = "filter")]
    filters: Vec<FilterKind>,
    /// Close a client that sends nothing for this many seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle_timeout: u64,
    /// Refuse connections beyond this many.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_connections: u64,
    /// Stop after this many seconds (default: run until interrupted).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86400))]
    exit_after: Option<u64>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(error) = proxy::logging::init("IRPROXY_LOG") {
        eprintln!("irproxy: {error}");
        return ExitCode::from(2);
    }
    let listener = match TcpListener::bind(args.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("irproxy: cannot listen on {}: {error}", args.listen);
            return ExitCode::from(2);
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!(
            "irproxy listening on {addr}, forwarding to {}",
            args.backend
        ),
        Err(error) => {
            eprintln!("irproxy: {error}");
            return ExitCode::from(2);
        }
    }
    let config = ProxyConfig {
        backend: args.backend,
        client_wire: Wire {
            threshold: args.client_threshold,
            encrypt: args.client_encrypt,
        },
        backend_wire: Wire {
            threshold: args.backend_threshold,
            encrypt: args.backend_encrypt,
        },
        filters: args.filters,
        limits: Limits {
            idle: Duration::from_secs(args.idle_timeout),
            max_connections: args.max_connections as usize,
        },
    };
    server::proxy(listener, config, proxy::logging::shutdown(args.exit_after)).await;
    ExitCode::SUCCESS
}
