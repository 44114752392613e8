#!/usr/bin/env bash
# The replay (scripts/replay.sh) on a fixture repository with a known regression in the middle:
# a git history of six commits made from gate/tests/adoption/two-targets, where only the fifth
# slows a benchmarked function down (fnv1a hashes every byte twice). The table must show exactly
# one alarm, on that commit and on exactly digest::fnv/*, and no false alarm; the unrelated
# commits (docs, another crate, a new function in the benchmarked crate that no benchmark runs)
# must pass under the calibrated-style budget "+1 Ir, no relative part".
#
# With --persist, instead: the persisted flow (replay.sh --persist) on the same history, through
# an accepted slowdown and its revert (below). Not in .ci/run: it builds the fixture from nothing
# again (2 min 36 s, 1 min 11 s of CPU, at a load of 6 to 9 on 2 cores, 2026-11-28).
#
# usage: scripts/replay-fixture.sh [--persist] [TABLE.md]     (about 3 minutes here)
set -euo pipefail
persist=
[ "${1:-}" != --persist ] || { persist=1; shift; }
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
die() { printf 'replay-fixture: FAIL: %s\n' "$*" >&2; exit 1; }
export IRGATE=${IRGATE:-$(irgate_executable)}

repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
replay_history_start "$repo"
sed -i 's/{} words, digest/{} words; digest/' cli/src/main.rs
commit "cli: punctuation in the output (another crate)"
cat >>text/src/lib.rs <<'RS'

/// Counts the lines of `text` (no benchmark runs this).
#[inline(never)]
pub fn count_lines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}
RS
commit "text: count_lines, which no benchmark runs"
sed -i 's/hash = hash.wrapping_mul(0x0100_0193);/hash = hash.wrapping_mul(0x0100_0193);\n        hash ^= std::hint::black_box(u32::from(byte));/' text/src/lib.rs
grep -q 'black_box(u32::from(byte))' text/src/lib.rs || die "the regression was not injected"
commit "text: fnv1a mixes every byte twice (the injected regression)"
printf '\nSee the benches.\n' >>README.md
commit "docs: README"
injected=$(git rev-parse --short HEAD~1)
cd - >/dev/null

if [ -z "$persist" ]; then
table=$(scripts/replay.sh "$repo" "$(git -C "$repo" rev-list --max-parents=0 HEAD)..HEAD" \
    . ':(exclude)*.md')
echo "$table"
[ -n "${1:-}" ] && echo "$table" >"$1"
rows=$(grep -c '^| `' <<<"$table") || true
[ "$rows" -eq 5 ] || die "expected 5 replayed commits, got $rows"
alarms=$(grep -E '\| (alarm|false alarm) \|$' <<<"$table" || true)
[ "$(wc -l <<<"$alarms")" -eq 1 ] || die "expected exactly one alarm, got: $alarms"
grep -q "^| \`$injected\` .*| digest::fnv/b16 digest::fnv/b256 | alarm |$" <<<"$alarms" \
    || die "the alarm is not on the injected commit $injected and exactly digest::fnv/*: $alarms"
! grep -q 'false alarm\|undecided' <<<"$table" || die "a false alarm or an undecided commit"
echo "replay-fixture: ok: one true alarm (commit $injected, digest::fnv/*), no false alarm, no miss"
exit 0
fi

# The persisted flow (--persist) on the same history, one commit: `count_lines` (no benchmark runs
# it) recorded, then a slowdown of count_words accepted without --record, then its revert (byte for
# byte the recorded code), accepted too. The revert is a speedup (stale: it passes), so its
# verdict alone would not show a miss: both digest::count/* must run (their record entries went
# with the accept) and none be carried moved.
lines=$(git -C "$repo" rev-parse --short HEAD~2)
table=$(scripts/replay.sh --persist --inject "$lines:text/src/lib.rs:fn count_words" "$repo" "$lines~1..$lines" \
    . ':(exclude)*.md')
echo "$table"
[ -n "${1:-}" ] && echo "$table" >"$1"
grep -q "^| \`$lines\` .*| 0 of 4 | none | same, ran 0 |.*| pass | recorded |$" <<<"$table" ||
    die "persist: count_lines ran a benchmark or did not pass"
grep -q "^| \`$lines\` + slowdown .*| 2 of 4 (runs 2) | none | same, ran 2 |.*| digest::count/line digest::count/short | alarm | accepted |$" <<<"$table" ||
    die "persist: the slowdown is not an alarm on exactly digest::count/*"
grep -q "^| revert of the slowdown .*| 2 | 2 of 4 (unrecorded 2: its code record no longer held when the baselines were refreshed) | none | same, ran 2 |.*| pass | accepted |$" <<<"$table" ||
    die "persist: the revert did not run exactly the two accepted benchmarks, for their dropped record"
grep -q "missed 0 .*differed on 0;.*address budget 0;" <<<"$table" || die "persist: a miss, or a selected verdict differs"
echo "replay-fixture: ok: an accepted slowdown and its revert, selected = full, no miss"
