//! Real objects built from small C (and one Rust) sources, two variants each, with GNU ld and
//! with lld; and hostile inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;

/// The two linkers: `cc`'s default (GNU ld) and rustc's lld through `cc -fuse-ld=lld`.
fn linkers() -> Vec<Vec<String>> {
    let mut linkers = vec![Vec::new()];
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output();
    if let Ok(out) = sysroot {
        let root = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let dir = format!("{root}/lib/rustlib/x86_64-unknown-linux-gnu/bin/gcc-ld");
        if Path::new(&dir).join("ld.lld").exists() {
            linkers.push(vec![format!("-B{dir}"), "-fuse-ld=lld".into()]);
        }
    }
    linkers
}

/// Compiles `sources` (name, text) into `dir/out` with `flags`, `--emit-relocs` and a map.
fn cc(dir: &Path, out: &str, sources: &[(&str, &str)], flags: &[String]) -> PathBuf {
    let binary = dir.join(out);
    let mut command = Command::new("cc");
    command.args([
        "-O2",
        "-ffunction-sections",
        "-fdata-sections",
        "-Wl,--emit-relocs",
    ]);
    command.arg(format!("-Wl,-Map={}.map", binary.display()));
    command.arg("-o").arg(&binary).args(flags);
    for (name, text) in sources {
        let path = dir.join(format!("{out}-{name}"));
        std::fs::write(&path, text).unwrap();
        command.arg(path);
    }
    let output = command.output().expect("cc runs");
    assert!(
        output.status.success(),
        "cc failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    binary
}

/// The identities of one C source built twice, with `a` and then `b` as extra flags, per linker.
pub(crate) fn pair(source: &str, a: &[&str], b: &[&str]) -> Vec<(Identity, Identity)> {
    let dir = tempfile::tempdir().unwrap();
    linkers()
        .into_iter()
        .enumerate()
        .map(|(n, linker)| {
            let build = |name: &str, extra: &[&str]| {
                let mut flags = linker.clone();
                flags.extend(extra.iter().map(|s| s.to_string()));
                let path = cc(
                    dir.path(),
                    &format!("{name}{n}"),
                    &[("x.c", source)],
                    &flags,
                );
                read(&path, &[]).unwrap()
            };
            (build("a", a), build("b", b))
        })
        .collect()
}

const CALLS: &str = r#"
int __attribute__((noipa)) callee(int x) { return x * BODY; }
int __attribute__((noipa)) caller(int x) { return callee(x) + 1; }
int main(int argc, char **argv) { (void)argv; return caller(argc); }
"#;

#[test]
fn a_changed_body_changes_that_function_only_not_its_callers() {
    for (a, b) in pair(CALLS, &["-DBODY=7"], &["-DBODY=9"]) {
        assert!(a.functions.contains_key("caller"), "{:?}", a.functions);
        assert_eq!(a.differing(&b), ["callee"]);
        assert_eq!(a.imprecise, None);
    }
}

const TABLE: &str = r#"
static const int table[8] = { TABLE };
int __attribute__((noipa)) reader(int i) { return table[i & 7]; }
int __attribute__((noipa)) other(int i) { return i * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return reader(argc) + other(argc); }
"#;

#[test]
fn a_changed_constant_table_changes_exactly_its_readers() {
    let a = "-DTABLE=1,2,3,4,5,6,7,8";
    let b = "-DTABLE=1,2,3,4,5,6,7,9";
    for (a, b) in pair(TABLE, &[a], &[b]) {
        assert_eq!(a.differing(&b), ["reader"]);
    }
}

#[test]
fn an_added_unused_function_changes_no_existing_digest() {
    let extra = "-DEXTRA=int __attribute__((noipa, used)) unused_fn(int x) { return x + 42; }";
    let source = format!("{CALLS}\nEXTRA\n");
    for (a, b) in pair(&source, &["-DBODY=7", "-DEXTRA="], &["-DBODY=7", extra]) {
        assert_eq!(a.differing(&b), ["unused_fn"]);
        assert!(b.functions.contains_key("unused_fn"));
    }
}

const ADJACENT: &str = r#"
const char * __attribute__((noipa)) first(void) { return "the first constant string"; }
const char * __attribute__((noipa)) second(void) { return SECOND; }
double __attribute__((noipa)) scale_a(double x) { return x * 1.2345; }
double __attribute__((noipa)) scale_b(double x) { return x * FACTOR; }
int main(int argc, char **argv) {
    (void)argv;
    return (int)(first()[argc] + second()[argc] + scale_a(argc) + scale_b(argc));
}
"#;

#[test]
fn adjacent_anonymous_constants_change_only_their_own_readers() {
    let a = ["-DSECOND=\"the second constant string\"", "-DFACTOR=2.5"];
    let b = ["-DSECOND=\"the other constant string\"", "-DFACTOR=2.5"];
    for (a, b) in pair(ADJACENT, &a, &b) {
        assert_eq!(a.differing(&b), ["second"], "{:?}", a.imprecise);
    }
    let a = ["-DSECOND=\"the second constant string\"", "-DFACTOR=2.5"];
    let b = ["-DSECOND=\"the second constant string\"", "-DFACTOR=3.5"];
    for (a, b) in pair(ADJACENT, &a, &b) {
        assert_eq!(a.differing(&b), ["scale_b"]);
    }
}

#[test]
fn without_a_map_extents_are_coarse_sound_and_said_to_be() {
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, second: &str| {
        let path = cc(
            dir.path(),
            name,
            &[("x.c", ADJACENT)],
            &[second.into(), "-DFACTOR=2.5".into()],
        );
        std::fs::remove_file(format!("{}.map", path.display())).unwrap();
        read(&path, &[]).unwrap()
    };
    let a = build("a", "-DSECOND=\"the second constant string\"");
    let b = build("b", "-DSECOND=\"the other constant string\"");
    assert!(
        a.imprecise.as_deref().unwrap().contains("no link map"),
        "{:?}",
        a.imprecise
    );
    // Coarse: the change is seen (sound), by `second` at least.
    assert!(a.differing(&b).contains(&"second".to_owned()));
}

const VTABLE: &str = r#"
typedef int (*op)(int);
int __attribute__((noipa)) f1(int x) { return x + F1; }
int __attribute__((noipa)) f2(int x) { return x * 5; }
static op const ops[2] = { f1, TARGET };
int __attribute__((noipa)) dispatch(int i, int x) { return ops[i & 1](x); }
int main(int argc, char **argv) { (void)argv; return dispatch(argc, argc); }
"#;

#[test]
fn data_pointing_at_a_function_refers_to_it_by_key() {
    for (a, b) in pair(
        VTABLE,
        &["-DF1=1", "-DTARGET=f1"],
        &["-DF1=2", "-DTARGET=f1"],
    ) {
        assert_eq!(a.differing(&b), ["f1"]);
    }
    for (a, b) in pair(
        VTABLE,
        &["-DF1=1", "-DTARGET=f1"],
        &["-DF1=1", "-DTARGET=f2"],
    ) {
        assert_eq!(a.differing(&b), ["dispatch"]);
    }
}

const WHERE: &str = r#"
const char * __attribute__((noipa)) location(void) { return "panicked at " ROOT "/src/lib.rs:3:5"; }
int main(int argc, char **argv) { (void)argv; return location()[argc]; }
"#;

#[test]
fn roots_compiled_into_data_are_normalised() {
    let dir = tempfile::tempdir().unwrap();
    for (n, linker) in linkers().into_iter().enumerate() {
        let build = |root: &str| {
            let mut flags = linker.clone();
            flags.push(format!("-DROOT=\"{root}\""));
            let name = format!("{}{n}", root.replace('/', "_"));
            cc(dir.path(), &name, &[("x.c", WHERE)], &flags)
        };
        let (root_a, root_b) = ("/tmp/aaaa/x", "/tmp/bbbb/y");
        let (a, b) = (build(root_a), build(root_b));
        let with = |path: &Path, root: &str| read(path, &[PathBuf::from(root)]).unwrap();
        assert_eq!(with(&a, root_a), with(&b, root_b));
        // The roots are what makes them equal.
        let plain = read(&a, &[]).unwrap().differing(&read(&b, &[]).unwrap());
        assert_eq!(plain, ["location"]);
        // A root of another length: code that walks the NUL-terminated path runs longer, so
        // the function that refers to it differs.
        let root_c = "/tmp/bbbbbbbb/xyz";
        let c = build(root_c);
        assert_eq!(with(&a, root_a).differing(&with(&c, root_c)), ["location"]);
    }
}

const HELPER_A: &str = "static int __attribute__((noipa)) helper(int x) { return x + HA; }\n\
                        int __attribute__((noipa)) use_a(int x) { return helper(x); }\n";
const HELPER_B: &str = "static int __attribute__((noipa)) helper(int x) { return x * 3; }\n\
                        int __attribute__((noipa)) use_b(int x) { return helper(x); }\n\
                        int use_a(int);\n\
                        int main(int argc, char **argv) { (void)argv; return use_a(argc) + use_b(argc); }\n";

#[test]
fn same_named_instances_are_one_unit() {
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, ha: &str| {
        let path = cc(
            dir.path(),
            name,
            &[("a.c", HELPER_A), ("b.c", HELPER_B)],
            &[format!("-DHA={ha}")],
        );
        read(&path, &[]).unwrap()
    };
    let (a, b) = (build("a", "1"), build("b", "2"));
    assert_eq!(a.differing(&b), ["helper"]);
}

const ALIASES: &str = r#"
int __attribute__((noipa)) twin_a(int x) { return x * 7; }
#ifdef MERGED
int twin_b(int x) __attribute__((alias("twin_a")));
#else
int __attribute__((noipa)) twin_b(int x) { return x * 9; }
#endif
int __attribute__((noipa)) other(int x) { return x + 1; }
int main(int argc, char **argv) { (void)argv; return twin_a(argc) + twin_b(argc) + other(argc); }
"#;

#[test]
fn functions_at_one_address_are_bound_together() {
    // Merged, a benchmark that ran `twin_b`'s code may be recorded under `twin_a`'s name: when
    // `twin_b` gets a body of its own, both change (and nothing else does).
    for (merged, split) in pair(ALIASES, &["-DMERGED"], &[]) {
        assert_eq!(merged.differing(&split), ["twin_a", "twin_b"]);
    }
    // The same merged build twice: the same digests.
    for (a, b) in pair(ALIASES, &["-DMERGED"], &["-DMERGED"]) {
        assert!(a.differing(&b).is_empty());
    }
}

const REGISTRY: &str = r#"
struct entry { long key, value; };
__attribute__((used, section("registry"))) static const struct entry first = { 1, 5 };
extern const struct entry __start_registry[], __stop_registry[];
int __attribute__((noipa)) walk(void) {
    long sum = 0;
    for (const struct entry *p = __start_registry; p < __stop_registry; p++) sum += p->value;
    return (int)sum;
}
int __attribute__((noipa)) other(int x) { return x + 1; }
int main(int argc, char **argv) { (void)argv; return walk() + other(argc); }
"#;

/// A later entry of the registry, from another object file (another crate, as with `linkme`).
const ENTRY: &str = r#"
struct entry { long key, value; };
__attribute__((used, section("registry"))) static const struct entry second = { 2, SECOND };
"#;

#[test]
fn a_registry_read_through_its_section_bounds_is_hashed_whole() {
    // `walk` names only the section's bounds (the first entry's input section); a later entry,
    // in an input section of its own, changes what it reads.
    let dir = tempfile::tempdir().unwrap();
    for (n, linker) in linkers().into_iter().enumerate() {
        let build = |name: &str, second: &str| {
            let mut flags = linker.clone();
            flags.push(format!("-DSECOND={second}"));
            let path = cc(
                dir.path(),
                &format!("{name}{n}"),
                &[("walk.c", REGISTRY), ("entry.c", ENTRY)],
                &flags,
            );
            read(&path, &[]).unwrap()
        };
        assert_eq!(build("a", "7").differing(&build("b", "70")), ["walk"]);
    }
}

pub(crate) const UNSIZED: &str = r#"
#define S(x) #x
#define STR(x) S(x)
__asm__(".text\n.globl spin\nspin:\n mov $" STR(COUNT) ", %ecx\n1: dec %ecx\n jnz 1b\n mov %edi, %eax\n ret\n");
int spin(int);
int __attribute__((noipa)) caller(int x) { return spin(x); }
int __attribute__((noipa)) other(int x) { return x + 1; }
int main(int argc, char **argv) { (void)argv; return caller(argc) + other(argc); }
"#;

#[test]
fn assembly_without_a_size_changes_what_refers_to_it() {
    // `spin` has no `.size`: it is in no function, and callgrind counts its instructions under
    // the function that jumped there.
    for (a, b) in pair(UNSIZED, &["-DCOUNT=10"], &["-DCOUNT=40"]) {
        assert_eq!(a.differing(&b), ["caller"]);
    }
}

const CONSTRUCTOR: &str = r#"
static int rounds;
__attribute__((constructor)) static void set_rounds(void) { rounds = ROUNDS; }
int __attribute__((noipa)) work(int x) { for (int i = 0; i < rounds; i++) x = x * 31 + i; return x; }
int main(int argc, char **argv) { (void)argv; return work(argc); }
"#;

#[test]
fn constructors_are_named() {
    for (a, b) in pair(CONSTRUCTOR, &["-DROUNDS=12"], &["-DROUNDS=48"]) {
        assert!(
            a.constructors.contains("set_rounds"),
            "{:?}",
            a.constructors
        );
        assert_eq!(a.differing(&b), ["set_rounds"]);
    }
}

const CYCLE: &str = r#"
struct node { const struct node *next; int value; };
extern const struct node n1;
static const struct node n2 = { &n1, VALUE };
const struct node n1 = { &n2, 1 };
const void *const self_ref = &self_ref;
int __attribute__((noipa)) walk(int steps) {
    const struct node *n = &n1; int sum = 0;
    while (steps--) { sum += n->value; n = n->next; }
    return sum + (self_ref != 0);
}
int __attribute__((noipa)) plain(int x) { return x - 1; }
int main(int argc, char **argv) { (void)argv; return walk(argc) + plain(argc); }
"#;

#[test]
fn a_data_cycle_is_read_and_still_followed() {
    for (a, b) in pair(CYCLE, &["-DVALUE=2"], &["-DVALUE=3"]) {
        assert_eq!(a.differing(&b), ["walk"]);
    }
}

/// Builds the Rust program `source` as `dir/name` (crate `bench`, `-O`, `flags` added), linked
/// with `--emit-relocs` and a map as the identity needs.
pub(crate) fn rustc(dir: &Path, name: &str, source: &str, flags: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.rs"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(name);
    let status = Command::new("rustc")
        .args(["-O", "--crate-name", "bench"])
        .args(flags)
        .args(["-C", "link-arg=-Wl,--emit-relocs"])
        .arg("-C")
        .arg(format!("link-arg=-Wl,-Map={}.map", out.display()))
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap();
    assert!(status.success());
    out
}

#[test]
fn a_rust_binary_linked_by_rustc_reads_precisely() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"
#[inline(never)] fn first() -> &'static [u32] { std::hint::black_box(&[1, 2, 3, 4, 5, 6, 7, 8]) }
#[inline(never)] fn second() -> &'static [u32] { std::hint::black_box(&[SECOND, 9, 9, 9, 9, 9, 9, 9]) }
fn main() { println!("MESSAGE {:?} {:?}", first(), second()); }
"#;
    let build = |name: &str, second: &str, message: &str| {
        let text = source.replace("SECOND", second).replace("MESSAGE", message);
        read(&rustc(dir.path(), name, &text, &[]), &[]).unwrap()
    };
    let (a, b) = (build("a", "10", "one"), build("b", "11", "one"));
    assert_eq!(a.differing(&b), ["bench::second"], "{:?}", a.imprecise);
    assert_eq!(a.imprecise, None);
    // A longer message in main moves every constant after it: only main changes, none of the
    // hundreds of std functions whose constants moved.
    let c = build(
        "c",
        "10",
        "a longer message, which moves the constants that follow it",
    );
    assert_eq!(a.differing(&c), ["bench::main"]);
    assert!(a.functions.len() > 300, "{}", a.functions.len());
}

