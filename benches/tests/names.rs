//! The callgrind suite declares exactly the benchmarks of `benches::catalog()`, under the same
//! names: gungraun needs its ids spelled out as attributes, so this test keeps the two in step.

use std::collections::BTreeSet;

/// `<group>::<function>/<id>` for every `#[bench::<id>]` of every function of every group in
/// the suite's source.
fn declared_names(source: &str) -> BTreeSet<String> {
    let mut ids_by_function = std::collections::BTreeMap::new();
    let mut pending_ids = Vec::new();
    for line in source.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#[bench::") {
            let id = rest.split('(').next().expect("an id before the arguments");
            pending_ids.push(id.to_string());
        } else if let Some(rest) = line.strip_prefix("fn ") {
            let function = rest.split('(').next().expect("a function name");
            if !pending_ids.is_empty() {
                ids_by_function.insert(function.to_string(), std::mem::take(&mut pending_ids));
            }
        }
    }
    let mut names = BTreeSet::new();
    for group_decl in source.split("library_benchmark_group!(").skip(1) {
        let decl = group_decl
            .split(");")
            .next()
            .expect("a closed group declaration");
        let group = decl
            .split("name = ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .expect("a group name")
            .trim();
        let list = decl
            .split('[')
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .expect("a list");
        for function in list.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            let ids = ids_by_function
                .get(function)
                .unwrap_or_else(|| panic!("{group}::{function} has no #[bench] ids"));
            for id in ids {
                assert!(
                    names.insert(format!("{group}::{function}/{id}")),
                    "{group}::{function}/{id} is declared twice"
                );
            }
        }
    }
    names
}

#[test]
fn callgrind_suite_matches_the_catalog() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/callgrind.rs");
    let source = std::fs::read_to_string(path).expect("the callgrind suite is readable");
    let declared = declared_names(&source);
    let catalog: BTreeSet<String> = benches::catalog().into_iter().collect();
    let missing: Vec<_> = catalog.difference(&declared).collect();
    let extra: Vec<_> = declared.difference(&catalog).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, not in catalog {extra:?}"
    );
    assert_eq!(declared.len(), 132);
}

#[test]
fn parser_sees_ids_groups_and_functions() {
    let source = "
        #[library_benchmark]
        #[bench::b32(args = (32), setup = s)]
        #[bench::b64(args = (64), setup = s)]
        fn encode(case: Box<X>) -> Box<X> { case }
        fn helper(size: usize) -> usize { size }
        library_benchmark_group!(
            name = frame,
            benchmarks = [encode]
        );";
    let names: Vec<String> = declared_names(source).into_iter().collect();
    assert_eq!(names, ["frame::encode/b32", "frame::encode/b64"]);
}
