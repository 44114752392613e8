#!/usr/bin/env bash
# Replays the gate over a range of commits of a repository: every commit is checked against its
# first parent (both built and run here, the parent's counts and code record taken as the
# baselines), twice: after a full run and after a selected one (`irgate run --only-touched`), and
# the table says what moved, what the change touched, what failed under the old verdict (`irgate
# check --no-change-map`) and under the change-aware one, whether the selected run's verdict
# equals the full run's, and how long each run took.
#
# One scratch worktree is checked out at each commit in turn, always at the same path and with
# one target directory, so only what a commit changed is rebuilt and every run's executable has
# the same path (its length moves counts).
#
# Columns:
#   files:    how many files the commit changed under one of PATHS (default: every path but docs),
#             the injected slowdown included, as `git diff --name-only PARENT -- PATHS` says in
#             the worktree.
#   counts:   `measured` (built and run), `reused` (--inputs: no build input changed since the last
#             measured commit, so its counts), `injected` (measured with the --inject slowdown).
#   moved:    benchmarks whose Ir differs from the parent's (added and removed ones included).
#   touched:  benchmarks the change map holds to their budget (touch other than `untouched`: they
#             executed changed code, may read a changed file, or have no code record), of all;
#             `all (unmapped: why)` when irgate could not map the change (docs/selection.md).
#   failed old: the benchmarks `irgate check --no-change-map` fails (the verdict before the change
#             map); `undecided` when it exits 2.
#   selected: `same` (the selected run's exit code and failing set equal the full run's), `DIFFERS:
#             …`, or `n/a: …` (irgate refused --only-touched, e.g. an iai-callgrind runner cannot
#             select benchmarks by id), then how many benchmarks it ran.
#   build s / full s / selected s: wall seconds of the build alone (`irgate run` with a filter no
#             benchmark matches, which builds every suite and runs nothing), then of the full and
#             of the selected run, both on that warm build. The full run is a plain `irgate run`,
#             as a pull request's would be; each measured commit is then run once more with
#             `--record` (not timed here, about as long again) for its code record, which its
#             child's baselines take (`irgate refresh` of that run).
#   flagged:  the benchmarks the change-aware `irgate check` fails. verdict: of that check: `false alarm` (flagged, no file
#             under PATHS changed), `alarm` (flagged, files changed: a person decides whether it
#             is true), `pass`, or `undecided` (irgate check exited 2).
#
# Options:
#   --config FILE     judge every commit under this gate.toml (default: each commit's own), e.g.
#                     today's calibrated budgets over an older history.
#   --inputs 'SPEC…'  the pathspecs that can change the benchmarks' binaries. A commit that changes
#                     none of them since the last commit measured is not built and run again: its
#                     counts are those of that commit, and neither run is timed. Default: every
#                     commit is measured.
#   --inject COMMIT:FILE:PATTERN
#                     at COMMIT, before measuring it, insert a slowdown (a loop of 64
#                     `core::hint::black_box` calls: `core`, so a `no_std` crate builds too)
#                     as the first statement of the function whose signature is the first line
#                     of FILE matching the extended regex PATTERN (after the first line from
#                     there on that ends with `{`). The
#                     commit is also measured without it when a child in the range needs it as
#                     its baselines. The row must fail on the benchmarks that run the function
#                     (a pass there is a miss, if one does: check that one does). Repeatable.
#                     Not for a `const fn` (no loop there).
#   --keep DIR        work in DIR (emptied first) and keep it: every run's results, log and report.
#   --dir SUBDIR      run irgate in SUBDIR of the worktree (relative to its top) instead of its
#                     top: for a suite in a package that is a workspace of its own below the
#                     repository's top (such as a `bench/` with its own `[workspace]`).
#   --first-parent    replay only the commits of RANGE on the first-parent chain (a merged
#                     branch's own commits, whose parents may predate the suite, are left out;
#                     its merge is judged against its first parent, as every commit is).
#   --setup 'CMD'     run CMD (with bash, in the scratch worktree) after each checkout, before
#                     building: e.g. to stand an empty package in for a workspace member that is
#                     a git submodule the clone does not have. What it writes must not show as
#                     a change (keep it inside the submodule's path, or in .git/info/exclude).
#   --persist         model a project's own flow instead (another table, below): one baselines
#                     directory for the whole range, kept from step to step as a repository's
#                     baselines/ is; it starts as the first commit's parent recorded (`irgate run
#                     --record`, then `irgate refresh`). Each commit is committed again in the
#                     scratch worktree on top of the last step (its tree, one parent: the history
#                     as one line, as a project's main branch with squashed merges is; the commits
#                     go into REPO's objects, referenced by no branch), judged against those
#                     baselines, then refreshed: recorded (`irgate run --record`, `irgate refresh`:
#                     the history job's refresh) unless --accept names it. With --inject, the
#                     commit is judged and refreshed as it is, then two more steps follow: the
#                     slowdown committed on top (judged, then accepted) and its revert, a commit
#                     with the commit's tree again, byte for byte the code the record describes
#                     (judged, then accepted): the flow in which a record kept beside new counts
#                     missed the revert (issue #40). Not with --inputs.
#   --accept COMMIT   (--persist) accept COMMIT as docs/gate.md says, from its plain run without
#                     --record (`irgate refresh` of it): the record loses the entries of the
#                     benchmarks whose counts moved. Repeatable.
#
# The --persist table, a row per step:
#   step:     the commit (short id), `+ slowdown` or `revert of the slowdown`.
#   files:    files under PATHS the step changed since the last step.
#   moved:    benchmarks whose Ir in the full run differs from the persisted baseline.
#   touched:  as above, with why: each touch kind and its count (`runs`: executed changed code;
#             `unrecorded`: no record entry, or one that does not describe its baseline, with the
#             reasons); every other benchmark was carried because its record entry held and
#             nothing it executed changed.
#   moved, carried: benchmarks the selected run carried whose count the full run moved, each
#             with its status in the full check and its move: `layout` (within the address
#             budget, docs/selection.md#the-verdict) by design, any other a miss of selection.
#   selected, full s, selected s, flagged, verdict: as above, against the persisted baselines.
#   then:     how the baselines were refreshed after the step: `recorded` or `accepted`.
# The summary counts, besides: the accepts; misses: a slowdown step that did not fail, a revert
# step with a moved benchmark carried or a selected verdict that differs (a revert of a slowdown
# is a speedup: `stale`, which passes, so its verdict alone would not show a carried one); the
# steps with a benchmark in `moved, carried` beyond the address budget.
#
# Prints a markdown table and a summary line on stdout; progress on stderr. Needs valgrind, the
# runner of the repository's benchmark library, jq.
#
# usage: scripts/replay.sh [--config FILE] [--inputs 'SPEC…'] [--inject C:FILE:PATTERN]...
#                          [--keep DIR] [--setup 'CMD'] [--dir SUBDIR] [--first-parent]
#                          [--persist [--accept COMMIT]...] REPO RANGE [PATHS...]
#   e.g. scripts/replay.sh --config gate.toml --inputs 'demo/codec demo/benches Cargo.lock' \
#            . HEAD~40..HEAD demo/codec demo/benches
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "$0")/lib.sh"
usage="usage: scripts/replay.sh [--config FILE] [--inputs 'SPEC…'] [--inject C:FILE:PATTERN]... [--keep DIR] [--setup 'CMD'] [--dir SUBDIR] [--first-parent] [--persist [--accept COMMIT]...] REPO RANGE [PATHS...]"
config=
dir=.
keep=
setup=
persist=
walk=()
accepts=()
inputs=()
injections=()
while [ $# -gt 0 ]; do
    case $1 in
        --config) config=$(realpath "${2:?$usage}"); shift 2 ;;
        --inputs) read -r -a inputs <<<"${2:?$usage}"; shift 2 ;;
        --inject) injections+=("${2:?$usage}"); shift 2 ;;
        --keep) keep=$(realpath -m "${2:?$usage}"); shift 2 ;;
        --setup) setup=${2:?$usage}; shift 2 ;;
        --dir) dir=${2:?$usage}; shift 2 ;;
        --first-parent) walk=(--first-parent); shift ;;
        --persist) persist=1; shift ;;
        --accept) accepts+=("${2:?$usage}"); shift 2 ;;
        -*) echo "$usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ -z "$config" ] || [ -f "$config" ] || { echo "replay: --config $config: no such file" >&2; exit 2; }
