#!/usr/bin/env bash
# End to end: the gate catches a known regression, on exactly the benchmarks it touches.
#
# Runs the callgrind suite twice on this machine: as it is, and built with codec's
# `inject-slowdown` feature, which adds a fixed amount of work (a black_box loop) to every
# filter-chain dispatch (`Chain::apply`) and nowhere else. Baselines are taken from the first run in a scratch directory
# (baselines/ is not touched), then the second run is checked against them:
#   1. with an absolute budget of 10 Ir and no relative slack, `irgate check` exits 1 and fails
#      exactly the benchmarks that run the filter chain (the `filter` and `pipeline` groups): a
#      fixed few dozen Ir are a few thousandths of a percent of a compressed 16 KiB pipeline,
#      below any relative budget;
#   2. with the repository's gate.toml, `irgate check` exits 1, and only on such benchmarks.
# Needs valgrind, gungraun-runner (make install-runner) and jq. About 5 minutes here (two builds
# and two runs of the suite).
#
# usage: scripts/e2e-regression.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

die() { printf 'e2e-regression: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
irgate() { scripts/irgate "$@"; }

echo "e2e-regression: the suite as it is"
irgate run --results "$work/base.json"
echo "e2e-regression: the suite with codec/inject-slowdown"
irgate run --features codec/inject-slowdown --results "$work/slow.json"
irgate refresh --results "$work/base.json" --baselines "$work/baselines" >/dev/null

# check CONFIG: runs irgate check against the scratch baselines; prints the failing benchmarks.
check() {
    local code=0
    irgate check --config "$1" --baselines "$work/baselines" --results "$work/slow.json" \
        --format json >"$work/report.json" || code=$?
    [ "$code" -eq 1 ] || die "irgate check --config $1 exited $code, expected 1 (a budget exceeded)"
    failing_benchmarks "$work/report.json"
}
chain=$(filter_chain_benchmarks "$work/base.json")
[ -n "$chain" ] || die "the suite has no filter:: or pipeline:: benchmarks"

printf '[budgets]\nIr = { relative_pct = 0.0, absolute = 10 }\n' >"$work/absolute.toml"
failing=$(check "$work/absolute.toml")
if [ "$failing" != "$chain" ]; then
    diff <(echo "$chain") <(echo "$failing") | sed 's/^/  /' >&2 || true
    die "with a 10 Ir budget the gate must fail exactly the filter-chain benchmarks (< expected, > failed)"
fi
echo "e2e-regression: 10 Ir budget: exit 1 on exactly the $(wc -l <<<"$chain") filter-chain benchmarks"

failing=$(check gate.toml)
stray=$(comm -13 <(echo "$chain") <(echo "$failing"))
[ -z "$stray" ] || die "gate.toml failed benchmarks that do not run the filter chain: $stray"
echo "e2e-regression: gate.toml: exit 1 on $(wc -l <<<"$failing") filter-chain benchmarks, no other"
echo "e2e-regression: ok"
