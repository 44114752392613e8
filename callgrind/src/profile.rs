//! A benchmark reduced to one event (Ir) per function: self and inclusive cost, source file,
//! callers, and the code inlined into it from other files. Compact enough to commit next to a
//! baseline, sorted so its diff reads well.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::graph::CallGraph;
use crate::parse::recursion_level;

/// One function's share of a benchmark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Function {
    /// The source file (normalised by [`normalize_file`]).
    pub file: String,
    /// Instructions executed in the function itself (including code inlined into it).
    #[serde(rename = "self")]
    pub self_cost: u64,
    /// Instructions executed in it and everything it called.
    pub inclusive: u64,
    /// The functions that call it (sorted; only those kept in the profile).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callers: Vec<String>,
    /// The part of the self cost inlined from other source files, by file (shares below the
    /// profile's floor left out).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inlined: BTreeMap<String, u64>,
    /// In a whole-program run (a binary benchmark), code that ran where the program's `main`
    /// does not reach: the process's start-up and exit (dynamic loader, C library, Rust runtime).
    #[serde(default, skip_serializing_if = "is_false")]
    pub outside_main: bool,
}

/// One benchmark's per-function profile of one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Profile {
    /// The benchmark's total (equal to the sum of every function's self cost).
    pub total: u64,
    /// Cost callgrind counted outside any function and outside `total` (its `summary:` beyond
    /// its `totals:`): the first instructions of a whole-program run, before any function.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unattributed: u64,
    /// Functions whose self and inclusive cost are both below this were left out; their cost
    /// is in `total` only.
    pub floor: u64,
    /// Functions by demangled name.
    pub functions: BTreeMap<String, Function>,
}

/// The share of a benchmark's total below which a function is left out of a compact profile:
/// one part in 2,000 (0.05%), at least one instruction.
pub const FLOOR_PARTS: u64 = 2_000;

impl Profile {
    /// Reduces `graph` to `event` per function, every function kept; files go through
    /// `normalize` (e.g. [`normalize_file`] with the workspace root).
    pub fn from_graph(
        graph: &CallGraph,
        event: &str,
        normalize: impl Fn(&str) -> String,
    ) -> Option<Profile> {
        let e = graph.event(event)?;
        let mut functions: BTreeMap<String, Function> = BTreeMap::new();
        let main = under_main(graph);
        let (mut inside, mut outside) = (BTreeSet::new(), BTreeSet::new());
        for (index, node) in graph.nodes.iter().enumerate() {
            let self_cost = node.self_cost[e];
            // A recursive call's cost is already in the function's own: count it once.
            let called: u64 = node
                .calls
                .iter()
                .filter(|(callee, _)| graph.nodes[*callee].name != node.name)
                .map(|(_, call)| call.cost.get(e).copied().unwrap_or(0))
                .fold(0u64, u64::saturating_add);
            let inlined = node
                .inlined
                .iter()
                .map(|(file, cost)| (normalize(file), cost[e]))
                .filter(|(_, cost)| *cost > 0)
                .fold(BTreeMap::new(), |mut map, (file, cost)| {
                    *map.entry(file).or_insert(0) += cost;
                    map
                });
            // Code that ran, where `main` does not reach.
            if self_cost > 0
                && let Some(reached) = &main
            {
                let side = if reached[index] {
                    &mut inside
                } else {
                    &mut outside
                };
                side.insert(&*node.name);
            }
            // Functions of one name in several objects are one function here.
            let entry = functions
                .entry(node.name.to_string())
                .or_insert_with(|| Function {
                    file: normalize(&node.file),
                    self_cost: 0,
                    inclusive: 0,
                    callers: Vec::new(),
                    inlined: BTreeMap::new(),
                    outside_main: false,
                });
            entry.self_cost = entry.self_cost.saturating_add(self_cost);
            entry.inclusive = entry
                .inclusive
                .saturating_add(self_cost.saturating_add(called));
            for (file, cost) in inlined {
                *entry.inlined.entry(file).or_insert(0) += cost;
            }
        }
        for caller in &graph.nodes {
            for (callee, _) in &caller.calls {
                let callee = &graph.nodes[*callee].name;
                if *callee != caller.name
                    && let Some(f) = functions.get_mut(&**callee)
                {
                    f.callers.push(caller.name.to_string());
                }
            }
        }
        let listed = || functions.values().map(|f| f.self_cost).sum();
        let total = graph.totals.get(e).copied().unwrap_or_else(listed);
        for (name, f) in functions.iter_mut() {
            f.outside_main = outside.contains(name.as_str()) && !inside.contains(name.as_str());
            f.callers.sort();
            f.callers.dedup();
            f.inclusive = f.inclusive.min(total);
        }
        // Functions that only appear as call targets with no cost (never reached) are noise.
        functions.retain(|_, f| f.inclusive > 0);
        Some(Profile {
            total,
            unattributed: graph.unattributed.get(e).copied().unwrap_or(0),
            floor: 0,
            functions,
        })
    }

