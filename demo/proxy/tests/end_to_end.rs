//! The proxy between a real client and the echo backend, on loopback: packets cross it both ways
//! intact on every framing, and malformed input closes only the connection that sent it.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::Servers;
use proxy::load::{self, LoadConfig};
use proxy::net;
use proxy::stress::{self, Attack};
use proxy::wire::{Receiver, Sender, Wire};

const TIMEOUT: Duration = Duration::from_secs(10);

/// Every framing a side can have.
fn wires() -> Vec<Wire> {
    let mut wires = Vec::new();
    for threshold in [None, Some(256)] {
        for encrypt in [false, true] {
            wires.push(Wire { threshold, encrypt });
        }
    }
    wires
}

/// A client connection that sends packets and reads their echoes back.
struct Client {
    stream: TcpStream,
    sender: Sender,
    receiver: Receiver,
}

impl Client {
    fn connect(addr: SocketAddr, wire: Wire) -> Client {
        let stream = net::connect_blocking(addr, TIMEOUT).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        Client {
            stream,
            sender: Sender::new(wire),
            receiver: Receiver::new(wire),
        }
    }

    /// Sends the packets in one write and returns what came back once as many arrived.
    fn round_trip(&mut self, packets: &[(i32, Vec<u8>)]) -> Vec<(i32, Vec<u8>)> {
        let mut bytes = Vec::new();
        for (id, payload) in packets {
            self.sender.send(*id, payload, &mut bytes).unwrap();
        }
        self.stream.write_all(&bytes).unwrap();
        let mut echoed = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        while echoed.len() < packets.len() {
            let n = self
                .stream
                .read(&mut buf)
                .expect("an echo within the timeout");
            assert_ne!(n, 0, "the connection closed after {} echoes", echoed.len());
            self.receiver
                .receive(&buf[..n], |id, payload| echoed.push((id, payload.to_vec())))
                .unwrap();
        }
        echoed
    }
}

/// Packets of several sizes, below and above the compression threshold, each with distinct
/// content.
fn packets() -> Vec<(i32, Vec<u8>)> {
    [0usize, 1, 100, 255, 256, 1000, 5000, 70_000]
        .iter()
        .enumerate()
        .map(|(i, &len)| (i as i32 + 1, load::fill(len, i as u32)))
        .collect()
}

#[test]
fn packets_cross_the_proxy_both_ways_intact_on_every_framing() {
    for client in wires() {
        for backend in [Wire::default(), client] {
            let servers = Servers::start(client, backend, TIMEOUT);
            let mut conn = Client::connect(servers.proxy, client);
            let sent = packets();
            assert_eq!(
                conn.round_trip(&sent),
                sent,
                "client {client:?}, backend {backend:?}"
            );
            // A second batch on the same connection: cipher and compression state carry over.
            assert_eq!(conn.round_trip(&sent[..3]), sent[..3], "{client:?}");
        }
    }
}

#[test]
fn an_open_loop_run_through_the_proxy_loses_nothing() {
    let wire = Wire {
        threshold: Some(64),
        encrypt: true,
    };
    let servers = Servers::start(wire, wire, TIMEOUT);
    for (label, target) in [("direct", servers.echo), ("proxied", servers.proxy)] {
        let report = load::run(&LoadConfig {
            target,
            label: label.to_owned(),
            connections: 2,
            rate: 200,
            payload: 128,
            wire,
            warmup: Duration::ZERO,
            duration: Duration::from_secs(1),
            drain: Duration::from_secs(5),
        })
        .unwrap();
        assert!(report.passed(), "{}", report.to_text());
        assert_eq!((report.sent, report.received, report.lost), (400, 400, 0));
        assert_eq!(report.latency_us.samples, 400);
        assert!(report.latency_us.p50 <= report.latency_us.p99);
        assert!(report.latency_us.p99 <= report.latency_us.max);
        assert_eq!(report.label, label);
    }
}

/// Reads `hostile` until the peer closes it, keeping `healthy` busy meanwhile (a round trip
/// every 200 ms, so the proxy's idle timeout never applies to it): true if `hostile` was closed
/// within the timeout.
fn closed_while_healthy_stays(hostile: &mut TcpStream, healthy: &mut Client) -> bool {
    let probe = vec![(7, b"still here".to_vec())];
    hostile
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let deadline = std::time::Instant::now() + TIMEOUT;
    let mut buf = [0u8; 4096];
    while std::time::Instant::now() < deadline {
        match hostile.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                assert_eq!(healthy.round_trip(&probe), probe);
            }
            Err(_) => return true,
        }
    }
    false
}