#[test]
fn generic_instances_and_closures_are_told_apart_by_their_debug_names() {
    let dir = tempfile::tempdir().unwrap();
    // `scale` has two instances and `main` two closures; a build changes `u8`'s factor only, so
    // one instance's code changes, and another makes the second closure add 2 instead of 1.
    let source = r#"
trait Factor { const F: u64; }
impl Factor for u8 { const F: u64 = FACTOR; }
impl Factor for u16 { const F: u64 = 5; }
#[inline(never)] fn scale<T: Factor + Copy + Into<u64>>(v: &[T]) -> u64 { v.iter().map(|x| (*x).into() * T::F).sum() }
fn main() {
    let a = std::hint::black_box(vec![1u8, 2, 3]);
    let b = std::hint::black_box(vec![1u16, 2, 3]);
    let first: &dyn Fn(u64) -> u64 = std::hint::black_box(&|x: u64| x * 3);
    let second: &dyn Fn(u64) -> u64 = std::hint::black_box(&|x: u64| x + ADD);
    println!("{} {}", first(scale(&a)), second(scale(&b)));
}
"#;
    let build = |name: &str, factor: &str, add: &str, debug: &str| {
        let text = source.replace("FACTOR", factor).replace("ADD", add);
        let debug = format!("debuginfo={debug}");
        rustc(
            dir.path(),
            name,
            &text,
            &["-C", "codegen-units=1", "-C", &debug],
        )
    };
    let a = build("a", "3", "1", "line-tables-only");
    let (ia, ib) = (
        read(&a, &[]).unwrap(),
        read(&build("b", "7", "1", "line-tables-only"), &[]).unwrap(),
    );
    assert_eq!(ia.differing(&ib), ["bench::scale<u8>"]);
    let ic = read(&build("c", "3", "2", "line-tables-only"), &[]).unwrap();
    // The second closure's `dyn Fn` shim (its body inlined) is told apart from the first's. The
    // closures' own bodies have no debug entry of their own here, so they stay one unit.
    let shim = |n: u32| {
        format!(
            "core::ops::function::FnOnce::call_once{{{{vtable.shim}}}}\
             [call_once<bench::main::{{closure_env#{n}}}, (u64)>]"
        )
    };
    let closures = ia.differing(&ic);
    assert!(closures.contains(&shim(1)), "{closures:?}");
    assert!(ia.functions.contains_key(&shim(0)), "{closures:?}");
    assert!(!closures.contains(&shim(0)), "{closures:?}");
    // Without debug information the instances are one unit again: still sound.
    let (na, nb) = (
        read(&build("na", "3", "1", "0"), &[]).unwrap(),
        read(&build("nb", "7", "1", "0"), &[]).unwrap(),
    );
    assert_eq!(na.differing(&nb), ["bench::scale"]);
    // What executed at an address of the `u8` instance is that instance.
    let instances = crate::instances(&a).unwrap();
    let symbols = std::process::Command::new("nm").arg(&a).output().unwrap();
    let text = String::from_utf8_lossy(&symbols.stdout);
    let starts: Vec<u64> = text
        .lines()
        .filter(|l| l.contains("5scale17h"))
        .map(|l| u64::from_str_radix(l.split_whitespace().next().unwrap(), 16).unwrap())
        .collect();
    assert_eq!(starts.len(), 2, "{text}");
    let named: std::collections::BTreeSet<String> = starts
        .iter()
        .flat_map(|s| instances.at("bench::scale", [*s]).unwrap())
        .collect();
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["bench::scale<u16>", "bench::scale<u8>"]
    );
    assert_eq!(instances.at("bench::scale", [starts[0]]).unwrap().len(), 1);
}

