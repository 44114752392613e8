//! The reader on real callgrind files (tests/fixtures/README.md says how they were made), and on
//! the same files cut off or corrupted.

use std::collections::BTreeMap;

use irgate_callgrind::{Kind, Profile, explain, flame, normalize_file, parse};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

fn profile(text: &str) -> Profile {
    let graph = parse(text.as_bytes()).unwrap();
    Profile::from_graph(&graph, "Ir", |f| normalize_file(f, "/work/wt/explain")).unwrap()
}

#[test]
fn reads_a_compressed_file_with_jumps_and_recursion() {
    let graph = parse(read("compressed/callgrind.demo.out").as_bytes()).unwrap();
    assert_eq!(graph.events, ["Ir"]);
    assert_eq!(graph.totals, [346]);
    assert_eq!(graph.unattributed, [0]);
    let profile = Profile::from_graph(&graph, "Ir", str::to_owned).unwrap();
    assert_eq!(profile.total, 346);
    // helper: 10 instructions, called 10 times by main, once by walk, 4 times by walk'2.
    let helper = &profile.functions["helper"];
    assert_eq!((helper.self_cost, helper.inclusive), (150, 150));
    assert_eq!(helper.file, "/tmp/cgdemo.c");
    assert_eq!(helper.callers, ["main", "walk", "walk'2"]);
    assert_eq!(profile.functions["main"].inclusive, 346);
    assert_eq!(profile.functions["walk"].inclusive, 161);
    assert_eq!(profile.listed_self(), 346);
    let stacks = flame::stacks(&graph, "Ir", str::to_owned);
    assert_eq!(stacks.values().sum::<u64>(), 346);
    assert_eq!(stacks[&stack(&["main", "helper"])], 100);
}

fn stack(frames: &[&str]) -> String {
    let root = "0x000000000001ab70;(below main);__libc_start_main@@GLIBC_2.34;(below main)";
    format!("{root};{}", frames.join(";"))
}

#[test]
fn reads_what_gungraun_writes() {
    let base = profile(&read("base/callgrind.passthrough.n8.out"));
    assert_eq!(
        base.total, 122,
        "the Ir gungraun reports for filter::passthrough/n8"
    );
    let filter = &base.functions["<benches::Passthrough as codec::filter::Filter>::filter"];
    assert_eq!(filter.file, "benches/src/lib.rs");
    assert_eq!((filter.self_cost, filter.inclusive), (16, 16));
    // Collected inside the benchmark only: nothing is start-up code.
    assert!(base.functions.values().all(|f| !f.outside_main));
    let varint = profile(&read("base/callgrind.decode.v2097151.out"));
    assert_eq!(varint.total, 44);
}

#[test]
fn the_injected_slowdown_is_the_top_mover_to_the_instruction() {
    let base = profile(&read("base/callgrind.passthrough.n8.out")).compact(2_000);
    let slow = profile(&read("slowdown/callgrind.passthrough.n8.out")).compact(2_000);
    let e = explain(&base, &slow, 8);
    assert_eq!((e.base_total, e.new_total, e.delta()), (122, 184, 62));
    let top = &e.movers[0];
    assert_eq!(top.function, "codec::filter::injected_slowdown");
    assert_eq!(top.file, "codec/src/filter.rs");
    assert!(matches!(top.kind, Kind::Added { .. }));
    assert_eq!((top.base_self, top.new_self), (0, 61));
    // The rest of the change is the call itself, in the inlined chain dispatch's caller.
    let listed: i64 = e.movers.iter().map(|m| m.delta()).sum();
    assert_eq!(listed + e.rest.new as i64 - e.rest.base as i64, 62);
}

#[test]
fn a_whole_program_run_keeps_what_no_function_holds_apart() {
    // A binary benchmark: callgrind's `summary:` is 2 Ir above its `totals:` and cost lines,
    // which are the Ir gungraun counted (371,267).
    let graph = parse(read("binary/callgrind.tool.large.out").as_bytes()).unwrap();
    let ir = graph.event("Ir").unwrap();
    assert_eq!(graph.totals[ir], 371_267);
    assert_eq!(graph.unattributed[ir], 2);
    let profile = Profile::from_graph(&graph, "Ir", |f| normalize_file(f, "/tmp/bb")).unwrap();
    assert_eq!((profile.total, profile.unattributed), (371_267, 2));
    assert_eq!(profile.listed_self(), 371_267);
    let collatz = &profile.functions["tool::collatz_steps"];
    assert_eq!(collatz.file, "src/main.rs");
    assert!(
        collatz.self_cost > 0 && collatz.callers == ["tool::main"],
        "{collatz:?}"
    );
    // The same file cut off before its `totals:` is refused, although its summary is there.
    let text = read("binary/callgrind.tool.large.out");
    let cut = &text[..text.rfind("totals:").unwrap()];
    let error = parse(cut.as_bytes()).unwrap_err().to_string();
    assert!(error.starts_with("cut off: part 1 ends without"), "{error}");
}

#[test]
fn a_cut_off_file_is_refused() {
    let text = read("base/callgrind.passthrough.n8.out");
    let lines: Vec<&str> = text.lines().collect();
    for keep in [40, 80, lines.len() - 3] {
        let cut = lines[..keep].join("\n");
        let error = parse(cut.as_bytes()).unwrap_err().to_string();
        assert!(
            error.starts_with("cut off"),
            "cut after {keep} lines: {error}"
        );
    }
    // Cut inside a line: a cost line losing its costs still leaves the sum short.
    let cut = &text[..text.find("calls=1 170").unwrap() + 6];
    assert!(parse(cut.as_bytes()).is_err());
}

#[test]
fn a_corrupted_file_is_refused_with_its_line() {
    let text = read("base/callgrind.passthrough.n8.out");
    let corrupt = text.replacen("calls=1 1508", "calls=x 1508", 1);
    let error = parse(corrupt.as_bytes()).unwrap_err().to_string();
    assert!(error.ends_with("`x` is not a number"), "{error}");
    assert!(error.starts_with("line "), "{error}");
    let events = text.lines().find(|l| l.starts_with("events:")).unwrap();
    let corrupt = text.replacen(events, "events:", 1);
    let error = parse(corrupt.as_bytes()).unwrap_err().to_string();
    assert!(error.ends_with("`events:` names no event"), "{error}");
    let corrupt = text.replacen("fn=callgrind::main", "fn=(7)", 1);
    let error = parse(corrupt.as_bytes()).unwrap_err().to_string();
    assert!(
        error.ends_with("function (7) is used before it is defined"),
        "{error}"
    );
}

#[test]
fn profiles_are_deterministic() {
    let a = profile(&read("slowdown/callgrind.passthrough.n8.out"));
    let b = profile(&read("slowdown/callgrind.passthrough.n8.out"));
    assert_eq!(a, b);
    let names: Vec<&String> = a.functions.keys().collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let _: BTreeMap<_, _> = a.functions;
}
