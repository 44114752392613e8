#!/usr/bin/env bash
# The unattended replay (issue #50 item 2): walks the first-parent commits of RANGE in REPO, oldest
# first, and appends one row per commit to CSV as soon as that commit is done. It never asks
# anything, and it resumes: started again with the same arguments, it skips the commits CSV
# already holds for this repository (a half-written last line is dropped first) and goes on. The
# CSV is the state; the work directory (--work, default CSV.work) is only a cache beside it.
#
# One build and one measured run per commit. The baselines of commit N are the record taken at
# commit N-1 (its `irgate run --record`, then `irgate refresh` into the replay's own baselines
# directory); the first commit's are its first parent's, recorded the same way (no row). Per
# commit, in one scratch worktree at a fixed path (so every executable has the same path):
#   1. `irgate run --only-touched --dry-run` against the baselines: builds, and says which
#      benchmarks the change can move (the selection) and how many are carried;
#   2. `irgate run --record`: the full run. Its counts are the full run's, and its record (refreshed
#      into a new baselines directory) is the next commit's base;
#   3. `irgate check` of the full run against the baselines: the full verdict (`full_exit`);
#   4. the selected verdict, computed: the full run's results with each carried benchmark's counts
#      replaced by the baselines' and listed under `carried` (what `irgate run --only-touched`
#      writes: the benchmarks it runs count as in the full run, one build, the others carry the
#      baselines' counts), checked the same way (`selected_exit`). The carried benchmarks are the
#      full run's minus those the dry run names (`runs ID: …`) minus those the baselines do not
#      hold (new ones run); when that set's size is not the dry run's own count of carried ones
#      (e.g. an iai-callgrind suite that runs whole), a real selected run is taken instead.
#   With --verify-every N, every Nth commit of RANGE (its position in RANGE, so the same ones on
#   a resumed replay) also takes a real selected run (`irgate run --only-touched`, then `irgate
#   check`), and the side file says whether its exit code and failing benchmarks agree with the
#   computed ones (`agrees`, or `DIFFERS: …`). A commit that does not build gets a row whose
#   exits say `build-failed` (another failure of irgate: `error`), one that takes longer than
#   --timeout a row saying `timeout`; either way the next commit is judged against the last
#   commit that built. The base's own measurement (the first commit's parent, or on a resume the
#   last commit with a verdict when the cache does not hold its record) is not bounded: a base
#   that does not measure stops the replay. A replay killed with SIGTERM, SIGINT or SIGHUP ends
#   its running step's process group too (SIGKILL cannot: wait for the orphans, or the resumed
#   replay's lock on the work directory refuses to start while they hold it).
#
# The CSV's columns (header exactly as below; a CSV may hold several repositories):
#   repository      --name, default REPO's directory name.
#   commit          the full commit id.
#   library         the suite's benchmark library, as the results' fingerprint says.
#   benchmarks      how many benchmarks the full run measured.
#   selected        how many the selected run runs (benchmarks minus carried).
#   selected_exit   `irgate check`'s exit code on the selected results (computed, above).
#   full_exit       `irgate check`'s exit code on the full run (0 pass, 1 fail, 2 undecided), or
#                   `build-failed`, `timeout`, `error` (then the other cells but the first three
#                   are empty).
#   moved_untouched benchmarks the change map calls untouched (executed none of the changed code)
#                   whose Ir differs from the baselines': they moved without executing changed code.
# The side file CSV minus `.csv` plus `.seconds.csv` holds, per commit:
#   build_s (the dry run: build and selection, wall), record_s (the recorded full run, wall),
#   full_bench_s and selected_bench_s (the runner's own seconds of every benchmark, and of the
#   selected ones only: `durations_ms` of the full run's results), verified (with --verify-every:
#   `agrees` or `DIFFERS: …`; `real` where the selected verdict is a real selected run's).
#
# --summary CSV prints, per repository, in markdown: commits, rows without a verdict (not built,
# timed out, error), misses (selected_exit 0 where full_exit is 1 or 2), false alarms (full_exit or
# selected_exit 1 or 2 on a commit where the dry run selected nothing: it changed nothing a
# benchmark executes), commits with a moved untouched benchmark, the median share run
# (selected/benchmarks), the runner seconds of every benchmark and of the selected ones summed over
# the commits (the time a selected run saves), and the verified commits that agree.
#
# Options:
#   --name NAME        the repository column (default: REPO's directory name).
#   --config FILE      judge every commit under this gate.toml (default: each commit's own).
#   --dir SUBDIR       run irgate in SUBDIR of the worktree (a suite in a nested workspace).
#   --setup 'CMD'      run CMD (bash, in the worktree) after each checkout, before building.
#   --timeout SECONDS  bound each commit's time (default 1800): a row saying `timeout`.
#   --verify-every N   a real selected run on every Nth commit of RANGE (above).
#   --work DIR         the cache: scratch worktree, target directory, the last base (default
#                      CSV.work). Keep it at one path across resumes: an executable's path length
#                      moves counts. REPLAY_TARGET_DIR overrides its target directory (the
#                      fixture shares one between two replays).
#
# Needs valgrind, the suite library's runner (GUNGRAUN_RUNNER), jq, git, flock, timeout.
#
# usage: scripts/replay-csv.sh [--name NAME] [--config FILE] [--dir SUBDIR] [--setup 'CMD']
#                              [--timeout SECONDS] [--verify-every N] [--work DIR] REPO RANGE CSV
#        scripts/replay-csv.sh --summary CSV
#   e.g. scripts/replay-csv.sh --verify-every 10 ../wayfind v0.7.0..main docs/reports/replays.csv
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "$0")/lib.sh"
usage="usage: scripts/replay-csv.sh [--name NAME] [--config FILE] [--dir SUBDIR] [--setup 'CMD'] [--timeout SECONDS] [--verify-every N] [--work DIR] REPO RANGE CSV | --summary CSV"
header=repository,commit,library,benchmarks,selected,selected_exit,full_exit,moved_untouched
side_header=repository,commit,build_s,record_s,full_bench_s,selected_bench_s,verified
die() { echo "replay-csv: $*" >&2; exit 2; }
side_of() { echo "${1%.csv}.seconds.csv"; }

