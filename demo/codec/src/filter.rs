//! The filter chain: filters look at each packet and pass it, modify it, replace it or drop it.
//!
//! A packet starts out borrowing the decoded frame. Passing costs no copy and no allocation; the
//! first change copies the payload into a buffer the caller owns and reuses (copy-on-write), and
//! the packet remembers that it changed so the pipeline knows whether it may forward the original
//! frame.

/// One packet as filters see it: an id and a payload.
pub struct Packet<'a> {
    id: i32,
    original: &'a [u8],
    edited: &'a mut Vec<u8>,
    modified: bool,
}

impl<'a> Packet<'a> {
    /// A packet borrowing `payload`; `scratch` receives the payload if a filter changes it.
    pub fn new(id: i32, payload: &'a [u8], scratch: &'a mut Vec<u8>) -> Self {
        Packet {
            id,
            original: payload,
            edited: scratch,
            modified: false,
        }
    }

    /// The packet id.
    #[inline]
    pub fn id(&self) -> i32 {
        self.id
    }

    /// The payload, as the last filter left it.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        if self.modified {
            self.edited
        } else {
            self.original
        }
    }

    /// Whether any filter changed the id or the payload.
    #[inline]
    pub fn is_modified(&self) -> bool {
        self.modified
    }

    /// Modifies the packet: the payload, copied on first use, to edit in place or resize.
    pub fn payload_mut(&mut self) -> &mut Vec<u8> {
        if !self.modified {
            self.edited.clear();
            self.edited.extend_from_slice(self.original);
            self.modified = true;
        }
        self.edited
    }

    /// Modifies the packet id.
    pub fn set_id(&mut self, id: i32) {
        self.payload_mut();
        self.id = id;
    }

    /// Replaces the packet with another one.
    pub fn replace(&mut self, id: i32, payload: &[u8]) {
        self.edited.clear();
        self.edited.extend_from_slice(payload);
        self.modified = true;
        self.id = id;
    }
}

/// What happens to a packet after a filter has seen it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Hand the packet, changed or not, to the next filter (or on to the peer).
    Pass,
    /// Drop the packet: later filters do not see it and nothing is sent.
    Drop,
}

/// A packet filter. Modify or replace a packet through [`Packet`]'s methods, then return
/// [`Action::Pass`]; return [`Action::Drop`] to drop it.
pub trait Filter: Send {
    /// Looks at one packet.
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action;
}

/// Filters applied in order to every packet.
#[derive(Default)]
pub struct Chain {
    filters: Vec<Box<dyn Filter>>,
}

impl Chain {
    /// A chain with no filters: every packet passes unchanged.
    pub fn new() -> Self {
        Chain::default()
    }

    /// Appends a filter; it sees packets after the filters added before it.
    pub fn push(&mut self, filter: impl Filter + 'static) {
        self.filters.push(Box::new(filter));
    }

    /// The number of filters.
    pub fn len(&self) -> usize {
        self.filters.len()
    }

    /// Whether the chain has no filters.
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty()
    }

    /// Runs the packet through every filter, stopping at the first that drops it.
    #[inline]
    pub fn apply(&mut self, packet: &mut Packet<'_>) -> Action {
        #[cfg(feature = "inject-slowdown")]
        injected_slowdown();
        for filter in &mut self.filters {
            if filter.filter(packet) == Action::Drop {
                return Action::Drop;
            }
        }
        Action::Pass
    }
}

/// Fixed extra work for the `inject-slowdown` feature: a loop the optimiser can neither remove
/// nor unroll (its bound goes through `black_box`), the same instructions on every call.
#[cfg(feature = "inject-slowdown")]
#[inline(never)]
fn injected_slowdown() {
    let mut acc = 0u32;
    for i in 0..std::hint::black_box(SLOWDOWN_ROUNDS) {
        acc = std::hint::black_box(acc.wrapping_add(i));
    }
    std::hint::black_box(acc);
}