#[test]
fn keys_of_rust_and_c_names() {
    assert_eq!(
        key("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
        "core::ptr::drop_in_place"
    );
    assert_eq!(
        key("_ZN5bench4main28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE"),
        "bench::main::{{closure}}"
    );
    assert_eq!(key("_RNvCs1234_5bench4main"), "bench::main");
    assert_eq!(
        key("_RNCNvCs1234_5bench4main0B3_"),
        "bench::main::{closure#0}"
    );
    assert_eq!(key("memcpy"), "memcpy");
    assert_eq!(key("helper.constprop.0"), "helper.constprop.0");
    assert_eq!(key("_Znotrust"), "_Znotrust");
}

// Hostile inputs: `read` returns, never panics.

fn calls_object(dir: &Path) -> Vec<u8> {
    let path = cc(dir, "base", &[("x.c", CALLS)], &["-DBODY=7".into()]);
    std::fs::read(path).unwrap()
}

fn read_bytes(dir: &Path, bytes: &[u8]) -> Result<Identity> {
    let path = dir.join("hostile");
    std::fs::write(&path, bytes).unwrap();
    read(&path, &[])
}

#[test]
fn refuses_what_is_not_x86_64_elf() {
    let dir = tempfile::tempdir().unwrap();
    let error = read_bytes(dir.path(), b"#!/bin/sh\necho hello\n").unwrap_err();
    assert!(error.to_string().contains("not an ELF file"), "{error}");
    let mut elf = calls_object(dir.path());
    elf[18..20].copy_from_slice(&183u16.to_le_bytes());
    let error = read_bytes(dir.path(), &elf).unwrap_err();
    assert!(
        error.to_string().contains("x86-64 code only; aarch64"),
        "{error}"
    );
    let missing = read(&dir.path().join("none"), &[]).unwrap_err();
    assert!(matches!(missing, Error::Read { .. }));
}

#[test]
fn refuses_stripped_objects_and_objects_without_emit_relocs() {
    let dir = tempfile::tempdir().unwrap();
    let path = cc(
        dir.path(),
        "stripped",
        &[("x.c", CALLS)],
        &["-DBODY=7".into()],
    );
    let status = Command::new("strip").arg(&path).status().unwrap();
    assert!(status.success());
    let error = read(&path, &[]).unwrap_err().to_string();
    assert!(error.contains("stripped"), "{error}");
    let plain = dir.path().join("plain");
    let c = dir.path().join("plain.c");
    std::fs::write(&c, CALLS).unwrap();
    let status = Command::new("cc")
        .args(["-O2", "-DBODY=7", "-o"])
        .arg(&plain)
        .arg(&c)
        .status();
    assert!(status.unwrap().success());
    let error = read(&plain, &[]).unwrap_err().to_string();
    assert!(error.contains("--emit-relocs (no .rela.text)"), "{error}");
}

#[test]
fn random_and_truncated_bytes_are_refused_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let elf = calls_object(dir.path());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for len in [0, 1, 16, 63, 64, 65, 200, 4096] {
        let random: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        assert!(read_bytes(dir.path(), &random).is_err());
        let mut with_magic = elf[..len.min(elf.len())].to_vec();
        with_magic.extend(random.iter().skip(with_magic.len()));
        let _ = read_bytes(dir.path(), &with_magic);
    }
    for fraction in 1..16 {
        let truncated = &elf[..elf.len() * fraction / 16];
        assert!(read_bytes(dir.path(), truncated).is_err());
    }
}

