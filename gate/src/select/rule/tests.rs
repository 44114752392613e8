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
        constructors: BTreeSet::new(),
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
    record.mark_unknown(&BTreeMap::new());
    record.narrow_to_executed();
    assert_eq!(
        record.objects[BENCH].functions["(below main)"],
        crate::model::code::UNKNOWN_DIGEST
    );
}

/// Which of `ids()` are touched when the `[[suite]]` entries changed as `suites` says.
fn selected_for_suites(suites: SuitesChanged) -> Vec<String> {
    let change = Change {
        suites,
        ..Change::default()
    };
    let touches = touched(&base(), &head(|_| {}), &change, &ids());
    touches
        .touch
        .into_iter()
        .filter(|(_, t)| t.is_touched())
        .map(|(id, _)| id)
        .collect()
}

#[test]
fn a_changed_suite_entry_selects_the_benchmarks_of_its_bench_binary_only() {
    // Every benchmark of the base record runs in the `callgrind` bench binary (the binary
    // benchmark depends on it whole).
    let all = with_always(&["bin::cli/d", "g::encode/a", "g::reads/c", "g::setup/b"]);
    let callgrind = SuitesChanged::Targets(BTreeSet::from(["callgrind".to_owned()]));
    assert_eq!(selected_for_suites(callgrind), all);
    let other = SuitesChanged::Targets(BTreeSet::from(["other".to_owned()]));
    assert_eq!(selected_for_suites(other), with_always(&[]));
    let unknown = SuitesChanged::Unknown("gate.toml cannot be read".to_owned());
    assert_eq!(selected_for_suites(unknown), all);
}

/// A git repository at `dir` with gate.toml holding `text`, committed; its commit.
fn committed_gate_toml(dir: &Path, text: &str) -> String {
    std::fs::write(dir.join("gate.toml"), text).unwrap();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}");
    };
    git(&["init", "--quiet"]);
    git(&["add", "gate.toml"]);
    git(&["commit", "--quiet", "-m", "gate.toml"]);
    git::stdout(dir, &["rev-parse", "HEAD"]).unwrap()
}

#[test]
fn suite_entries_are_compared_with_the_base_commits_gate_toml() {
    let dir = tempfile::tempdir().unwrap();
    let entry = |args: &str| {
        format!(
            "[[suite]]\npackage = \"p\"\nbench = \"my-bench\"\nfeatures = [\"bench\"]\n\
             args = [{args}]\n\n[[suite]]\npackage = \"p\"\nbench = \"other\"\n"
        )
    };
    let base = committed_gate_toml(dir.path(), &entry("\"--envs=X=40\""));
    let suites = |args: &str| {
        crate::config::Config::parse(&entry(args), Path::new("gate.toml"))
            .unwrap()
            .suites
    };
    // What discovery finds in the workspace: `my-bench` requires the feature `bench`.
    let discovered = || suites("");
    assert_eq!(
        suites_changed(dir.path(), &base, &suites("\"--envs=X=40\""), &discovered),
        SuitesChanged::None
    );
    assert_eq!(
        suites_changed(dir.path(), &base, &suites("\"--envs=X=90\""), &discovered),
        SuitesChanged::Targets(BTreeSet::from(["my_bench".to_owned()]))
    );
    // An entry removed gives the harness none: no arguments. `other` had none.
    assert_eq!(
        suites_changed(dir.path(), &base, &suites("")[..1], &discovered),
        SuitesChanged::Targets(BTreeSet::from(["my_bench".to_owned()]))
    );
    // `irgate init` records before it writes gate.toml: the entries it writes, with the features
    // discovery ran them with and no arguments, change nothing since that commit.
    let before_init = committed_gate_toml(dir.path(), "[budgets]\nIr = { absolute = 0 }\n");
    assert_eq!(
        suites_changed(dir.path(), &before_init, &suites(""), &discovered),
        SuitesChanged::None
    );
    assert_eq!(
        suites_changed(
            dir.path(),
            &before_init,
            &suites("\"--envs=X=1\""),
            &discovered
        ),
        SuitesChanged::Targets(BTreeSet::from(["my_bench".to_owned()]))
    );
    // Without the feature discovery ran it with, the harness builds something else.
    let without_feature = |_: &str| {
        let mut list = suites("");
        list[0].features.clear();
        list
    };
    assert_eq!(
        suites_changed(dir.path(), &before_init, &without_feature(""), &discovered),
        SuitesChanged::Targets(BTreeSet::from(["my_bench".to_owned()]))
    );
    // gate.toml unreadable at the base: irgate cannot tell.
    let broken = committed_gate_toml(dir.path(), "[[suite]]\npackage = 3\n");
    assert!(matches!(
        suites_changed(dir.path(), &broken, &suites(""), &discovered),
        SuitesChanged::Unknown(_)
    ));
}