case $dir in /* | *..*) echo "replay: --dir $dir: a directory inside the repository, relative to its top" >&2; exit 2 ;; esac
repo=$(realpath "${1:?$usage}")
range=${2:?$usage}
shift 2
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(. ':(exclude)*.md' ':(exclude)docs')
irgate=${IRGATE:-$(irgate_executable)}

# The injections, keyed by full commit id: "FILE:PATTERN".
declare -A inject=()
for spec in "${injections[@]}"; do
    [[ $spec == *:*:* ]] || { echo "replay: --inject $spec: expected COMMIT:FILE:PATTERN" >&2; exit 2; }
    commit=$(git -C "$repo" rev-parse --verify --quiet --end-of-options "${spec%%:*}^{commit}") ||
        { echo "replay: --inject $spec: no commit ${spec%%:*}" >&2; exit 2; }
    inject[$commit]=${spec#*:}
done
# The commits accepted without --record (--persist), keyed by full commit id.
declare -A accept=()
for spec in "${accepts[@]}"; do
    [ -n "$persist" ] || { echo "replay: --accept needs --persist" >&2; exit 2; }
    commit=$(git -C "$repo" rev-parse --verify --quiet --end-of-options "$spec^{commit}") ||
        { echo "replay: --accept $spec: no commit $spec" >&2; exit 2; }
    accept[$commit]=accepted
done
[ -z "$persist" ] || [ ${#inputs[@]} -eq 0 ] ||
    { echo "replay: --inputs does not go with --persist (every step is measured)" >&2; exit 2; }

work=${keep:-$(mktemp -d)}
[ -z "$keep" ] || { rm -rf "$work" && mkdir -p "$work"; }
cleanup() {
    git -C "$repo" worktree remove --force "$work/tree" >/dev/null 2>&1 || true
    [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
git -C "$repo" worktree add --detach -q "$work/tree" "$(git -C "$repo" rev-list "${walk[@]}" --reverse "$range" | head -1)"
export CARGO_TARGET_DIR=$work/target

# checkout COMMIT: the scratch worktree at COMMIT, nothing else in it changed (--force: a build may
# have rewritten a commit's out-of-date Cargo.lock; untracked files such as a generated lock stay).
checkout() {
    git -C "$work/tree" checkout -q --force --detach "$1" ||
        { echo "replay: cannot check $1 out" >&2; exit 2; }
    [ -z "$setup" ] || (cd "$work/tree" && bash -c "$setup") ||
        { echo "replay: --setup failed at $1" >&2; exit 2; }
}

# slow_down FILE:PATTERN: inserts the slowdown after the first line of FILE (in the worktree)
# that ends with `{`, at or after the first line matching PATTERN; fails when there is none.
slow_down() {
    local file=$work/tree/${1%%:*} line
    [ -f "$file" ] || { echo "replay: --inject: no file ${1%%:*}" >&2; exit 2; }
    line=$(pattern=${1#*:} awk '!found && $0 ~ ENVIRON["pattern"] { found = 1 }
        found && /\{[[:space:]]*$/ { print NR; exit }' "$file")
    [ -n "$line" ] || { echo "replay: --inject: no line of ${1%%:*} matches /${1#*:}/ with a { after it" >&2; exit 2; }
    sed -i "${line}a\\    for i in 0..64u32 { core::hint::black_box(i); } // replay --inject" "$file"
}

# irgate_run LOG ARGS...: `irgate run ARGS` in the worktree, output to LOG; exits on failure.
irgate_run() {
    local log=$1
    shift
    (cd "$work/tree/$dir" && "$irgate" run ${config:+--config "$config"} "$@" >"$log" 2>&1) ||
        { echo "replay: irgate run $* failed: $log" >&2; tail -20 "$log" >&2; exit 2; }
}

# build NAME: builds every suite in the worktree as it is and runs nothing (a filter no benchmark
# matches: irgate builds, finds no match and says so); its wall seconds in $work/NAME.build.
build() {
    local start=$EPOCHREALTIME log=$work/$1.build.log
    (cd "$work/tree/$dir" && "$irgate" run ${config:+--config "$config"} --results "$work/$1.nothing.json" \
        'replay-builds-only/no-such-benchmark' >"$log" 2>&1) ||
        grep -q 'no benchmark matches `replay-builds-only/no-such-benchmark`' "$log" ||
        { echo "replay: the build failed: $log" >&2; tail -20 "$log" >&2; exit 2; }
    seconds_since "$start" >"$work/$1.build"
}

# run COMMIT: the results of COMMIT, path on stdout: measured, or (with --inputs) the last
# measured commit's when no build input changed since; `measured` or `reused` in $work/COMMIT.how,
# the build's and the run's wall seconds in $work/COMMIT.build and $work/COMMIT.time.
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
        cp "$work/$measured.code.json" "$work/$1.code.json"
        cp "$work/$measured.rec.json" "$work/$1.rec.json"
        cp "$work/$measured.rec.code.json" "$work/$1.rec.code.json"
        echo "reused" >"$work/$1.how"
        echo "$out"
        return
    fi
    checkout "$1"
    echo "replay: irgate run at $(git -C "$repo" log -1 --format='%h %s' "$1")" >&2
    build "$1"
    # The full run a pull request would take (timed: what the selected run is compared with),
    # then the run with --record (every benchmark a second time under callgrind): this commit
    # is the next one's parent, whose code record selection compares with. Its counts must be
    # the plain run's (one build): a difference is counted in the summary line.
    local start=$EPOCHREALTIME
    irgate_run "$work/$1.log" --results "$out"
    seconds_since "$start" >"$work/$1.time"
    start=$EPOCHREALTIME
    irgate_run "$work/$1.rec.log" --record --results "$work/$1.rec.json"
    seconds_since "$start" >"$work/$1.rectime"
    [ "$(benchmark_irs "$out" | sort)" = "$(benchmark_irs "$work/$1.rec.json" | sort)" ] ||
        echo "$1" >>"$work/record-differs"
    echo "measured" >"$work/$1.how"
    echo "$1" >"$work/last-measured"
    echo "$out"
}

# check NAME RESULTS ARGS...: `irgate check --format json ARGS` of RESULTS against $work/baselines
# in the worktree; the report in $work/NAME.report.json, its exit code on stdout.
check() {
    local name=$1 results=$2 code=0
    shift 2
    (cd "$work/tree/$dir" && "$irgate" check --results "$results" --baselines "$work/baselines" \
        --config "$gate" --format json "$@") >"$work/$name.report.json" 2>"$work/$name.check.err" || code=$?
    echo "$code"
}

# failed REPORT: the benchmarks REPORT fails, on one line, or `none`.
failed() {
    local list
    list=$(failing_benchmarks "$1" | paste -sd' ')
    echo "${list:-none}"
}

# touched REPORT: how many benchmarks the change map holds to their budget, of all.
touched() {
    jq -r 'if .change == null then "no change map"
           elif .change.unmapped != null then "all (unmapped: \(.change.unmapped | gsub("[|`\n]"; " ") | .[0:60]))"
           else "\([.rows[] | select(.touch != null and .touch.kind != "untouched") | .benchmark]
                   | unique | length) of \([.rows[].benchmark] | unique | length)" end' "$1"
}

# moved BASE NEW: how many benchmarks' Ir differ between two results files (added, removed too).
moved() {
    join -a1 -a2 -e missing -o 0,1.2,2.2 <(benchmark_irs "$1" | sort) <(benchmark_irs "$2" | sort) |
        awk '$2 != $3' | wc -l
}

# selected_run STEM: `irgate run --only-touched` in the worktree against $work/baselines (results
# STEM.json, log STEM.log), timed, then checked; compares its verdict with the full run's ($code,
# $failed_new). Sets `selected` (the table's cell) and `sel_s`; adds to `saved` and `differs`.
selected_run() {
    local stem=$1 start=$EPOCHREALTIME sel_code ran
    selected=- sel_s=-
    if (cd "$work/tree/$dir" && "$irgate" run ${config:+--config "$config"} --only-touched \
        --baselines "$work/baselines" --results "$stem.json" >"$stem.log" 2>&1); then
        sel_s=$(seconds_since "$start")
        saved=$(awk -v s="$saved" -v f="$full_s" -v t="$sel_s" 'BEGIN { printf "%.1f", s + f - t }')
        sel_code=$(check "$(basename "$stem")" "$stem.json")
        ran=$(jq -r '(.benchmarks | length) - ((.carried // []) | length)' "$stem.json" 2>/dev/null ||
            jq -r '[.rows[].benchmark] | unique | length - ((.carried // []) | length)' "$stem.report.json")
        if [ "$sel_code" = "$code" ] && [ "$(failed "$stem.report.json")" = "$failed_new" ]; then
            selected="same, ran $ran"
        else
            selected="DIFFERS: exit $sel_code, fails $(failed "$stem.report.json"), ran $ran"
            differs=$((differs + 1))
        fi
    else
        selected="n/a: $(grep -m1 -i 'error' "$stem.log" | tr '|`' '/ ' | cut -c1-80)"
    fi
}

# The persisted mode (--persist): one baselines directory for the whole range, as a repository
# keeps its baselines/, and the history replayed as one line of commits in the scratch worktree.

# linear_commit TREE_OF PARENT MESSAGE: a commit (written into REPO's objects, referenced by no
# branch) with the tree of commit TREE_OF, the one parent PARENT and MESSAGE; its id on stdout.
linear_commit() {
    git -C "$repo" -c user.name=replay -c user.email=replay@example.invalid \
        commit-tree "$1^{tree}" -p "$2" -m "$3"
}

# refresh_into NAME RESULTS: `irgate refresh` of RESULTS (and the code record beside it when the
# run recorded one) into the persisted baselines, run in the worktree; exits on failure.
refresh_into() {
    (cd "$work/tree/$dir" && "$irgate" refresh --results "$2" --baselines "$work/baselines" \
        --config "$gate" >"$work/$1.refresh.log" 2>&1) ||
        { echo "replay: irgate refresh of $2 failed: $work/$1.refresh.log" >&2; tail -20 "$work/$1.refresh.log" >&2; exit 2; }
}

# touch_kinds REPORT: how many benchmarks the change map holds to their budget, of all, and why:
# each touch kind with its count, the reasons of `unrecorded` ones (no or a void record entry).
touch_kinds() {
    jq -r 'if .change == null then "no change map"
           elif .change.unmapped != null then "all (unmapped: \(.change.unmapped | gsub("[|`\n]"; " ") | .[0:60]))"
           else ([.rows[] | select(.touch != null and .touch.kind != "untouched")] | unique_by(.benchmark)) as $t
             | "\($t | length) of \([.rows[].benchmark] | unique | length)"
               + if $t == [] then "" else " (" + ($t | group_by(.touch.kind) | map(
                   "\(.[0].touch.kind) \(length)" + if .[0].touch.kind == "unrecorded" then
                     ": " + ([.[].touch.reason | split(":")[0] | gsub("[|`\n]"; " ")] | unique | join("; "))
                   else "" end) | join(", ")) + ")" end end' "$1"
}

# persisted_step NAME LABEL FROM THEN: judges the worktree as checked out against the persisted
# baselines (a full run and check, a selected run and check, compared), prints its row (LABEL
# first; files changed since FROM), then updates the baselines as THEN says: `accepted` (a refresh
# from the full run, without --record) or `recorded` (`irgate run --record`, then its refresh).
persisted_step() {
    local name=$1 label=$2 from=$3 then=$4 start files moved carried_list verdict
    step_missed=0
    echo "replay: $name: $(git -C "$work/tree" log -1 --format=%s | cut -c1-60)" >&2
    gate=${config:-$work/tree/$dir/gate.toml}
    build "$name"
    start=$EPOCHREALTIME
    irgate_run "$work/$name.log" --results "$work/$name.json"
    full_s=$(seconds_since "$start")
    files=$(git -C "$work/tree" diff --name-only "$from" -- "${paths[@]}" | wc -l)
    code=$(check "$name.full" "$work/$name.json")
    failed_new=$(failed "$work/$name.full.report.json")
    selected_run "$work/$name.selected"
    # The benchmarks the selected run carried whose count the full run moved, each with its
    # status in the full check and its move: `layout` (within the address budget) by design, any
    # other a miss of selection.
    moved=$(jq -r '[.rows[] | select(.metric == "Ir" and .baseline != .new) | .benchmark] | unique[]' \
        "$work/$name.full.report.json")
    carried_list=$(comm -12 <(sort -u <<<"$moved") <(jq -r '(.carried // [])[]' "$work/$name.selected.json" 2>/dev/null | sort -u) |
        while read -r id; do
            jq -r --arg id "$id" '.rows[] | select(.benchmark == $id and .metric == "Ir")
                | "\(.benchmark) (\(.status), \(.new - .baseline) Ir)"' "$work/$name.full.report.json"
        done)
    step_missed=$(grep -v '(layout, ' <<<"$carried_list" | grep -c . || true)
    carried_list=$(paste -sd' ' <<<"$carried_list")
    [ "$step_missed" = 0 ] || carried_moved=$((carried_moved + 1))
    case "$code,$files" in
        0,*) verdict=pass ;;
        1,0) verdict="false alarm"; alarms=$((alarms + 1)); blind=$((blind + 1)) ;;
        1,*) verdict=alarm; alarms=$((alarms + 1)) ;;
        *) verdict="undecided: $(jq -r '.outcome.reason // "?"' "$work/$name.full.report.json" | head -c 200)"
           undecided=$((undecided + 1)) ;;
    esac
    case $then in
        accepted) refresh_into "$name" "$work/$name.json"; accepted=$((accepted + 1)) ;;
        recorded) irgate_run "$work/$name.rec.log" --record --results "$work/$name.rec.json"
                  refresh_into "$name" "$work/$name.rec.json" ;;
    esac
    rows=$((rows + 1))
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$label" "$(git -C "$work/tree" log -1 --format=%s | tr '|`' '/ ' | cut -c1-50)" "$files" \
        "$(wc -w <<<"$moved")" "$(touch_kinds "$work/$name.full.report.json")" "${carried_list:-none}" \
        "$selected" "$full_s" "$sel_s" "$failed_new" "$verdict" "$then"
}

# replay_persisted: the persisted mode's table. The baselines start as the first commit's
# parent recorded (`irgate run --record`, `irgate refresh`); each commit of RANGE is then
# committed again on top of the last step (its tree, one parent), judged, and accepted or
# recorded; an --inject commit is followed by the slowdown committed on top of it (judged, then
# accepted) and by the slowdown's revert (the commit's tree again, byte for byte; judged, then
# accepted as well).
replay_persisted() {
    local commits first last commit short
    commits=$(git -C "$repo" rev-list "${walk[@]}" --reverse "$range")
    first=$(head -1 <<<"$commits")
    last=$(git -C "$repo" rev-parse "$first^")
    checkout "$last"
    gate=${config:-$work/tree/$dir/gate.toml}
    echo "replay: the baselines of $(git -C "$repo" log -1 --format='%h %s' "$last") (run --record, refresh)" >&2
    irgate_run "$work/start.rec.log" --record --results "$work/start.rec.json"
    refresh_into start "$work/start.rec.json"
    echo "| step | subject | files | moved | touched | moved, carried | selected | full s | selected s | flagged | verdict | then |"
    echo "|:--|:--|--:|--:|:--|:--|:--|--:|--:|:--|:--|:--|"
    for commit in $commits; do
        short=$(git -C "$repo" rev-parse --short "$commit")
        checkout "$(linear_commit "$commit" "$last" "$(git -C "$repo" log -1 --format=%B "$commit")")"
        persisted_step "$short" "\`$short\`" "$last" "${accept[$commit]:-recorded}"
        last=$(git -C "$work/tree" rev-parse HEAD)
        [ -n "${inject[$commit]:-}" ] || continue
        slow_down "${inject[$commit]}"
        git -C "$work/tree" -c user.name=replay -c user.email=replay@example.invalid \
            commit -q -a -m "replay: a slowdown in ${inject[$commit]}"
        persisted_step "$short.slowdown" "\`$short\` + slowdown" "$last" accepted
        slowdown_code=$code
        last=$(git -C "$work/tree" rev-parse HEAD)
        checkout "$(linear_commit "$commit" "$last" "replay: revert the slowdown")"
        persisted_step "$short.revert" "revert of the slowdown" "$last" accepted
        last=$(git -C "$work/tree" rev-parse HEAD)
        injected_rows=$((injected_rows + 1))
        [ "$slowdown_code" = 1 ] || missed=$((missed + 1))
        [ "$step_missed" = 0 ] && [ "${selected%%,*}" = same ] || missed=$((missed + 1))
    done
    echo
    echo "$rows steps: $alarms failed the change-aware check ($blind with no file under PATHS changed), $undecided had no verdict; accepted without --record $accepted; injected slowdowns $injected_rows, missed $missed (a slowdown that passed, a revert whose moved benchmarks a selected run would carry); the selected verdict differed on $differs; steps where the selected run carried a benchmark that moved beyond the address budget $carried_moved; run time saved by selection: ${saved} s"
}

rows=0 alarms=0 blind=0 old_alarms=0 undecided=0 differs=0 saved=0 injected_rows=0 missed=0
accepted=0 carried_moved=0
if [ -n "$persist" ]; then
    replay_persisted
    exit 0
fi
echo "| commit | subject | files | counts | moved | touched | failed old | selected | build s | full s | selected s | flagged | verdict |"
echo "|:--|:--|--:|:--|--:|:--|:--|:--|--:|--:|--:|:--|:--|"
for commit in $(git -C "$repo" rev-list "${walk[@]}" --reverse "$range"); do
    parent=$(git -C "$repo" rev-parse "$commit^")
    base=$(run "$parent")
    if [ -z "${inject[$commit]:-}" ]; then
        full=$(run "$commit")
        how=$(cat "$work/$commit.how")
        build=$(cat "$work/$commit.build" 2>/dev/null || echo -)
        full_s=$(cat "$work/$commit.time" 2>/dev/null || echo -)
        checkout "$commit"
    else
        # Measured without the slowdown only when a child needs it as its baselines (run).
        checkout "$commit"
        slow_down "${inject[$commit]}"
        echo "replay: irgate run at $(git -C "$repo" rev-parse --short "$commit") with the injected slowdown" >&2
        build "$commit.inj"
        build=$(cat "$work/$commit.inj.build")
        full=$work/$commit.inj.json
        start=$EPOCHREALTIME
        irgate_run "$work/$commit.inj.log" --results "$full"
        full_s=$(seconds_since "$start")
        how=injected
    fi
    # The worktree against the parent: the commit's change, and the injected slowdown if any.
    files=$(git -C "$work/tree" diff --name-only "$parent" -- "${paths[@]}" | wc -l)
    rm -rf "$work/baselines"
    gate=${config:-$work/tree/gate.toml}
    # The parent's recorded run: its counts and its code record (`<stem>.code.json` beside it).
    "$irgate" refresh --results "${base%.json}.rec.json" --baselines "$work/baselines" --config "$gate" >/dev/null
    code=$(check full "$full")
    old_code=$(check old "$full" --no-change-map)
    failed_new=$(failed "$work/full.report.json")
    failed_old=$(failed "$work/old.report.json")
    [ "$old_code" != 2 ] || failed_old="undecided"
    [ "$old_code" != 1 ] || old_alarms=$((old_alarms + 1))
    selected=- sel_s=-
    [ "$how" = reused ] || selected_run "$work/selected"
    case "$code,$files,$failed_new" in
        0,*) verdict=pass ;;
        1,0,*) verdict="false alarm"; alarms=$((alarms + 1)); blind=$((blind + 1)) ;;
        1,*) verdict=alarm; alarms=$((alarms + 1)) ;;
        *) verdict="undecided: $(jq -r '.outcome.reason // "?"' "$work/full.report.json" | head -c 200)"
           undecided=$((undecided + 1)) ;;
    esac
    if [ "$how" = injected ]; then
        injected_rows=$((injected_rows + 1))
        [ "$code" = 1 ] || missed=$((missed + 1))
    fi
    rows=$((rows + 1))
    printf '| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$(git -C "$repo" rev-parse --short "$commit")" \
        "$(git -C "$repo" log -1 --format=%s "$commit" | tr '|`' '/ ' | cut -c1-60)" \
        "$files" "$how" "$(moved "$base" "$full")" "$(touched "$work/full.report.json")" \
        "$failed_old" "$selected" "$build" "$full_s" "$sel_s" "$failed_new" "$verdict"
done
echo
echo "$rows commits: $alarms failed the change-aware check ($blind on a commit that changed no file under PATHS), $old_alarms failed the old one, $undecided had no verdict; injected slowdowns $injected_rows, missed $missed; the selected verdict differed on $differs; run time saved by selection: ${saved} s; recorded runs whose counts differ from the plain run of the same build: $(sort -u "$work/record-differs" 2>/dev/null | wc -l)"