#[test]
fn each_malformed_input_closes_only_its_connection() {
    let wire = Wire {
        threshold: Some(256),
        encrypt: true,
    };
    // A short idle timeout, so the half-sent frame is dropped quickly.
    let servers = Servers::start(wire, wire, Duration::from_secs(1));
    let mut healthy = Client::connect(servers.proxy, wire);
    let probe = vec![(7, b"still here".to_vec())];
    assert_eq!(healthy.round_trip(&probe), probe);
    for attack in Attack::ALL {
        let mut hostile = net::connect_blocking(servers.proxy, TIMEOUT).unwrap();
        hostile.write_all(&attack.bytes(wire).unwrap()).unwrap();
        assert!(
            closed_while_healthy_stays(&mut hostile, &mut healthy),
            "{} was not closed",
            attack.name()
        );
        assert_eq!(healthy.round_trip(&probe), probe, "after {}", attack.name());
    }
    // The proxy still accepts new connections.
    let mut fresh = Client::connect(servers.proxy, wire);
    assert_eq!(fresh.round_trip(&probe), probe);
}

#[test]
fn connections_beyond_the_cap_are_closed_and_the_slot_comes_back() {
    let wire = Wire::default();
    let limits = proxy::server::Limits {
        idle: TIMEOUT,
        max_connections: 1,
    };
    let servers = Servers::start_with(wire, wire, limits);
    let probe = vec![(7, b"hello".to_vec())];
    let mut first = Client::connect(servers.proxy, wire);
    assert_eq!(first.round_trip(&probe), probe);
    // The second is accepted and closed at once; the first is unaffected.
    let mut second = net::connect_blocking(servers.proxy, TIMEOUT).unwrap();
    second.set_read_timeout(Some(TIMEOUT)).unwrap();
    let closed = match second.read(&mut [0u8; 16]) {
        Ok(n) => n == 0,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    assert!(closed, "over the cap yet open");
    assert_eq!(first.round_trip(&probe), probe);
    // Once the first is gone its slot is free again (the proxy notices the close shortly).
    drop(first);
    let deadline = std::time::Instant::now() + TIMEOUT;
    loop {
        let mut stream = net::connect_blocking(servers.proxy, TIMEOUT).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut bytes = Vec::new();
        Sender::new(wire).send(7, b"hello", &mut bytes).unwrap();
        stream.write_all(&bytes).unwrap();
        let mut buf = [0u8; 64];
        if matches!(stream.read(&mut buf), Ok(n) if n > 0) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the slot never came back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_stress_run_keeps_the_load_whole_and_the_proxy_up() {
    let wire = Wire {
        threshold: Some(256),
        encrypt: false,
    };
    let servers = Servers::start(wire, wire, Duration::from_secs(1));
    let config = LoadConfig {
        target: servers.proxy,
        label: "stress".to_owned(),
        connections: 1,
        rate: 200,
        payload: 256,
        wire,
        warmup: Duration::ZERO,
        duration: Duration::from_secs(2),
        drain: Duration::from_secs(5),
    };
    let report = stress::run(&config, Duration::from_secs(8)).unwrap();
    assert!(report.passed(), "{}", report.to_text());
    assert!(report.profile.stress);
    let stress = report.stress.as_ref().unwrap();
    assert!(stress.target_up_after);
    assert_eq!(stress.attacks.len(), Attack::ALL.len());
    for attack in &stress.attacks {
        assert!(attack.attempts > 0, "{} never ran", attack.attack);
        assert_eq!(attack.closed, attack.attempts, "{}", attack.attack);
    }
    assert_eq!((report.sent, report.received), (400, 400));
}

#[test]
fn the_load_tool_refuses_targets_off_loopback_and_bad_settings() {
    let config = LoadConfig {
        target: "192.0.2.1:25565".parse().unwrap(),
        label: "x".to_owned(),
        connections: 1,
        rate: 10,
        payload: 64,
        wire: Wire::default(),
        warmup: Duration::ZERO,
        duration: Duration::from_secs(1),
        drain: Duration::from_secs(1),
    };
    let error = load::run(&config).unwrap_err().to_string();
    assert!(error.contains("not a loopback address"), "{error}");
    let small = LoadConfig {
        target: "127.0.0.1:1".parse().unwrap(),
        payload: 8,
        ..config
    };
    let error = load::run(&small).unwrap_err().to_string();
    assert_eq!(error, "payload must be between 16 and 1048576, got 8");
}