    /// The profile without the functions below `total / parts` (at least 1) in both self and
    /// inclusive cost, without the callers of the measured code (no cost of their own, the
    /// whole total inclusive: `main`, the harness), without callers left out, and without
    /// inlined shares below a hundredth of that floor.
    pub fn compact(&self, parts: u64) -> Profile {
        let floor = (self.total / parts.max(1)).max(1);
        let mut functions: BTreeMap<String, Function> = self
            .functions
            .iter()
            .filter(|(_, f)| {
                f.inclusive >= floor && !(f.self_cost == 0 && f.inclusive >= self.total)
            })
            .map(|(name, f)| (name.clone(), f.clone()))
            .collect();
        let kept: Vec<String> = functions.keys().cloned().collect();
        // Inlined shares are kept down to a hundredth of the floor: a small change in a big
        // benchmark is still charged to the inlined function it is in.
        let inlined_floor = (floor / 100).max(1);
        for f in functions.values_mut() {
            f.callers.retain(|c| kept.binary_search(c).is_ok());
            f.inlined.retain(|_, cost| *cost >= inlined_floor);
        }
        Profile {
            total: self.total,
            unattributed: self.unattributed,
            floor,
            functions,
        }
    }

    /// The sum of the self costs of the functions in the profile.
    pub fn listed_self(&self) -> u64 {
        self.functions.values().map(|f| f.self_cost).sum()
    }

