#!/usr/bin/env bash
# The load table of demo/proxy/README.md: direct against proxied on this machine, for two payloads
# and three framings, then repeated runs of one profile for the noise verdict.
#
# For each framing, starts an echo backend and an irproxy in front of it (filters scan + count,
# the same framing on both sides), runs RUNS open-loop runs directly against the backend and RUNS
# through the proxy (alternating), and compares them with `irload compare`. Reports go to OUT
# (default target/proxy-table). Every process is bounded and killed on exit.
#
# usage: scripts/proxy-table.sh [DURATION_SECS [RUNS]]   (defaults: 20 s, 1 run per side)
#   RATE=250 ...      packets per second per connection (default 1000)
#   ONLY=b4096-zlib-aes ...   only the profiles whose name contains this
#   NOISE_RUNS=5 ONLY=none ...   only the noise section: 5 runs a side of 256 B plain
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-20}
runs=${2:-1}
noise_runs=${NOISE_RUNS:-0}
rate=${RATE:-1000}
only=${ONLY:-}
out=${OUT:-target/proxy-table}
mkdir -p "$out"

cargo build --quiet --release --locked -p proxy --bins
bin="${CARGO_TARGET_DIR:-target}/release"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

address_of() {
  for _ in $(seq 100); do
    addr=$(sed -n "s/$2/\1/p" "$1")
    [ -n "$addr" ] && { echo "$addr"; return; }
    sleep 0.1
  done
  echo "proxy-table: no address in $1" >&2; exit 1
}

# profile NAME PAYLOAD RUNS DURATION WIRE-FLAGS...
profile() {
  local name=$1 payload=$2 n=$3 secs=$4; shift 4
  [[ $name == *"$only"* ]] || return 0
  local wire=("$@") proxy_wire=()
  for flag in "${wire[@]}"; do
    case $flag in
      --threshold) proxy_wire+=(--client-threshold) ;;
      --encrypt) proxy_wire+=(--client-encrypt --backend-encrypt) ;;
      *) proxy_wire+=("$flag" --backend-threshold "$flag") ;;
    esac
  done
  "$bin/irload" echo --listen 127.0.0.1:0 "${wire[@]}" --exit-after 3600 >"$out/$name.echo" 2>&1 &
  local echo_pid=$!; pids+=("$echo_pid")
  local backend; backend=$(address_of "$out/$name.echo" '.*listening on \(.*\)')
  "$bin/irproxy" --listen 127.0.0.1:0 --backend "$backend" "${proxy_wire[@]}" \
    --filter scan --filter count --exit-after 3600 >"$out/$name.proxy" 2>&1 &
  local proxy_pid=$!; pids+=("$proxy_pid")
  local front; front=$(address_of "$out/$name.proxy" '.*listening on \([^,]*\),.*')
  local load=(--connections 2 --rate "$rate" --payload "$payload" "${wire[@]}" --warmup 2 --duration "$secs")
  for i in $(seq "$n"); do
    "$bin/irload" run --target "$backend" --label direct "${load[@]}" --json "$out/$name.direct.$i.json" >/dev/null
    "$bin/irload" run --target "$front" --label proxied "${load[@]}" --json "$out/$name.proxied.$i.json" >/dev/null
  done
  kill "$echo_pid" "$proxy_pid"
  echo "== $name"
  "$bin/irload" compare --base "$out/$name.direct."*.json --new "$out/$name.proxied."*.json \
    | tee "$out/$name.compare.txt"
}

for payload in 256 4096; do
  profile "b$payload-plain" "$payload" "$runs" "$duration"
  profile "b$payload-zlib" "$payload" "$runs" "$duration" --threshold 256
  profile "b$payload-zlib-aes" "$payload" "$runs" "$duration" --threshold 256 --encrypt
done
if [ "$noise_runs" -gt 0 ]; then
  only=noise
  profile "noise-b256-plain" 256 "$noise_runs" "$duration"
  "$bin/irload" compare --base "$out/noise-b256-plain.direct."*.json \
    --new "$out/noise-b256-plain.proxied."*.json --format markdown >"$out/noise.md"
fi
