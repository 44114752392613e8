//! The reader's memory bound, as a property: on generated files of every shape that makes it
//! hold memory (many functions, long names, many instruction addresses, many calls, inlined
//! files, many events), the peak of every allocation made while parsing stays under
//! [`Options::max_bytes`] plus one line's buffer, whether the file is read or refused as too
//! large.
//!
//! Its own test binary, apart from the crate's other integration tests (real_files.rs): a
//! `#[global_allocator]` replaces the allocator of the whole binary, so in a shared one the
//! allocations of tests running on other threads at the same time would count toward this test's
//! peak (a false failure), and every other test would pay for the counting. Alone, the counting
//! allocator sees this test's thread only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use irgate_callgrind::{Options, parse_with};

/// Counts the bytes held, as the C allocator holds them: each block rounded up to 16 bytes,
/// with a 16-byte header.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn charged(layout: Layout) -> usize {
    layout.size().next_multiple_of(16) + 16
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(charged(layout), Ordering::Relaxed) + charged(layout);
        PEAK.fetch_max(held, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(charged(layout), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A deterministic generator (the LCG of Numerical Recipes).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below.max(1)
    }
}

/// The shapes that make a reader hold memory.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// Distinct functions, one cost line each.
    Functions,
    /// Distinct functions with names near the longest line.
    LongNames,
    /// A few functions, each with many instruction addresses.
    Addresses,
    /// Many calls between many functions.
    Calls,
    /// Cost lines of code inlined from many files.
    Inlined,
    /// Many events per cost line.
    Events,
}

/// A callgrind file of `shape`, about `lines` lines long, with a `totals:` line that matches.
fn generate(shape: Shape, lines: usize, rng: &mut Lcg) -> String {
    let events = match shape {
        Shape::Events => 64,
        _ => 2,
    };
    let names: Vec<String> = (0..events).map(|e| format!("E{e}")).collect();
    let mut out = format!(
        "version: 1\npositions: instr line\nevents: {}\n",
        names.join(" ")
    );
    let mut sum = vec![0u64; events];
    let mut cost = |out: &mut String, address: u64| {
        let costs: Vec<u64> = (0..events).map(|_| rng.next(1_000)).collect();
        for (s, c) in sum.iter_mut().zip(&costs) {
            *s += c;
        }
        let costs: Vec<String> = costs.iter().map(u64::to_string).collect();
        out.push_str(&format!("{address:#x} 1 {}\n", costs.join(" ")));
    };
    for i in 0..lines {
        match shape {
            Shape::Functions | Shape::Events => {
                out.push_str(&format!("fn=({i}) function_{i}\n"));
                cost(&mut out, 0x1000 + i as u64);
            }
            Shape::LongNames => {
                out.push_str(&format!("fn={i}{}\n", "x".repeat(60_000)));
                cost(&mut out, 0x1000);
            }
            Shape::Addresses => {
                if i % 100_000 == 0 {
                    out.push_str(&format!("fn=f{i}\n"));
                }
                cost(&mut out, 0x1000 + 4 * i as u64);
            }
            Shape::Calls => {
                out.push_str(&format!("fn=f{}\ncfn=f{}\ncalls=1 0\n", i % 5_000, i));
                cost(&mut out, 0x1000);
            }
            Shape::Inlined => {
                out.push_str(&format!("fn=f{}\nfi=/src/file_{i}.rs\n", i % 1_000));
                cost(&mut out, 0x1000 + i as u64);
            }
        }
    }
    // The calls' costs are inclusive, not self costs: only the other lines count.
    let sum = match shape {
        Shape::Calls => recount(&out, events),
        _ => sum,
    };
    let totals: Vec<String> = sum.iter().map(u64::to_string).collect();
    out.push_str(&format!("totals: {}\n", totals.join(" ")));
    out
}

/// The self costs of `text` (every cost line not after `calls=`).
fn recount(text: &str, events: usize) -> Vec<u64> {
    let mut sum = vec![0u64; events];
    let mut after_call = false;
    for line in text.lines() {
        if line.starts_with("calls=") {
            after_call = true;
        } else if line.starts_with("0x") {
            if !after_call {
                for (s, c) in sum.iter_mut().zip(line.split(' ').skip(2)) {
                    *s += c.parse::<u64>().unwrap();
                }
            }
            after_call = false;
        }
    }
    sum
}

/// Bytes beyond the limit a parse may hold: one line's buffer (64 KiB, and its growth), the
/// line being split, and an error's message.
const LINE_SLACK: usize = 4 * 64 * 1024;

#[test]
fn the_reader_never_holds_more_than_its_limit() {
    let mut rng = Lcg(0x1234_5678);
    let max_bytes = 4 << 20;
    let mut refused = 0;
    let mut read = 0;
    for shape in [
        Shape::Functions,
        Shape::LongNames,
        Shape::Addresses,
        Shape::Calls,
        Shape::Inlined,
        Shape::Events,
    ] {
        // One size the limit holds, one it does not.
        for lines in [200, 150_000] {
            // Names of 60 KB: a hundredth as many lines fill the same memory.
            let lines = match shape {
                Shape::LongNames => lines / 100,
                _ => lines,
            };
            let text = generate(shape, lines, &mut rng);
            // As irgate reads a benchmark's file: with the executed lines.
            let mut options = Options::default();
            options.max_bytes = max_bytes;
            options.lines = true;
            let before = HELD.load(Ordering::Relaxed);
            PEAK.store(before, Ordering::Relaxed);
            let parsed = parse_with(text.as_bytes(), &options);
            let peak = PEAK.load(Ordering::Relaxed) - before;
            match &parsed {
                Ok(graph) => {
                    read += 1;
                    assert!(!graph.nodes.is_empty(), "{shape:?}");
                }
                Err(error) => {
                    refused += 1;
                    assert!(
                        error.to_string().starts_with("too large: "),
                        "{shape:?}: {error}"
                    );
                }
            }
            assert!(
                peak <= max_bytes + LINE_SLACK,
                "{shape:?}, {lines} lines ({} bytes): held {peak} bytes, the limit is {max_bytes}",
                text.len()
            );
            drop(parsed);
        }
    }
    assert_eq!(
        (read, refused),
        (6, 6),
        "each shape read small and refused large"
    );
}
