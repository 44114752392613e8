//! Layer E, the `timing` feature: the running proxy times every filter, every packet's trip
//! through the filter chain and every batch of bytes through the pipeline, and emits the
//! nanoseconds as `trace` events on the target [`TARGET`]. Timestamps come from `quanta` (the TSC
//! where it is usable: a few nanoseconds per read). Without the feature none of this is compiled.

use codec::filter::{Action, Chain, Filter, Packet};

/// The tracing target of every timing event.
pub const TARGET: &str = "irproxy::timing";

/// A filter timed on every packet: event `filter` with its name, the direction, the packet id
/// and `ns`.
pub struct Timed<F> {
    inner: F,
    name: &'static str,
    direction: &'static str,
    clock: quanta::Clock,
}

impl<F: Filter> Timed<F> {
    /// Times `inner`, reported as `name` in `direction`.
    pub fn new(inner: F, name: &'static str, direction: &'static str) -> Self {
        Timed {
            inner,
            name,
            direction,
            clock: quanta::Clock::new(),
        }
    }
}

impl<F: Filter> Filter for Timed<F> {
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        let start = self.clock.raw();
        let action = self.inner.filter(packet);
        let ns = self.clock.delta_as_nanos(start, self.clock.raw());
        tracing::trace!(
            target: TARGET,
            direction = self.direction,
            filter = self.name,
            packet_id = packet.id(),
            ns,
            "filter"
        );
        action
    }
}

/// The whole chain timed per packet: event `packet` with the direction, packet id, payload
/// length, whether it was dropped, and `ns` (all filters, the timing of each included).
struct TimedChain {
    inner: Chain,
    direction: &'static str,
    clock: quanta::Clock,
}

impl Filter for TimedChain {
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        let start = self.clock.raw();
        let action = self.inner.apply(packet);
        let ns = self.clock.delta_as_nanos(start, self.clock.raw());
        tracing::trace!(
            target: TARGET,
            direction = self.direction,
            packet_id = packet.id(),
            payload_len = packet.payload().len(),
            dropped = action == Action::Drop,
            ns,
            "packet"
        );
        action
    }
}

/// `chain` as the single filter of a new chain that times each packet through it.
pub(crate) fn timed_chain(chain: Chain, direction: &'static str) -> Chain {
    let mut timed = Chain::new();
    timed.push(TimedChain {
        inner: chain,
        direction,
        clock: quanta::Clock::new(),
    });
    timed
}

/// Times one call of the pipeline on a batch of bytes read from a socket: event `batch` with the
/// direction, bytes in, bytes out and `ns` (decryption, decoding, filters, encoding, encryption).
pub(crate) struct BatchClock {
    clock: quanta::Clock,
}

impl BatchClock {
    pub(crate) fn new() -> Self {
        BatchClock {
            clock: quanta::Clock::new(),
        }
    }

    /// Runs `process` and emits its time.
    pub(crate) fn time<T>(
        &self,
        direction: &'static str,
        bytes_in: usize,
        process: impl FnOnce() -> (T, usize),
    ) -> T {
        let start = self.clock.raw();
        let (result, bytes_out) = process();
        let ns = self.clock.delta_as_nanos(start, self.clock.raw());
        tracing::trace!(target: TARGET, direction, bytes_in, bytes_out, ns, "batch");
        result
    }
}
