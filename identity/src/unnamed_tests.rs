//! The digest of the code no symbol names ([`Identity::unnamed`]): equal for the same object
//! built twice, a shared library among them (the C runtime's `frame_dummy` and
//! `__do_global_dtors_aux`, which callgrind names by address), and different when that code
//! changes.

use super::tests::{UNSIZED, pair, rustc};
use super::*;

/// A shared library as a workspace `cdylib` is (loaded with `dlopen`): `VALUE` is substituted.
const CDYLIB: &str = r#"
#[no_mangle]
pub extern "C" fn work(n: u64) -> u64 {
    let mut v: Vec<u64> = (0..n).collect();
    v.reverse();
    v.iter().sum::<u64>() + VALUE
}
"#;

#[test]
fn a_cdylib_built_twice_has_equal_unnamed_code_and_a_changed_function_leaves_it_equal() {
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, value: &str| {
        let source = CDYLIB.replace("VALUE", value);
        let path = rustc(dir.path(), name, &source, &["--crate-type", "cdylib"]);
        read(&path, &[]).unwrap()
    };
    let (a, b, c) = (build("a", "1"), build("b", "1"), build("c", "2"));
    // The C runtime's unsized code is there, and the same in both builds.
    assert!(a.unnamed.is_some(), "{:?}", a.functions.keys().take(5));
    assert_eq!(a.unnamed, b.unnamed);
    assert!(a.differing(&b).is_empty());
    // A sized function's change is that function's, not the unnamed code's.
    assert_eq!(c.differing(&a), ["work"]);
    assert_eq!(c.unnamed, a.unnamed);
}

#[test]
fn changed_assembly_without_a_size_changes_the_unnamed_digest() {
    for (a, b) in pair(UNSIZED, &["-DCOUNT=10"], &["-DCOUNT=40"]) {
        assert!(a.unnamed.is_some());
        assert_ne!(a.unnamed, b.unnamed);
    }
    for (a, b) in pair(UNSIZED, &["-DCOUNT=10"], &["-DCOUNT=10"]) {
        assert_eq!(a.unnamed, b.unnamed);
    }
}
