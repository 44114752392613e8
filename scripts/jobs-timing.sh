#!/usr/bin/env bash
# `irgate run --jobs`: the callgrind suite run with 1 job and with 2 jobs, one after the other in
# one invocation. Every count of every benchmark (Ir and the other metrics) must be identical
# (exit 1 otherwise); prints both wall times, their ratio and the load average, for docs/ab.md and docs/scale.md.
# The suite is built first, so neither timed run includes the build. Needs valgrind, jq and the
# runner. About 3 minutes here.
#
# usage: scripts/jobs-timing.sh [FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
die() { printf 'jobs-timing: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --quiet --locked -p irgate
irgate=${CARGO_TARGET_DIR:-target}/debug/irgate

echo "jobs-timing: building the suite (not timed)"
"$irgate" run --jobs 1 'varint::encode/*' --results "$work/warm.json" >"$work/warm.log" 2>&1 ||
    { cat "$work/warm.log" >&2; die "irgate run failed"; }

# timed JOBS: runs the suite with JOBS jobs; prints its wall time in seconds.
timed() {
    local start end
    start=$(date +%s.%N)
    "$irgate" run --jobs "$1" ${2:+"$2"} --results "$work/jobs$1.json" >"$work/jobs$1.log" 2>&1 ||
        { cat "$work/jobs$1.log" >&2; die "irgate run --jobs $1 failed"; }
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}
echo "jobs-timing: load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
one=$(timed 1 "${1:-}")
two=$(timed 2 "${1:-}")
echo "jobs-timing: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

count=$(jq '.benchmarks | length' "$work/jobs1.json")
[ "$count" -gt 0 ] || die "the run with 1 job holds no benchmarks"
if ! diff <(jq -S .benchmarks "$work/jobs1.json") <(jq -S .benchmarks "$work/jobs2.json") >"$work/diff"; then
    head -n 40 "$work/diff" | sed 's/^/  /' >&2
    die "counts differ between --jobs 1 (<) and --jobs 2 (>)"
fi
echo "jobs-timing: $count benchmarks, every count identical with 1 and 2 jobs"
ratio=$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.2f", b / a }')
echo "jobs-timing: --jobs 1: ${one} s, --jobs 2: ${two} s, ratio ${ratio}"
