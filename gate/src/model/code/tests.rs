use super::*;

/// Code callgrind names by its address (no symbol covers it: a dlopen'ed cdylib's
/// `frame_dummy`) compares by the digest of all such code of its object: equal in an
/// unchanged object, different in a changed one, never [`UNKNOWN_DIGEST`] when known.
#[test]
fn code_named_by_its_address_compares_by_the_objects_unnamed_digest() {
    let (at, elsewhere) = ("0x00000000000116c0", "0x0000000000011700");
    assert!(is_address(at) && !is_address("0x116c0") && !is_address("main"));
    let digest = |c: char| c.to_string().repeat(32);
    let built = |unnamed: Option<char>| Object {
        functions: with_unnamed(
            BTreeMap::from([("work".to_owned(), digest('1'))]),
            unnamed.map(digest),
        ),
        ..Object::default()
    };
    let ran = Executed {
        functions: BTreeMap::from([(
            "release/libplugin.so".to_owned(),
            BTreeSet::from([at.to_owned(), "work".to_owned(), "gone".to_owned()]),
        )]),
        ..Executed::default()
    };
    let mut record = CodeRecord {
        objects: BTreeMap::from([("release/libplugin.so".to_owned(), built(Some('a')))]),
        benchmarks: BTreeMap::from([("g::f/x".to_owned(), ran)]),
        ..CodeRecord::default()
    };
    record.mark_unknown(&BTreeMap::new());
    record.narrow_to_executed();
    let base = &record.objects["release/libplugin.so"];
    assert_eq!(base.functions[at], digest('a'));
    assert_eq!(base.functions["gone"], UNKNOWN_DIGEST);
    assert!(!base.functions.contains_key(UNNAMED));
    // The head's identity: the same unnamed code, other, or none.
    assert!(built(Some('a')).same_as(base, at));
    assert!(!built(Some('b')).same_as(base, at));
    assert!(!built(None).same_as(base, at));
    // A head record that names the same code at another address.
    let mut moved = built(None);
    moved.functions.insert(elsewhere.to_owned(), digest('a'));
    assert!(moved.same_as(base, at));
    moved.functions.insert(elsewhere.to_owned(), digest('b'));
    assert!(!moved.same_as(base, at));
    assert!(built(Some('a')).same_as(base, "work"));
    assert!(!built(Some('a')).same_as(base, "gone"));
}

/// One object without an identity (a shared library in `OUT_DIR` linked without
/// relocations) leaves out the benchmarks that executed it, named, and the record stands.
#[test]
fn an_object_without_identity_touches_its_benchmarks_alone() {
    let ran = |object: &str| Executed {
        functions: BTreeMap::from([(object.to_owned(), BTreeSet::from(["ran".to_owned()]))]),
        counts: BTreeMap::from([("Ir".to_owned(), 5)]),
        ..Executed::default()
    };
    let mut record = CodeRecord {
        commit: "a".repeat(40),
        identity: 1,
        objects: BTreeMap::from([(
            "release/deps/bench".to_owned(),
            Object {
                functions: BTreeMap::from([("ran".to_owned(), "1".repeat(32))]),
                whole: "2".repeat(32),
                ..Object::default()
            },
        )]),
        benchmarks: BTreeMap::from([
            ("g::a/x".to_owned(), ran("release/deps/bench")),
            ("g::b/x".to_owned(), ran("release/build/out/libnoreloc.so")),
        ]),
        ..CodeRecord::default()
    };
    let failed = BTreeMap::from([(
        "release/build/out/libnoreloc.so".to_owned(),
        "no relocations".to_owned(),
    )]);
    record.mark_unknown(&failed);
    assert_eq!(
        record.benchmarks.keys().collect::<Vec<_>>(),
        ["g::a/x"],
        "{record:?}"
    );
    let why = &record.unrecorded["g::b/x"];
    assert!(
        why.contains(
            "`release/build/out/libnoreloc.so`, which has no code identity (no relocations)"
        ),
        "{why}"
    );
    // The record is written and read back whole.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("record.json");
    crate::formats::code::write(&path, &record).unwrap();
    assert_eq!(crate::formats::code::read(&path).unwrap(), Some(record));
}

#[test]
fn constructors_count_as_executed_by_every_benchmark_of_their_object() {
    let object = Object {
        functions: BTreeMap::from([
            ("ran".to_owned(), "1".repeat(32)),
            ("set_up".to_owned(), "2".repeat(32)),
        ]),
        constructors: BTreeSet::from(["set_up".to_owned()]),
        ..Object::default()
    };
    let ran = |object: &str| Executed {
        functions: BTreeMap::from([(object.to_owned(), BTreeSet::from(["ran".to_owned()]))]),
        ..Executed::default()
    };
    let mut record = CodeRecord {
        objects: BTreeMap::from([("bench".to_owned(), object)]),
        benchmarks: BTreeMap::from([
            ("a".to_owned(), ran("bench")),
            ("b".to_owned(), ran("other")),
        ]),
        ..CodeRecord::default()
    };
    record.add_constructors();
    let names = |id: &str, object: &str| record.benchmarks[id].functions[object].clone();
    assert_eq!(
        names("a", "bench"),
        BTreeSet::from(["ran".to_owned(), "set_up".to_owned()])
    );
    assert_eq!(names("b", "other"), BTreeSet::from(["ran".to_owned()]));
}

