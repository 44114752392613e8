//! The open-loop load generator. Each connection sends packets at a constant rate on a fixed
//! schedule, whatever the target does: packet `n` is due at `start + n / rate`. A packet's
//! latency runs from that intended send time to the arrival of its echo, so a stall in the
//! target delays every packet due during it and all of them count (no coordinated omission).
//! A second distribution measures from the actual send time, without the sender's own lateness.
//!
//! Every connection runs on two OS threads (a sender that sleeps until each packet is due, a
//! receiver that blocks on the socket), so the schedule does not depend on an async timer's
//! millisecond granularity. A run is bounded: warm-up plus duration, then at most `drain` for the
//! last echoes.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::net;
use crate::report::{Latency, Machine, Profile, Report, SCHEMA};
use crate::wire::{Receiver, Sender, Wire};

/// The packet id of load packets.
pub const LOAD_PACKET_ID: i32 = 0x10;
/// The smallest payload: a sequence number and a send timestamp, 8 bytes each.
pub const MIN_PAYLOAD: usize = 16;
/// The largest payload.
pub const MAX_PAYLOAD: usize = 1 << 20;
/// The most connections one run opens.
pub const MAX_CONNECTIONS: usize = 256;
/// The highest rate per connection, in packets per second.
pub const MAX_RATE: u32 = 100_000;
/// The longest warm-up or measured duration, in seconds.
pub const MAX_SECS: u64 = 3600;

/// What to load and how hard.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The address loaded: the echo backend directly, or the proxy in front of it.
    pub target: SocketAddr,
    /// A name for the run in reports, e.g. `direct` or `proxied`.
    pub label: String,
    /// Concurrent connections.
    pub connections: usize,
    /// Packets per second on each connection.
    pub rate: u32,
    /// Payload bytes per packet.
    pub payload: usize,
    /// How packets are framed.
    pub wire: Wire,
    /// Time sent but not measured, at the start.
    pub warmup: Duration,
    /// Time measured.
    pub duration: Duration,
    /// How long to wait for the last echoes (and the longest silence tolerated) before giving up.
    pub drain: Duration,
}

/// A load configuration that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value is out of its range.
    #[error("{name} must be between {min} and {max}, got {value}")]
    OutOfRange {
        /// The setting.
        name: &'static str,
        /// Its lowest allowed value.
        min: u64,
        /// Its highest allowed value.
        max: u64,
        /// The value given.
        value: u64,
    },
    /// The target is not on this machine.
    #[error(transparent)]
    NotLoopback(#[from] net::NotLoopback),
}

impl LoadConfig {
    /// Checks every setting's range and that the target is on loopback.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let check = |name, value: u64, min, max| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(ConfigError::OutOfRange {
                    name,
                    min,
                    max,
                    value,
                })
            }
        };
        check(
            "connections",
            self.connections as u64,
            1,
            MAX_CONNECTIONS as u64,
        )?;
        check("rate", u64::from(self.rate), 1, u64::from(MAX_RATE))?;
        check(
            "payload",
            self.payload as u64,
            MIN_PAYLOAD as u64,
            MAX_PAYLOAD as u64,
        )?;
        check("warm-up seconds", self.warmup.as_secs(), 0, MAX_SECS)?;
        check("duration seconds", self.duration.as_secs(), 1, MAX_SECS)?;
        check("drain seconds", self.drain.as_secs(), 1, 600)?;
        net::loopback(self.target)?;
        Ok(())
    }

    /// The profile of plain runs (no attacks) with this configuration on this machine.
    pub fn profile(&self) -> Profile {
        Profile {
            payload_bytes: self.payload,
            connections: self.connections,
            rate_per_connection: self.rate,
            wire: self.wire,
            warmup_secs: self.warmup.as_secs(),
            duration_secs: self.duration.as_secs(),
            stress: false,
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            machine: Machine::this(),
        }
    }
}