/// Where the ELF header says the section headers are, and how many.
fn section_headers(elf: &[u8]) -> (usize, usize) {
    let shoff = u64::from_le_bytes(elf[0x28..0x30].try_into().unwrap()) as usize;
    let shnum = u16::from_le_bytes(elf[0x3c..0x3e].try_into().unwrap()) as usize;
    (shoff, shnum)
}

/// The file range of the first section of type `kind` (`(offset, size)`) and its `sh_link`.
fn section_of_type(elf: &[u8], kind: u32, name_hint: Option<u32>) -> (usize, usize, u32) {
    let (shoff, shnum) = section_headers(elf);
    for i in 0..shnum {
        let h = &elf[shoff + i * 64..shoff + (i + 1) * 64];
        let info = u32::from_le_bytes(h[44..48].try_into().unwrap());
        if u32::from_le_bytes(h[4..8].try_into().unwrap()) == kind
            && name_hint.is_none_or(|want| info == want)
        {
            let offset = u64::from_le_bytes(h[24..32].try_into().unwrap()) as usize;
            let size = u64::from_le_bytes(h[32..40].try_into().unwrap()) as usize;
            return (
                offset,
                size,
                u32::from_le_bytes(h[40..44].try_into().unwrap()),
            );
        }
    }
    panic!("no section of type {kind}");
}

