//! Real servers for the tests: an echo backend and a proxy in front of it, on ephemeral loopback
//! ports, on a tokio runtime of their own that stops when [`Servers`] is dropped.

use std::net::SocketAddr;
use std::time::Duration;

use proxy::filters::FilterKind;
use proxy::server::{self, Limits, ProxyConfig};
use proxy::wire::Wire;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// An echo backend and a proxy to it, running until dropped.
pub struct Servers {
    pub echo: SocketAddr,
    pub proxy: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Servers {
    /// Starts both: clients of the proxy frame as `client`, the proxy and the backend talk as
    /// `backend`; the proxy closes clients idle for `idle`.
    pub fn start(client: Wire, backend: Wire, idle: Duration) -> Servers {
        let limits = Limits {
            idle,
            max_connections: 64,
        };
        Servers::start_with(client, backend, limits)
    }

    /// Starts both, the proxy with `limits` (the echo backend too).
    pub fn start_with(client: Wire, backend: Wire, limits: Limits) -> Servers {
        let (addrs_tx, addrs_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let front = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let echo_addr = echo.local_addr().unwrap();
                addrs_tx
                    .send((echo_addr, front.local_addr().unwrap()))
                    .unwrap();
                let config = ProxyConfig {
                    backend: echo_addr,
                    client_wire: client,
                    backend_wire: backend,
                    filters: vec![FilterKind::Scan, FilterKind::Count],
                    limits: limits.clone(),
                };
                let (stop_echo, echo_stopped) = oneshot::channel::<()>();
                let echo_task = tokio::spawn(server::echo(echo, backend, limits, async {
                    let _ = echo_stopped.await;
                }));
                server::proxy(front, config, async {
                    let _ = stopped.await;
                })
                .await;
                let _ = stop_echo.send(());
                let _ = echo_task.await;
            });
        });
        let (echo, proxy) = addrs_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the servers start");
        Servers {
            echo,
            proxy,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