# summary CSV: the per-repository table (see the header).
summary() {
    local csv=$1 side repo shares median
    [ -f "$csv" ] || die "--summary $csv: no such file"
    [ "$(head -1 "$csv")" = "$header" ] || die "--summary $csv: not a replay CSV (its header is not $header)"
    side=$(side_of "$csv")
    echo "| repository | commits | no verdict | misses | false alarms | moved untouched | median share run | full bench s | selected bench s | verified agree |"
    echo "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    for repo in $(tail -n +2 "$csv" | cut -d, -f1 | sort -u); do
        shares=$(awk -F, -v r="$repo" '$1 == r && $4 > 0 && $7 ~ /^[0-9]+$/ { printf "%.4f\n", $5 / $4 }' "$csv" | sort -n)
        median=$(awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) printf "%.1f%%", 100 * v[(NR + 1) / 2];
            else printf "%.1f%%", 50 * (v[NR / 2] + v[NR / 2 + 1]) }' <<<"$shares")
        awk -F, -v r="$repo" -v median="$median" '
            FILENAME == ARGV[1] && FNR > 1 && $1 == r {
                rows++
                if ($7 !~ /^[0-9]+$/) { none++; next }
                if ($6 == 0 && ($7 == 1 || $7 == 2)) misses++
                if ($5 == 0 && ($7 == 1 || $7 == 2 || $6 == 1 || $6 == 2)) alarms++
                if ($8 > 0) moved++
                done[$2] = 1
            }
            FILENAME != ARGV[1] && FNR > 1 && $1 == r && ($2 in done) {
                full += $5; sel += $6; timed = 1
                if ($7 != "" && $7 != "real") { verified++; if ($7 == "agrees") agree++ }
            }
            END {
                printf "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", r, rows, none, misses, alarms, moved,
                    median, timed ? sprintf("%.1f", full) : "-", timed ? sprintf("%.1f", sel) : "-",
                    verified ? sprintf("%d of %d", agree, verified) : "-"
            }' "$csv" "$([ -f "$side" ] && echo "$side" || echo /dev/null)"
    done
}

if [ "${1:-}" = --summary ]; then
    summary "${2:?$usage}"
    exit 0
fi

# --- one commit (run as `replay-csv.sh __step COMMIT INDEX` under timeout, state in the
# environment the main loop exports) ---

# in_tree CMD...: CMD in the worktree's irgate directory.
in_tree() { (cd "$work/tree/$dir" && "$@"); }

