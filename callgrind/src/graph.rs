//! The call graph a callgrind file describes ([`CallGraph`]): every function ([`Node`]) with its
//! self cost per event, the part of it inlined from other files, its cost by instruction address,
//! and its calls ([`Call`]) with their inclusive cost; and the queries on it. [`mod@crate::parse`]
//! reads a file into one.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::sync::Arc;

/// A function's costs and calls, as the file states them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Node {
    /// Demangled name (a Rust symbol's hash suffix dropped).
    pub name: Arc<str>,
    /// The source file of the function (its `fl=`), as written in the file.
    pub file: Arc<str>,
    /// The object (executable or shared library) it is in; functions of the same name in two
    /// objects are two nodes.
    pub object: Arc<str>,
    /// Self cost, one entry per event of [`CallGraph::events`].
    pub self_cost: Vec<u64>,
    /// The part of the self cost that comes from code inlined from other files (`fi=`), by file
    /// ([`crate::inline::resolve`] turns it into by inlined function).
    pub inlined: BTreeMap<Arc<str>, Vec<u64>>,
    /// Self cost by instruction address, when the file has `instr` positions.
    pub by_address: Addresses,
    /// Calls made, by callee index into [`CallGraph::nodes`]: sorted by callee, one entry each.
    pub calls: Vec<(usize, Call)>,
}

impl Node {
    /// The calls to `callee`, if any.
    pub fn call(&self, callee: usize) -> Option<&Call> {
        let found = self.calls.binary_search_by_key(&callee, |(c, _)| *c);
        found.ok().map(|i| &self.calls[i].1)
    }
}

/// Self cost by instruction address, held flat (an address and its costs, per event): in the
/// order read, an address repeated when its cost lines were not consecutive.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Addresses {
    events: usize,
    addresses: Vec<u64>,
    costs: Vec<u64>,
}

impl Addresses {
    /// Each address with its costs.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &[u64])> {
        self.addresses
            .iter()
            .copied()
            .zip(self.costs.chunks_exact(self.events.max(1)))
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    /// No address.
    pub fn is_empty(&self) -> bool {
        self.addresses.is_empty()
    }

    /// Adds `costs` at `address`; returns whether that took a new entry.
    pub(crate) fn add(&mut self, address: u64, costs: &[u64]) -> Result<bool, String> {
        self.events = costs.len();
        if self.addresses.last() == Some(&address) {
            let at = self.costs.len() - costs.len();
            add(&mut self.costs[at..], costs)?;
            return Ok(false);
        }
        grow(&mut self.addresses, 1);
        grow(&mut self.costs, costs.len());
        self.addresses.push(address);
        self.costs.extend_from_slice(costs);
        Ok(true)
    }
}

/// Makes room for `more` items in `vector`, doubling from its exact size (a vector's own growth
/// starts at 4, too much for the one address of most functions).
fn grow<T>(vector: &mut Vec<T>, more: usize) {
    if vector.capacity() - vector.len() < more {
        vector.reserve_exact(vector.len().max(more));
    }
}

/// The calls from one function to another.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Call {
    /// How many times.
    pub count: u64,
    /// The inclusive cost of those calls, per event.
    pub cost: Vec<u64>,
}

/// An object (`ob=`) and a source file (`fl=`, `fi=`, `fe=`).
pub type ObjectFile = (Arc<str>, Arc<str>);

/// A parsed callgrind file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CallGraph {
    /// Event names, e.g. `["Ir", "Dr", ...]` (only [`Options::event`](crate::Options::event) when
    /// one is chosen).
    pub events: Vec<String>,
    /// The totals the file declares (`totals:`), per event, summed over parts: the sum of every
    /// function's self cost.
    pub totals: Vec<u64>,
    /// Per event, what the file's `summary:` lines hold beyond the totals: cost callgrind counted
    /// outside any function (the start of a whole-program run), in no function's self cost.
    pub unattributed: Vec<u64>,
    /// Every function that has a cost or is called, in order of appearance.
    pub nodes: Vec<Node>,
    /// With [`Options::lines`](crate::Options::lines): the source lines that had a cost (in the
    /// kept events), by object and file (`fi=`/`fe=` for inlined code), as sorted, disjoint
    /// ranges. Line 0 is code without line tables.
    pub lines: BTreeMap<ObjectFile, Vec<RangeInclusive<u32>>>,
}

impl CallGraph {
    /// The index of event `name`.
    pub fn event(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }

    /// The index of the (first) function named `name` (demangled).
    pub fn node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| &*n.name == name)
    }
}

/// Sorts `calls` by callee and merges the entries of one callee.
pub(crate) fn merge_calls(calls: &mut Vec<(usize, Call)>) -> Result<(), String> {
    if calls.is_sorted_by(|a, b| a.0 < b.0) {
        return Ok(());
    }
    calls.sort_by_key(|(callee, _)| *callee);
    let mut merged: Vec<(usize, Call)> = Vec::with_capacity(calls.len());
    for (callee, call) in calls.drain(..) {
        match merged.last_mut() {
            Some((last, into)) if *last == callee => {
                into.count = into
                    .count
                    .checked_add(call.count)
                    .ok_or("a call count overflows 64 bits")?;
                into.cost.resize(into.cost.len().max(call.cost.len()), 0);
                add(&mut into.cost, &call.cost)?;
            }
            _ => merged.push((callee, call)),
        }
    }
    *calls = merged;
    Ok(())
}

/// Adds `costs` to `sum`, column by column; an error on overflow.
pub(crate) fn add(sum: &mut [u64], costs: &[u64]) -> Result<(), String> {
    for (s, c) in sum.iter_mut().zip(costs) {
        *s = s.checked_add(*c).ok_or("a cost overflows 64 bits")?;
    }
    Ok(())
}
