#!/usr/bin/env bash
# A/B end to end (`irgate run --base REV`, `irgate check --base`), in a scratch clone of HEAD
# (<target>/ab-e2e/tree; a clone, not a worktree, so that git works in it inside the container,
# where the checkout's own path does not exist) that shares this checkout's target directory:
#   1. A/A: the worktree against HEAD, the same code on both sides: every count of every benchmark
#      (Ir and every other metric) must be identical, and `irgate check --base` passes with no
#      slack (docker/exact-gate.toml, --strict);
#   2. A/B: the same worktree with codec's `inject-slowdown` feature on in the benches (a
#      working-tree change, as a pull request would make), against HEAD: with an absolute budget of 10 Ir and no
#      relative slack, `irgate check --base` exits 1 on exactly the benchmarks that run the filter
#      chain (the `filter` and `pipeline` groups), and its report names the A/B mode; under the
#      repository's gate.toml it exits 1 too, on filter-chain benchmarks only;
#   3. drift triage: baselines of HEAD whose fingerprint says another valgrind and whose every Ir
#      is 50 higher: `irgate check --on-env-mismatch=remeasure` measures their commit again beside
#      the worktree, reports -50 Ir of environment delta on every benchmark and gates only the
#      code delta, failing exactly the filter-chain benchmarks.
# With --container, they run in the pinned image (docker/irgate-container; `make image` builds
# it), where the checkout is /irgate. With --aa-only, only step 1 runs. Needs valgrind, jq, git
# and the runner (on the host).
#
# usage: scripts/ab-regression.sh [--container] [--aa-only]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
die() { printf 'ab-regression: FAIL: %s\n' "$*" >&2; exit 1; }
say() { printf 'ab-regression: %s\n' "$*"; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

container=false aa_only=false
for arg in "$@"; do
    case $arg in
        --container) container=true ;;
        --aa-only) aa_only=true ;;
        *) die "unknown argument $arg (usage: scripts/ab-regression.sh [--container] [--aa-only])" ;;
    esac
done
# $out is where results and reports go, $where the same directory as irgate sees it.
if $container; then
    # In the image the checkout is /irgate and the target directory /irgate/target/container.
    build=$repo/target/container
    tree=$repo/target/container/ab-e2e/tree
    out=$repo/target/container/ab-e2e/out
    where=/irgate/target/container/ab-e2e/out
    irgate() {
        docker/irgate-container sh -c 'cd "$0" && exec irgate "$@"' \
            /irgate/target/container/ab-e2e/tree "$@"
    }
else
    target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
    build=$target
    tree=$target/ab-e2e/tree
    out=$target/ab-e2e/out
    where=$out
    cargo build --quiet --locked -p irgate
    irgate() { (cd "$tree" && CARGO_TARGET_DIR="$target" "$target/debug/irgate" "$@"); }
fi
rm -rf "$out"
mkdir -p "$out"
rm -rf "$tree"
git clone --quiet --local --no-checkout "$repo" "$tree"
git -C "$tree" checkout --quiet --detach "$(git rev-parse HEAD)"
trap 'rm -rf "$tree"' EXIT

# Each side builds in a target directory of its own; seeded with this checkout's build, cargo
# reuses the dependencies and rebuilds only the workspace's crates (the A/A check below proves the
# counts are those of a clean build either way).
# In the image, cargo's home lies inside the target directory, so cargo recorded the crates'
# sources relative to it (cargo-home/registry/...): a link beside each copy keeps them found.
for side in head base; do
    if [ -d "$build/release" ] && ! [ -d "$build/irgate/ab/$side/target/release" ]; then
        mkdir -p "$build/irgate/ab/$side/target"
        cp -a "$build/release" "$build/irgate/ab/$side/target/"
        ! $container || ln -sfn ../../../../cargo-home "$build/irgate/ab/$side/target/cargo-home"
    fi
done

say "A/A: HEAD against HEAD"
irgate run --base HEAD --results "$where/aa.json"
count=$(jq '.benchmarks | length' "$out/aa.json")
[ "$count" -gt 0 ] || die "the A/A run holds no benchmarks"
if ! diff <(jq -S .benchmarks "$out/aa.json") <(jq -S .benchmarks "$out/aa.base.json") >"$out/aa.diff"; then
    head -n 40 "$out/aa.diff" | sed 's/^/  /' >&2
    die "A/A: counts differ between the working tree (<) and HEAD (>)"