/// The `.text` section's index.
fn text_index(elf: &[u8]) -> u32 {
    let (shoff, shnum) = section_headers(elf);
    let strtab_index = u16::from_le_bytes(elf[0x3e..0x40].try_into().unwrap()) as usize;
    let h = &elf[shoff + strtab_index * 64..];
    let names = u64::from_le_bytes(h[24..32].try_into().unwrap()) as usize;
    (0..shnum)
        .find(|i| {
            let name = u32::from_le_bytes(elf[shoff + i * 64..][..4].try_into().unwrap()) as usize;
            elf[names + name..].starts_with(b".text\0")
        })
        .unwrap() as u32
}

#[test]
fn absurd_headers_symbols_and_relocations_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elf = calls_object(dir.path());
    let patched = |at: usize, bytes: &[u8]| {
        let mut copy = elf.clone();
        copy[at..at + bytes.len()].copy_from_slice(bytes);
        read_bytes(dir.path(), &copy)
    };
    // Absurd section count and offset.
    assert!(patched(0x3c, &u16::MAX.to_le_bytes()).is_err());
    assert!(patched(0x28, &(u64::MAX - 10).to_le_bytes()).is_err());
    // A section whose size runs past the file.
    let (shoff, _) = section_headers(&elf);
    let text = text_index(&elf) as usize;
    assert!(patched(shoff + text * 64 + 32, &(1u64 << 40).to_le_bytes()).is_err());

    // A function symbol whose size runs past its section.
    let (symtab, size, _) = section_of_type(&elf, 2, None);
    let function = (0..size / 24)
        .map(|i| symtab + i * 24)
        .find(|&at| elf[at + 4] & 0xf == 2 && elf[at + 16..at + 24] != [0; 8])
        .unwrap();
    let error = patched(function + 16, &(1u64 << 32).to_le_bytes()).unwrap_err();
    assert!(
        error.to_string().contains("runs past its section"),
        "{error}"
    );

    // Relocations of .text: a symbol index past the table, an offset at a function's last byte.
    let (rela, rela_size, _) = section_of_type(&elf, 4, Some(text as u32));
    let error = patched(rela + 12, &0x00ff_ffffu32.to_le_bytes()).unwrap_err();
    assert!(
        error.to_string().contains("past the symbol table"),
        "{error}"
    );
    let value = u64::from_le_bytes(elf[function + 8..function + 16].try_into().unwrap());
    let fsize = u64::from_le_bytes(elf[function + 16..function + 24].try_into().unwrap());
    let last = value + fsize - 1;
    let error = patched(rela, &last.to_le_bytes()).unwrap_err();
    assert!(
        error.to_string().contains("runs past the end of function"),
        "{error}"
    );
    // An unknown relocation type.
    let error = patched(rela + 8, &37u32.to_le_bytes()).unwrap_err();
    assert!(error.to_string().contains("relocation type 37"), "{error}");

    // Byte flips at a fixed list of places across headers, symbols and relocations: no panic.
    let places = (0..64)
        .chain((shoff..elf.len()).step_by(7))
        .chain((symtab..symtab + size).step_by(5))
        .chain((rela..rela + rela_size).step_by(3));
    for at in places {
        for value in [0x00, 0xff, 0x80] {
            let _ = patched(at, &[value]);
        }
    }
}

