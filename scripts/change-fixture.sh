#!/usr/bin/env bash
# Selection from the compiled code, end to end, on a generated workspace with a scripted history
# (issue #32, docs/selection.md). Its library: `shared` (run by two benchmarks), `lonely` (run by
# one, through the constant STEP), `spare` (run by none), `make_input` (the argument expression of
# one benchmark, outside its measured region), the table `TABLE` (read by `lookup`), the generic
# `scale` (run with two types), and a data file that one benchmark reads at run time. Baselines and
# their code record are taken at the first commit (`irgate run --record`, `irgate refresh`); then
# each step is one commit, judged against them twice: after a full run and after a selected one
# (`irgate run --only-touched`), whose verdict must equal the full run's.
#
#   step     the change                             touched                   verdict
#   uninert  the version, with the manifest no      none (its observed        PASS
#            longer `[change] inert`                inputs: its data file,
#                                                   not the manifest)
#   shared   a loop added to `shared`'s body        twice::shared/*           FAIL on exactly those
#   setup    `make_input` makes half again as much  setup::summed/input       FAIL on exactly that
#   const    STEP (a constant) changes              once::lonely/one          FAIL on exactly that
#   table    one entry of TABLE changes             table::lookup/three       as the full run
#   generic  `scale` changes for u8 only            generic::scale_u8/byte    as the full run
#                                                   (its instance only)
#   data     the data file read at run time grows   files::read/data          FAIL on exactly that
#   inline   an `#[inline(always)]` function        inl::host/one (its host)  as the full run
#   dyn      one `dyn Op` impl's method             dynamic::run/mul          as the full run
#   field    a field added to a struct              point::norm/one (builds   as the full run
#                                                   the struct)
#   path     a constant of a `#[path]` module       path::scaled/one          as the full run
#            under `tests/` (inert: `[change]        (the compiler sees it,
#            inert` only says no benchmark reads    whatever inert says)
#            it at run time)
#   include  a file compiled in through `concat!`   include::blob/all (no     as the full run
#                                                   benchmark reads it at
#                                                   run time)
#   unrun    `spare`'s body grows                   none                      PASS
#   unused   a function no benchmark runs is added  none                      PASS
#   doc      a doc comment above `shared`           none                      PASS
#   bounds   a doc comment above a function whose   none (the moved panic     PASS
#            bounds check never fails               location is read only on
#                                                   the path that never ran)
#   version  the package's version                  none                      PASS
#   revert   a speedup of `make_input` accepted from  setup::summed/input (its  FAIL on exactly that
#            a run without --record, then reverted   record entry removed by
#                                                    the refresh)
#   revert-old-record  the same with the record     setup::summed/input (its  FAIL on exactly that
#            before the accept (old entry beside     entry describes another
#            the new count)                          count)
#   forged   a slowdown of `shared`, then the record every benchmark (the      FAIL as the full run
#            edited to name that commit              record is refused)
#   forged-ci  the same, selected with --record-from every benchmark (the      FAIL as the full run
#            the base, as the GitHub Action runs it  change alters baselines/)
#
# At `shared`, the selected run is also taken in 2 shards (`--only-touched --shard K/2`): together
# they must run and carry exactly what the unsharded selected run did, with its counts and verdict.
#
# At `shared`, `inline` and `doc`, `irgate run --record` is also taken: it must keep the baselines'
# record entries of exactly the suites the change left untouched (`shapes`; `fixture`; both), record
# the others again, and write the same code record, byte for byte, as a run that records every
# benchmark.
#
# (`generic` selects the `u8` benchmark only: instances of a generic share one name under Rust's
# legacy mangling, and the code identity tells them apart by the names the debug information gives
# them, `scale<u8>` and `scale<u32>`.) Each step starts from the baselines' commit. The table of
# what each step gave is printed.
#
# The benchmarks are in two suites (bench targets) of one package: `fixture` (the groups twice,
# once, setup, table, generic, files) and `shapes` (inl, dynamic, point, path, include).
#
# With `--library iai-callgrind@X.Y.Z` the same suites are written with iai-callgrind (the bench
# files' imports and group syntax adapted): its record must hold every benchmark and give the same
# touched sets and verdicts. iai-callgrind's runner filters bench binaries, not benchmark ids, so
# there `--only-touched` runs a suite whole when it holds a touched benchmark and leaves it out
# otherwise (and says which), each step checks that it ran exactly those suites, and the shards
# are not taken.
#
# With `--dry-run`, the steps run no benchmark: each only asks `irgate run --only-touched
# --dry-run` what it would run, and its touched set (and on iai-callgrind, the suites it would run
# whole and leave out) must be the expected one. The baselines' recorded run still runs every
# benchmark twice. It proves the selections, not the verdicts (no step is measured), and leaves
# out the steps that need measured runs (revert, revert-old-record, forged, forged-ci) and the
# shards.
#
# usage: scripts/change-fixture.sh [--keep DIR] [--library iai-callgrind@X.Y.Z] [--dry-run]
# Needs valgrind, cargo and gungraun-runner 0.20.0 (or the iai-callgrind runner of that version, in
# irgate's cache or named by $IAI_CALLGRIND_RUNNER); irgate from this checkout ($IRGATE, else
# built).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
keep= library=gungraun@0.20.0 dry=0
while [ $# -gt 0 ]; do
    case $1 in
        --keep) keep=${2:?usage: --keep DIR}; shift 2 ;;
        --library) library=${2:?usage: --library iai-callgrind@X.Y.Z}; shift 2 ;;
        --dry-run) dry=1; shift ;;
        *) echo "usage: scripts/change-fixture.sh [--keep DIR] [--library iai-callgrind@X.Y.Z] [--dry-run]" >&2; exit 2 ;;
    esac