fi
irgate check --base --results "$where/aa.json" --config docker/exact-gate.toml \
    --strict --format json >"$out/aa-report.json" || die "A/A: irgate check --base failed (exit $?)"
say "A/A: every count of $count benchmarks identical on both sides; check --base passes with no slack"
if $aa_only; then
    say "ok (A/A only)"
    exit 0
fi

say "A/B: the clone with codec/inject-slowdown against HEAD"
# The benches crate names codec's features itself (the workspace turns its defaults off).
sed -i 's/^codec = { workspace = true, features = \[\(.*\)\] }/codec = { workspace = true, features = [\1, "inject-slowdown"] }/' \
    "$tree/demo/benches/Cargo.toml"
grep -q '^codec = .*"inject-slowdown"' "$tree/demo/benches/Cargo.toml" ||
    die "could not turn codec's inject-slowdown on in demo/benches/Cargo.toml"
irgate run --base HEAD --results "$where/ab.json"
printf '[[suite]]\npackage = "benches"\nbench = "callgrind"\n\n[budgets]\nIr = { relative_pct = 0.0, absolute = 10 }\n' \
    >"$out/absolute.toml"
code=0
irgate check --base --results "$where/ab.json" --config "$where/absolute.toml" \
    --format json >"$out/ab-report.json" || code=$?
[ "$code" -eq 1 ] || die "A/B: irgate check --base exited $code, expected 1 (a budget exceeded)"
[ "$(jq -r .mode.kind "$out/ab-report.json")" = ab ] || die "A/B: the report does not say A/B"
chain=$(filter_chain_benchmarks "$out/ab.json")
failing=$(failing_benchmarks "$out/ab-report.json")
if [ "$failing" != "$chain" ]; then
    diff <(echo "$chain") <(echo "$failing") | sed 's/^/  /' >&2 || true
    die "A/B: the gate must fail exactly the filter-chain benchmarks (< expected, > failed)"
fi
say "A/B: exit 1 on exactly the $(wc -l <<<"$chain") filter-chain benchmarks of $(jq '.benchmarks | length' "$out/ab.json")"
# The same pair under this repository's own budgets (gate.toml): it must fail, and only benchmarks
# that run the filter chain (a few dozen Ir are below the relative budget of the large ones).
code=0
irgate check --base --results "$where/ab.json" --config gate.toml \
    --format json >"$out/ab-gate-report.json" || code=$?
[ "$code" -eq 1 ] || die "A/B: irgate check --base with gate.toml exited $code, expected 1"
failing=$(failing_benchmarks "$out/ab-gate-report.json")
stray=$(comm -13 <(echo "$chain") <(echo "$failing"))
[ -z "$stray" ] || die "A/B: gate.toml failed benchmarks that do not run the filter chain: $stray"
say "A/B: gate.toml: exit 1 on $(wc -l <<<"$failing") filter-chain benchmarks, no other"

say "drift triage: baselines of HEAD from another environment (valgrind edited, every Ir 50 higher)"
irgate refresh --results "$where/aa.base.json" --baselines "$where/baselines" >/dev/null
for file in "$out"/baselines/*.json; do
    jq '.fingerprint.valgrind = "valgrind-3.99.0" | .benchmarks |= map_values(.Ir += 50)' \
        "$file" >"$file.new" && mv "$file.new" "$file"
done
code=0
irgate check --results "$where/ab.json" --baselines "$where/baselines" --config "$where/absolute.toml" \
    --on-env-mismatch=remeasure --format json >"$out/triage-report.json" || code=$?
[ "$code" -eq 1 ] || die "triage: irgate check exited $code, expected 1 (the code's regression)"
[ "$(jq -r .mode.kind "$out/triage-report.json")" = remeasured ] ||
    die "triage: the report does not say the baselines' commit was measured again"
moved=$(jq '[.mode.environment[] | select(.baseline - .remeasured == 50)] | length' "$out/triage-report.json")
[ "$moved" = "$count" ] ||
    die "triage: the environment delta is -50 Ir on $moved benchmarks, expected all $count"
failing=$(failing_benchmarks "$out/triage-report.json")
if [ "$failing" != "$chain" ]; then
    diff <(echo "$chain") <(echo "$failing") | sed 's/^/  /' >&2 || true
    die "triage: the code delta must fail exactly the filter-chain benchmarks (< expected, > failed)"
fi
say "triage: environment -50 Ir on all $count benchmarks (not gated); code: exit 1 on exactly the $(wc -l <<<"$chain") filter-chain benchmarks"
say "ok"