/// Rounds of [`injected_slowdown`]'s loop: about 60 instructions in all.
#[cfg(feature = "inject-slowdown")]
const SLOWDOWN_ROUNDS: u32 = 12;

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the packets it sees.
    struct Count(usize);
    impl Filter for Count {
        fn filter(&mut self, _: &mut Packet<'_>) -> Action {
            self.0 += 1;
            Action::Pass
        }
    }

    struct Uppercase;
    impl Filter for Uppercase {
        fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
            packet.payload_mut().make_ascii_uppercase();
            Action::Pass
        }
    }

    struct DropId(i32);
    impl Filter for DropId {
        fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
            if packet.id() == self.0 {
                Action::Drop
            } else {
                Action::Pass
            }
        }
    }

    struct ReplaceWith(i32, &'static [u8]);
    impl Filter for ReplaceWith {
        fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
            packet.replace(self.0, self.1);
            Action::Pass
        }
    }

    /// The packets a [`Record`] filter saw.
    type Seen = std::sync::Arc<std::sync::Mutex<Vec<(i32, Vec<u8>)>>>;

    /// Records what it saw, to check the order of filters and what later ones see.
    struct Record(Seen);
    impl Filter for Record {
        fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
            self.0
                .lock()
                .unwrap()
                .push((packet.id(), packet.payload().to_vec()));
            Action::Pass
        }
    }

    #[test]
    fn empty_chain_passes_unchanged() {
        let mut scratch = Vec::new();
        let mut packet = Packet::new(3, b"abc", &mut scratch);
        assert_eq!(Chain::new().apply(&mut packet), Action::Pass);
        assert!(!packet.is_modified());
        assert_eq!((packet.id(), packet.payload()), (3, &b"abc"[..]));
    }

    #[test]
    fn passing_filters_leave_the_packet_borrowed() {
        let mut chain = Chain::new();
        chain.push(Count(0));
        chain.push(Count(0));
        let mut scratch = Vec::new();
        let payload = b"hello".to_vec();
        let mut packet = Packet::new(1, &payload, &mut scratch);
        assert_eq!(chain.apply(&mut packet), Action::Pass);
        assert!(!packet.is_modified());
        assert_eq!(
            packet.payload().as_ptr(),
            payload.as_ptr(),
            "no copy on the pass path"
        );
        assert_eq!(chain.len(), 2);
    }

    #[test]
    fn modification_is_seen_by_later_filters() {
        let seen = Seen::default();
        let mut chain = Chain::new();
        chain.push(Uppercase);
        chain.push(Record(std::sync::Arc::clone(&seen)));
        let mut scratch = Vec::new();
        let mut packet = Packet::new(7, b"chat", &mut scratch);
        assert_eq!(chain.apply(&mut packet), Action::Pass);
        assert!(packet.is_modified());
        assert_eq!(packet.payload(), b"CHAT");
        assert_eq!(*seen.lock().unwrap(), vec![(7, b"CHAT".to_vec())]);
    }

    #[test]
    fn set_id_marks_the_packet_modified() {
        let mut scratch = Vec::new();
        let mut packet = Packet::new(1, b"x", &mut scratch);
        packet.set_id(2);
        assert!(packet.is_modified());
        assert_eq!((packet.id(), packet.payload()), (2, &b"x"[..]));
    }

    #[test]
    fn drop_stops_the_chain() {
        let seen = Seen::default();
        let mut chain = Chain::new();
        chain.push(DropId(9));
        chain.push(Record(std::sync::Arc::clone(&seen)));
        let mut scratch = Vec::new();
        assert_eq!(
            chain.apply(&mut Packet::new(9, b"", &mut scratch)),
            Action::Drop
        );
        assert_eq!(
            chain.apply(&mut Packet::new(8, b"k", &mut scratch)),
            Action::Pass
        );
        assert_eq!(*seen.lock().unwrap(), vec![(8, b"k".to_vec())]);
    }

    #[test]
    fn replace_swaps_id_and_payload() {
        let mut chain = Chain::new();
        chain.push(ReplaceWith(0x42, b"new"));
        let mut scratch = vec![1, 2, 3, 4, 5, 6];
        let mut packet = Packet::new(1, b"old payload", &mut scratch);
        assert_eq!(chain.apply(&mut packet), Action::Pass);
        assert!(packet.is_modified());
        assert_eq!((packet.id(), packet.payload()), (0x42, &b"new"[..]));
    }
}
