#!/usr/bin/env bash
# `irgate run --shard K/N`: this repository's callgrind suite run whole, then as 3 shards one after
# the other, and the shards merged with `irgate run --from`. The merged results must equal the
# whole run's: the same benchmarks, every count identical, the same suites, filters and features,
# and the same per-function profiles (exit 1 otherwise). Each benchmark must be in exactly one
# shard. The whole run takes one job (--jobs 1), the shards one per core: equal counts also say
# that --jobs does not move them. Prints the wall time of the whole run and of each shard, and
# the load average.
# The suite is built first, so no timed run includes the build. Needs valgrind, jq and the
# runner. About 6 minutes here (2 cores, load 2 to 4).
#
# usage: scripts/shard-merge.sh [SHARDS]
set -euo pipefail
cd "$(dirname "$0")/.."
die() { printf 'shard-merge: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"
shards=${1:-3}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --quiet --locked -p irgate
irgate=${CARGO_TARGET_DIR:-target}/debug/irgate

echo "shard-merge: building the suite (not timed)"
"$irgate" run 'varint::encode/*' --results "$work/warm/results.json" >"$work/warm.log" 2>&1 ||
    { cat "$work/warm.log" >&2; die "irgate run failed"; }

# timed NAME ARGS...: runs `irgate run ARGS --results $work/NAME/results.json`; prints its wall
# time in seconds.
timed() {
    local name=$1 start end
    shift
    start=$(date +%s.%N)
    "$irgate" run "$@" --results "$work/$name/results.json" >"$work/$name.log" 2>&1 ||
        { cat "$work/$name.log" >&2; die "irgate run $* failed"; }
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}
echo "shard-merge: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
# The whole run takes one job and the shards one per core, so the comparison below also proves
# that counts do not depend on --jobs.
whole=$(timed whole --jobs 1)
times=()
sources=()
for k in $(seq 1 "$shards"); do
    times+=("$(timed "shard$k" --shard "$k/$shards")")
    sources+=(--from "$work/shard$k")
    grep '^irgate: shard\|^irgate: suite .*, shard' "$work/shard$k.log" | sed 's/^/  /'
done
echo "shard-merge: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$irgate" run "${sources[@]}" --results "$work/merged/results.json" >"$work/merged.log" 2>&1 ||
    { cat "$work/merged.log" >&2; die "merging the shards failed"; }

total=$(jq '.benchmarks | length' "$work/whole/results.json")
[ "$total" -gt 0 ] || die "the whole run holds no benchmarks"
sum=0
for k in $(seq 1 "$shards"); do
    sum=$((sum + $(jq '.benchmarks | length' "$work/shard$k/results.json")))
done
[ "$sum" -eq "$total" ] || die "the shards hold $sum benchmarks, the whole run $total"
same() { # same WHAT FILE-SUFFIX JQ: the whole run's and the merged run's JQ of the file agree
    if ! diff <(jq -S "$3" "$work/whole/results$2.json") <(jq -S "$3" "$work/merged/results$2.json") >"$work/diff"; then
        head -n 40 "$work/diff" | sed 's/^/  /' >&2
        die "$1 differ between the whole run (<) and the merged shards (>)"
    fi
}
same "counts" "" .benchmarks
same "suites, filters or features" "" '[.suites, .filters, .features]'
same "the benchmarks with a duration" "" '.durations_ms | keys'
same "per-function profiles" ".profiles" .
echo "shard-merge: $total benchmarks in $shards disjoint shards; merged, every count and profile equals the whole run's"
echo "shard-merge: whole run: ${whole} s; shards: ${times[*]} s (one after the other here, at once in CI)"