#[test]
fn a_reference_no_executed_instruction_holds_is_left_out_of_the_parts() {
    // `pick` reads MESSAGE only on its cold path; the hot path reads TABLE.
    let source = r#"
        #include <stdio.h>
        static const char MESSAGE[] = "index out of range at line " LINE;
        static const long TABLE[4] = {3, 5, 7, 11};
        __attribute__((noinline)) long pick(unsigned i) {
            if (__builtin_expect(i >= 4, 0)) { puts(MESSAGE); return -1; }
            return TABLE[i];
        }
        int main(int argc, char **argv) { (void)argv; return (int)pick((unsigned)argc); }
    "#;
    let dir = tempfile::tempdir().unwrap();
    let build = |name: &str, line: &str| {
        cc(
            dir.path(),
            name,
            &[("pick.c", source)],
            &[format!("-DLINE=\"{line}\"")],
        )
    };
    let (a, b) = (build("a", "12"), build("b", "13"));
    let full = |path: &Path| read(path, &[]).unwrap();
    // The message moved: the full digests differ, the code does not.
    assert_eq!(full(&a).differing(&full(&b)), ["pick"]);
    let (pa, pb) = (&full(&a).parts["pick"], &full(&b).parts["pick"]);
    assert_eq!(pa.code, pb.code);
    assert_ne!(pa.data, pb.data);
    // Executed: only the function's first instruction (the hot path's test), not the call site of
    // `puts`: the message's reference is left out, so both builds agree on what executed.
    let start = |path: &Path| {
        let data = std::fs::read(path).unwrap();
        let file = object::read::elf::ElfFile64::<object::LittleEndian>::parse(&*data).unwrap();
        use object::{Object, ObjectSymbol};
        file.symbols()
            .find(|s| s.name() == Ok("pick"))
            .map(|s| s.address())
            .unwrap()
    };
    let executed = |path: &Path| std::collections::BTreeSet::from([start(path)]);
    let kept_a = read_executed(&a, &[], &executed(&a)).unwrap();
    let kept_b = read_executed(&b, &[], &executed(&b)).unwrap();
    assert!(
        kept_a.parts["pick"].data.len() < pa.data.len(),
        "{:?}",
        kept_a.parts
    );
    assert!(
        kept_a.parts["pick"]
            .data
            .iter()
            .all(|(offset, digest)| kept_b.parts["pick"].data.get(offset) == Some(digest))
    );
    // With every instruction executed, the message's reference is kept and differs.
    let all = |path: &Path| {
        let first = start(path);
        (first..first + 256).collect::<std::collections::BTreeSet<u64>>()
    };
    let every_a = read_executed(&a, &[], &all(&a)).unwrap();
    let every_b = read_executed(&b, &[], &all(&b)).unwrap();
    assert_ne!(every_a.parts["pick"].data, every_b.parts["pick"].data);
}