done
case $library in
    gungraun@0.20.0) selects=1 ;;
    iai-callgrind@0.1[2-6].*) selects=0 ;;
    *) echo "change-fixture: --library takes iai-callgrind@0.12.0 to 0.16.x, not $library" >&2; exit 2 ;;
esac
say() { printf 'change-fixture: %s\n' "$*"; }
die() { printf 'change-fixture: FAIL: %s\n' "$*" >&2; exit 1; }
scratch_dir "$keep"
irgate=${IRGATE:-$(irgate_executable)}

generate() {
    local dir=$1
    gungraun_workspace "$dir" changefix fixture
    mkdir -p "$dir/changefix/data"
    head -c 64 /dev/zero >"$dir/changefix/data/input.bin"
    cat >"$dir/changefix/src/lib.rs" <<'EOF'
//! Generated by scripts/change-fixture.sh.

/// The step `lonely` adds.
pub const STEP: u64 = 3;

/// Read by `lookup`.
pub static TABLE: [u64; 8] = [11, 13, 17, 19, 23, 29, 31, 37];

/// Run by the two `shared` benchmarks.
#[inline(never)]
pub fn shared(x: u64) -> u64 {
    x.wrapping_mul(31).rotate_left(7)
}

/// Run by the `lonely` benchmark.
#[inline(never)]
pub fn lonely(x: u64) -> u64 {
    x.wrapping_add(STEP).rotate_right(3)
}

/// Run by no benchmark.
#[inline(never)]
pub fn spare(x: u64) -> u64 {
    x.rotate_left(5) ^ 0x55
}

/// The input of the `setup` benchmark, built before its measured region.
pub fn make_input(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| i.wrapping_mul(2654435761)).collect()
}

/// Sums its input.
#[inline(never)]
pub fn summed(input: &[u64]) -> u64 {
    input.iter().fold(0, |a, b| a.wrapping_add(*b).rotate_left(1))
}

/// A table look-up.
#[inline(never)]
pub fn lookup(i: usize) -> u64 {
    TABLE[i & 7].wrapping_mul(3)
}

/// Indexes with a bounds check that never fails here.
#[inline(never)]
pub fn pick(v: &[u64], i: usize) -> u64 {
    v[i].wrapping_mul(5)
}

/// Run with two types.
#[inline(never)]
pub fn scale<T: Into<u64> + Copy>(x: T) -> u64 {
    x.into().wrapping_mul(7)
}

/// The data file the `files` benchmark reads at run time.
pub fn data() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/input.bin")).unwrap_or_default()
}

/// Folds bytes.
#[inline(never)]
pub fn fold(bytes: &[u8]) -> u64 {
    bytes.iter().fold(7, |a, b| a.wrapping_mul(31) ^ u64::from(*b))
}

/// Always inlined into `host`.
#[inline(always)]
pub fn tiny(x: u64) -> u64 {
    x ^ 0x5a
}

/// Runs `tiny`, inlined.
#[inline(never)]
pub fn host(x: u64) -> u64 {
    tiny(x).rotate_left(1)
}

/// An operation behind `dyn`.
pub trait Op {
    /// Applies it.
    fn apply(&self, x: u64) -> u64;
}

/// Adds.
pub struct Add;

/// Multiplies.
pub struct Mul;

impl Op for Add {
    #[inline(never)]
    fn apply(&self, x: u64) -> u64 {
        x.wrapping_add(17)
    }
}

impl Op for Mul {
    #[inline(never)]
    fn apply(&self, x: u64) -> u64 {
        x.wrapping_mul(19)
    }
}

/// Runs an operation through its vtable.
#[inline(never)]
pub fn run(op: &dyn Op, x: u64) -> u64 {
    op.apply(x)
}

/// A point.
#[derive(Default)]
pub struct Point {
    /// Across.
    pub x: u64,
    /// Up.
    pub y: u64,
}

/// Its norm, of sorts.
#[inline(never)]
pub fn norm(p: &Point) -> u64 {
    p.x.wrapping_mul(p.x).wrapping_add(p.y.wrapping_mul(p.y))
}

