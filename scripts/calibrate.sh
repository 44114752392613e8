#!/usr/bin/env bash
# Calibration: how much each benchmark's count moves between builds of the same commit that differ
# only in what no benchmark runs (code layout, codegen partitioning, symbol names), then the
# spread and the suggested budgets (`irgate calibrate`).
#
# Each variant builds and runs the whole callgrind suite (`irgate run`). Variants that change the
# compiler's settings build in their own target directory (everything is rebuilt anyway); the
# directories' paths have the same length, since the executable's path length moves counts
# (docs/container.md). `unrel` only adds a feature, so it shares base's directory and rebuilds
# just the benchmarked crate and the benches. The variants:
#   base     the build as it is
#   cgu1     CARGO_PROFILE_BENCH_CODEGEN_UNITS=1: one codegen unit per crate instead of 16, so
#            LLVM sees (and inlines across) a whole crate at once
#   cgu4     CARGO_PROFILE_BENCH_CODEGEN_UNITS=4: another partitioning of the same code
#   meta     RUSTFLAGS=-Cmetadata=irgate-calibrate: every symbol's hash changes, so the order of
#            functions in codegen units and in the binary changes
#   sort     RUSTFLAGS=-Clink-arg=-Wl,--sort-section=name: the linker lays the sections out by
#            name instead of input order
#   unrel    codec's `layout-perturbation` feature: unrelated code added to the benchmarked
#            crate (a second caller of the hot functions on a path no benchmark runs)
# Each variant: a build (a cold one for all but `unrel`) and one run of the suite (about 2 minutes
# on a quiet 2-core machine; 20 minutes and more with other builds running). Results: $OUT/<variant>.json, then
# `irgate calibrate` over them.
#
# usage: scripts/calibrate.sh OUT_DIR [VARIANT...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: scripts/calibrate.sh OUT_DIR [VARIANT...]}")
shift
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(base cgu1 cgu4 meta sort unrel)
mkdir -p "$out"
irgate=${IRGATE:-$(cargo build --quiet --locked -p irgate --message-format=json \
    | jq -r 'select(.executable != null and .target.name == "irgate") | .executable')}
for variant in "${variants[@]}"; do
    env=() features=()
    case "$variant" in
        base) ;;
        cgu1) env=(CARGO_PROFILE_BENCH_CODEGEN_UNITS=1) ;;
        cgu4) env=(CARGO_PROFILE_BENCH_CODEGEN_UNITS=4) ;;
        meta) env=(RUSTFLAGS=-Cmetadata=irgate-calibrate) ;;
        sort) env=("RUSTFLAGS=-Clink-arg=-Wl,--sort-section=name") ;;
        unrel) features=(--features codec/layout-perturbation) ;;
        *) echo "calibrate: unknown variant $variant" >&2; exit 2 ;;
    esac
    dir=$variant
    [ "$variant" = unrel ] && dir=base
    start=$(date +%s)
    echo "calibrate: $variant ${env[*]} ${features[*]}"
    env "${env[@]}" CARGO_TARGET_DIR="$out/target-$(printf '%-5s' "$dir" | tr ' ' _)" \
        "$irgate" run "${features[@]}" --results "$out/$variant.json" >"$out/$variant.log" 2>&1
    echo "calibrate: $variant took $(( $(date +%s) - start )) s"
done
