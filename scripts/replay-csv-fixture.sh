#!/usr/bin/env bash
# The unattended replay (scripts/replay-csv.sh) on a fixture history made from
# gate/tests/adoption/two-targets (four benchmarks: digest::fnv/b16, b256, digest::count/line,
# short), five commits after the first: a doc change, a slowdown of fnv1a, a commit that does not
# build, the slowdown reverted (and the build fixed), a doc change again. Replayed twice with
# --verify-every 2: once straight through, once killed in the middle (SIGTERM while the slowdown is
# measured), a half-written line appended to its CSV, and started again with the same arguments.
# Both CSVs must equal the expected rows, row for row; the real selected runs (the slowdown, the
# revert) must agree with the computed verdicts; the summary must say 0 misses, 0 false alarms.
#
# Last, a replay with --timeout 3 must write a `timeout` row. 4 min 07 s here (2 min 29 s of CPU,
# load 4 to 6 on 2 cores, 2026-11-29).
#
# usage: scripts/replay-csv-fixture.sh        (needs valgrind, GUNGRAUN_RUNNER, jq)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
die() { printf 'replay-csv-fixture: FAIL: %s\n' "$*" >&2; exit 1; }
export IRGATE=${IRGATE:-$(irgate_executable)}
scripts=$PWD/scripts

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/fixture
replay_history_start "$repo"
cp text/src/lib.rs "$tmp/lib.rs"
sed -i 's/hash = hash.wrapping_mul(0x0100_0193);/hash = hash.wrapping_mul(0x0100_0193);\n        hash ^= std::hint::black_box(u32::from(byte));/' text/src/lib.rs
grep -q 'black_box(u32::from(byte))' text/src/lib.rs || die "the slowdown was not injected"
commit "text: fnv1a mixes every byte twice (the slowdown)"
printf '\npub fn broken( {\n' >>text/src/lib.rs
commit "text: a commit that does not build"
cp "$tmp/lib.rs" text/src/lib.rs
commit "text: the slowdown reverted, the build fixed"
printf '\nSee the benches.\n' >>README.md
commit "docs: README"
mapfile -t ids < <(git rev-list --reverse HEAD)
cd - >/dev/null

# Both replays build into one target directory (the registry dependencies once); their work
# directories have paths of one length, so every executable's path is as long in both.
export REPLAY_TARGET_DIR=$tmp/target
range=${ids[0]}..HEAD
replay() { "$scripts/replay-csv.sh" --name fixture --verify-every 2 --timeout 600 --work "$1.work" "$repo" "$range" "$1.csv"; }

replay "$tmp/a" 2>"$tmp/a.log" || { cat "$tmp/a.log" >&2; die "the replay failed"; }
cat "$tmp/a.csv"
expected="repository,commit,library,benchmarks,selected,selected_exit,full_exit,moved_untouched
fixture,${ids[1]},LIB,4,0,0,0,0
fixture,${ids[2]},LIB,4,2,1,1,0
fixture,${ids[3]},,,,build-failed,build-failed,
fixture,${ids[4]},LIB,4,2,0,0,0
fixture,${ids[5]},LIB,4,0,0,0,0"
library=$(sed -n 2p "$tmp/a.csv" | cut -d, -f3)
[ -n "$library" ] || die "no library in the first row"
[ "$(cat "$tmp/a.csv")" = "${expected//LIB/$library}" ] ||
    die "the rows are not the expected ones: $(diff <(echo "${expected//LIB/$library}") "$tmp/a.csv")"
verified=$(cut -d, -f7 "$tmp/a.seconds.csv" | grep -c '^agrees$' || true)
[ "$verified" = 2 ] || die "expected the 2 verified commits to agree: $(cat "$tmp/a.seconds.csv")"

# Interrupted while the slowdown (the second commit) is measured, then resumed.
setsid "$scripts/replay-csv.sh" --name fixture --verify-every 2 --timeout 600 --work "$tmp/b.work" \
    "$repo" "$range" "$tmp/b.csv" 2>"$tmp/b1.log" &
pid=$!
for _ in $(seq 1200); do
    [ ! -f "$tmp/b.csv" ] || [ "$(wc -l <"$tmp/b.csv")" -lt 2 ] || break
    sleep 0.5
done
[ "$(wc -l <"$tmp/b.csv")" = 2 ] || { kill -- "-$pid" 2>/dev/null || true; die "the replay to interrupt wrote no row: $(cat "$tmp/b1.log")"; }
sleep 2
kill -TERM "$pid"
wait "$pid" && die "the interrupted replay exited 0"
[ "$(wc -l <"$tmp/b.csv")" = 2 ] || die "the interruption came too late: $(cat "$tmp/b.csv")"
printf 'fixture,%s,%s,4' "${ids[2]}" "$library" >>"$tmp/b.csv"
replay "$tmp/b" 2>"$tmp/b2.log" || { cat "$tmp/b2.log" >&2; die "the resumed replay failed"; }
grep -q 'dropping the half-written last line' "$tmp/b2.log" || die "the half-written line was not dropped"
grep -q 'replay-csv: the base' "$tmp/b2.log" && die "the resumed replay measured its base again (the cache holds it)"
diff "$tmp/a.csv" "$tmp/b.csv" >&2 || die "the resumed replay's CSV differs from the uninterrupted one's"
[ "$(grep -c "^fixture,${ids[2]}," "$tmp/b.seconds.csv")" = 1 ] || die "the side file has not one row of the interrupted commit"

# A commit that takes longer than --timeout: a row saying so, and the replay goes on.
"$scripts/replay-csv.sh" --name fixture --timeout 3 --work "$tmp/c.work" "$repo" "${ids[0]}..${ids[1]}" "$tmp/c.csv" \
    2>"$tmp/c.log" || { cat "$tmp/c.log" >&2; die "the replay with a short timeout failed"; }
[ "$(tail -1 "$tmp/c.csv")" = "fixture,${ids[1]},,,,timeout,timeout," ] || die "no timeout row: $(cat "$tmp/c.csv")"

summary=$("$scripts/replay-csv.sh" --summary "$tmp/b.csv")
echo "$summary"
grep -q '^| fixture | 5 | 1 | 0 | 0 | 0 | 25.0% | .* | 2 of 2 |$' <<<"$summary" ||
    die "the summary is not 5 commits, 1 without verdict, 0 misses, 0 false alarms, a median share of 25%, 2 of 2 verified"
echo "replay-csv-fixture: ok: 5 rows, the interrupted replay resumed to the same CSV, verified 2 of 2"