# checkout COMMIT: the scratch worktree at COMMIT, nothing else changed (a lock a timed-out step
# left is removed); then --setup.
checkout() {
    rm -f "$(git -C "$work/tree" rev-parse --absolute-git-dir)/index.lock"
    git -C "$work/tree" checkout -q --force --detach "$1" || die "cannot check $1 out"
    [ -z "$setup" ] || in_tree bash -c "$setup" || die "--setup failed at $1"
}

# irgate_run LOG ARGS...: `irgate run ARGS` against the base's baselines; on failure, writes the
# row of a commit that does not build (or of an error) and exits 42.
irgate_run() {
    local log=$1
    shift
    in_tree "$irgate" run ${config:+--config "$config"} --baselines "$work/base/baselines" "$@" >"$log" 2>&1 && return
    tail -20 "$log" >&2
    if grep -Eq 'could not compile|error\[E[0-9]+\]|failed to run custom build command|failed to load manifest|failed to select a version' "$log"; then
        fail_row build-failed
    else
        fail_row error
    fi
    exit 42
}

# fail_row WHAT: the row of a commit without a verdict, into $work/step/row.
fail_row() { echo "$name,$commit,,,,$1,$1," >"$work/step/row"; }

# check RESULTS REPORT: `irgate check --format json` of RESULTS against the base's baselines, the
# report in REPORT; its exit code on stdout (above 2: the row of an error, exit 42).
check() {
    local code=0
    in_tree "$irgate" check ${config:+--config "$config"} --results "$1" --baselines "$work/base/baselines" \
        --format json >"$2" 2>"$2.err" || code=$?
    [ "$code" -le 2 ] || { cat "$2.err" >&2; fail_row error; exit 42; }
    echo "$code"
}

# carried DRYLOG FULL: the benchmarks the dry run carries, sorted, one a line: the full run's
# minus those it runs minus new ones; fails when their number is not the dry run's own count.
carried() {
    local ids count
    grep -q 'irgate: --only-touched: running every benchmark' "$1" && return 0
    count=$(sed -n 's/^irgate: --only-touched: \([0-9]*\) of [0-9]* benchmarks executed none.*/\1/p' "$1")
    [ -n "$count" ] || return 1
    ids=$(comm -23 <(jq -r '.benchmarks | keys[]' "$2" | sort) \
        <( (sed -n 's/^irgate: --only-touched: runs //p' "$1" | awk '{ print substr($0, 1, index($0, ": ") - 1) }'
            comm -23 <(jq -r '.benchmarks | keys[]' "$2" | sort) <(jq -r '.benchmarks | keys[]' "$work/base/results.json" | sort)) | sort -u))
    [ "$(grep -c . <<<"$ids" || true)" = "$count" ] || return 1
    [ -z "$ids" ] || echo "$ids"
}