/// Constants kept under `tests/`, compiled in through `#[path]`.
#[path = "../tests/factor.rs"]
mod factor;

/// Scales by the factor under `tests/`.
#[inline(never)]
pub fn scaled(x: u64) -> u64 {
    x.wrapping_mul(factor::FACTOR)
}

/// Bytes compiled in, named through `concat!`.
static BLOB: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/include/blob.bin"));

/// Sums the compiled-in bytes.
#[inline(never)]
pub fn blob_sum() -> u64 {
    BLOB.iter().map(|b| u64::from(*b)).sum()
}
EOF
    mkdir -p "$dir/changefix/tests" "$dir/changefix/include"
    printf '/// The factor.\npub const FACTOR: u64 = 3;\n' >"$dir/changefix/tests/factor.rs"
    head -c 32 /dev/zero >"$dir/changefix/include/blob.bin"
    cat >"$dir/changefix/benches/fixture.rs" <<'EOF'
use std::hint::black_box;

use gungraun::prelude::*;

#[library_benchmark]
#[bench::one(1)]
#[bench::two(2)]
fn shared(x: u64) -> u64 {
    black_box(changefix::shared(black_box(x)))
}

#[library_benchmark]
#[bench::one(1)]
fn lonely(x: u64) -> u64 {
    black_box(changefix::lonely(black_box(x)))
}

#[library_benchmark]
#[bench::input(changefix::make_input(16))]
fn summed(input: Vec<u64>) -> u64 {
    black_box(changefix::summed(black_box(&input)))
}

#[library_benchmark]
#[bench::three(3)]
fn lookup(i: usize) -> u64 {
    black_box(changefix::lookup(black_box(i)))
}

#[library_benchmark]
#[bench::two(2)]
fn pick(i: usize) -> u64 {
    black_box(changefix::pick(black_box(&[1, 2, 3]), black_box(i)))
}

#[library_benchmark]
#[bench::byte(9)]
fn scale_u8(x: u8) -> u64 {
    black_box(changefix::scale(black_box(x)))
}

#[library_benchmark]
#[bench::word(9)]
fn scale_u32(x: u32) -> u64 {
    black_box(changefix::scale(black_box(x)))
}

#[library_benchmark]
#[bench::data(changefix::data())]
fn read(bytes: Vec<u8>) -> u64 {
    black_box(changefix::fold(black_box(&bytes)))
}

library_benchmark_group!(name = twice, benchmarks = shared);
library_benchmark_group!(name = once, benchmarks = lonely);
library_benchmark_group!(name = setup, benchmarks = summed);
library_benchmark_group!(name = table, benchmarks = [lookup, pick]);
library_benchmark_group!(name = generic, benchmarks = [scale_u8, scale_u32]);
library_benchmark_group!(name = files, benchmarks = read);
main!(library_benchmark_groups = twice, once, setup, table, generic, files);
EOF
    # A second suite (bench target) of the same package: a selected run on iai-callgrind leaves a
    # suite out only whole.
    printf '\n[[bench]]\nname = "shapes"\nharness = false\n' >>"$dir/changefix/Cargo.toml"
    cat >"$dir/changefix/benches/shapes.rs" <<'EOF'
use std::hint::black_box;

use gungraun::prelude::*;

#[library_benchmark]
#[bench::one(1)]
fn host(x: u64) -> u64 {
    black_box(changefix::host(black_box(x)))
}

#[library_benchmark]
#[bench::add(&changefix::Add)]
#[bench::mul(&changefix::Mul)]
fn run(op: &'static dyn changefix::Op) -> u64 {
    black_box(changefix::run(black_box(op), black_box(5)))
}

#[library_benchmark]
#[bench::one(3)]
fn norm(x: u64) -> u64 {
    let p = changefix::Point { x, y: 4, ..Default::default() };
    black_box(changefix::norm(black_box(&p)))
}

#[library_benchmark]
#[bench::one(1)]
fn scaled(x: u64) -> u64 {
    black_box(changefix::scaled(black_box(x)))
}

#[library_benchmark]
#[bench::all()]
fn blob() -> u64 {
    black_box(changefix::blob_sum())
}

library_benchmark_group!(name = inl, benchmarks = host);
library_benchmark_group!(name = dynamic, benchmarks = run);
library_benchmark_group!(name = point, benchmarks = norm);
library_benchmark_group!(name = path, benchmarks = scaled);
library_benchmark_group!(name = include, benchmarks = blob);
main!(library_benchmark_groups = inl, dynamic, point, path, include);
EOF
    if [ "$selects" = 0 ]; then
        # iai-callgrind: its crate at that version, its imports, `;` after a group's name and no
        # brackets around its benchmarks. The lock file is cargo's own for it.
        rm "$dir/Cargo.lock"
        sed -i "s/^gungraun = \"=0.20.0\"/iai-callgrind = \"=${library#*@}\"/" "$dir/changefix/Cargo.toml"
        local bench
        for bench in fixture shapes; do
            sed -i -e 's/^use gungraun::prelude::\*;/use iai_callgrind::{library_benchmark, library_benchmark_group, main};/' \
                -e 's/^library_benchmark_group!(name = \([a-z]*\), benchmarks = \[\{0,1\}\([a-z0-9_, ]*\)\]\{0,1\});/library_benchmark_group!(name = \1; benchmarks = \2);/' \
                "$dir/changefix/benches/$bench.rs"
            grep -q '^use iai_callgrind' "$dir/changefix/benches/$bench.rs" && ! grep -q 'benchmarks = \[' "$dir/changefix/benches/$bench.rs" ||
                die "could not write the suite $bench with $library"
        done
    fi
}

