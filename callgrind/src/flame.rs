//! Flame graphs: a call graph unfolded into stacks ("folded" lines, `a;b;c 123`), and a
//! differential flame graph (SVG, by `inferno`) of a run against a baseline profile.
//!
//! Callgrind records calls between pairs of functions, not whole stacks, so a stack's cost is
//! estimated as flame graph tools for callgrind do: a function's cost on a path is its cost
//! scaled by the share of its inclusive cost that the path's calls carry. Code inlined into a
//! function is drawn as a frame of its own above it, named as the explanation's table names it
//! (`codec/src/varint.rs: decode_varint`), so the graph and the table agree.

use std::collections::{BTreeMap, BTreeSet};

use crate::graph::CallGraph;
use crate::profile::Profile;

/// The deepest stack unfolded.
const MAX_DEPTH: usize = 64;

/// The most stacks kept (the largest); a call graph with more is summarised.
const MAX_STACKS: usize = 2_000;

/// The most paths walked: a call graph can hold exponentially many (each layer of a DAG
/// calling each function of the next), so past this each function's subtree is one frame.
const MAX_VISITS: usize = 20_000;

/// `event`'s cost per call stack, root first, frames joined by `;`; inlined code is a frame above
/// its host, named by `normalize` applied to its key in [`crate::graph::Node::inlined`] (as
/// [`Profile::from_graph`] names it).
pub fn stacks(
    graph: &CallGraph,
    event: &str,
    normalize: impl Fn(&str) -> String,
) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let Some(e) = graph.event(event) else {
        return out;
    };
    let inclusive: Vec<u64> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            node.calls
                .iter()
                .filter(|(callee, _)| *callee != i)
                .map(|(_, call)| call.cost.get(e).copied().unwrap_or(0))
                .fold(node.self_cost[e], u64::saturating_add)
        })
        .collect();
    let called: BTreeSet<usize> = graph
        .nodes
        .iter()
        .enumerate()
        .flat_map(|(i, node)| node.calls.iter().map(|(c, _)| *c).filter(move |c| *c != i))
        .collect();
    let mut walk = Walk {
        graph,
        event: e,
        normalize: &normalize,
        inclusive: &inclusive,
        out: &mut out,
        path: Vec::new(),
        visits: 0,
    };
    let mut roots: Vec<usize> = (0..graph.nodes.len())
        .filter(|i| !called.contains(i))
        .collect();
    // A graph that is one cycle has no uncalled function: start from the costliest.
    if roots.is_empty()
        && let Some(top) =
            (0..graph.nodes.len()).max_by_key(|i| (inclusive[*i], std::cmp::Reverse(*i)))
    {
        roots.push(top);
    }
    for root in roots {
        walk.visit(root, inclusive[root]);
    }
    if out.len() > MAX_STACKS {
        let mut largest: Vec<(String, u64)> = std::mem::take(&mut out).into_iter().collect();
        largest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let rest: u64 = largest[MAX_STACKS..].iter().map(|s| s.1).sum();
        largest.truncate(MAX_STACKS);
        out = largest.into_iter().collect();
        out.insert("(smaller stacks)".to_owned(), rest);
    }
    out
}

struct Walk<'g> {
    graph: &'g CallGraph,
    event: usize,
    normalize: &'g dyn Fn(&str) -> String,
    inclusive: &'g [u64],
    out: &'g mut BTreeMap<String, u64>,
    path: Vec<usize>,
    visits: usize,
}

impl Walk<'_> {
    /// The current path as a folded stack.
    fn stack(&self) -> String {
        self.path
            .iter()
            .map(|i| frame(&self.graph.nodes[*i].name))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Unfolds `node` reached with `cost` of its inclusive cost.
    fn visit(&mut self, node: usize, cost: u64) {
        let total = self.inclusive[node];
        if cost == 0 || total == 0 || self.path.contains(&node) || self.path.len() >= MAX_DEPTH {
            return;
        }
        let scale = |part: u64| (u128::from(part) * u128::from(cost) / u128::from(total)) as u64;
        self.path.push(node);
        self.visits += 1;
        if self.visits > MAX_VISITS {
            // The whole subtree's cost in this frame: the stacks still add up.
            let stack = self.stack();
            *self.out.entry(stack).or_insert(0) += cost;
            self.path.pop();
            return;
        }
        let host = &self.graph.nodes[node];
        let stack = self.stack();
        let mut own = host.self_cost[self.event];
        for (inlined, cost) in &host.inlined {
            let cost = cost.get(self.event).copied().unwrap_or(0).min(own);
            own -= cost;
            let share = scale(cost);
            if share > 0 {
                let name = frame(&(self.normalize)(inlined));
                *self.out.entry(format!("{stack};{name}")).or_insert(0) += share;
            }
        }
        let own = scale(own);
        if own > 0 {
            *self.out.entry(stack).or_insert(0) += own;
        }
        let calls: Vec<(usize, u64)> = self.graph.nodes[node]
            .calls
            .iter()
            .filter(|(callee, _)| *callee != node)
            .map(|(callee, call)| (*callee, call.cost.get(self.event).copied().unwrap_or(0)))
            .collect();
        for (callee, call_cost) in calls {
            self.visit(callee, scale(call_cost));
        }
        self.path.pop();
    }
}