    /// Merges another profile of the same benchmark (another part or thread) into this one.
    pub fn merge(&mut self, other: Profile) {
        self.total += other.total;
        self.unattributed += other.unattributed;
        self.floor = self.floor.max(other.floor);
        for (name, f) in other.functions {
            match self.functions.get_mut(&name) {
                None => {
                    self.functions.insert(name, f);
                }
                Some(mine) => {
                    mine.self_cost += f.self_cost;
                    mine.inclusive = (mine.inclusive + f.inclusive).min(self.total);
                    mine.callers.extend(f.callers);
                    mine.outside_main &= f.outside_main;
                    mine.callers.sort();
                    mine.callers.dedup();
                    for (file, cost) in f.inlined {
                        *mine.inlined.entry(file).or_insert(0) += cost;
                    }
                }
            }
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Which functions the program's own `main` reaches by calls, when `graph` is a whole Rust
/// program's run: that `main` is what the runtime's `__rust_begin_short_backtrace` calls.
/// `None` when there is no such frame (a library benchmark, collected inside the benchmark only).
fn under_main(graph: &CallGraph) -> Option<Vec<bool>> {
    let mut reached = vec![false; graph.nodes.len()];
    let mut todo: Vec<usize> = graph
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.name.ends_with("::__rust_begin_short_backtrace"))
        .flat_map(|(i, n)| n.calls.iter().map(|(c, _)| *c).filter(move |c| *c != i))
        .collect();
    if todo.is_empty() {
        return None;
    }
    while let Some(i) = todo.pop() {
        if !std::mem::replace(&mut reached[i], true) {
            todo.extend(graph.nodes[i].calls.iter().map(|(c, _)| *c));
        }
    }
    Some(reached)
}

/// The cost, per event of `graph.events`, of the program's own code in a whole-program run (a
/// binary benchmark): the inclusive cost of the frames the program's code starts in, each
/// counted once. In a Rust program, the `*::__rust_begin_short_backtrace` frames: the runtime
/// calls the program's `main` through one, after its start-up (the main thread's stack guard,
/// read from `/proc/self/maps`, whose cost moves with the binary's layout), and a spawned
/// thread's closure through another. Else (a C-like program) the frame of `main`. The frame's
/// own few instructions are counted too, so code inlined into it is. `None` when the graph has
/// neither (a thread or process that runs no such frame).
pub fn program_cost(graph: &CallGraph) -> Option<Vec<u64>> {
    let name = |i: usize| recursion_level(&graph.nodes[i].name).0;
    let rust = |i: usize| name(i).ends_with("::__rust_begin_short_backtrace");
    let c_main = |i: usize| name(i) == "main";
    let any = |is: &dyn Fn(usize) -> bool| (0..graph.nodes.len()).any(is);
    let entry: &dyn Fn(usize) -> bool = if any(&rust) {
        &rust
    } else if any(&c_main) {
        &c_main
    } else {
        return None;
    };
    let mut cost = vec![0u64; graph.events.len()];
    let mut add = |costs: &[u64]| {
        for (sum, c) in cost.iter_mut().zip(costs) {
            *sum = sum.saturating_add(*c);
        }
    };
    for (index, node) in graph.nodes.iter().enumerate() {
        if !entry(index) {
            continue;
        }
        add(&node.self_cost);
        // A call from one entry frame into another (a recursion level) is in the callee's own.
        for (_, call) in node.calls.iter().filter(|(callee, _)| !entry(*callee)) {
            add(&call.cost);
        }
    }
    Some(cost)
}

/// A source path as it reads in a report, the same on every machine: relative to `root` (the
/// workspace), `library/...` for the Rust standard library (`/rustc/<commit>/library/...`),
/// `<crate>-<version>/...` for a crates.io dependency.
pub fn normalize_file(path: &str, root: &str) -> String {
    let root = root.trim_end_matches('/');
    if !root.is_empty()
        && let Some(rest) = path.strip_prefix(root).and_then(|r| r.strip_prefix('/'))
    {
        return rest.to_owned();
    }
    if let Some(rest) = path.strip_prefix("/rustc/")
        && let Some((_, rest)) = rest.split_once('/')
    {
        return rest.to_owned();
    }
    if let Some((_, rest)) = path.split_once("/registry/src/")
        && let Some((_, rest)) = rest.split_once('/')
    {
        return rest.to_owned();
    }
    path.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    const TEXT: &str = "\
events: Ir
summary: 1100
fl=/ws/src/main.rs
fn=main
1 2
cfn=work
calls=1 1
1 1098
fn=work
fi=/rustc/abc123/library/core/src/iter.rs
2 90
fe=/ws/src/main.rs
3 8
cfn=work
calls=5 3
3 500
cfn=leaf
calls=1 4
4 1000
fn=leaf
4 1000
cfn=never
calls=1 5
5 0
totals: 1100
";

    #[test]
    fn reduces_to_self_and_inclusive_with_files_and_callers() {
        let graph = parse(TEXT.as_bytes()).unwrap();
        let profile = Profile::from_graph(&graph, "Ir", |f| normalize_file(f, "/ws")).unwrap();
        assert_eq!(profile.total, 1100);
        let work = &profile.functions["work"];
        assert_eq!((work.self_cost, work.inclusive), (98, 1098));
        assert_eq!(work.file, "src/main.rs");
        assert_eq!(work.callers, ["main"]);
        assert_eq!(work.inlined["library/core/src/iter.rs"], 90);
        assert_eq!(profile.functions["leaf"].inclusive, 1000);
        assert!(!profile.functions.contains_key("never"), "never executed");
        assert_eq!(profile.listed_self(), 1100);
        assert!(Profile::from_graph(&graph, "Dr", |f| f.to_owned()).is_none());
    }

    #[test]
    fn compacting_keeps_what_matters() {
        let graph = parse(TEXT.as_bytes()).unwrap();
        let profile = Profile::from_graph(&graph, "Ir", |f| f.to_owned()).unwrap();
        let compact = profile.compact(100);
        assert_eq!(compact.floor, 11);
        // main: self 2, but inclusive 1100: kept for the inclusive view.
        assert!(compact.functions.contains_key("main"));
        let compact = profile.compact(2);
        assert_eq!(compact.floor, 550);
        assert_eq!(
            compact.functions.keys().collect::<Vec<_>>(),
            ["leaf", "main", "work"]
        );
        // Inlined shares are kept down to a hundredth of the floor (5 here).
        assert_eq!(
            compact.functions["work"].inlined["/rustc/abc123/library/core/src/iter.rs"],
            90
        );
        let compact = profile.compact(1);
        assert_eq!(compact.functions.keys().collect::<Vec<_>>(), ["main"]);
    }

    /// A whole Rust program's run: the C library's start-up (`startup`, the stack guard's read
    /// of `/proc/self/maps`) costs `startup` Ir, the program's `main` (called through the
    /// runtime's `__rust_begin_short_backtrace`) runs `work` for `work` Ir.
    fn program(startup: u64, work: u64) -> String {
        let total = 10 + startup + 3 + 2 + work;
        format!(
            "events: Ir Dr\n\
             fl=/ws/libc.c\n\
             fn=main\n\
             1 10 4\n\
             cfn=std::rt::lang_start_internal\n\
             calls=1 1\n\
             1 {rest} {rest}\n\
             fn=std::rt::lang_start_internal\n\
             cfn=startup\n\
             calls=1 1\n\
             1 {startup} {startup}\n\
             cfn=std::sys::backtrace::__rust_begin_short_backtrace\n\
             calls=1 1\n\
             1 {program} {program}\n\
             fn=startup\n\
             1 {startup} {startup}\n\
             fl=/ws/src/main.rs\n\
             fn=std::sys::backtrace::__rust_begin_short_backtrace\n\
             1 3 3\n\
             cfn=tool::main\n\
             calls=1 1\n\
             1 {main} {main}\n\
             fn=tool::main\n\
             1 2 2\n\
             cfn=work\n\
             calls=1 1\n\
             1 {work} {work}\n\
             fn=work\n\
             1 {work} {work}\n\
             totals: {total} {dr}\n",
            rest = startup + 3 + 2 + work,
            program = 2 + work,
            main = 2 + work,
            dr = 4 + startup + 3 + 2 + work,
        )
    }

    #[test]
    fn the_program_cost_does_not_move_with_the_start_up() {
        let cost = |startup, work| {
            let graph = parse(program(startup, work).as_bytes()).unwrap();
            program_cost(&graph).unwrap()
        };
        // `__rust_begin_short_backtrace` (3) and `tool::main` (2) and `work`, per event.
        assert_eq!(cost(2_237, 1_000), [1_005, 1_005]);
        // The start-up moved (another layout), the program did not: the same cost.
        assert_eq!(cost(5, 1_000), cost(2_237, 1_000));
        // The program slower, the start-up faster by more: the cost still grows by the slowdown.
        assert_eq!(cost(37, 1_200)[0], cost(2_237, 1_000)[0] + 200);
    }

    #[test]
    fn a_c_program_is_counted_from_main_and_a_graph_without_either_has_none() {
        let c = "events: Ir\nfn=_start\n1 7\ncfn=main\ncalls=1 1\n1 30\nfn=main\n1 10\n\
                 cfn=main'2\ncalls=1 1\n1 20\nfn=main'2\n1 20\ntotals: 37\n";
        let graph = parse(c.as_bytes()).unwrap();
        // `main` and its recursion `main'2`, counted once each: 30, not `_start`'s 7.
        assert_eq!(program_cost(&graph).unwrap(), [30]);
        let thread = "events: Ir\nfn=start_thread\n1 7\ntotals: 7\n";
        assert_eq!(program_cost(&parse(thread.as_bytes()).unwrap()), None);
    }

    #[test]
    fn normalizes_paths_to_read_the_same_everywhere() {
        assert_eq!(
            normalize_file("/irgate/codec/src/varint.rs", "/irgate/"),
            "codec/src/varint.rs"
        );
        assert_eq!(
            normalize_file("/rustc/59807616e1fa/library/core/src/ptr/mod.rs", "/irgate"),
            "library/core/src/ptr/mod.rs"
        );
        assert_eq!(
            normalize_file(
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/aes-0.9.0/src/soft.rs",
                "/x"
            ),
            "aes-0.9.0/src/soft.rs"
        );
        assert_eq!(normalize_file("???", "/irgate"), "???");
    }
}