fixture=$work/fixture
generate "$fixture"
cd "$fixture"
# A budget of 0: any move of a touched benchmark fails; an untouched one is held to the address
# budget. No benchmark reads the sources or manifests at run time: say so, or the benchmark that
# reads a file at run time would count as touched by every change of them.
printf '[budgets]\nIr = { absolute = 0 }\n\n[layout]\nIr = { absolute = 16 }\n\n[change]\ninert = ["changefix/src/**", "changefix/tests/**", "changefix/Cargo.toml", "Cargo.lock"]\n' >gate.toml
commit() { git add -A && git -c user.name=t -c user.email=t@t commit --quiet -m "$1"; }
# The lock file as cargo completes it for this workspace, so that building leaves the tree clean.
cargo metadata --format-version 1 >/dev/null
git init --quiet && commit fixture
say "baselines and their code record at the first commit ($library)"
"$irgate" run --record >"$work/base-run.log" 2>&1 || { cat "$work/base-run.log" >&2; die "irgate run --record failed"; }
"$irgate" refresh >"$work/base-refresh.log" 2>&1 || { cat "$work/base-refresh.log" >&2; die "irgate refresh failed"; }
[ -f baselines/code/record.json ] || die "irgate refresh wrote no code record"
recorded=$(jq -r '.benchmarks | keys | length' baselines/code/record.json)
[ "$recorded" = 15 ] || die "the code record holds $recorded benchmarks, not 15"
commit baselines
base=$(git rev-parse HEAD)
all=$(jq -r '.benchmarks | keys[]' target/irgate/results.json | sort | tr '\n' ' ')

