#!/usr/bin/env bash
# The first pull request, in the README's flow exactly (issue #48), on gate/tests/adoption/first-pr:
# a library whose gungraun 0.20 suite needs a crate feature (`required-features = ["bench"]`),
# calls the library through a `bench_api` module, and has one benchmark that reads a kernel file
# at run time. A gate.toml lies in the folder above the checkout, which irgate must not take for
# the project's. Twice, from a clean copy: once with `irgate init --ci` (calibrated), once with
# `irgate init --ci --no-calibrate`. Each time:
#
#   1. `irgate init --ci`, `irgate refresh`, the README's `git add` line, commit (the baselines'
#      commit): the record's commit has no gate.toml, init's entry names the feature;
#   2. a pull request that changes a doc comment: the action's selected run (`irgate run
#      --only-touched --record-from BASE`) runs no benchmark, and `irgate check --record-from
#      BASE` passes (exit 0);
#   3. a pull request that slows `checksum` by a few instructions (+2 Ir): the selected run runs
#      exactly its two benchmarks, and the check fails exactly those (exit 1) under init's budgets,
#      as the full run's check does; `checksum`, inlined through `bench_api` into gungraun's
#      wrapper, is named with its file by the selection's reason and by `irgate explain`.
#
# Also prints how long each init took (the README's setup table).
#
# usage: scripts/first-pr-fixture.sh [--keep DIR]
# Needs valgrind, jq, cargo and gungraun-runner 0.20.0 ($GUNGRAUN_RUNNER or irgate's runner
# cache); irgate from this checkout ($IRGATE, else built).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
keep=
if [ "${1:-}" = --keep ]; then keep=${2:?usage: --keep DIR}; shift 2; fi
say() { printf 'first-pr-fixture: %s\n' "$*"; }
die() { printf 'first-pr-fixture: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"
scratch_dir "$keep"
irgate=${IRGATE:-$(irgate_executable)}
git() { command git -c user.name=t -c user.email=t@t -c advice.detachedHead=false "$@"; }

# A gate.toml above the checkouts, which no checkout below may take for its own.
printf '[budgets]\nIr = { absolute = 1000000 }\n' >"$work/gate.toml"

# first_pr NAME INIT_ARGS...: the README's flow in a clean copy named NAME.
first_pr() {
    local name=$1
    shift
    local dir=$work/$name
    cp -r "$irgate_repo/gate/tests/adoption/first-pr" "$dir"
    cd "$dir"
    printf '/target\n' >.gitignore
    command git init --quiet --initial-branch=main
    git add -A && git commit --quiet -m "kvline"

    say "$name: irgate init --ci $*"
    local start=$SECONDS
    "$irgate" init --ci "$@" >"$work/$name.init.log" 2>&1 ||
        { cat "$work/$name.init.log" >&2; die "$name: irgate init failed"; }
    say "$name: init took $((SECONDS - start)) s"
    grep -qx 'features = \["bench"\]' gate.toml || die "$name: init's [[suite]] entry does not name the feature"
    "$irgate" refresh >"$work/$name.refresh.log" 2>&1 ||
        { cat "$work/$name.refresh.log" >&2; die "$name: irgate refresh failed"; }
    git add gate.toml baselines .github .irgate && git commit --quiet -m "irgate: baselines"
    local base total
    base=$(command git rev-parse HEAD)
    total=$(jq '.benchmarks | length' baselines/code/record.json)
    [ "$total" -eq 7 ] || die "$name: the code record holds $total benchmarks, not 7"

    # 2. A doc comment: nothing runs, and the check passes.
    command git checkout --quiet -b doc
    sed -i 's|^/// How many words `text` holds.|/// How many words `text` holds, split at white space.|' src/lib.rs
    git commit --quiet -am "docs: count_words"
    pull_request "$name" "$base" 0 ""

    # 3. A few instructions more in `checksum`: exactly its benchmarks run, and fail.
    command git checkout --quiet main
    command git checkout --quiet -b slow
    sed -i 's|^    data.iter()$|    std::hint::black_box(data.len());\n    data.iter()|' src/lib.rs
    grep -q 'black_box(data.len())' src/lib.rs || die "$name: could not slow checksum"
    git commit --quiet -am "checksum: a few instructions more"
    pull_request "$name" "$base" 1 "$(printf 'lines::checksum/long\nlines::checksum/short')"
    # `checksum` is inlined through `bench_api` into gungraun's wrapper: the reason and the
    # explanation name it and its file, not only the wrapper.
    grep -q 'runs lines::checksum/short: executes changed code: `checksum` (src/lib.rs:[0-9]*), inlined into' "$work/run.log" ||
        { cat "$work/run.log" >&2; die "$name: the selection reason does not name checksum in src/lib.rs"; }
    "$irgate" explain lines::checksum/short >"$work/explain.log" 2>&1 || true
    grep -q 'src/lib.rs: checksum (inlined into ' "$work/explain.log" ||
        { cat "$work/explain.log" >&2; die "$name: explain does not name checksum in src/lib.rs"; }
    # The full run agrees.
    "$irgate" run >"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; die "$name: irgate run failed"; }
    local code=0
    "$irgate" check --format json >"$work/report.json" || code=$?
    [ "$code" -eq 1 ] || die "$name: the full run's check exited $code, not 1"
    [ "$(failing_benchmarks "$work/report.json")" = "$(printf 'lines::checksum/long\nlines::checksum/short')" ] ||
        die "$name: the full run failed $(failing_benchmarks "$work/report.json" | tr '\n' ' ')"
    command git checkout --quiet main
    cd "$work"
}

# pull_request NAME BASE CODE FAILING: the pull request at HEAD as the action runs it (selected,
# with the record of BASE); the selected run must run exactly FAILING, and the check exit CODE and
# fail exactly FAILING.
pull_request() {
    local name=$1 base=$2 expected=$3 failing=$4 code=0 ran
    "$irgate" run --only-touched --record-from "$base" >"$work/run.log" 2>&1 ||
        { cat "$work/run.log" >&2; die "$name: irgate run --only-touched failed"; }
    ran=$(sed -nE 's/^irgate: --only-touched: runs (.*): (executes changed code|counted as touched).*/\1/p' "$work/run.log" | sort)
    if [ "$ran" != "$failing" ]; then
        cat "$work/run.log" >&2
        die "$name: $(command git log -1 --format=%s): the selected run ran [$(tr '\n' ' ' <<<"$ran")], not [$(tr '\n' ' ' <<<"$failing")]"
    fi
    "$irgate" check --record-from "$base" --format json >"$work/report.json" || code=$?
    [ "$code" -eq "$expected" ] ||
        { "$irgate" check --record-from "$base" >&2 || true; die "$name: $(command git log -1 --format=%s): check exited $code, not $expected"; }
    [ "$(failing_benchmarks "$work/report.json")" = "$failing" ] ||
        die "$name: $(command git log -1 --format=%s): the check failed [$(failing_benchmarks "$work/report.json" | tr '\n' ' ')]"
    say "$name: $(command git log -1 --format=%s): ran [$(tr '\n' ' ' <<<"$ran")], exit $code"
}

first_pr calibrated
grep -q 'irgate init: calibrated in' "$work/calibrated.init.log" ||
    { cat "$work/calibrated.init.log" >&2; die "init did not calibrate"; }
first_pr uncalibrated --no-calibrate
say "ok"