#[test]
fn a_bench_binarys_code_no_benchmark_ran_counts_as_run_by_all_of_them() {
    let object = Object {
        functions: BTreeMap::from([
            ("bench::a::wrapper".to_owned(), "1".repeat(32)),
            ("bench::b::wrapper".to_owned(), "2".repeat(32)),
            ("bench::b::config".to_owned(), "3".repeat(32)),
            ("<bench::Input as Clone>::clone".to_owned(), "4".repeat(32)),
            ("lib::unrun".to_owned(), "5".repeat(32)),
        ]),
        ..Object::default()
    };
    let ran = |names: &[&str]| Executed {
        functions: BTreeMap::from([(
            "release/deps/bench".to_owned(),
            names.iter().map(|n| (*n).to_owned()).collect(),
        )]),
        ..Executed::default()
    };
    let mut record = CodeRecord {
        objects: BTreeMap::from([("release/deps/bench".to_owned(), object)]),
        benchmarks: BTreeMap::from([
            ("g::a".to_owned(), ran(&["bench::a::wrapper"])),
            ("g::b".to_owned(), ran(&["bench::b::wrapper"])),
        ]),
        ..CodeRecord::default()
    };
    record.add_listing(&BTreeSet::from(["bench".to_owned()]), None);
    let names = |id: &str| record.benchmarks[id].functions["release/deps/bench"].clone();
    let listing = ["<bench::Input as Clone>::clone", "bench::b::config"];
    // Another benchmark's wrapper is not listing code; the library's unrun code is not the
    // harness's.
    let expected = |own: &str| {
        listing
            .iter()
            .chain([&own])
            .map(|n| (*n).to_owned())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(names("g::a"), expected("bench::a::wrapper"));
    assert_eq!(names("g::b"), expected("bench::b::wrapper"));

    // A record of `g::a` alone (`irgate run --record 'g::a'`): `g::b`'s wrapper is what `g::b`
    // executed in the baselines' record, not listing code.
    let earlier = record.clone();
    let mut alone = CodeRecord {
        benchmarks: BTreeMap::from([("g::a".to_owned(), ran(&["bench::a::wrapper"]))]),
        ..record.clone()
    };
    alone.objects = earlier.objects.clone();
    let mut coarse = alone.clone();
    coarse.add_listing(&BTreeSet::from(["bench".to_owned()]), None);
    assert!(
        coarse.benchmarks["g::a"].functions["release/deps/bench"].contains("bench::b::wrapper")
    );
    alone.add_listing(&BTreeSet::from(["bench".to_owned()]), Some(&earlier));
    assert_eq!(
        alone.benchmarks["g::a"].functions["release/deps/bench"],
        expected("bench::a::wrapper")
    );
}

#[test]
fn kept_entries_bring_the_data_their_functions_read_in_the_earlier_record() {
    let parts = |offsets: &[u32]| Parts {
        code: "c".repeat(32),
        data: offsets.iter().map(|o| (*o, format!("{o:032}"))).collect(),
    };
    let object = |names: &[(&str, Option<&[u32]>)]| Object {
        functions: names
            .iter()
            .map(|(n, _)| ((*n).to_owned(), "1".repeat(32)))
            .collect(),
        parts: names
            .iter()
            .filter_map(|(n, data)| Some(((*n).to_owned(), parts((*data)?))))
            .collect(),
        ..Object::default()
    };
    let ran = |names: &[&str]| Executed {
        functions: BTreeMap::from([(
            "bench".to_owned(),
            names.iter().map(|n| (*n).to_owned()).collect(),
        )]),
        counts: BTreeMap::from([("Ir".to_owned(), 7)]),
        ..Executed::default()
    };
    let earlier = CodeRecord {
        objects: BTreeMap::from([(
            "bench".to_owned(),
            object(&[
                ("shared", Some(&[4, 8])),
                ("kept_only", Some(&[2])),
                ("was_generic", None),
            ]),
        )]),
        benchmarks: BTreeMap::from([
            (
                "g::kept".to_owned(),
                ran(&["shared", "kept_only", "was_generic"]),
            ),
            ("g::other".to_owned(), ran(&["shared"])),
        ]),
        ..CodeRecord::default()
    };
    // This run recorded `g::new` only: `shared` with the one reference it executed, the others
    // with none (read with no address of theirs).
    let mut record = CodeRecord {
        objects: BTreeMap::from([(
            "bench".to_owned(),
            object(&[
                ("shared", Some(&[8, 12])),
                ("kept_only", Some(&[])),
                ("was_generic", Some(&[])),
            ]),
        )]),
        benchmarks: BTreeMap::from([("g::new".to_owned(), ran(&["shared"]))]),
        ..CodeRecord::default()
    };
    let ids = BTreeSet::from(["g::kept".to_owned(), "g::gone".to_owned()]);
    record.keep_from(&earlier, &ids);
    assert_eq!(record.benchmarks["g::kept"], earlier.benchmarks["g::kept"]);
    assert!(!record.benchmarks.contains_key("g::gone"));
    assert!(!record.benchmarks.contains_key("g::other"));
    let kept = &record.objects["bench"].parts;
    assert_eq!(kept["shared"], parts(&[4, 8, 12]));
    assert_eq!(kept["kept_only"], parts(&[2]));
    // No two-part digest earlier, none now: its whole digest decides.
    assert!(!kept.contains_key("was_generic"));
}

#[test]
fn code_no_recorded_instruction_ran_compares_by_its_whole_digest() {
    // The record keeps the data references of instructions some benchmark executed. Listing
    // code and constructors ran outside the recorded region: none of their references is
    // kept, so a change to their data alone (a configuration read from a table) must still
    // count, through the whole digest.
    let parts = |data: char| Parts {
        code: "c".repeat(32),
        data: BTreeMap::from([(8, data.to_string().repeat(32))]),
    };
    let narrowed = Parts {
        code: "c".repeat(32),
        data: BTreeMap::new(),
    };
    let object = |digest: char, data: char| Object {
        functions: ["bench::main", "bench::a::wrapper", "init"]
            .iter()
            .map(|n| ((*n).to_owned(), digest.to_string().repeat(32)))
            .collect(),
        parts: ["bench::main", "bench::a::wrapper", "init"]
            .iter()
            .map(|n| ((*n).to_owned(), parts(data)))
            .collect(),
        constructors: BTreeSet::from(["init".to_owned()]),
        ..Object::default()
    };
    let mut base = object('1', 'd');
    // As read with the executed addresses: only the wrapper ran, and not its reference.
    for parts in base.parts.values_mut() {
        *parts = narrowed.clone();
    }
    let mut record = CodeRecord {
        objects: BTreeMap::from([("release/deps/bench".to_owned(), base)]),
        benchmarks: BTreeMap::from([(
            "g::a".to_owned(),
            Executed {
                functions: BTreeMap::from([(
                    "release/deps/bench".to_owned(),
                    BTreeSet::from(["bench::a::wrapper".to_owned()]),
                )]),
                ..Executed::default()
            },
        )]),
        ..CodeRecord::default()
    };
    record.add_constructors();
    record.add_listing(&BTreeSet::from(["bench".to_owned()]), None);
    let base = &record.objects["release/deps/bench"];
    let executed = &record.benchmarks["g::a"].functions["release/deps/bench"];
    assert!(executed.contains("bench::main") && executed.contains("init"));
    // The same code, other data at the reference: the full digests differ.
    let head = object('2', 'e');
    assert!(!head.same_as(base, "bench::main"), "listing code");
    assert!(!head.same_as(base, "init"), "a constructor");
    assert!(
        head.same_as(base, "bench::a::wrapper"),
        "recorded code whose executed instructions hold no changed reference"
    );
}

#[test]
fn a_narrowed_record_keeps_only_what_benchmarks_executed() {
    let object = Object {
        functions: BTreeMap::from([
            ("ran".to_owned(), "1".repeat(32)),
            ("idle".to_owned(), "2".repeat(32)),
        ]),
        whole: "3".repeat(32),
        imprecise: None,
        constructors: BTreeSet::new(),
        parts: BTreeMap::from([
            ("ran".to_owned(), Parts::default()),
            ("idle".to_owned(), Parts::default()),
        ]),
        path: Some("/t/release/deps/callgrind-0123456789abcdef".into()),
    };
    let mut record = CodeRecord {
        objects: BTreeMap::from([
            ("bench".to_owned(), object.clone()),
            ("program".to_owned(), object.clone()),
            ("unused".to_owned(), object),
        ]),
        benchmarks: BTreeMap::from([(
            "g::f/x".to_owned(),
            Executed {
                functions: BTreeMap::from([(
                    "bench".to_owned(),
                    BTreeSet::from(["ran".to_owned()]),
                )]),
                whole: BTreeSet::from(["program".to_owned()]),
                reads_files: None,
                counts: crate::model::Counts::new(),
                observed: None,
            },
        )]),
        ..CodeRecord::default()
    };
    record.narrow_to_executed();
    let bench = &record.objects["bench"];
    assert_eq!(bench.functions.keys().collect::<Vec<_>>(), ["ran"]);
    assert_eq!(bench.parts.keys().collect::<Vec<_>>(), ["ran"]);
    assert_eq!(bench.path, None);
    let program = &record.objects["program"];
    assert!(program.functions.is_empty() && program.parts.is_empty());
    assert_eq!(program.whole, "3".repeat(32));
    assert!(!record.objects.contains_key("unused"));
}