# judge NAME [ARGS...]: runs the suite fully and selected (ARGS passed to the selected run and its
# check), checks both, and compares; sets full_exit, old_exit, touched (the ids whose touch is not
# `untouched`, sorted), failed, carried, layout.
judge() {
    local name=$1 log=$work/$1
    local selected=("${@:2}")
    if [ "$dry" = 1 ]; then
        judge_dry "$@"
        return
    fi
    "$irgate" run >"$log-run.log" 2>&1 || { cat "$log-run.log" >&2; die "$name: irgate run failed"; }
    full_exit=0; "$irgate" check --format json >"$log-full.json" 2>"$log-full.err" || full_exit=$?
    old_exit=0; "$irgate" check --no-change-map >"$log-old.txt" 2>&1 || old_exit=$?
    "$irgate" check >"$log-full.txt" 2>&1 || true
    touched=$(jq -r '[.rows[] | select(.touch != null and .touch.kind != "untouched") | .benchmark] | unique | .[]' "$log-full.json" | sort | tr '\n' ' ')
    failed=$(jq -r '[.rows[] | select(.fails) | .benchmark] | unique | .[]' "$log-full.json" | sort | tr '\n' ' ')
    cp target/irgate/results.json "$log-full-results.json"
    "$irgate" run --only-touched "${selected[@]}" >"$log-sel-run.log" 2>&1 || { cat "$log-sel-run.log" >&2; die "$name: irgate run --only-touched failed"; }
    ran=$(jq -r '(.carried // []) as $c | .benchmarks | keys[] | select(. as $k | $c | index($k) | not)' target/irgate/results.json | sort | tr '\n' ' ')
    if [ "$selects" = 0 ]; then
        whole_suites "$name" "$log-sel-run.log"
        expect "$name: the benchmarks the selected run ran (the suites with a touched one, whole)" "$ran" "$whole"
    fi
    # Selected and full runs start each benchmark alike: every count that ran in both is equal.
    local differ
    differ=$(jq -r --slurpfile full "$log-full-results.json" \
        '.carried as $c | .benchmarks | to_entries[] | select(.key as $k | ($c // []) | index($k) | not)
         | select(.value.Ir != $full[0].benchmarks[.key].Ir) | .key' target/irgate/results.json)
    [ -z "$differ" ] || die "$name: the selected run counted other Ir than the full run for: $differ"
    local sel_exit=0; "$irgate" check --format json "${selected[@]}" >"$log-sel.json" 2>"$log-sel.err" || sel_exit=$?
    carried=$(jq -r '(.carried // [])[]' "$log-sel.json" | sort | tr '\n' ' ')
    [ "$sel_exit" = "$full_exit" ] || die "$name: the selected run's verdict (exit $sel_exit) differs from the full run's (exit $full_exit)"
    local sel_failed; sel_failed=$(jq -r '[.rows[] | select(.fails) | .benchmark] | unique | .[]' "$log-sel.json" | sort | tr '\n' ' ')
    [ "$sel_failed" = "$failed" ] || die "$name: the selected run fails [$sel_failed], the full run [$failed]"
    local shown=$touched
    [ "$touched" != "$all" ] || shown="every benchmark"
    say "$name: exit $full_exit (without the change map: $old_exit); touched [$shown]; failed [$failed]; the selected run ran $(wc -w <<<"$ran") of $(wc -w <<<"$all"), carried $(wc -w <<<"$carried")"
}
expect() { [ "$2" = "$3" ] || die "$1: expected [$3], got [$2]"; }
# verdict NAME GOT EXPECTED: `expect` of what only a measured step knows (an exit code, the
# failing set); nothing with --dry-run.
verdict() { [ "$dry" = 1 ] || expect "$@"; }
# whole_suites NAME LOG (iai-callgrind): checks that the selected run's LOG says it runs whole
# exactly the suites holding a touched benchmark and leaves out the others; sets whole to the
# benchmarks of the suites it runs (not printed: a `die` in a command substitution would only
# end the subshell).
whole_suites() {
    local name=$1 log=$2 suite id runs expected_ran=
    for suite in fixture shapes; do
        runs=0
        for id in $touched; do [ "$(suite_of "$id")" != "$suite" ] || runs=1; done
        if [ "$runs" = 1 ]; then
            for id in $all; do [ "$(suite_of "$id")" != "$suite" ] || expected_ran+="$id "; done
            grep -q "^irgate: --only-touched: suite changefix/$suite runs whole: .* cannot run benchmarks by id" "$log" ||
                { cat "$log" >&2; die "$name: the selected run does not say it runs the suite $suite whole"; }
        else
            grep -q "^irgate: --only-touched: suite changefix/$suite does not run: none of its" "$log" ||
                { cat "$log" >&2; die "$name: the selected run does not say it leaves out the suite $suite"; }
        fi
    done
    whole=$(tr ' ' '\n' <<<"$expected_ran" | sed '/^$/d' | sort | tr '\n' ' ')
}
# judge_dry NAME [ARGS...] (--dry-run): what `irgate run --only-touched --dry-run` says it would
# run; sets touched (the benchmarks it names as touched), ran and carried; the verdict is not known.
judge_dry() {
    local name=$1 log=$work/$1
    full_exit=- failed=-
    "$irgate" run --only-touched --dry-run "${@:2}" >"$log-dry.log" 2>&1 || { cat "$log-dry.log" >&2; die "$name: irgate run --only-touched --dry-run failed"; }
    touched=$(sed -nE 's/^irgate: --only-touched: runs ([^ ]+): .*/\1/p' "$log-dry.log" | sort | tr '\n' ' ')
    ran=$touched
    if [ "$selects" = 0 ]; then
        whole_suites "$name" "$log-dry.log"
        ran=$whole
    fi
    local not_run; not_run=$(sed -nE 's/^irgate: --only-touched: ([0-9]+) of 15 benchmarks executed none of the code.*/\1/p' "$log-dry.log")
    expect "$name: the benchmarks the dry run leaves out" "$not_run" $((15 - $(wc -w <<<"$ran")))
    carried=$(for id in $all; do grep -qw -- "$id" <<<"$ran" || echo "$id"; done | sort | tr '\n' ' ')
    say "$name: touched [$touched]; --only-touched --dry-run would run $(wc -w <<<"$ran") of 15, carry $not_run"
}
# suite_of ID: the bench target (suite) that holds benchmark ID, by its group.
suite_of() { case ${1%%::*} in inl | dynamic | point | path | include) echo shapes ;; *) echo fixture ;; esac; }
# shards_check NAME (after `judge NAME`): the selected run in 2 shards (`irgate run --only-touched
# --shard K/2`). Each shard holds its part of the benchmarks, runs the touched ones among them and
# carries the others; together the shards run exactly what the unsharded selected run ran, carry
# exactly what it carried with the same counts (the baselines'), and merged (`--from`) they give
# its results and its verdict.
shards_check() {
    local name=$1 log=$work/$1 k whole ran=() held=() shard_carried=()
    whole=$log-sel-results.json
    cp target/irgate/results.json "$whole"
    local unsharded_ran; unsharded_ran=$(jq -r '(.carried // []) as $c | .benchmarks | keys[] | select(. as $k | $c | index($k) | not)' "$whole" | sort | tr '\n' ' ')
    for k in 1 2; do
        "$irgate" run --only-touched --shard "$k/2" --results "$log-shard$k.json" >"$log-shard$k.log" 2>&1 ||
            { cat "$log-shard$k.log" >&2; die "$name: irgate run --only-touched --shard $k/2 failed"; }
        ran+=($(jq -r '(.carried // []) as $c | .benchmarks | keys[] | select(. as $k | $c | index($k) | not)' "$log-shard$k.json"))
        held+=($(jq -r '.benchmarks | keys[]' "$log-shard$k.json"))
        shard_carried+=($(jq -r '(.carried // [])[]' "$log-shard$k.json"))
        # A carried count is the baselines', as in the unsharded run.
        local differ
        differ=$(jq -r --slurpfile whole "$whole" '(.carried // [])[] as $id | select(.benchmarks[$id].Ir != $whole[0].benchmarks[$id].Ir) | $id' "$log-shard$k.json")
        [ -z "$differ" ] || die "$name: shard $k/2 carried other counts than the unsharded run for: $differ"
    done
    expect "$name: benchmarks held by the shards (each in one)" "$(printf '%s\n' "${held[@]}" | sort | tr '\n' ' ')" "$all"
    expect "$name: benchmarks the shards ran" "$(printf '%s\n' "${ran[@]}" | sed '/^$/d' | sort | tr '\n' ' ')" "$unsharded_ran"
    expect "$name: benchmarks the shards carried" "$(printf '%s\n' "${shard_carried[@]}" | sed '/^$/d' | sort | tr '\n' ' ')" "$carried"
    "$irgate" run --from "$log-shard1.json" --from "$log-shard2.json" --results "$log-merged.json" >"$log-merge.log" 2>&1 ||
        { cat "$log-merge.log" >&2; die "$name: merging the shards failed"; }
    local same; same=$(jq -S --slurpfile whole "$whole" '[.benchmarks == $whole[0].benchmarks, ((.carried // []) | sort) == (($whole[0].carried // []) | sort)]' "$log-merged.json" | tr -d ' \n')
    [ "$same" = "[true,true]" ] || die "$name: the merged shards' counts or carried list differ from the unsharded selected run's ($same)"
    local merged_exit=0; "$irgate" check --results "$log-merged.json" >"$log-merged.txt" 2>&1 || merged_exit=$?
    expect "$name: the merged shards' verdict (exit)" "$merged_exit" "$full_exit"
    say "$name: in 2 shards, --only-touched ran [$(printf '%s ' "${ran[@]}")] and carried $(wc -w <<<"${shard_carried[*]}"): the unsharded selection, the same counts and verdict"
}
# record_check NAME KEPT (after `judge NAME`, measured steps only): `irgate run --record` keeps
# the baselines' record entries of the suites in KEPT (space-separated; every benchmark of each is
# untouched and counted the same), records the others again, and writes the same code record,
# byte for byte, as a run that records every benchmark (with no baselines to keep from).
record_check() {
    local name=$1 log=$work/$1 suite kept_said=
    [ "$dry" = 0 ] || return 0
    "$irgate" run --record --results "$log-rec.json" >"$log-rec.log" 2>&1 ||
        { cat "$log-rec.log" >&2; die "$name: irgate run --record failed"; }
    for suite in fixture shapes; do
        if grep -q "^irgate: suite changefix/$suite: not recorded again: " "$log-rec.log"; then kept_said+="$suite "; fi
    done
    expect "$name: the suites whose record entries --record kept" "$kept_said" "$2"
    "$irgate" run --record --baselines "$work/no-baselines" --results "$log-fresh.json" >"$log-fresh.log" 2>&1 ||
        { cat "$log-fresh.log" >&2; die "$name: irgate run --record (everything) failed"; }
    cmp -s "$log-rec.code.json" "$log-fresh.code.json" ||
        die "$name: the record that kept entries of [$2] differs from one that recorded everything ($log-rec.code.json, $log-fresh.code.json)"
    say "$name: --record kept the entries of [$2]: the same record as recording everything"
}
step() { git checkout --quiet --force --detach "$base"; }

