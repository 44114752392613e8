use std::ops::RangeInclusive;
use std::sync::Arc;

use super::*;
use crate::graph::Call;

fn graph(text: &str) -> CallGraph {
    parse(text.as_bytes()).unwrap()
}

fn error(text: &str) -> String {
    parse(text.as_bytes()).unwrap_err().to_string()
}

const COMPRESSED: &str = "\
# callgrind format
version: 1
positions: instr line
events: Ir Dr

summary: 21 4
ob=(1) /bin/prog
fl=(1) src/main.rs
fn=(1) main
0x10 3 5 1
+4 +1 2
cfl=(2) src/lib.rs
cfn=(2) _ZN4demo6helper17h0123456789abcdefE
calls=2 0x40 10
* * 14 3
fl=(2)
fn=(2)
0x40 10 10 2
fi=(3) src/inlined.rs
+2 +3 4 1
fe=(2)
-2 -3 0
totals: 21 4
";

#[test]
fn reads_compressed_names_positions_and_calls() {
    let graph = graph(COMPRESSED);
    assert_eq!(graph.events, ["Ir", "Dr"]);
    assert_eq!(graph.totals, [21, 4]);
    assert_eq!(graph.unattributed, [0, 0]);
    let main = &graph.nodes[graph.node("main").unwrap()];
    assert_eq!(main.self_cost, [7, 1]);
    assert_eq!(&*main.file, "src/main.rs");
    let helper = graph.node("demo::helper").expect("demangled without hash");
    assert_eq!(
        *main.call(helper).unwrap(),
        Call {
            count: 2,
            cost: vec![14, 3]
        }
    );
    let helper = &graph.nodes[helper];
    assert_eq!(&*helper.file, "src/lib.rs");
    assert_eq!(helper.self_cost, [14, 3]);
    assert_eq!(helper.inlined["src/inlined.rs"], [4, 1]);
}

#[test]
fn records_the_lines_with_a_cost_by_object_and_file_when_asked() {
    assert!(graph(COMPRESSED).lines.is_empty(), "not asked");
    let options = Options {
        lines: true,
        ..Options::default()
    };
    let graph = parse_with(COMPRESSED.as_bytes(), &options).unwrap();
    let lines: Vec<(&str, &str, Vec<RangeInclusive<u32>>)> = graph
        .lines
        .iter()
        .map(|((object, file), lines)| (&**object, &**file, lines.clone()))
        .collect();
    // The call's cost line is not an executed line of its own, nor is a line costing 0.
    assert_eq!(
        lines,
        [
            ("/bin/prog", "src/inlined.rs", vec![13..=13]),
            ("/bin/prog", "src/lib.rs", vec![10..=10]),
            ("/bin/prog", "src/main.rs", vec![3..=4]),
        ]
    );
}

#[test]
fn a_name_in_parentheses_is_not_a_compressed_one() {
    let graph = graph("events: Ir\nfn=(below main)\n1 1\nfn=(12)x\n1 1\nfn=(3 f\n1 1\ntotals: 3\n");
    let names: Vec<&str> = graph.nodes.iter().map(|n| &*n.name).collect();
    assert_eq!(names, ["(below main)", "(12)x", "(3 f"]);
}

#[test]
fn reads_jumps_and_several_parts() {
    let text = "\
events: Ir
part: 1
summary: 5
fn=f
1 5
jump=1 +3
2
totals: 5
part: 2
fn=f
3 2
totals: 2
";
    let graph = graph(text);
    assert_eq!(graph.totals, [7]);
    assert_eq!(graph.nodes[0].self_cost, [7]);
}