step() {
    commit=$1
    local index=$2 s=$work/step start build_s record_s carried_ids sel_code full_code verified=
    rm -rf "$s" && mkdir -p "$s"
    checkout "$commit"
    echo "replay-csv: $(git -C "$work/tree" log -1 --format='%h %s' | cut -c1-70)" >&2
    start=$EPOCHREALTIME
    irgate_run "$s/dry.log" --only-touched --dry-run
    build_s=$(seconds_since "$start")
    start=$EPOCHREALTIME
    irgate_run "$s/full.log" --record --results "$s/full.json"
    record_s=$(seconds_since "$start")
    full_code=$(check "$s/full.json" "$s/full.report.json")
    if carried_ids=$(carried "$s/dry.log" "$s/full.json"); then
        jq --slurpfile base "$work/base/results.json" --argjson carried "$(jq -Rn '[inputs | select(. != "")]' <<<"$carried_ids")" '
            .benchmarks |= with_entries(if (.key | IN($carried[])) then .value = $base[0].benchmarks[.key] else . end)
            | if $carried == [] then del(.carried) else .carried = $carried end
            | .durations_ms |= (if . == null then null else with_entries(select(.key | IN($carried[]) | not)) end)
            | if .durations_ms == null then del(.durations_ms) else . end' "$s/full.json" >"$s/selected.json"
    else
        echo "replay-csv: the dry run's selection cannot be listed here: a real selected run" >&2
        irgate_run "$s/selected.log" --only-touched --results "$s/selected.json"
        verified=real
        carried_ids=$(jq -r '(.carried // [])[]' "$s/selected.json")
    fi
    sel_code=$(check "$s/selected.json" "$s/selected.report.json")
    if [ "$verify" -gt 0 ] && [ $((index % verify)) = 0 ]; then
        irgate_run "$s/verify.log" --only-touched --results "$s/verify.json"
        local code failing
        code=$(check "$s/verify.json" "$s/verify.report.json")
        failing=$(failing_benchmarks "$s/verify.report.json" | paste -sd' ')
        if [ "$code" = "$sel_code" ] && [ "$failing" = "$(failing_benchmarks "$s/selected.report.json" | paste -sd' ')" ]; then
            verified=agrees
        else
            verified="DIFFERS: exit $code fails ${failing:-none}"
        fi
        echo "replay-csv: verified: $verified" >&2
    fi
    # The next commit's base: this commit's record, refreshed into baselines of the replay's own.
    rm -rf "$work/next" && mkdir -p "$work/next"
    in_tree "$irgate" refresh ${config:+--config "$config"} --results "$s/full.json" \
        --baselines "$work/next/baselines" >"$s/refresh.log" 2>&1 || { cat "$s/refresh.log" >&2; fail_row error; exit 42; }
    cp "$s/full.json" "$work/next/results.json"
    echo "$commit" >"$work/next/commit"
    printf '%s,%s,%s,%s,%s,%s,%s\n' "$name" "$commit" "$build_s" "$record_s" \
        "$(jq -r '[(.durations_ms // {})[]] | add // 0 | . / 1000' "$s/full.json")" \
        "$(jq -r '[(.durations_ms // {})[]] | add // 0 | . / 1000' "$s/selected.json")" \
        "$(tr ',\n' '; ' <<<"$verified" | sed 's/ *$//')" >"$s/side"
    printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$name" "$commit" \
        "$(jq -r '.fingerprint.library // "" | gsub("[,\n\"]"; " ")' "$s/full.json")" \
        "$(jq -r '.benchmarks | length' "$s/full.json")" \
        "$(($(jq -r '.benchmarks | length' "$s/full.json") - $(grep -c . <<<"$carried_ids" || true)))" \
        "$sel_code" "$full_code" \
        "$(jq -r '[.rows[] | select(.metric == "Ir" and .touch.kind? == "untouched" and .baseline != .new) | .benchmark] | unique | length' \
            "$s/full.report.json")" >"$s/row"
}

if [ "${1:-}" = __step ]; then
    step "$2" "$3"
    exit 0
fi

# --- the main loop ---
name= config= dir=. setup= timeout_s=1800 verify=0 work=
while [ $# -gt 0 ]; do
    case $1 in
        --name) name=${2:?$usage}; shift 2 ;;
        --config) config=$(realpath "${2:?$usage}"); shift 2 ;;
        --dir) dir=${2:?$usage}; shift 2 ;;
        --setup) setup=${2:?$usage}; shift 2 ;;
        --timeout) timeout_s=${2:?$usage}; shift 2 ;;
        --verify-every) verify=${2:?$usage}; shift 2 ;;
        --work) work=$(realpath -m "${2:?$usage}"); shift 2 ;;
        -*) echo "$usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