/// The cost drawn in frame `leaf` of `profile`: a function's self cost without what is inlined
/// into it (drawn above it), or, for inlined code, its share in `host` (the frame below it).
fn own_cost(profile: &Profile, leaf: &str, host: Option<&str>) -> Option<u64> {
    if let Some(f) = profile.functions.get(leaf) {
        return Some(f.self_cost.saturating_sub(f.inlined.values().sum()));
    }
    let host = profile.functions.get(host?)?;
    host.inlined.get(leaf).copied()
}

/// A function name as a folded frame: no `;` (the frame separator), no line breaks; any other
/// control character (invalid in the SVG's XML) or character that reorders or hides text (the
/// set of `irgate::text::is_deceptive`) as U+FFFD.
fn frame(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => ':',
            '\n' | '\r' => ' ',
            '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}' => '\u{FFFD}',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// A differential flame graph (SVG) of `stacks` (the new run's) against `base`: widths are the
/// new costs; a frame is red where its function's self cost grew and blue where it shrank.
/// A stack's baseline cost is estimated from its leaf function's self cost in `base` relative to
/// `new`: a function absent from `base` counts as all new. The first `#` of any `##[` in it (from
/// a function's name) is written `&#35;`, so no legacy workflow command forms should the file be
/// printed to a CI log.
pub fn differential_svg(
    stacks: &BTreeMap<String, u64>,
    base: &Profile,
    new: &Profile,
    title: &str,
) -> std::io::Result<String> {
    let lines: Vec<String> = stacks
        .iter()
        .map(|(stack, &count)| {
            let mut frames = stack.rsplit(';');
            let leaf = frames.next().unwrap_or(stack);
            let host = frames.next();
            let (old, now) = (own_cost(base, leaf, host), own_cost(new, leaf, host));
            let old = match (old, now) {
                (Some(b), Some(n)) if n > 0 => {
                    (u128::from(count) * u128::from(b) / u128::from(n)) as u64
                }
                (Some(_), _) => count,
                (None, _) => 0,
            };
            format!("{stack} {old} {count}")
        })
        .collect();
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_owned();
    options.count_name = "Ir".to_owned();
    options.deterministic = true;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut svg)?;
    let svg = String::from_utf8(svg).map_err(std::io::Error::other)?;
    Ok(svg.replace("##[", "&#35;#["))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    const TEXT: &str = "\
events: Ir
fn=main
1 10
cfn=a
calls=1 1
1 60
cfn=b
calls=1 1
1 30
fn=a
1 20
cfn=c
calls=2 1
1 40
fn=b
1 10
cfn=c
calls=1 1
1 20
fn=c
1 60
totals: 100
";

    #[test]
    fn unfolds_the_call_graph_into_stacks_that_add_up() {
        let graph = parse(TEXT.as_bytes()).unwrap();
        let stacks = stacks(&graph, "Ir", str::to_owned);
        let expected: BTreeMap<String, u64> = [
            ("main", 10),
            ("main;a", 20),
            ("main;a;c", 40),
            ("main;b", 10),
            ("main;b;c", 20),
        ]
        .into_iter()
        .map(|(s, n)| (s.to_owned(), n))
        .collect();
        assert_eq!(stacks, expected);
        assert_eq!(stacks.values().sum::<u64>(), 100);
    }

    #[test]
    fn one_name_in_two_objects_is_two_frames_not_a_cycle() {
        // glibc's `(below main)` calls `__libc_start_main`, which calls the program's own
        // `(below main)`: as callgrind writes it for every Rust program.
        let text = "events: Ir\nsummary: 7\nob=libc\nfn=(below main)\ncfn=__libc_start_main\ncalls=1 1\n1 7\n\
                    fn=__libc_start_main\ncob=prog\ncfn=(below main)\ncalls=1 1\n1 7\n\
                    ob=prog\nfn=(below main)\ncfn=main\ncalls=1 1\n1 7\nfn=main\n1 7\ntotals: 7\n";
        let graph = parse(text.as_bytes()).unwrap();
        assert_eq!(graph.nodes.len(), 4);
        let stacks = stacks(&graph, "Ir", str::to_owned);
        let expected: BTreeMap<String, u64> = [(
            "(below main);__libc_start_main;(below main);main".to_owned(),
            7,
        )]
        .into_iter()
        .collect();
        assert_eq!(stacks, expected);
        let profile = Profile::from_graph(&graph, "Ir", str::to_owned).unwrap();
        assert_eq!(profile.functions["(below main)"].inclusive, 7);
        assert_eq!(profile.functions["main"].self_cost, 7);
    }

    #[test]
    fn survives_recursion_and_names_with_separators() {
        let text = "events: Ir\nfn=f;g\n1 5\ncfn=f;g\ncalls=3 1\n1 50\ncfn=h\ncalls=1 1\n1 5\nfn=h\n1 5\ncfn=f;g\ncalls=1 1\n1 1\ntotals: 10\n";
        let graph = parse(text.as_bytes()).unwrap();
        let stacks = stacks(&graph, "Ir", str::to_owned);
        let expected: BTreeMap<String, u64> = [("f:g".to_owned(), 5), ("f:g;h".to_owned(), 4)]
            .into_iter()
            .collect();
        assert_eq!(stacks, expected);
    }

    #[test]
    fn draws_inlined_code_as_a_frame_above_its_host_named_as_the_table_names_it() {
        let text = "events: Ir\nfl=/ws/main.rs\nfn=main\n1 10\nfi=/ws/varint.rs\n2 30\nfe=/ws/main.rs\n\
                    cfn=leaf\ncalls=1 1\n3 5\nfn=leaf\n1 5\ntotals: 45\n";
        let graph = parse(text.as_bytes()).unwrap();
        let normalize = |f: &str| f.trim_start_matches("/ws/").to_owned();
        let stacks = stacks(&graph, "Ir", normalize);
        let expected: BTreeMap<String, u64> =
            [("main", 10), ("main;varint.rs", 30), ("main;leaf", 5)]
                .into_iter()
                .map(|(s, n)| (s.to_owned(), n))
                .collect();
        assert_eq!(stacks, expected);
        let new = Profile::from_graph(&graph, "Ir", normalize).unwrap();
        assert_eq!(
            new.functions["main"].inlined["varint.rs"], 30,
            "the table's name"
        );
        // The inlined code grew from 10 to 30, its host's own code did not move.
        let mut base = new.clone();
        let main = base.functions.get_mut("main").unwrap();
        main.self_cost = 20;
        main.inlined.insert("varint.rs".into(), 10);
        let svg = differential_svg(&stacks, &base, &new, "t").unwrap();
        let title = |frame: &str| {
            let start = svg.find(&format!("<title>{frame} (")).unwrap();
            svg[start..start + svg[start..].find("</title>").unwrap()].to_owned()
        };
        // inferno's differential: the change as a share of the total, +20 of 45.
        assert!(
            title("varint.rs").ends_with("+44.44%)"),
            "{}",
            title("varint.rs")
        );
        assert!(!title("leaf").contains('+'), "{}", title("leaf"));
    }

    #[test]
    fn a_call_graph_of_exponentially_many_paths_is_walked_in_bounded_time() {
        // 40 layers of two functions, each calling both of the next: 2^40 paths.
        let mut text = String::from("events: Ir\n");
        let layers = 40;
        for layer in 0..layers {
            for f in 0..2 {
                text.push_str(&format!("fn=f{layer}_{f}\n1 1\n"));
                if layer + 1 < layers {
                    // Each callee's inclusive cost: itself and both of its callees'.
                    let below = (1u64 << (layers - layer - 1)) - 1;
                    for g in 0..2 {
                        text.push_str(&format!("cfn=f{}_{g}\ncalls=1 1\n1 {below}\n", layer + 1));
                    }
                }
            }
        }
        text.push_str(&format!("totals: {}\n", 2 * layers));
        let graph = parse(text.as_bytes()).unwrap();
        let stacks = stacks(&graph, "Ir", str::to_owned);
        let roots = 2 * ((1u64 << layers) - 1);
        // Scaled shares round down, at most one instruction per path walked.
        let sum = stacks.values().sum::<u64>();
        assert!(
            sum <= roots && sum + MAX_VISITS as u64 >= roots,
            "{sum} of {roots}"
        );
        assert!(stacks.len() <= MAX_STACKS + 1);
    }

    #[test]
    fn draws_a_differential_svg() {
        let graph = parse(TEXT.as_bytes()).unwrap();
        let new = Profile::from_graph(&graph, "Ir", str::to_owned).unwrap();
        let mut base = new.clone();
        base.functions.get_mut("c").unwrap().self_cost = 30;
        let svg = differential_svg(
            &stacks(&graph, "Ir", str::to_owned),
            &base,
            &new,
            "where it went",
        )
        .unwrap();
        assert!(svg.starts_with("<?xml"));
        assert!(svg.contains("where it went"));
        assert!(
            svg.contains("main;a;c") || svg.contains(">c<") || svg.contains("c ("),
            "frames are drawn"
        );
    }
}
