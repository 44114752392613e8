//! Every TCP socket of the proxy and the load tool is opened here, with `TCP_NODELAY` set: a
//! request-response benchmark over loopback measures Nagle's algorithm and delayed ACKs (tens of
//! milliseconds per round trip) instead of the code under test when it is left on.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

/// Connects to `addr` with `TCP_NODELAY` set.
pub async fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Accepts the next connection on `listener` with `TCP_NODELAY` set.
pub async fn accept(listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
    let (stream, peer) = listener.accept().await?;
    stream.set_nodelay(true)?;
    Ok((stream, peer))
}

/// A target address that is not on loopback: the load tool only loads this machine.
#[derive(Debug, thiserror::Error)]
#[error(
    "{0} is not a loopback address: irload sends load to this machine only (127.0.0.0/8 or ::1)"
)]
pub struct NotLoopback(pub SocketAddr);

/// Checks that `addr` is on loopback.
pub fn loopback(addr: SocketAddr) -> Result<SocketAddr, NotLoopback> {
    if addr.ip().is_loopback() {
        Ok(addr)
    } else {
        Err(NotLoopback(addr))
    }
}

/// Connects to `addr` with `TCP_NODELAY` set, blocking for at most `timeout`: the load tool's
/// connections, which run on threads of their own.
pub fn connect_blocking(addr: SocketAddr, timeout: Duration) -> io::Result<std::net::TcpStream> {
    let stream = std::net::TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_nodelay(true)?;
    Ok(stream)
}