#[test]
fn a_committed_shared_library_is_code_compared_whole_by_its_file() {
    let mut base = base();
    let mut vend = executed(&["main"]);
    vend.whole.insert(format!(
        "{}prebuilt/libvend.so",
        crate::model::code::FILE_PREFIX
    ));
    base.benchmarks.insert("so::vend/one".to_owned(), vend);
    let touched = |files: &[&str], inert: &[&str]| {
        let change = Change {
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            inert: inert.iter().map(|f| (*f).to_owned()).collect(),
            ..Change::default()
        };
        let ids = vec!["so::vend/one".to_owned()];
        touched(&base, &head(|_| {}), &change, &ids).touch["so::vend/one"].is_touched()
    };
    assert!(touched(&["prebuilt/libvend.so"], &[]));
    // Marked inert or not, a library the process loads is code.
    assert!(touched(&[], &["prebuilt/libvend.so"]));
    assert!(!touched(&["prebuilt/other.so"], &[]));
    assert!(!touched(&[], &[]));
}

#[test]
fn cargo_configuration_and_the_toolchain_pin_are_inputs_of_every_benchmark() {
    for path in [
        ".cargo/config.toml",
        ".cargo/config",
        "crates/bench/.cargo/config.toml",
        "rust-toolchain",
        "rust-toolchain.toml",
        "sub/rust-toolchain.toml",
    ] {
        assert!(of_every_benchmark(path), "{path}");
    }
    for path in [
        "config.toml",
        "cargo/config.toml",
        ".cargo/credentials.toml",
        "src/.cargo.rs",
        "rust-toolchain.md",
    ] {
        assert!(!of_every_benchmark(path), "{path}");
    }
}

#[test]
fn a_changed_cargo_configuration_touches_every_benchmark_with_its_name() {
    let change = Change {
        files: vec![".cargo/config.toml".to_owned()],
        everyones: vec![".cargo/config.toml".to_owned()],
        ..Change::default()
    };
    let touches = touched(&base(), &head(|_| {}), &change, &ids());
    for id in ids() {
        let touch = &touches.touch[&id];
        assert!(touch.is_touched(), "{id}");
        if let Touch::Reads { reason } = touch {
            assert!(
                reason.contains("`.cargo/config.toml` changed") && reason.contains("every"),
                "{reason}"
            );
        }
    }
    // `g::encode/a` neither reads files nor runs changed code: only the rule touches it.
    assert!(matches!(touches.touch["g::encode/a"], Touch::Reads { .. }));
}

#[test]
fn between_names_cargo_configuration_even_where_inert_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let base = committed_gate_toml(dir.path(), "[budgets]\nIr = { absolute = 0 }\n");
    std::fs::create_dir_all(dir.path().join(".cargo")).unwrap();
    std::fs::write(dir.path().join(".cargo/config.toml"), "[env]\nX = \"1\"\n").unwrap();
    std::fs::write(dir.path().join("rust-toolchain.toml"), "[toolchain]\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "x\n").unwrap();
    // `[change] inert` naming every file.
    let change = between(dir.path(), (&base, None), &[], &|_| true).unwrap();
    assert_eq!(
        change.everyones,
        [".cargo/config.toml", "rust-toolchain.toml"].map(str::to_owned)
    );
    assert_eq!(change.files, change.everyones);
    assert_eq!(change.inert, ["notes.txt".to_owned()]);
}

#[test]
fn an_observed_benchmark_is_touched_by_what_it_read_not_by_any_changed_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.bin"), b"input").unwrap();
    let mut base = base();
    let reader = base.benchmarks.get_mut("g::reads/c").unwrap();
    reader.observed = Some(crate::model::code::Observed {
        inputs: BTreeMap::from([(
            "data.bin".to_owned(),
            crate::measure::observe::digest(dir.path(), "data.bin"),
        )]),
        environment: 0,
    });
    let touched_now = |files: &[&str]| {
        let change = Change {
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            root: dir.path().to_owned(),
            ..Change::default()
        };
        touched(&base, &base.objects, &change, &["g::reads/c".to_owned()]).touch["g::reads/c"]
            .clone()
    };
    // A changed file it never read (a doc comment, say): the coarse rule would run it.
    assert_eq!(touched_now(&["src/lib.rs"]), Touch::Untouched);
    // Its input changed, even in a file git does not see (ignored, or built).
    std::fs::write(dir.path().join("data.bin"), b"other input").unwrap();
    match touched_now(&[]) {
        Touch::Reads { reason } => assert!(reason.contains("`data.bin`"), "{reason}"),
        other => panic!("{other:?}"),
    }
}
