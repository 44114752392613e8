//! The stress mode: hostile connections against the target while a well-behaved load runs.
//! Each kind of attack runs on its own thread, one connection at a time, over and over until the
//! load ends; every attack connection must be closed by the target within a bound, the load must
//! lose nothing, and a fresh connection must get its packet echoed afterwards.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use codec::frame::MAX_FRAME_LEN;
use codec::varint::{decode_varint, put_varint};

use crate::load::{self, ConfigError, LOAD_PACKET_ID, LoadConfig};
use crate::net;
use crate::report::{AttackOutcome, Report, Stress};
use crate::wire::{Receiver, Sender, Wire};

/// A kind of malformed input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attack {
    /// A frame length VarInt with more than five bytes.
    OverlongVarint,
    /// A frame length above the 2 MiB cap, then bytes.
    OversizeLength,
    /// A compressed frame that declares a small size and inflates to 8 MiB.
    CompressionBomb,
    /// 4 KiB of pseudo-random bytes.
    Garbage,
    /// The first bytes of a 1000-byte frame, then silence.
    HalfFrame,
}

impl Attack {
    /// Every attack.
    pub const ALL: [Attack; 5] = [
        Attack::OverlongVarint,
        Attack::OversizeLength,
        Attack::CompressionBomb,
        Attack::Garbage,
        Attack::HalfFrame,
    ];

    /// The attack's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Attack::OverlongVarint => "overlong-varint",
            Attack::OversizeLength => "oversize-length",
            Attack::CompressionBomb => "compression-bomb",
            Attack::Garbage => "garbage",
            Attack::HalfFrame => "half-frame",
        }
    }

    /// The attack's bytes as they go on the wire (encrypted if `wire` is), or why it cannot run
    /// on `wire`.
    pub fn bytes(self, wire: Wire) -> Result<Vec<u8>, &'static str> {
        let mut plain = Vec::new();
        match self {
            Attack::OverlongVarint => {
                plain.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
            }
            Attack::OversizeLength => {
                put_varint(&mut plain, (MAX_FRAME_LEN + 1) as i32);
                plain.extend_from_slice(&[0; 64]);
            }
            Attack::CompressionBomb => {
                let threshold = wire.threshold.ok_or("compression is off")?;
                plain = bomb(threshold);
            }
            Attack::Garbage => plain = load::fill(4096, 0xBAD),
            Attack::HalfFrame => {
                put_varint(&mut plain, 1000);
                plain.extend_from_slice(&[0; 10]);
            }
        }
        let mut bytes = Vec::new();
        Sender::new(wire).send_raw(&plain, &mut bytes);
        Ok(bytes)
    }
}

/// A frame whose 8 MiB of zeros compress to a few KiB and whose data length claims `threshold`
/// bytes (the least a compressed frame may claim).
fn bomb(threshold: usize) -> Vec<u8> {
    let mut honest = Vec::new();
    Sender::new(Wire {
        threshold: Some(threshold),
        encrypt: false,
    })
    .send(1, &vec![0; (8 << 20) - 1], &mut honest)
    .expect("8 MiB is the largest packet a frame may carry");
    let (_, prefix) = decode_varint(&honest).expect("a frame starts with its length");
    let (_, data_len) = decode_varint(&honest[prefix..]).expect("then its data length");
    let zlib = &honest[prefix + data_len..];
    let mut body = Vec::new();
    put_varint(&mut body, threshold.max(1) as i32);
    body.extend_from_slice(zlib);
    let mut frame = Vec::new();
    put_varint(&mut frame, body.len() as i32);
    frame.extend_from_slice(&body);
    frame
}

/// Runs `config`'s load with every attack alongside; each attack connection must be closed by
/// the target within `close_within`.
pub fn run(config: &LoadConfig, close_within: Duration) -> Result<Report, ConfigError> {
    config.validate()?;
    let done = AtomicBool::new(false);
    let (report, attacks) = thread::scope(|scope| {
        let attackers: Vec<_> = Attack::ALL
            .into_iter()
            .map(|attack| {
                let done = &done;
                scope.spawn(move || repeat(attack, config, close_within, done))
            })
            .collect();
        let report = load::run(config);
        done.store(true, Ordering::Relaxed);
        let attacks: Vec<AttackOutcome> = attackers
            .into_iter()
            .map(|handle| handle.join().expect("an attack thread panicked"))
            .collect();
        (report, attacks)
    });
    let mut report = report?;
    report.profile.stress = true;
    report.stress = Some(Stress {
        attacks,
        target_up_after: still_up(config),
    });
    Ok(report)
}

/// Sends `attack` on one connection after another until `done`.
fn repeat(
    attack: Attack,
    config: &LoadConfig,
    close_within: Duration,
    done: &AtomicBool,
) -> AttackOutcome {
    let mut outcome = AttackOutcome {
        attack: attack.name().to_owned(),
        attempts: 0,
        closed: 0,
        max_close_ms: 0,
        skipped: None,
    };
    let bytes = match attack.bytes(config.wire) {
        Ok(bytes) => bytes,
        Err(why) => {
            outcome.skipped = Some(why.to_owned());
            return outcome;
        }
    };
    while !done.load(Ordering::Relaxed) {
        outcome.attempts += 1;
        if let Some(after) = closed_after(config, &bytes, close_within) {
            outcome.closed += 1;
            outcome.max_close_ms = outcome.max_close_ms.max(after.as_millis() as u64);
        }
        thread::sleep(Duration::from_millis(100));
    }
    outcome
}

/// Sends `bytes` on a new connection and waits for the target to close it: how long that took,
/// or `None` if it did not within `limit` (or the connection could not be made).
fn closed_after(config: &LoadConfig, bytes: &[u8], limit: Duration) -> Option<Duration> {
    let mut stream = net::connect_blocking(config.target, limit).ok()?;
    let start = Instant::now();
    if stream.write_all(bytes).is_err() {
        // Reset while sending: the target has already closed it.
        return Some(start.elapsed());
    }
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.checked_sub(start.elapsed())?;
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .ok()?;
        match stream.read(&mut buf) {
            // Whatever frames the target echoed before the bad bytes are read and ignored.
            Ok(n) if n > 0 => continue,
            Ok(_) => return Some(start.elapsed()),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(_) => return Some(start.elapsed()),
        }
    }
}

/// Whether a fresh connection gets one packet echoed.
fn still_up(config: &LoadConfig) -> bool {
    let echoed = || -> std::io::Result<bool> {
        let mut stream: TcpStream = net::connect_blocking(config.target, config.drain)?;
        stream.set_read_timeout(Some(config.drain))?;
        let mut bytes = Vec::new();
        Sender::new(config.wire)
            .send(LOAD_PACKET_ID, b"are you still there?", &mut bytes)
            .map_err(std::io::Error::other)?;
        stream.write_all(&bytes)?;
        let mut receiver = Receiver::new(config.wire);
        let mut buf = [0u8; 256];
        let mut echoed = false;
        while !echoed {
            let n = stream.read(&mut buf)?;
            if n == 0 {
                return Ok(false);
            }
            receiver
                .receive(&buf[..n], |id, payload| {
                    echoed = id == LOAD_PACKET_ID && payload == b"are you still there?";
                })
                .map_err(std::io::Error::other)?;
        }
        Ok(true)
    };
    echoed().unwrap_or(false)
}
