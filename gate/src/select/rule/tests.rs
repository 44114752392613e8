use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::model::code::Executed;

const BENCH: &str = "release/deps/callgrind";
const PROGRAM: &str = "release/cli";

fn object(functions: &[(&str, &str)], whole: &str) -> Object {
    Object {
        functions: functions
            .iter()
            .map(|(name, digest)| ((*name).to_owned(), digest.repeat(32)))
            .collect(),
        whole: whole.repeat(32),
        imprecise: None,
        parts: BTreeMap::new(),
        path: None,
    }
}

fn executed(functions: &[&str]) -> Executed {
    Executed {
        functions: BTreeMap::from([(
            BENCH.to_owned(),
            functions.iter().map(|f| (*f).to_owned()).collect(),
        )]),
        ..Executed::default()
    }
}

/// A record of three library benchmarks and one binary benchmark, all of one build.
fn base() -> CodeRecord {
    let mut reader = executed(&["main", "codec::read_file"]);
    reader.reads_files = Some("`codec::read_file` calls `open64`".to_owned());
    let binary = Executed {
        whole: BTreeSet::from([BENCH.to_owned(), PROGRAM.to_owned()]),
        reads_files: Some("a binary benchmark".to_owned()),
        ..Executed::default()
    };
    CodeRecord {
        commit: "a".repeat(40),
        identity: irgate_identity::VERSION,
        objects: BTreeMap::from([
            (
                BENCH.to_owned(),
                object(
                    &[
                        ("main", "f"),
                        ("codec::encode", "1"),
                        ("codec::make_input", "2"),
                        ("codec::read_file", "3"),
                    ],
                    "4",
                ),
            ),
            (PROGRAM.to_owned(), object(&[("cli::main", "5")], "6")),
        ]),
        benchmarks: BTreeMap::from([
            (
                "g::encode/a".to_owned(),
                executed(&["main", "codec::encode"]),
            ),
            (
                "g::setup/b".to_owned(),
                executed(&["main", "codec::make_input", "codec::encode"]),
            ),
            ("g::reads/c".to_owned(), reader),
            ("bin::cli/d".to_owned(), binary),
        ]),
        unrecorded: BTreeMap::from([("g::lost/e".to_owned(), "its files were cut off".to_owned())]),
    }
}

