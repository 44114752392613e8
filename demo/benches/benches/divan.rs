//! Wall-clock benchmarks (divan) of every case of the callgrind suite, under the same names: one
//! divan benchmark per group (layer) with the catalog's `<function>/<id>` as its arguments, so
//! divan's `frame::encode_compressed/b512` is the gate's `frame::encode_compressed/b512`.
//!
//! ```sh
//! cargo bench -p benches --bench divan                                   # everything
//! cargo bench -p benches --bench divan -- frame::encode_compressed       # a regex over names
//! cargo bench -p benches --bench divan -- --sample-count 1000 'pipeline::.*/b512'
//! ```

use benches::{BENCHMARKS, Case, catalog, varint_decode, varint_encode};
use divan::Bencher;

/// The groups below, one divan benchmark each.
const GROUPS: [&str; 5] = ["varint", "frame", "cipher", "filter", "pipeline"];

fn main() {
    if let Some((group, _, _)) = BENCHMARKS.iter().find(|(g, _, _)| !GROUPS.contains(g)) {
        panic!("the catalog's group `{group}` has no divan benchmark: add it to benches/divan.rs");
    }
    divan::main();
}

/// The `<function>/<id>` names of `group`'s benchmarks, in catalog order.
fn names(group: &'static str) -> impl Iterator<Item = String> {
    catalog().into_iter().filter_map(move |name| {
        let rest = name.strip_prefix(group)?.strip_prefix("::")?;
        Some(rest.to_owned())
    })
}

/// Builds `group::name` and times one operation per iteration. divan has no batched timing, so
/// the case is unpacked here, once, rather than dispatched by [`Case::run`] on every iteration
/// (a branch that would add about a nanosecond to cases that take a few).
fn time(bencher: Bencher, group: &str, name: &str) {
    let case = Case::build(&format!("{group}::{name}"))
        .unwrap_or_else(|| panic!("{group}::{name} is in the catalog but builds no case"));
    // `bench_local` passes each output through `black_box`.
    match case {
        Case::VarIntEncode(value, mut buf) => {
            bencher.bench_local(|| varint_encode(value, &mut buf))
        }
        Case::VarIntDecode(bytes) => bencher.bench_local(|| varint_decode(&bytes)),
        Case::FrameEncode(mut case) => bencher.bench_local(|| case.run()),
        Case::FrameDecode(mut case) => bencher.bench_local(|| case.run()),
        Case::CipherEncrypt(mut case) => bencher.bench_local(|| case.run()),
        Case::CipherDecrypt(mut case) => bencher.bench_local(|| case.run()),
        Case::Chain(mut case) => bencher.bench_local(|| case.run()),
        Case::Pipeline(mut case) => bencher.bench_local(|| case.run()),
    }
}

/// Layer B: VarInt encode and decode.
#[divan::bench(args = names("varint"))]
fn varint(bencher: Bencher, name: &str) {
    time(bencher, "varint", name);
}

/// Layer B: frames, uncompressed and compressed.
#[divan::bench(args = names("frame"))]
fn frame(bencher: Bencher, name: &str) {
    time(bencher, "frame", name);
}

/// Layer B: AES-128-CFB8.
#[divan::bench(args = names("cipher"))]
fn cipher(bencher: Bencher, name: &str) {
    time(bencher, "cipher", name);
}

/// Layer A: the filter chain.
#[divan::bench(args = names("filter"))]
fn filter(bencher: Bencher, name: &str) {
    time(bencher, "filter", name);
}

/// Layer C: the intercepted pipeline.
#[divan::bench(args = names("pipeline"))]
fn pipeline(bencher: Bencher, name: &str) {
    time(bencher, "pipeline", name);
}
