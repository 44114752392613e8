//! Every TCP connection of the proxy, the echo backend and the load tool has `TCP_NODELAY` set.
//! This test inspects the process's own sockets while a load runs through the proxy, so it runs
//! in a test binary of its own: no other test's sockets are open.

mod common;

use std::os::fd::BorrowedFd;
use std::time::Duration;

use common::Servers;
use proxy::load::{self, LoadConfig};
use proxy::wire::Wire;
use socket2::SockRef;

/// The connected TCP sockets of this process, with their `TCP_NODELAY` setting.
fn tcp_connections() -> Vec<(i32, std::net::SocketAddr, bool)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap() {
        let Ok(fd) = entry.unwrap().file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        // SAFETY: the descriptor is open for the duration of the borrow (sockets of the running
        // load are not closed until it ends, after this scan); a descriptor that is not a
        // socket only makes the calls below fail.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let socket = SockRef::from(&fd);
        let (Ok(peer), Ok(nodelay)) = (socket.peer_addr(), socket.tcp_nodelay()) else {
            continue;
        };
        if let Some(peer) = peer.as_socket() {
            found.push((fd_number(&fd), peer, nodelay));
        }
    }
    found
}

fn fd_number(fd: &BorrowedFd<'_>) -> i32 {
    use std::os::fd::AsRawFd;
    fd.as_raw_fd()
}

#[test]
fn every_connection_on_both_sides_sets_tcp_nodelay() {
    let wire = Wire::default();
    let servers = Servers::start(wire, wire, Duration::from_secs(10));
    let target = servers.proxy;
    let load = std::thread::spawn(move || {
        load::run(&LoadConfig {
            target,
            label: "proxied".to_owned(),
            connections: 1,
            rate: 100,
            payload: 64,
            wire,
            warmup: Duration::ZERO,
            duration: Duration::from_secs(2),
            drain: Duration::from_secs(5),
        })
        .unwrap()
    });
    // Poll until the four connections of a proxied run are all open: the load tool's to the
    // proxy, the proxy's accepted one, the proxy's to the echo backend and the backend's.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let connections = loop {
        let connections = tcp_connections();
        let to_proxy = connections.iter().filter(|c| c.1 == servers.proxy).count();
        let to_echo = connections.iter().filter(|c| c.1 == servers.echo).count();
        let accepted = connections.len() - to_proxy - to_echo;
        if to_proxy >= 1 && to_echo >= 1 && accepted >= 2 {
            break connections;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "connections never all opened: {connections:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    for (fd, peer, nodelay) in &connections {
        assert!(nodelay, "fd {fd} (peer {peer}) has TCP_NODELAY off");
    }
    assert!(load.join().unwrap().passed());
}