step; sed -i 's/^version = "0.1.0"/version = "0.1.1"/' changefix/Cargo.toml; sed -i 's/^inert = .*/inert = ["changefix\/src\/**"]/' gate.toml; commit uninert
judge uninert
# The benchmark that reads a file at run time was observed to read its data file, not the
# manifest (before observed inputs: touched, as it "may read files").
expect "uninert: touched" "$touched" ""
verdict "uninert: exit" "$full_exit" 0

step; sed -i 's/    x.wrapping_mul(31).rotate_left(7)/    let mut y = x;\n    for _ in 0..4 {\n        y = y.wrapping_mul(31).rotate_left(7);\n    }\n    y/' changefix/src/lib.rs; commit shared
judge shared
expect "shared: touched" "$touched" "twice::shared/one twice::shared/two "
record_check shared "shapes "
verdict "shared: failed" "$failed" "twice::shared/one twice::shared/two "
verdict "shared: exit" "$full_exit" 1
if [ "$selects" = 1 ]; then
    expect "shared: carried" "$(wc -w <<<"$carried")" $(($(wc -w <<<"$all") - 2))
    [ "$dry" = 1 ] || shards_check shared
else
    expect "shared: carried (the suite shapes, whole)" "$carried" "dynamic::run/add dynamic::run/mul include::blob/all inl::host/one path::scaled/one point::norm/one "
