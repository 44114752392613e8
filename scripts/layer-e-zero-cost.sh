#!/usr/bin/env bash
# Layer E costs zero instructions when it is off. Runs proxy's callgrind bench
# (demo/proxy/benches/layer_e.rs: one 512-byte frame through the pipeline the proxy builds and
# through one built from codec alone, with 0 and 1 passthrough filters) twice: without the
# `timing` feature every proxy-built case must count exactly the Ir of its codec-built twin; with
# it, strictly more (so the bench can see the feature at all). Needs valgrind, gungraun-runner
# (make install-runner) and jq. About 3 minutes here from a warm build directory (two release
# builds of the bench).
#
# usage: scripts/layer-e-zero-cost.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

die() { printf 'layer-e-zero-cost: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summaries=$(realpath -m "${CARGO_TARGET_DIR:-target}")/gungraun/proxy/layer_e

# Prints "<benchmark> <Ir>" per bench: the bench saves its gungraun summaries, irgate reads them
# (`irgate run --from`) into a results file.
irs() {
  rm -rf "$summaries"
  cargo bench --quiet --locked -p proxy --bench layer_e "$@" -- --save-summary=json >/dev/null
  scripts/irgate run --from "$summaries" --results "$work/layer_e.json" >/dev/null
  benchmark_irs "$work/layer_e.json"
}

check() {
  local counts=$1 relation=$2
  for n in n0 n1; do
    codec=$(awk -v k="layer_e::codec_pipeline/$n" '$1 == k { print $2 }' <<<"$counts")
    proxy=$(awk -v k="layer_e::proxy_pipeline/$n" '$1 == k { print $2 }' <<<"$counts")
    [ -n "$codec" ] && [ -n "$proxy" ] || die "missing counts for $n in: $counts"
    echo "layer-e-zero-cost: $n: codec-built $codec Ir, proxy-built $proxy Ir ($relation expected)"
    case $relation in
      equal) [ "$proxy" -eq "$codec" ] || die "timing off, yet the proxy-built pipeline costs $((proxy - codec)) Ir more" ;;
      more) [ "$proxy" -gt "$codec" ] || die "timing on, yet the bench sees no extra instructions" ;;
    esac
  done
}

check "$(irs)" equal
check "$(irs --features timing)" more
echo "layer-e-zero-cost: OK"
