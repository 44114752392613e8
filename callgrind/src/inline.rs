//! Which inlined function each instruction belongs to, from the program's debug information.
//!
//! Callgrind charges inlined code to the function it was inlined into, and its `fi=` records
//! name only the innermost source file (often the standard library's `hint.rs` or `iter`
//! code), so "the VarInt decoder grew" reads as "the frame decoder grew". With instruction
//! addresses in the file (`--dump-instr=yes`) and line tables in the binary, each address is
//! looked up in the DWARF inline tree (`addr2line`), and the cost is charged to the innermost
//! inlined function of the project's own code.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::graph::CallGraph;
use crate::parse::demangle;

/// The debug information of the objects callgrind files name, each read once however many
/// files name it (a suite's benchmarks share one binary): pass one to every [`resolve`] of a run.
#[derive(Default)]
#[non_exhaustive]
pub struct Objects {
    loaded: HashMap<Arc<str>, Option<(std::time::SystemTime, addr2line::Loader)>>,
}

impl Objects {
    /// `object`'s debug information when it was built no later than `measured` (else its
    /// addresses are not the measured ones); `None` when it is gone or cannot be read.
    fn get(
        &mut self,
        object: &Arc<str>,
        measured: std::time::SystemTime,
    ) -> Option<&addr2line::Loader> {
        let entry = self.loaded.entry(object.clone()).or_insert_with(|| {
            let built = std::fs::metadata(&**object)
                .and_then(|m| m.modified())
                .ok()?;
            Some((built, addr2line::Loader::new(&**object).ok()?))
        });
        entry
            .as_ref()
            .filter(|(built, _)| *built <= measured)
            .map(|(_, loader)| loader)
    }
}

/// Replaces each function's by-file split of inlined cost with a split by inlined function:
/// for every address, the innermost frame whose source file `is_own` accepts, when that frame is
/// an inlined one (not the function itself). Functions whose object cannot be read (gone, no
/// debug information, or rebuilt after `measured`, so its addresses are not the measured ones)
/// keep their by-file split. A function whose file, as callgrind names it, is not one `is_own`
/// accepts gets the own file most of its cost (first event) is in, if any: callgrind names the
/// file of the function's first instruction, often inlined library code. `objects` keeps the
/// objects' debug information for the next call. Returns how many functions were resolved.
pub fn resolve(
    graph: &mut CallGraph,
    objects: &mut Objects,
    measured: std::time::SystemTime,
    is_own: impl Fn(&str) -> bool,
) -> usize {
    let mut resolved = 0;
    for node in &mut graph.nodes {
        if node.by_address.is_empty() {
            continue;
        }
        let Some(loader) = objects.get(&node.object, measured) else {
            continue;
        };
        let mut inlined: BTreeMap<Arc<str>, Vec<u64>> = BTreeMap::new();
        let mut own_files: BTreeMap<String, u64> = BTreeMap::new();
        for (address, cost) in node.by_address.iter() {
            let Some(frames) = frames(loader, address) else {
                continue;
            };
            if let Some(file) = own_file(&frames, &is_own) {
                let first = cost.first().copied().unwrap_or(0);
                *own_files.entry(file).or_insert(0) += first;
            }
            let Some(name) = inlined_function(&frames, &is_own) else {
                continue;
            };
            let entry = inlined
                .entry(Arc::from(name))
                .or_insert_with(|| vec![0; cost.len()]);
            for (sum, c) in entry.iter_mut().zip(cost) {
                *sum = sum.saturating_add(*c);
            }
        }
        node.inlined = inlined;
        if !is_own(&node.file)
            && let Some((file, _)) = own_files.into_iter().max_by_key(|(_, cost)| *cost)
        {
            node.file = Arc::from(file);
        }
        resolved += 1;
    }
    resolved
}

/// The frames at `address`, innermost first (the last is the function the code is in): name
/// and source file of each.
fn frames(
    loader: &addr2line::Loader,
    address: u64,
) -> Option<Vec<(Option<String>, Option<String>)>> {
    let mut frames = loader.find_frames(address).ok()?;
    let mut chain = Vec::new();
    while let Ok(Some(frame)) = frames.next() {
        let file = frame
            .location
            .as_ref()
            .and_then(|l| l.file)
            .map(str::to_owned);
        let name = frame
            .function
            .as_ref()
            .and_then(|f| f.raw_name().ok())
            .map(|n| demangle(&n));
        chain.push((name, file));
    }
    Some(chain)
}

/// The source file of the function itself at an address (its outermost frame's location), when
/// it is the project's own.
fn own_file(
    frames: &[(Option<String>, Option<String>)],
    is_own: &impl Fn(&str) -> bool,
) -> Option<String> {
    frames
        .last()
        .and_then(|(_, file)| file.clone())
        .filter(|file| is_own(file))
}

/// The innermost own-code function inlined at an address (`frames` as [`frames`] gives them), if
/// the instruction is inlined code.
fn inlined_function(
    chain: &[(Option<String>, Option<String>)],
    is_own: &impl Fn(&str) -> bool,
) -> Option<String> {
    // Innermost first; the last frame is the function the code was inlined into.
    let outer = chain.len().checked_sub(1)?;
    // Named with its file (`/ws/codec/src/varint.rs: decode_varint`): line tables name
    // functions briefly (`decode`, `new`), the file tells them apart.
    chain[..outer]
        .iter()
        .find(|(_, file)| file.as_deref().is_some_and(is_own))
        .and_then(|(name, file)| Some(format!("{}: {}", file.as_deref()?, name.as_deref()?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn without_the_binary_the_split_by_file_stays() {
        let text = "positions: instr line\nevents: Ir\nob=/nonexistent/binary\nfl=/ws/a.rs\nfn=f\n\
                    0x10 1 5\nfi=/ws/b.rs\n0x14 2 3\ntotals: 8\n";
        let mut graph = parse(text.as_bytes()).unwrap();
        assert_eq!(graph.nodes[0].by_address.len(), 2);
        let now = std::time::SystemTime::now();
        assert_eq!(
            resolve(&mut graph, &mut Objects::default(), now, |f| f
                .starts_with("/ws/")),
            0
        );
        assert_eq!(graph.nodes[0].inlined["/ws/b.rs"], [3]);
    }
}