#[test]
fn refuses_broken_files_with_the_line() {
    let cases = [
        ("", "not a callgrind file: no `events:` line"),
        ("fn=f\n1 2\n", "line 2: a cost line before `events:`"),
        ("events: Ir\n1 2\n", "line 2: a cost line before any `fn=`"),
        (
            "events: Ir\nfn=(3)\n",
            "line 2: function (3) is used before it is defined",
        ),
        (
            "events: Ir\nfn=(99999999999999999999) f\n",
            "line 2: bad compressed name id `(99999999999999999999)`",
        ),
        (
            "events: Ir\nfn=f\n1 2 3\n",
            "line 3: 2 costs on a line, but 1 events are declared",
        ),
        ("events: Ir\nfn=f\n1 x\n", "line 3: `x` is not a number"),
        (
            "events: Ir\nfn=f\n-1 1\n",
            "line 3: a relative position goes below zero",
        ),
        (
            "events: Ir\nfn=f\ncalls=1 2\n3 4\n",
            "line 3: `calls=` without a `cfn=` naming the callee",
        ),
        (
            "events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=g\n",
            "line 5: `calls=` is not followed by the call's cost line",
        ),
        (
            "events: Ir\nfn=f\ncfn=g\ncalls=1 2\n",
            "cut off: the file ends after `calls=`, before the call's cost",
        ),
        (
            "events: Ir\nsummary: 10\nfn=f\n1 4\ntotals: 10\n",
            "cut off or corrupt: the functions' Ir add up to 4, the file's `totals:` says 10",
        ),
        (
            "events: Ir\nsummary: 3\nfn=f\n1 4\ntotals: 4\n",
            "corrupt: the functions' Ir add up to 4, more than the file's `summary:` of 3",
        ),
        (
            "events: Ir\nsummary: 10\nfn=f\n1 4\n",
            "cut off: part 1 ends without the `totals:` line callgrind ends every part with",
        ),
        (
            "events: Ir\nfn=f\n1 4\n",
            "cut off: part 1 ends without the `totals:` line callgrind ends every part with",
        ),
        (
            "events: Ir\npart: 1\nfn=f\n1 4\npart: 2\nfn=f\n1 4\ntotals: 4\n",
            "line 5: cut off: part 1 ends without the `totals:` line callgrind ends every part \
             with",
        ),
        (
            "events: Ir\n",
            "cut off: no `totals:` line (callgrind ends every part with one)",
        ),
        (
            "events: Ir\nfn=f\n1 18446744073709551615\n1 1\n",
            "line 4: a cost overflows 64 bits",
        ),
        (
            "version: 2\n",
            "line 1: format version 2 is not the 1 this reader knows",
        ),
        (
            "events: Ir\nxyz=1\n",
            "line 2: unknown specification `xyz=`",
        ),
        ("events: Ir\n!!\n", "line 2: not a callgrind line: `!!`"),
        (
            "events: Ir\n\u{1b}[2J\n",
            "line 2: not a callgrind line: `\\u{1b}[2J`",
        ),
        (
            "positions: column\n",
            "line 1: unknown positions `column` (expected `line` and/or `instr`)",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(error(text), expected, "for {text:?}");
    }
}

#[test]
fn refuses_binary_and_overlong_lines() {
    let bytes: &[u8] = b"events: Ir\n\xff\xfe\n";
    assert!(matches!(parse(bytes), Err(ParseError::Io(_))));
    let long = format!("events: Ir\nfn={}\n", "a".repeat(MAX_LINE + 1));
    assert_eq!(
        error(&long),
        "line 2: longer than the 65536 bytes of a callgrind line"
    );
}

#[test]
fn what_the_summary_holds_beyond_the_totals_is_unattributed() {
    // As callgrind writes a whole-program run: `summary:` 2 Ir above the cost lines.
    let text = "events: Ir Dr\nsummary: 12 5\nfn=main\n1 10 5\ntotals: 10 5\n";
    let graph = graph(text);
    assert_eq!(graph.totals, [10, 5]);
    assert_eq!(graph.unattributed, [2, 0]);
    assert_eq!(graph.nodes[0].self_cost, [10, 5]);
}

#[test]
fn keeps_one_event_when_asked() {
    let options = Options {
        event: Some("Dr".into()),
        ..Options::default()
    };
    let graph = parse_with(COMPRESSED.as_bytes(), &options).unwrap();
    assert_eq!(graph.events, ["Dr"]);
    assert_eq!(graph.totals, [4]);
    let main = &graph.nodes[graph.node("main").unwrap()];
    assert_eq!(main.self_cost, [1]);
    assert_eq!(main.by_address.iter().next(), Some((0x10, &[1][..])));
    let helper = graph.node("demo::helper").unwrap();
    assert_eq!(main.call(helper).unwrap().cost, [3]);
    let options = Options {
        event: Some("Bc".into()),
        ..Options::default()
    };
    assert_eq!(
        parse_with(COMPRESSED.as_bytes(), &options)
            .unwrap_err()
            .to_string(),
        "line 4: records no Bc (its events: Ir Dr)"
    );
}

#[test]
fn refuses_a_file_larger_than_its_memory_limit() {
    let mut text = String::from("events: Ir\n");
    for i in 0..1_000 {
        text.push_str(&format!("fn=function_number_{i}\n1 1\n"));
    }
    text.push_str("totals: 1000\n");
    assert_eq!(graph(&text).nodes.len(), 1_000);
    let options = Options {
        event: None,
        max_bytes: 100_000,
        ..Options::default()
    };
    let error = parse_with(text.as_bytes(), &options)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("too large: at line ")
            && error.contains("more than the 100000 bytes this reader may hold"),
        "{error}"
    );
}