fi

step; sed -i 's/(0..n as u64)/(0..(n + n \/ 2) as u64)/' changefix/src/lib.rs; commit setup
judge setup
expect "setup: touched" "$touched" "setup::summed/input "
verdict "setup: failed" "$failed" "setup::summed/input "
verdict "setup: exit" "$full_exit" 1

step; sed -i 's/^pub const STEP: u64 = 3;/pub const STEP: u64 = 5;/' changefix/src/lib.rs; commit const
judge const
expect "const: touched" "$touched" "once::lonely/one "

step; sed -i 's/\[11, 13, 17, 19, 23, 29, 31, 37\]/[11, 13, 17, 41, 23, 29, 31, 37]/' changefix/src/lib.rs; commit table
judge table
expect "table: touched" "$touched" "table::lookup/three "

step; sed -i 's/    x.into().wrapping_mul(7)/    if std::mem::size_of::<T>() == 1 {\n        return x.into().wrapping_mul(11);\n    }\n    x.into().wrapping_mul(7)/' changefix/src/lib.rs; commit generic
judge generic
expect "generic: touched" "$touched" "generic::scale_u8/byte "

step; head -c 96 /dev/urandom >changefix/data/input.bin; commit data
judge data
expect "data: touched" "$touched" "files::read/data "
verdict "data: failed" "$failed" "files::read/data "

step; sed -i 's/    x ^ 0x5a$/    (x ^ 0x5a).wrapping_mul(3)/' changefix/src/lib.rs; commit inline
judge inline
expect "inline: touched" "$touched" "inl::host/one "
record_check inline "fixture "
# The change map names the inlined function and its changed line, inlined into `host`.
[ "$dry" = 1 ] || jq -e '[.change.functions[] | select(.inlined == "tiny" and .name == "changefix::host"
        and .file == "changefix/src/lib.rs" and (.lines | length) > 0)] | length == 1' "$work/inline-full.json" >/dev/null ||
    die "inline: the change map does not name \`tiny\` with its lines, inlined into \`changefix::host\`"

step; sed -i 's/        x.wrapping_mul(19)/        x.wrapping_mul(19).rotate_left(2)/' changefix/src/lib.rs; commit dyn
judge dyn
expect "dyn: touched" "$touched" "dynamic::run/mul "

step; sed -i 's|^    pub y: u64,|    pub y: u64,\n    /// A tag.\n    pub tag: [u8; 3],|' changefix/src/lib.rs; commit field
judge field
expect "field: touched" "$touched" "point::norm/one "

step; sed -i 's/FACTOR: u64 = 3/FACTOR: u64 = 5/' changefix/tests/factor.rs; commit path
judge path
expect "path: touched" "$touched" "path::scaled/one "

step; head -c 48 /dev/zero | tr '\0' '\1' >changefix/include/blob.bin; commit include
judge include
# The bytes are compiled in (blob_sum reads them); no benchmark was observed to read the file at
# run time (before observed inputs, the one that may read files was touched too).
expect "include: touched" "$touched" "include::blob/all "

step; sed -i 's/    x.rotate_left(5) ^ 0x55/    x.rotate_left(5) ^ x.rotate_right(9) ^ 0x55/' changefix/src/lib.rs; commit unrun
judge unrun
expect "unrun: touched" "$touched" ""
verdict "unrun: exit" "$full_exit" 0
expect "unrun: carried" "$carried" "$all"

step; printf '\n/// Run by nothing.\npub fn unused(x: u64) -> u64 {\n    x ^ 0xdead\n}\n' >>changefix/src/lib.rs; commit unused
judge unused
expect "unused: touched" "$touched" ""
verdict "unused: exit" "$full_exit" 0

step; sed -i 's|^/// Run by the two `shared` benchmarks.|/// Run by the two `shared` benchmarks.\n///\n/// A second paragraph.|' changefix/src/lib.rs; commit doc
judge doc
expect "doc: touched" "$touched" ""
verdict "doc: exit" "$full_exit" 0
record_check doc "fixture shapes "

step; sed -i 's|^/// Indexes with a bounds check that never fails here.|/// Indexes with a bounds check that never fails here.\n///\n/// A second paragraph moves its lines, and so its panic location.|' changefix/src/lib.rs; commit bounds
judge bounds
expect "bounds: touched" "$touched" ""
verdict "bounds: exit" "$full_exit" 0