fn ids() -> Vec<String> {
    [
        "g::encode/a",
        "g::setup/b",
        "g::reads/c",
        "bin::cli/d",
        "g::lost/e",
        "g::new/f",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// The head objects: the base's, with `change` applied.
fn head(change: impl FnOnce(&mut BTreeMap<String, Object>)) -> BTreeMap<String, Object> {
    let mut objects = base().objects;
    change(&mut objects);
    objects
}

/// Which of `ids()` are touched.
fn selected(head: &BTreeMap<String, Object>, files: &[&str]) -> Vec<String> {
    let change = Change {
        files: files.iter().map(|f| (*f).to_owned()).collect(),
        ..Change::default()
    };
    let touches = touched(&base(), head, &change, &ids());
    touches
        .touch
        .into_iter()
        .filter(|(_, t)| t.is_touched())
        .map(|(id, _)| id)
        .collect()
}

/// Always touched: without a record, and new since it.
const ALWAYS: [&str; 2] = ["g::lost/e", "g::new/f"];

fn with_always(ids: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = ids.iter().chain(&ALWAYS).map(|s| (*s).to_owned()).collect();
    all.sort();
    all
}

#[test]
fn nothing_changed_selects_only_what_has_no_record() {
    assert_eq!(selected(&head(|_| {}), &[]), with_always(&[]));
}

#[test]
fn a_changed_setup_function_selects_the_benchmark_whose_argument_calls_it() {
    let head = head(|o| {
        o.get_mut(BENCH)
            .unwrap()
            .functions
            .insert("codec::make_input".to_owned(), "9".repeat(32));
    });
    assert_eq!(selected(&head, &[]), with_always(&["g::setup/b"]));
}

#[test]
fn a_changed_shared_function_selects_every_benchmark_executing_it() {
    let head = head(|o| {
        let bench = o.get_mut(BENCH).unwrap();
        bench
            .functions
            .insert("codec::encode".to_owned(), "9".repeat(32));
    });
    let touches = touched(&base(), &head, &Change::default(), &ids());
    assert_eq!(
        touches.functions,
        [ChangedFunction::new(BENCH, "codec::encode", How::Changed)]
    );
    assert_eq!(
        touches.touch["g::encode/a"],
        Touch::Runs { functions: vec![0] }
    );
    assert_eq!(
        selected(&head, &[]),
        with_always(&["g::encode/a", "g::setup/b"])
    );
}

#[test]
fn a_vanished_function_counts_as_changed() {
    let head = head(|o| {
        o.get_mut(BENCH).unwrap().functions.remove("codec::encode");
    });
    let touches = touched(&base(), &head, &Change::default(), &ids());
    assert_eq!(touches.functions[0].how, How::Vanished);
    assert_eq!(
        selected(&head, &[]),
        with_always(&["g::encode/a", "g::setup/b"])
    );
}

#[test]
fn a_function_added_that_nothing_executed_selects_nothing() {
    let head = head(|o| {
        let bench = o.get_mut(BENCH).unwrap();
        bench
            .functions
            .insert("codec::unused".to_owned(), "9".repeat(32));
        bench.whole = "8".repeat(32);
    });
    // The binary benchmark depends on the whole bench binary (its harness's setup).
    assert_eq!(selected(&head, &[]), with_always(&["bin::cli/d"]));
}

#[test]
fn a_changed_file_selects_the_benchmarks_that_read_files_at_run_time() {
    let head = head(|_| {});
    assert_eq!(
        selected(&head, &["benches/data/input.bin"]),
        with_always(&["g::reads/c", "bin::cli/d"])
    );
    let change = Change {
        files: vec!["benches/data/input.bin".to_owned()],
        ..Change::default()
    };
    let touches = touched(&base(), &head, &change, &ids());
    let Touch::Reads { reason } = &touches.touch["g::reads/c"] else {
        panic!("{:?}", touches.touch["g::reads/c"]);
    };
    assert!(
        reason.contains("open64") && reason.contains("`benches/data/input.bin`"),
        "{reason}"
    );
}

#[test]
fn a_changed_program_selects_its_binary_benchmark() {
    let head = head(|o| {
        o.get_mut(PROGRAM).unwrap().whole = "7".repeat(32);
    });
    assert_eq!(selected(&head, &[]), with_always(&["bin::cli/d"]));
}

#[test]
fn an_object_missing_from_the_head_touches_what_executes_it() {
    let head = head(|o| {
        o.remove(BENCH);
    });
    let touches = touched(&base(), &head, &Change::default(), &ids());
    assert!(
        matches!(&touches.touch["g::encode/a"], Touch::Unrecorded { reason } if reason.contains(BENCH)),
        "{:?}",
        touches.touch["g::encode/a"]
    );
    assert_eq!(
        selected(&head, &[]),
        with_always(&["g::encode/a", "g::setup/b", "g::reads/c", "bin::cli/d"])
    );
}

#[test]
fn a_digest_missing_from_the_base_counts_as_changed() {
    let mut record = base();
    record
        .objects
        .get_mut(BENCH)
        .unwrap()
        .functions
        .remove("codec::encode");
    let touches = touched(&record, &base().objects, &Change::default(), &ids());
    assert!(touches.touch["g::encode/a"].is_touched());
}

#[test]
fn changed_paths_are_relative_to_the_workspace_root() {
    assert_eq!(
        relative("demo/", "demo/codec/src/lib.rs"),
        "codec/src/lib.rs"
    );
    assert_eq!(relative("demo/", "scripts/x.sh"), "../scripts/x.sh");
    assert_eq!(relative("", "src/lib.rs"), "src/lib.rs");
}

/// `codec::encode` in two parts: its code, and two data references (at 4 and 20) of which the
/// record kept only the one at 4 (the other's instruction never executed).
fn with_parts(code: &str, at_4: &str, at_20: Option<&str>) -> irgate_identity::Parts {
    let mut data = BTreeMap::from([(4, at_4.repeat(32))]);
    if let Some(at_20) = at_20 {
        data.insert(20, at_20.repeat(32));
    }
    irgate_identity::Parts {
        code: code.repeat(32),
        data,
    }
}

#[test]
fn data_that_no_executed_instruction_reads_selects_nothing() {
    let mut record = base();
    let bench = record.objects.get_mut(BENCH).unwrap();
    bench
        .parts
        .insert("codec::encode".to_owned(), with_parts("a", "b", None));
    // The head: a panic location moved (the reference at 20, whose instruction never ran).
    let moved = head(|o| {
        let bench = o.get_mut(BENCH).unwrap();
        bench
            .functions
            .insert("codec::encode".to_owned(), "9".repeat(32));
        bench
            .parts
            .insert("codec::encode".to_owned(), with_parts("a", "b", Some("c")));
    });
    let touches = touched(&record, &moved, &Change::default(), &ids());
    assert!(!touches.touch["g::encode/a"].is_touched());
    // Data an executed instruction reads changed: touched.
    let read = head(|o| {
        let bench = o.get_mut(BENCH).unwrap();
        bench
            .functions
            .insert("codec::encode".to_owned(), "9".repeat(32));
        bench
            .parts
            .insert("codec::encode".to_owned(), with_parts("a", "d", Some("c")));
    });
    let touches = touched(&record, &read, &Change::default(), &ids());
    assert!(touches.touch["g::encode/a"].is_touched());
    // The code changed: touched, whatever the data.
    let code = head(|o| {
        let bench = o.get_mut(BENCH).unwrap();
        bench
            .functions
            .insert("codec::encode".to_owned(), "9".repeat(32));
        bench
            .parts
            .insert("codec::encode".to_owned(), with_parts("e", "b", Some("c")));
    });
    let touches = touched(&record, &code, &Change::default(), &ids());
    assert!(touches.touch["g::encode/a"].is_touched());
    // No parts on the head side (a unit of several instances): touched.
    let unit = head(|o| {
        let bench = o.get_mut(BENCH).unwrap();
        bench
            .functions
            .insert("codec::encode".to_owned(), "9".repeat(32));
    });
    let touches = touched(&record, &unit, &Change::default(), &ids());
    assert!(touches.touch["g::encode/a"].is_touched());
}

#[test]
fn a_function_the_record_saw_but_the_symbols_lack_always_counts_as_changed() {
    let mut record = base();
    record.objects.get_mut(BENCH).unwrap().functions.insert(
        "codec::encode".to_owned(),
        crate::model::code::UNKNOWN_DIGEST.to_owned(),
    );
    // Even a head that holds the same marker (a recorded run compared with itself).
    let touches = touched(&record, &record.objects, &Change::default(), &ids());
    assert!(touches.touch["g::encode/a"].is_touched());
    assert!(!touches.touch["g::reads/c"].is_touched());
}

#[test]
fn mark_unknown_keeps_what_the_symbols_lack() {
    let mut record = base();
    record
        .benchmarks
        .get_mut("g::encode/a")
        .unwrap()
        .functions
        .get_mut(BENCH)
        .unwrap()
        .insert("(below main)".to_owned());
    record.mark_unknown();
    record.narrow_to_executed();
    assert_eq!(
        record.objects[BENCH].functions["(below main)"],
        crate::model::code::UNKNOWN_DIGEST
    );
}
