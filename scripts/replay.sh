#!/usr/bin/env bash
# Replays the gate over a range of commits of a repository: every commit is checked against its
# parent (both built and run here, the parent's counts taken as the baselines), and the table says
# which benchmarks were flagged and whether the commit touched the code the benchmarks run.
#
# One scratch worktree is checked out at each commit in turn, always at the same path and with
# one target directory, so only what a commit changed is rebuilt and every run's executable has
# the same path (its length moves counts).
#
#   touched: the commit changed a file under one of PATHS (default: every path but docs, i.e.
#            the files that can change what a benchmark runs: the benchmarked crates, the benches,
#            Cargo.lock, the toolchain), as `git diff --name-only PARENT COMMIT -- PATHS` says.
#   verdict: `false alarm` (flagged, not touched), `alarm` (flagged, touched: a person decides
#            whether it is true), `pass`, or `undecided` (irgate check exited 2).
#
# Options:
#   --config FILE     judge every commit under this gate.toml (default: each commit's own), e.g.
#                     today's calibrated budgets over an older history.
#   --inputs 'SPEC…'  the pathspecs that can change the benchmarks' binaries (the benchmarked
#                     crates, the bench package, Cargo.lock, the toolchain). A commit that changes
#                     none of them since the last commit measured is not built and run again: its
#                     counts are those of that commit (same build inputs, same binary, same counts),
#                     and the table says `reused`. Default: every commit is measured.
#
# Prints a markdown table on stdout; progress on stderr. Needs valgrind, the runner of the
# repository's benchmark library, jq.
#
# usage: scripts/replay.sh [--config FILE] [--inputs 'SPEC…'] REPO RANGE [PATHS...]
#   e.g. scripts/replay.sh --config gate.toml --inputs 'demo/codec demo/benches Cargo.lock' \
#            . HEAD~40..HEAD demo/codec demo/benches
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "$0")/lib.sh"
usage="usage: scripts/replay.sh [--config FILE] [--inputs 'SPEC…'] REPO RANGE [PATHS...]"
config=
inputs=()
while [ $# -gt 0 ]; do
    case $1 in
        --config) config=$(realpath "${2:?$usage}"); shift 2 ;;
        --inputs) read -r -a inputs <<<"${2:?$usage}"; shift 2 ;;
        -*) echo "$usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ -z "$config" ] || [ -f "$config" ] || { echo "replay: --config $config: no such file" >&2; exit 2; }
repo=$(realpath "${1:?$usage}")
range=${2:?$usage}
shift 2
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(. ':(exclude)*.md' ':(exclude)docs')
irgate=${IRGATE:-$(irgate_executable)}

work=$(mktemp -d)
cleanup() { git -C "$repo" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
git -C "$repo" worktree add --detach -q "$work/tree" "$(git -C "$repo" rev-list --reverse "$range" | head -1)"
export CARGO_TARGET_DIR=$work/target

# run COMMIT: the results of COMMIT, path on stdout: measured, or (with --inputs) the last
# measured commit's when no build input changed since; `measured` or `reused` in $work/COMMIT.how.
run() {
    local out=$work/$1.json
    if [ -f "$out" ]; then
        echo "$out"
        return
    fi
    local measured
    measured=$(cat "$work/last-measured" 2>/dev/null || true)
    if [ ${#inputs[@]} -gt 0 ] && [ -n "$measured" ] &&
        git -C "$repo" diff --quiet "$measured" "$1" -- "${inputs[@]}"; then
        cp "$work/$measured.json" "$out"
        echo "reused" >"$work/$1.how"
        echo "$out"
        return
    fi
    # --force: a build may have rewritten a commit's out-of-date Cargo.lock.
    git -C "$work/tree" checkout -q --force --detach "$1" ||
        { echo "replay: cannot check $1 out" >&2; exit 2; }
    echo "replay: irgate run at $(git -C "$repo" log -1 --format='%h %s' "$1")" >&2
    (cd "$work/tree" && "$irgate" run ${config:+--config "$config"} --results "$out" \
        >"$work/$1.log" 2>&1) ||
        { echo "replay: irgate run failed at $1: $work/$1.log" >&2; tail -20 "$work/$1.log" >&2; exit 2; }
    echo "measured" >"$work/$1.how"
    echo "$1" >"$work/last-measured"
    echo "$out"
}

echo "| commit | subject | touched | counts | flagged | verdict |"
echo "|:--|:--|:--|:--|:--|:--|"
for commit in $(git -C "$repo" rev-list --reverse "$range"); do
    parent=$(git -C "$repo" rev-parse "$commit^")
    touched=$(git -C "$repo" diff --name-only "$parent" "$commit" -- "${paths[@]}" | wc -l)
    base=$(run "$parent")
    new=$(run "$commit")
    how=$(cat "$work/$commit.how")
    git -C "$work/tree" checkout -q --force --detach "$commit"
    rm -rf "$work/baselines"
    gate=${config:-$work/tree/gate.toml}
    "$irgate" refresh --results "$base" --baselines "$work/baselines" --config "$gate" >/dev/null
    code=0
    (cd "$work/tree" && "$irgate" check --results "$new" --baselines "$work/baselines" \
        --config "$gate" --format json) >"$work/report.json" 2>/dev/null || code=$?
    flagged=$(failing_benchmarks "$work/report.json" | paste -sd' ')
    case "$code,$touched,${flagged:+y}" in
        0,*) verdict=pass ;;
        1,0,y) verdict="false alarm" ;;
        1,*,y) verdict=alarm ;;
        *) verdict="undecided: $(jq -r '.outcome.reason // "?"' "$work/report.json" | head -c 200)" ;;
    esac
    [ "$touched" -gt 0 ] && touched="yes ($touched files)" || touched=no
    printf '| `%s` | %s | %s | %s | %s | %s |\n' "$(git -C "$repo" rev-parse --short "$commit")" \
        "$(git -C "$repo" log -1 --format=%s "$commit" | tr '|' '/' | cut -c1-70)" \
        "$touched" "$how" "${flagged:-none}" "$verdict"
done