#[test]
fn merges_the_calls_to_one_callee_and_the_costs_of_one_address() {
    let text = "positions: instr\nevents: Ir\nfn=f\n0x10 1\n0x10 2\n0x14 1\n0x10 1\n\
                cfn=g\ncalls=1 0x20\n0x10 5\ncfn=h\ncalls=2 0x30\n0x10 7\n\
                cfn=g\ncalls=3 0x20\n0x14 6\nfn=g\n0x20 11\nfn=h\n0x30 7\ntotals: 23\n";
    let graph = graph(text);
    let f = &graph.nodes[0];
    let calls: Vec<(usize, u64, Vec<u64>)> = f
        .calls
        .iter()
        .map(|(callee, call)| (*callee, call.count, call.cost.clone()))
        .collect();
    assert_eq!(calls, [(1, 4, vec![11]), (2, 2, vec![7])]);
    let addresses: Vec<(u64, Vec<u64>)> =
        f.by_address.iter().map(|(a, c)| (a, c.to_vec())).collect();
    assert_eq!(
        addresses,
        [(0x10, vec![3]), (0x14, vec![1]), (0x10, vec![1])]
    );
    assert_eq!(f.self_cost, [5]);
}

#[test]
fn holds_each_name_once() {
    let graph =
        graph("events: Ir\nfl=a.rs\nfn=f\n1 1\ncfn=g\ncalls=1 1\n1 1\nfn=g\n1 1\ntotals: 2\n");
    let [f, g] = [0, 1].map(|i| &graph.nodes[i]);
    assert!(Arc::ptr_eq(&f.file, &g.file));
    assert_eq!(&*g.name, "g");
}

#[test]
fn a_recursion_level_is_the_same_function() {
    assert_eq!(
        recursion_level("std::sys::sync::once::futex::Once::call'2").0,
        "std::sys::sync::once::futex::Once::call"
    );
    assert_eq!(recursion_level("f'12").0, "f");
    assert_eq!(recursion_level("for<'a> f").0, "for<'a> f");
    assert_eq!(recursion_level("plain").0, "plain");
}

#[test]
fn demangles_rust_symbols_and_keeps_others() {
    assert_eq!(
        demangle("_ZN4core3fmt5write17h0123456789abcdefE"),
        "core::fmt::write"
    );
    assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
    // A recursion level callgrind appended stays after the demangled name.
    assert_eq!(demangle("_RNvCs1234_7mycrate3foo'2"), "mycrate::foo'2");
    assert_eq!(
        demangle("_ZN4core3fmt5write17h0123456789abcdefE'3"),
        "core::fmt::write'3"
    );
    assert_eq!(demangle("memcpy@@GLIBC_2.14"), "memcpy@@GLIBC_2.14");
    assert_eq!(demangle("<T as core::Trait>::f"), "<T as core::Trait>::f");
}
