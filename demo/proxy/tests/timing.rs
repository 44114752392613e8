//! Layer E's events, in a test binary of their own: tracing caches per callsite whether anyone
//! listens, and other tests hitting these callsites on their threads with no subscriber made this
//! check miss events now and then when it ran beside them.
#![cfg(feature = "timing")]

use std::io::Write;
use std::sync::{Arc, Mutex};

use codec::filter::Packet;

use proxy::filters::{self, FilterKind};

/// Collects what the fmt subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn every_filter_and_packet_is_timed_on_the_timing_target() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let mut chain = filters::chain(&[FilterKind::Pass, FilterKind::Scan], "upstream");
        let mut scratch = Vec::new();
        chain.apply(&mut Packet::new(0x10, b"payload", &mut scratch));
    });
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let timing: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(proxy::timing::TARGET))
        .collect();
    assert_eq!(timing.len(), 3, "{log}");
    assert!(
        timing[0].contains("filter=\"pass\"") && timing[0].contains("ns="),
        "{log}"
    );
    assert!(timing[1].contains("filter=\"scan\""), "{log}");
    assert!(
        timing[2].contains("packet") && timing[2].contains("payload_len=7"),
        "{log}"
    );
    assert!(
        timing.iter().all(|l| l.contains("direction=\"upstream\"")),
        "{log}"
    );
}