[ -z "$config" ] || [ -f "$config" ] || die "--config $config: no such file"
case $dir in /* | *..*) die "--dir $dir: a directory inside the repository, relative to its top" ;; esac
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "--timeout $timeout_s: a whole number of seconds, at least 1"
[[ $verify =~ ^[0-9]+$ ]] || die "--verify-every $verify: a whole number (0: never)"
repo=$(realpath "$1")
range=$2
csv=$(realpath -m "$3")
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || die "$repo: not a git repository"
name=${name:-$(basename "$repo")}
[[ $name =~ ^[A-Za-z0-9._/-]+$ ]] || die "--name $name: letters, digits, . _ / - only (a CSV cell)"
work=${work:-$csv.work}
side=$(side_of "$csv")
commits=$(git -C "$repo" rev-list --first-parent --reverse --end-of-options "$range") || die "$range: not a range of $repo"
[ -n "$commits" ] || die "$range: no commit"
first_base=$(git -C "$repo" rev-parse --verify --quiet "$(head -1 <<<"$commits")^") ||
    die "the range's first commit has no parent to be its base"
irgate=${IRGATE:-$(irgate_executable)}

mkdir -p "$work" "$(dirname "$csv")"
exec 9>"$work/lock"
flock -n 9 || die "$work: another replay is using it"

# The CSV is the state: a half-written last line is dropped, the header checked or written.
if [ -s "$csv" ] && [ "$(tail -c1 "$csv" | od -An -c | tr -d ' ')" != '\n' ]; then
    echo "replay-csv: dropping the half-written last line of $csv" >&2
    sed -i '$d' "$csv"
fi
if [ -s "$csv" ]; then
    [ "$(head -1 "$csv")" = "$header" ] || die "$csv: its header is not $header"
else
    echo "$header" >"$csv"
fi
# The side file keeps only the complete rows of commits the CSV holds.
if [ -f "$side" ]; then
    awk -F, 'FILENAME == ARGV[1] { done[$1 "," $2] = 1; next }
        FNR == 1 || (NF == 7 && ($1 "," $2) in done)' "$csv" "$side" >"$side.new" || true
    mv "$side.new" "$side"
else
    echo "$side_header" >"$side"
fi

export work dir setup config irgate name verify GIT_TERMINAL_PROMPT=0
export CARGO_TARGET_DIR=${REPLAY_TARGET_DIR:-$work/target}
git -C "$repo" worktree prune
[ -e "$work/tree/.git" ] || { rm -rf "$work/tree"; git -C "$repo" worktree add --detach -q "$work/tree" "$first_base"; }

# A signal to the replay ends the running step's process group (timeout's) too.
pid=
trap '[ -z "$pid" ] || kill -TERM -- "-$pid" 2>/dev/null; exit 130' INT TERM HUP

# run_step COMMIT INDEX: the step under the per-commit timeout; its exit code in `code`.
run_step() {
    code=0
    timeout -k 30 "$timeout_s" "$0" __step "$1" "$2" &
    pid=$!
    wait "$pid" || code=$?
    pid=
}

# row_of COMMIT: the CSV's row of COMMIT in this repository, if any.
row_of() { awk -F, -v n="$name" -v c="$1" '$1 == n && $2 == c { print; exit }' "$csv"; }

# The base: the last commit in the CSV (of this range) with a verdict, else the range's first
# parent; measured again (no row) unless the cache holds it.
base=$first_base
for commit in $commits; do
    row=$(row_of "$commit")
    [ -n "$row" ] || break
    [[ $(cut -d, -f7 <<<"$row") =~ ^[0-9]+$ ]] && base=$commit
done
if [ "$(cat "$work/base/commit" 2>/dev/null)" != "$base" ]; then
    echo "replay-csv: the base, $(git -C "$repo" log -1 --format='%h %s' "$base" | cut -c1-70) (run --record, refresh)" >&2
    rm -rf "$work/base" && mkdir -p "$work/base"
    git -C "$work/tree" checkout -q --force --detach "$base"
    [ -z "$setup" ] || (cd "$work/tree/$dir" && bash -c "$setup") || die "--setup failed at $base"
    (cd "$work/tree/$dir" && "$irgate" run ${config:+--config "$config"} --record --results "$work/base/results.json" &&
        "$irgate" refresh ${config:+--config "$config"} --results "$work/base/results.json" --baselines "$work/base/baselines") \
        >"$work/base.log" 2>&1 || { tail -20 "$work/base.log" >&2; die "the base $base does not measure: $work/base.log"; }
    echo "$base" >"$work/base/commit"
fi

index=0
for commit in $commits; do
    index=$((index + 1))
    [ -z "$(row_of "$commit")" ] || continue
    rm -f "$work/step/row" "$work/step/side"
    run_step "$commit" "$index"
    case $code in
        0) cat "$work/step/side" >>"$side"
           mv "$work/next" "$work/base.new" && rm -rf "$work/base" && mv "$work/base.new" "$work/base"
           cat "$work/step/row" >>"$csv" ;;
        42) cat "$work/step/row" >>"$csv" || echo "$name,$commit,,,,error,error," >>"$csv" ;;
        124 | 137) echo "$name,$commit,,,,timeout,timeout," >>"$csv" ;;
        *) echo "replay-csv: the step at $commit exited $code" >&2
           echo "$name,$commit,,,,error,error," >>"$csv" ;;
    esac
    echo "replay-csv: $(tail -1 "$csv")" >&2
done
git -C "$repo" worktree remove --force "$work/tree" >/dev/null 2>&1 || true
echo "replay-csv: $csv: $(awk -F, -v n="$name" '$1 == n' "$csv" | wc -l) rows of $name" >&2
