//! The proxy's filters, chosen by name on the command line, and the chain built from them.

use std::str::FromStr;

use codec::filter::{Action, Chain, Filter, Packet};

/// A filter the proxy can run on every packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    /// Passes every packet untouched: the cost of dispatching to a filter.
    Pass,
    /// Reads every payload byte (a wrapping sum): a filter that inspects packets.
    Scan,
    /// Counts packets and payload bytes; logs the totals when the connection closes.
    Count,
}

impl FilterKind {
    /// Every filter, in the order the help text lists them.
    pub const ALL: [FilterKind; 3] = [FilterKind::Pass, FilterKind::Scan, FilterKind::Count];

    /// The filter's name on the command line and in timing events.
    pub fn name(self) -> &'static str {
        match self {
            FilterKind::Pass => "pass",
            FilterKind::Scan => "scan",
            FilterKind::Count => "count",
        }
    }
}

/// A filter name that is not one of [`FilterKind::ALL`].
#[derive(Debug, thiserror::Error)]
#[error("unknown filter {0:?}: expected one of pass, scan, count")]
pub struct UnknownFilter(String);

impl FromStr for FilterKind {
    type Err = UnknownFilter;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FilterKind::ALL
            .into_iter()
            .find(|kind| kind.name() == s)
            .ok_or_else(|| UnknownFilter(s.to_owned()))
    }
}

struct PassFilter;

impl Filter for PassFilter {
    fn filter(&mut self, _: &mut Packet<'_>) -> Action {
        Action::Pass
    }
}

struct ScanFilter;

impl Filter for ScanFilter {
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        let sum = packet
            .payload()
            .iter()
            .fold(0u32, |acc, &b| acc.wrapping_add(u32::from(b)));
        std::hint::black_box(sum);
        Action::Pass
    }
}

struct CountFilter {
    direction: &'static str,
    packets: u64,
    bytes: u64,
}

impl Filter for CountFilter {
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        self.packets += 1;
        self.bytes += packet.payload().len() as u64;
        Action::Pass
    }
}

impl Drop for CountFilter {
    fn drop(&mut self) {
        tracing::debug!(
            target: "irproxy",
            direction = self.direction,
            packets = self.packets,
            payload_bytes = self.bytes,
            "count filter totals"
        );
    }
}

/// The chain of `kinds`, in order, for one direction (`"upstream"`: client to backend,
/// `"downstream"`: backend to client). With the `timing` feature every filter and the whole chain
/// are timed (see `timing`); without it the chain holds the filters and nothing else.
pub fn chain(kinds: &[FilterKind], direction: &'static str) -> Chain {
    let mut chain = Chain::new();
    for &kind in kinds {
        match kind {
            FilterKind::Pass => push(&mut chain, PassFilter, kind, direction),
            FilterKind::Scan => push(&mut chain, ScanFilter, kind, direction),
            FilterKind::Count => push(
                &mut chain,
                CountFilter {
                    direction,
                    packets: 0,
                    bytes: 0,
                },
                kind,
                direction,
            ),
        }
    }
    #[cfg(feature = "timing")]
    let chain = crate::timing::timed_chain(chain, direction);
    chain
}

#[cfg(not(feature = "timing"))]
fn push(chain: &mut Chain, filter: impl Filter + 'static, _: FilterKind, _: &'static str) {
    chain.push(filter);
}

#[cfg(feature = "timing")]
fn push(
    chain: &mut Chain,
    filter: impl Filter + 'static,
    kind: FilterKind,
    direction: &'static str,
) {
    chain.push(crate::timing::Timed::new(filter, kind.name(), direction));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for kind in FilterKind::ALL {
            assert_eq!(kind.name().parse::<FilterKind>().unwrap(), kind);
        }
        let error = "zip".parse::<FilterKind>().unwrap_err().to_string();
        assert!(error.contains("unknown filter \"zip\""), "{error}");
    }

    #[test]
    fn every_filter_passes_packets_unchanged() {
        let mut chain = chain(&FilterKind::ALL, "upstream");
        let mut scratch = Vec::new();
        let mut packet = Packet::new(3, b"payload", &mut scratch);
        assert_eq!(chain.apply(&mut packet), Action::Pass);
        assert!(!packet.is_modified());
        assert_eq!(packet.payload(), b"payload");
    }
}
