#!/usr/bin/env bash
# Smoke test of layers D and E: the proxy and the load tool, for real, on loopback, in seconds.
#
# Builds irproxy and irload (release), starts the echo backend and the proxy in front of it on
# ephemeral ports (compression above 256 B and AES-CFB8 on both sides), then:
#   1. a short open-loop run directly against the backend and one through the proxy; each
#      report's JSON shape is checked and nothing may be lost;
#   2. `irload compare` of the two, as text and as a markdown section;
#   3. a stress run through the proxy: every kind of malformed connection must be closed by the
#      proxy, the well-behaved load must lose nothing, and the proxy must still be up (its
#      process alive, a fresh connection echoed) with its resident memory under 256 MiB.
# Every process it starts is bounded (--exit-after) and killed on exit. Needs jq. About 15 s
# after the build here.
#
# usage: scripts/proxy-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

die() { printf 'proxy-smoke: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

cargo build --quiet --release --locked -p proxy --bins
bin="${CARGO_TARGET_DIR:-target}/release"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for a server to print its address; prints it.
address_of() {
  local file=$1 pattern=$2
  for _ in $(seq 100); do
    addr=$(sed -n "s/$pattern/\1/p" "$file")
    [ -n "$addr" ] && { echo "$addr"; return; }
    sleep 0.1
  done
  die "no address in $file: $(cat "$file" "$file.err" 2>/dev/null)"
}

wire=(--threshold 256 --encrypt)
"$bin/irload" echo --listen 127.0.0.1:0 "${wire[@]}" --exit-after 120 \
  >"$work/echo" 2>"$work/echo.err" &
pids+=($!)
backend=$(address_of "$work/echo" '.*listening on \(.*\)')
"$bin/irproxy" --listen 127.0.0.1:0 --backend "$backend" \
  --client-threshold 256 --client-encrypt --backend-threshold 256 --backend-encrypt \
  --filter scan --filter count --idle-timeout 2 --exit-after 120 \
  >"$work/proxy" 2>"$work/proxy.err" &
proxy_pid=$!
pids+=("$proxy_pid")
proxy=$(address_of "$work/proxy" '.*listening on \([^,]*\),.*')
echo "proxy-smoke: echo backend on $backend, proxy on $proxy"

load=(--connections 2 --rate 500 --payload 256 "${wire[@]}" --warmup 1 --duration 2 --drain 5)
check_report() {
  jq -e '
    .schema == "irload-report/1"
    and (.profile | has("payload_bytes") and has("connections") and has("rate_per_connection")
         and has("wire") and has("tool_version") and has("machine"))
    and .profile.payload_bytes == 256 and .profile.connections == 2
    and .profile.wire == {"threshold": 256, "encrypt": true}
    and .sent == 2000 and .received == .sent and .lost == 0 and .errors == []
    and .packets_per_sec > 0 and .mib_per_sec > 0
    and ([.latency_us, .service_us][] | .samples == 2000
         and (.p50 <= .p90) and (.p90 <= .p99) and (.p99 <= .p99_9) and (.p99_9 <= .max))
  ' "$1" >/dev/null || die "report $1 has the wrong shape or lost packets: $(cat "$1")"
}

echo "proxy-smoke: load, direct and through the proxy"
"$bin/irload" run --target "$backend" --label direct "${load[@]}" --json "$work/direct.json"
check_report "$work/direct.json"
"$bin/irload" run --target "$proxy" --label proxied "${load[@]}" --json "$work/proxied.json"
check_report "$work/proxied.json"

echo "proxy-smoke: compare"
"$bin/irload" compare --base "$work/direct.json" --new "$work/proxied.json"
"$bin/irload" compare --base "$work/direct.json" --new "$work/proxied.json" --format markdown \
  >"$work/compare.md"
grep -q '^### Load test (informational, never gated)' "$work/compare.md" || die "no markdown section"
"$bin/irload" compare --base "$work/direct.json" --new "$work/proxied.json" --format json \
  >"$work/compare.json"
jq -e '.rows | length == 6' "$work/compare.json" >/dev/null || die "compare JSON lacks its six rows"
jq '.profile.payload_bytes = 4096' "$work/direct.json" >"$work/other.json"
if "$bin/irload" compare --base "$work/other.json" --new "$work/proxied.json" 2>"$work/refused"; then
  die "compare accepted runs of different profiles"
fi
grep -q 'differ in payload' "$work/refused" || die "unexpected refusal: $(cat "$work/refused")"

echo "proxy-smoke: stress through the proxy"
"$bin/irload" stress --target "$proxy" --label stress "${load[@]}" \
  --close-within 6 --json "$work/stress.json" || die "the stress run was not clean"
jq -e '
  .profile.stress == true and .lost == 0 and .received == .sent
  and .stress.target_up_after == true
  and ([.stress.attacks[] | .attempts > 0 and .closed == .attempts] | all)
  and ([.stress.attacks[].attack] | sort
       == ["compression-bomb", "garbage", "half-frame", "overlong-varint", "oversize-length"])
' "$work/stress.json" >/dev/null || die "stress report: $(cat "$work/stress.json")"

kill -0 "$proxy_pid" 2>/dev/null || die "the proxy is gone: $(tail -5 "$work/proxy.err")"
rss_kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$proxy_pid/status")
echo "proxy-smoke: proxy resident memory after the stress run: $((rss_kib / 1024)) MiB"
[ "$rss_kib" -lt $((256 * 1024)) ] || die "the proxy holds ${rss_kib} KiB"
closed=$(grep -c 'connection closed' "$work/proxy.err" || true)
echo "proxy-smoke: the proxy logged $closed closed connections with a reason, e.g.:"
grep -m 3 'malformed input' "$work/proxy.err" | sed 's/^/  /'
echo "proxy-smoke: OK"