/// Runs the load and reports it. Failures on a connection (refused, reset, a corrupted echo) are
/// listed in [`Report::errors`]; the run goes on with the other connections.
pub fn run(config: &LoadConfig) -> Result<Report, ConfigError> {
    config.validate()?;
    let mut streams = Vec::with_capacity(config.connections);
    let mut errors = Vec::new();
    for index in 0..config.connections {
        match net::connect_blocking(config.target, config.drain) {
            Ok(stream) => streams.push((index, stream)),
            Err(error) => errors.push(format!(
                "connection {index}: cannot connect to {}: {error}",
                config.target
            )),
        }
    }
    // Every connection's schedule starts at the same instant, staggered by a fraction of a period.
    let start = Instant::now() + Duration::from_millis(20);
    let results: Vec<Outcome> = thread::scope(|scope| {
        let handles: Vec<_> = streams
            .into_iter()
            .map(|(index, stream)| scope.spawn(move || connection(config, index, stream, start)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a load connection thread panicked"))
            .collect()
    });
    let mut total = Outcome::new();
    for outcome in results {
        total.merge(outcome, &mut errors);
    }
    // Over the measured window, stretched to the last echo when echoes came back late: a target
    // that falls behind shows a lower rate, not the rate it was offered.
    let window_start = start + config.warmup;
    let seconds = total
        .last_arrival
        .map_or(config.duration, |last| {
            last.saturating_duration_since(window_start)
                .max(config.duration)
        })
        .as_secs_f64();
    let packets_per_sec = total.received_measured as f64 / seconds;
    Ok(Report {
        schema: SCHEMA.to_owned(),
        label: config.label.clone(),
        target: config.target.to_string(),
        profile: config.profile(),
        sent: total.sent_measured,
        received: total.received_measured,
        lost: total.sent - total.received,
        errors,
        packets_per_sec: (packets_per_sec * 10.0).round() / 10.0,
        mib_per_sec: (packets_per_sec * config.payload as f64 / f64::from(1 << 20) * 1000.0)
            .round()
            / 1000.0,
        latency_us: Latency::from_nanos(&total.intended),
        service_us: Latency::from_nanos(&total.actual),
        stress: None,
    })
}

/// What one connection saw.
struct Outcome {
    sent: u64,
    received: u64,
    sent_measured: u64,
    received_measured: u64,
    intended: Histogram<u64>,
    actual: Histogram<u64>,
    /// When the last echo of the measured window arrived.
    last_arrival: Option<Instant>,
    errors: Vec<String>,
}

impl Outcome {
    fn new() -> Outcome {
        // 1 ns to 10 minutes, 3 significant digits.
        let histogram = || Histogram::new_with_bounds(1, 600_000_000_000, 3).expect("valid bounds");
        Outcome {
            sent: 0,
            received: 0,
            sent_measured: 0,
            received_measured: 0,
            intended: histogram(),
            actual: histogram(),
            last_arrival: None,
            errors: Vec::new(),
        }
    }

    fn merge(&mut self, other: Outcome, errors: &mut Vec<String>) {
        self.sent += other.sent;
        self.received += other.received;
        self.sent_measured += other.sent_measured;
        self.received_measured += other.received_measured;
        self.intended
            .add(&other.intended)
            .expect("histograms with the same bounds add");
        self.actual
            .add(&other.actual)
            .expect("histograms with the same bounds add");
        self.last_arrival = self.last_arrival.max(other.last_arrival);
        errors.extend(other.errors);
    }
}

/// The schedule of one connection.
#[derive(Clone, Copy)]
struct Schedule {
    start: Instant,
    period: Duration,
    offset: Duration,
    total: u64,
    warmup: u64,
}

impl Schedule {
    /// When packet `seq` is due.
    fn due(&self, seq: u64) -> Instant {
        self.start + self.offset + self.period.mul_f64(seq as f64)
    }
}

/// Runs one connection: a sender thread on the schedule, this thread receiving.
fn connection(config: &LoadConfig, index: usize, stream: TcpStream, start: Instant) -> Outcome {
    let period = Duration::from_secs(1) / config.rate;
    let schedule = Schedule {
        start,
        period,
        offset: period.mul_f64(index as f64 / config.connections as f64),
        total: u64::from(config.rate) * (config.warmup + config.duration).as_secs(),
        warmup: u64::from(config.rate) * config.warmup.as_secs(),
    };
    let mut outcome = Outcome::new();
    let reader = match stream.try_clone() {
        Ok(reader) => reader,
        Err(error) => {
            outcome.errors.push(format!("connection {index}: {error}"));
            return outcome;
        }
    };
    let stop = AtomicBool::new(false);
    thread::scope(|scope| {
        let sender = scope.spawn(|| send(config, stream, schedule, &stop));
        if let Err(error) = receive(config, &reader, schedule, &mut outcome) {
            stop.store(true, Ordering::Relaxed);
            // Unblocks a sender stuck on a full socket buffer.
            let _ = reader.shutdown(Shutdown::Both);
            outcome.errors.push(format!("connection {index}: {error}"));
        }
        let (sent, sent_measured, error) = sender.join().expect("a load sender thread panicked");
        outcome.sent = sent;
        outcome.sent_measured = sent_measured;
        if let Some(error) = error {
            outcome.errors.push(format!("connection {index}: {error}"));
        }
    });
    outcome
}

/// Sends every packet when it is due; returns packets sent, those in the measured window, and
/// the error that stopped it, if any.
fn send(
    config: &LoadConfig,
    mut stream: TcpStream,
    schedule: Schedule,
    stop: &AtomicBool,
) -> (u64, u64, Option<String>) {
    if let Err(error) = stream.set_write_timeout(Some(config.drain)) {
        return (0, 0, Some(error.to_string()));
    }
    let mut sender = Sender::new(config.wire);
    let mut payload = fill(config.payload, schedule.offset.subsec_nanos());
    let mut bytes = Vec::new();
    let (mut sent, mut measured) = (0, 0);
    for seq in 0..schedule.total {
        if stop.load(Ordering::Relaxed) {
            return (sent, measured, None);
        }
        let due = schedule.due(seq);
        let now = Instant::now();
        if due > now {
            thread::sleep(due - now);
        }
        let sent_at = Instant::now()
            .saturating_duration_since(schedule.start)
            .as_nanos() as u64;
        payload[..8].copy_from_slice(&seq.to_le_bytes());
        payload[8..16].copy_from_slice(&sent_at.to_le_bytes());
        bytes.clear();
        if let Err(error) = sender.send(LOAD_PACKET_ID, &payload, &mut bytes) {
            return (
                sent,
                measured,
                Some(format!("cannot frame a packet: {error}")),
            );
        }
        if let Err(error) = stream.write_all(&bytes) {
            return (sent, measured, Some(format!("send failed: {error}")));
        }
        sent += 1;
        measured += u64::from(seq >= schedule.warmup);
    }
    // The echo side finishes once it has seen the end of the stream.
    let _ = stream.shutdown(Shutdown::Write);
    (sent, measured, None)
}

/// Receives echoes until every scheduled packet is back, the target closes, or nothing arrives
/// for `drain`.
fn receive(
    config: &LoadConfig,
    mut stream: &TcpStream,
    schedule: Schedule,
    outcome: &mut Outcome,
) -> Result<(), String> {
    stream
        .set_read_timeout(Some(config.drain))
        .map_err(|e| e.to_string())?;
    let mut receiver = Receiver::new(config.wire);
    let mut buf = vec![0u8; 64 * 1024];
    while outcome.received < schedule.total {
        let n = match stream.read(&mut buf) {
            Ok(0) => {
                return Err(format!(
                    "the target closed the connection after {} of {} echoes",
                    outcome.received, schedule.total
                ));
            }
            Ok(n) => n,
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(format!(
                    "no echo for {:?} after {} of {} echoes",
                    config.drain, outcome.received, schedule.total
                ));
            }
            Err(error) => return Err(format!("receive failed: {error}")),
        };
        let now = Instant::now();
        let mut bad = None;
        receiver
            .receive(&buf[..n], |id, payload| {
                if bad.is_some() {
                    return;
                }
                let seq = outcome.received;
                match read_stamp(id, payload, config.payload) {
                    Some((got, sent_at)) if got == seq => {
                        outcome.received += 1;
                        if seq >= schedule.warmup {
                            outcome.received_measured += 1;
                            outcome.last_arrival = Some(now);
                            let intended = now.saturating_duration_since(schedule.due(seq));
                            let actual = now.saturating_duration_since(
                                schedule.start + Duration::from_nanos(sent_at),
                            );
                            outcome
                                .intended
                                .saturating_record(intended.as_nanos() as u64);
                            outcome.actual.saturating_record(actual.as_nanos() as u64);
                        }
                    }
                    _ => {
                        bad = Some(format!(
                            "echo {seq} is not the packet sent: id {id:#x}, {} payload bytes",
                            payload.len()
                        ))
                    }
                }
            })
            .map_err(|e| format!("malformed echo: {e}"))?;
        if let Some(bad) = bad {
            return Err(bad);
        }
    }
    Ok(())
}

/// The sequence number and send time of a load packet, if it is one of `size` bytes.
fn read_stamp(id: i32, payload: &[u8], size: usize) -> Option<(u64, u64)> {
    if id != LOAD_PACKET_ID || payload.len() != size {
        return None;
    }
    let seq = u64::from_le_bytes(payload[..8].try_into().ok()?);
    let sent_at = u64::from_le_bytes(payload[8..16].try_into().ok()?);
    Some((seq, sent_at))
}

/// `len` pseudo-random bytes (hard to compress, the worst case for zlib): the LCG of the
/// codec's benchmarks, seeded with `seed`.
pub fn fill(len: usize, seed: u32) -> Vec<u8> {
    let mut state = 0x9E37_79B9u32 ^ seed ^ len as u32;
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        })
        .collect()
}
