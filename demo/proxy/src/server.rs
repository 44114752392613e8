//! The two servers: the intercepting proxy (client, codec pipeline in each direction, backend)
//! and the mock backend that echoes every packet back through a pipeline of its own.
//!
//! A connection whose peer sends malformed bytes, stalls longer than the idle timeout or fails
//! on its socket is closed with a logged reason; nothing it does reaches another connection or
//! the accept loop. Memory per connection is bounded: a 64 KiB read buffer per direction, at
//! most one partial frame held by the pipeline (codec caps a frame at 2 MiB and an inflated
//! packet at 8 MiB), and an output buffer released after any batch that grew it past 1 MiB; the
//! number of connections is capped as well.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use codec::error::PipelineError;
use codec::filter::Chain;
use codec::pipeline::Pipeline;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::filters::{self, FilterKind};
use crate::net;
use crate::wire::{self, Wire};

/// Bytes read from a socket at a time.
const READ_BUF: usize = 64 * 1024;
/// An output buffer larger than this after a batch is released rather than kept.
const OUT_KEEP: usize = 1 << 20;

/// Why a connection was closed.
#[derive(Debug, thiserror::Error)]
pub enum Closed {
    /// The peer sent bytes that are not a valid stream of frames.
    #[error("malformed input: {0}")]
    Malformed(#[from] PipelineError),
    /// The peer sent nothing for the idle timeout (for example, half a frame and then nothing).
    #[error("idle: no bytes for {0:?}")]
    Idle(Duration),
    /// A socket operation failed (for example, the peer reset the connection).
    #[error("socket error: {0}")]
    Io(#[from] std::io::Error),
    /// The backend could not be reached.
    #[error("backend {addr} unreachable: {source}")]
    Backend {
        /// The backend's address.
        addr: SocketAddr,
        /// Why the connection failed.
        source: std::io::Error,
    },
}

/// The settings every server shares.
#[derive(Debug, Clone)]
pub struct Limits {
    /// A client (untrusted side) that sends nothing for this long is disconnected.
    pub idle: Duration,
    /// Connections beyond this many are accepted and closed at once.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            idle: Duration::from_secs(30),
            max_connections: 1024,
        }
    }
}

/// What the proxy does.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// Where clients' connections are forwarded.
    pub backend: SocketAddr,
    /// The framing clients use.
    pub client_wire: Wire,
    /// The framing the backend uses.
    pub backend_wire: Wire,
    /// The filters every packet goes through, in each direction.
    pub filters: Vec<FilterKind>,
    /// Connection limits.
    pub limits: Limits,
}

/// Runs the proxy on `listener` until `shutdown` completes.
pub async fn proxy(listener: TcpListener, config: ProxyConfig, shutdown: impl Future<Output = ()>) {
    let limits = config.limits.clone();
    let config = Arc::new(config);
    serve(listener, &limits, shutdown, move |client| {
        let config = Arc::clone(&config);
        async move { proxy_connection(client, &config).await }
    })
    .await;
}

/// Runs the echo backend on `listener` until `shutdown` completes: every packet comes back to
/// its sender, framed as `wire`.
pub async fn echo(
    listener: TcpListener,
    wire: Wire,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let idle = limits.idle;
    serve(listener, &limits, shutdown, move |stream| async move {
        let (reader, writer) = stream.into_split();
        let mut pipeline = wire::pipeline(wire, wire, Chain::new());
        relay(reader, writer, &mut pipeline, Some(idle), "echo").await
    })
    .await;
}

/// Accepts connections until `shutdown`, each handled by `handle` in its own task.
async fn serve<F, Fut>(
    listener: TcpListener,
    limits: &Limits,
    shutdown: impl Future<Output = ()>,
    handle: F,
) where
    F: Fn(TcpStream) -> Fut,
    Fut: Future<Output = Result<(), Closed>> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => return,
            accepted = net::accept(&listener) => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors or a connection reset before accept: keep serving.
                tracing::warn!(target: "irproxy", %error, "accept failed");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tracing::warn!(target: "irproxy", %peer, max = limits.max_connections, "refused: too many connections");
            continue;
        };
        let connection = handle(stream);
        tokio::spawn(async move {
            tracing::debug!(target: "irproxy", %peer, "connection opened");
            match connection.await {
                Ok(()) => tracing::debug!(target: "irproxy", %peer, "connection closed"),
                Err(reason @ Closed::Malformed(_)) | Err(reason @ Closed::Idle(_)) => {
                    tracing::warn!(target: "irproxy", %peer, %reason, "connection closed")
                }
                Err(reason) => {
                    tracing::info!(target: "irproxy", %peer, %reason, "connection closed")
                }
            }
            drop(slot);
        });
    }
}

/// One proxied connection: a pipeline each way until both sides have finished or one fails.
async fn proxy_connection(client: TcpStream, config: &ProxyConfig) -> Result<(), Closed> {
    let backend = net::connect(config.backend)
        .await
        .map_err(|source| Closed::Backend {
            addr: config.backend,
            source,
        })?;
    let (client_read, client_write) = client.into_split();
    let (backend_read, backend_write) = backend.into_split();
    let mut upstream = wire::pipeline(
        config.client_wire,
        config.backend_wire,
        filters::chain(&config.filters, "upstream"),
    );
    let mut downstream = wire::pipeline(
        config.backend_wire,
        config.client_wire,
        filters::chain(&config.filters, "downstream"),
    );
    // Only the client is untrusted: the idle timeout applies to what it sends.
    let idle = Some(config.limits.idle);
    tokio::try_join!(
        relay(client_read, backend_write, &mut upstream, idle, "upstream"),
        relay(
            backend_read,
            client_write,
            &mut downstream,
            None,
            "downstream"
        ),
    )?;
    Ok(())
}

/// Reads from `reader`, runs the bytes through `pipeline` and writes the result to `writer`
/// until `reader` ends (then shuts `writer` down) or something fails.
async fn relay(
    mut reader: impl AsyncRead + Unpin,
    mut writer: impl AsyncWrite + Unpin,
    pipeline: &mut Pipeline,
    idle: Option<Duration>,
    #[cfg_attr(not(feature = "timing"), allow(unused_variables))] direction: &'static str,
) -> Result<(), Closed> {
    let mut buf = vec![0u8; READ_BUF];
    let mut out = Vec::new();
    #[cfg(feature = "timing")]
    let clock = crate::timing::BatchClock::new();
    loop {
        let n = match idle {
            Some(idle) => tokio::time::timeout(idle, reader.read(&mut buf))
                .await
                .map_err(|_| Closed::Idle(idle))??,
            None => reader.read(&mut buf).await?,
        };
        if n == 0 {
            pipeline.finish()?;
            writer.shutdown().await?;
            return Ok(());
        }
        out.clear();
        #[cfg(not(feature = "timing"))]
        let result = pipeline.process(&buf[..n], &mut out);
        #[cfg(feature = "timing")]
        let result = clock.time(direction, n, || {
            let result = pipeline.process(&buf[..n], &mut out);
            (result, out.len())
        });
        // Frames before a bad one still go out, as the pipeline promises.
        writer.write_all(&out).await?;
        result?;
        if out.capacity() > OUT_KEEP {
            out = Vec::new();
        }
    }
}