step; sed -i 's/^version = "0.1.0"/version = "0.2.0"/' changefix/Cargo.toml; cargo metadata --format-version 1 >/dev/null; commit version
judge version
expect "version: touched" "$touched" ""
verdict "version: exit" "$full_exit" 0
# The record and the baselines are one, and where the record comes from (issue #40): on the
# library whose runner selects by id (the selected runs' reasons are read).
if [ "$selects" = 1 ] && [ "$dry" = 0 ]; then
# The record and the baselines are one (issue #40). A speedup of `make_input` is accepted from a
# run without --record, then reverted: the slowdown comes back in byte for byte the record's code.
# The refresh removes the record's entry of the benchmark whose count it changed (no old entry
# beside a new count), so the selected run runs it and fails like the full one.
step; sed -i 's/(0..n as u64)/(0..(n \/ 2) as u64)/' changefix/src/lib.rs; commit accept
"$irgate" run >"$work/accept-run.log" 2>&1 || { cat "$work/accept-run.log" >&2; die "accept: irgate run failed"; }
"$irgate" refresh >"$work/accept-refresh.log" 2>&1 || { cat "$work/accept-refresh.log" >&2; die "accept: irgate refresh failed"; }
grep -q "no longer describe their baselines and were removed" "$work/accept-refresh.log" || die "accept: refresh did not say it removed entries"
expect "accept: the record keeps an entry of setup::summed/input (whose count changed)" \
    "$(jq -r '.benchmarks | has("setup::summed/input")' baselines/code/record.json)" false
say "accept: refreshed without --record; the record keeps $(jq -r '.benchmarks | keys | length' baselines/code/record.json) of 15 entries"
commit "accept without --record"
accepted=$(git rev-parse HEAD)
git checkout --quiet "$base" -- changefix/src/lib.rs; commit revert
# (A benchmark whose count addresses moved at the accept lost its entry too: it runs and fails
# back, in both runs alike.)
judge revert
has() { grep -qw -- "$2" <<<"$1"; }
has "$touched" setup::summed/input || die "revert: setup::summed/input is not touched ($touched)"
has "$failed" setup::summed/input || die "revert: setup::summed/input does not fail ($failed)"
verdict "revert: exit" "$full_exit" 1
grep -q "setup::summed/input: counted as touched: its code record no longer held" "$work/revert-sel-run.log" || die "revert: the selected run does not say why it runs setup::summed/input"
# The same with the record as an irgate before counts in records left it (the old entry beside the
# new count): the entry is void at selection.
# (the record of the first commit, whose entry of `setup::summed/input` has the count it had
# there)
git checkout --quiet --force --detach "$accepted"; git checkout --quiet "$base" -- baselines/code/record.json
commit "the old record beside the new count"
git checkout --quiet "$base" -- changefix/src/lib.rs; commit revert-old-record
judge revert-old-record
has "$touched" setup::summed/input || die "revert-old-record: setup::summed/input is not touched ($touched)"
has "$failed" setup::summed/input || die "revert-old-record: setup::summed/input does not fail ($failed)"
verdict "revert-old-record: exit" "$full_exit" 1
grep -q "setup::summed/input: counted as touched: its code record describes another count than its baseline" "$work/revert-old-record-sel-run.log" ||
    die "revert-old-record: the selected run does not say the entry describes another count"

# A record from the tree under test (issue #40): a commit slows `shared`, the next one edits the
# record to name that commit. Locally the record names a commit no file changed since, yet its
# code differs from the build: refused, everything runs. Read from the base commit (what the
# GitHub Action passes), the pull request's record is not used, and changing baselines/ runs
# everything.
step; sed -i 's/    x.wrapping_mul(31).rotate_left(7)/    let mut y = x;\n    for _ in 0..4 {\n        y = y.wrapping_mul(31).rotate_left(7);\n    }\n    y/' changefix/src/lib.rs; commit slower
jq --arg commit "$(git rev-parse HEAD)" '.commit = $commit' baselines/code/record.json >"$work/forged.json"
cp "$work/forged.json" baselines/code/record.json; commit "a record that names the slower commit"
judge forged
has "$failed" twice::shared/one && has "$failed" twice::shared/two || die "forged: twice::shared/* do not fail ($failed)"
verdict "forged: exit" "$full_exit" 1
grep -q "running every benchmark: no file changed since the code record's commit" "$work/forged-sel-run.log" || die "forged: the selected run does not say why it runs everything"
judge forged-ci --record-from "$base"
verdict "forged-ci: exit" "$full_exit" 1
expect "forged-ci: carried" "$carried" ""
grep -q "running every benchmark: the change alters the baselines since" "$work/forged-ci-sel-run.log" || die "forged-ci: the selected run does not say the baselines changed"
jq -e '.change.unmapped | test("alters the baselines")' "$work/forged-ci-sel.json" >/dev/null || die "forged-ci: the report does not say the baselines changed"
fi
if [ "$dry" = 1 ]; then
    say "PASS ($library, --dry-run): every step's selection as expected (no step measured)"
else
    say "PASS ($library): touched sets, verdicts and selected runs as expected; every selected verdict equals the full run's"
fi
