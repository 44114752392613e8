#!/usr/bin/env bash
# End to end: a new user adopts irgate in two small workspaces (gate/tests/adoption/), following
# the README's "Use irgate in your project" from top to bottom:
#   two-targets   a workspace whose member crate has two gungraun 0.20 bench targets, whose
#                 groups share one name (`digest`); default branch `main`;
#   iai-feature   a library with an iai-callgrind 0.16 suite behind the `callgrind` feature;
#                 default branch `master`.
# Neither has a rust-toolchain.toml. Another project's runners are first on the PATH, of other
# versions (stand-ins answering as gungraun-runner 0.19.0 and iai-callgrind-runner 0.15.2 do),
# which irgate must leave alone and install its own beside. Install irgate (the README's command
# for a clone of irgate: `cargo install --locked --path gate`; the crates.io one installs the same
# package once published). For each, from a clean copy: `irgate init
# --ci` with no runner stops before building anything, naming `irgate runner install` and never
# `--force`, and `irgate doctor` says the runner is missing; `irgate runner install`; `irgate
# init --ci` pins the toolchain in use and the history workflow to the default branch; init again
# is refused before it runs anything, leaving the results alone; `irgate refresh` (its baselines
# explain at once, and hold the code record of init's recording run: what each benchmark executed),
# commit; `irgate run && irgate check` passes
# (exit 0), a deliberate regression in one function is selected by `run --only-touched --dry-run`
# on exactly the benchmarks that call it (gungraun), fails (exit 1) on exactly those when run as
# the action runs a pull request (selected, with the record of its base; the comment says how many
# ran) and in a full run, `irgate explain` names the function, and the revert passes again.
# `init --ci` writes a pull request's workflow that selects and a history that measures everything.
#
# Needs valgrind, jq and cargo. Runners go to irgate's cache at target/adoption-runners, kept
# between runs like the install's build directory: the first run installs gungraun-runner 0.20.0
# and iai-callgrind-runner 0.16.1 there (about 3 minutes of CPU time each), later runs reuse them. About
# 8 minutes here when they are cached.
#
# usage: scripts/adoption-test.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$repo/gate/tests/adoption

say() { printf 'adoption: %s\n' "$*"; }
die() { printf 'adoption: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IRGATE_RUNNERS=$repo/target/adoption-runners
# A new user's shell names no runner.
unset GUNGRAUN_RUNNER IAI_CALLGRIND_RUNNER

# Another project's runners, first on the PATH: irgate must neither use them nor ask to replace
# them.
other=$work/other-project/bin
mkdir -p "$other"
printf '#!/bin/sh\necho "gungraun-runner 0.19.0"\n' >"$other/gungraun-runner"
printf '#!/bin/sh\necho "iai-callgrind-runner 0.15.2"\n' >"$other/iai-callgrind-runner"
chmod +x "$other"/*
other_sum=$(cat "$other"/* | sha256sum)
export PATH=$other:$PATH

# 1. Install: the README's install command for a clone, into a scratch root (its build directory
# is kept between runs).
say "installing irgate: cargo install --locked --path gate"
start=$SECONDS
CARGO_TARGET_DIR=$repo/target/adoption-install \
    cargo install --quiet --locked --path "$repo/gate" --root "$work/irgate"
say "installed in $((SECONDS - start)) s"
export PATH=$work/irgate/bin:$PATH
[ "$(command -v irgate)" = "$work/irgate/bin/irgate" ] || die "irgate is not the installed one"
toolchain=$(rustc --version | cut -d' ' -f2)

# expect_gate CODE: `irgate run && irgate check --format json`, whose exit code must be CODE;
# prints the failing benchmarks.
expect_gate() {
    irgate run >"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; die "irgate run failed"; }
    local code=0
    irgate check --format json >"$work/report.json" || code=$?
    [ "$code" -eq "$1" ] || { irgate check >&2 || true; die "irgate check exited $code, expected $1"; }
    failing_benchmarks "$work/report.json"
}

# expect_refusal LOG CODE COMMAND...: COMMAND must exit CODE (its output in LOG).
expect_refusal() {
    local log=$1 code=$2 got=0
    shift 2
    "$@" >"$log" 2>&1 || got=$?
    [ "$got" -eq "$code" ] || { cat "$log" >&2; die "$* exited $got, expected $code"; }
}

# 2. Set up, with the checks that come before anything is built.
set_up() {
    local name=$1 branch=$2 library=$3
    say "$name: irgate init --ci with no runner of $library: stops before building"
    expect_refusal "$work/init.log" 2 env IRGATE_RUNNERS="$work/no-runners" irgate init --ci
    grep -q 'irgate runner install' "$work/init.log" || { cat "$work/init.log" >&2; die "init does not name irgate runner install"; }
    ! grep -q -- '--force' "$work/init.log" || die "init asks to replace a runner (--force)"
    [ ! -e target ] && [ ! -e gate.toml ] || die "init built or wrote something before refusing"
    expect_refusal "$work/doctor.log" 2 env IRGATE_RUNNERS="$work/no-runners" irgate doctor
    grep -q '^MISSING  runner  *'"${library%% *}" "$work/doctor.log" ||
        { cat "$work/doctor.log" >&2; die "doctor does not report the missing runner"; }

    say "$name: irgate runner install (as irgate asks)"
    irgate runner install
    local runner
    runner=$(irgate runner path)
    case $runner in "$IRGATE_RUNNERS"/*) ;; *) die "the runner is not irgate's cached one: $runner" ;; esac
    [ "$(cat "$other"/* | sha256sum)" = "$other_sum" ] || die "another project's runner was replaced"

    say "$name: irgate init --ci ${init_args:-}"
    # shellcheck disable=SC2086 # INIT_ARGS: words
    irgate init --ci ${init_args:-} >"$work/init.log" 2>&1 || { cat "$work/init.log" >&2; die "irgate init failed"; }
    if [ -z "${init_args:-}" ]; then
        grep -q 'irgate init: calibrated in' "$work/init.log" || { cat "$work/init.log" >&2; die "init did not calibrate"; }
    fi
    for file_written in gate.toml .irgate/image.env .github/workflows/irgate.yml \
        .github/workflows/irgate-comment.yml .github/workflows/irgate-refresh.yml \
        .github/workflows/irgate-history.yml; do
        [ -f "$file_written" ] || die "irgate init did not write $file_written"
    done
    grep -qx "RUNNER_VERSION=${library#* }" .irgate/image.env || die "image pins do not name $library"
    grep -qx "RUST_TOOLCHAIN=$toolchain" .irgate/image.env || die "image pins do not name the toolchain in use, $toolchain"
    [ ! -e rust-toolchain.toml ] || die "init wrote rust-toolchain.toml"
    grep -q 'no rust-toolchain.toml' "$work/init.log" || die "init does not say where the toolchain comes from"
    grep -qF "branches: [\"$branch\"]" .github/workflows/irgate-history.yml ||
        die "the history workflow does not run on $branch"
    grep -qF "records pushes to \`$branch\`" "$work/init.log" ||
        { cat "$work/init.log" >&2; die "init does not name the branch $branch"; }
    # Selection is on for pull requests; the history measures every benchmark (docs/github.md).
    grep -qx '          only-touched: "true"' .github/workflows/irgate.yml ||
        die "the pull request's workflow does not run only the benchmarks the change can move"
    grep -qx '          only-touched: "false"' .github/workflows/irgate-history.yml ||
        die "the history workflow does not measure every benchmark"
    local selects="only the benchmarks the change can move"
    [[ $library != iai-callgrind* ]] || selects="every benchmark of"
    tr -s ' \n' ' ' <"$work/init.log" | grep -qF "On a pull request, the 'irgate' workflow runs $selects" ||
        { cat "$work/init.log" >&2; die "init does not say what the pull request's workflow runs"; }

    say "$name: irgate init --ci again: refused before running anything"
    local results=target/irgate/results.json before
    before=$(sha256sum <"$results")
    expect_refusal "$work/again.log" 2 irgate init --ci
    grep -q 'exists: irgate is set up here already' "$work/again.log" || die "init again: no clear refusal"
    ! grep -q '^irgate: suite ' "$work/again.log" || die "init again ran the suites before refusing"
    [ "$(sha256sum <"$results")" = "$before" ] || die "init again overwrote the latest results"
}

# adopt NAME BRANCH FILE FUNCTION LIBRARY EXPECTED...: adopts irgate in a copy of fixture NAME
# (default branch BRANCH), injects extra work into FUNCTION of FILE, and expects exactly
# EXPECTED to fail.
adopt() {
    local name=$1 branch=$2 file=$3 function=$4 library=$5
    shift 5
    local expected
    expected=$(printf '%s\n' "$@" | sort)
    say "$name: a clean copy (default branch $branch)"
    cp -r "$fixtures/$name" "$work/$name"
    cd "$work/$name"
    git init --quiet --initial-branch="$branch" && git add -A &&
        git -c user.name=t -c user.email=t@t commit --quiet -m fixture

    set_up "$name" "$branch" "$library"

    # 3. The baselines, committed; they explain from the start.
    say "$name: irgate refresh, commit"
    irgate refresh >/dev/null 2>"$work/refresh.log" || { cat "$work/refresh.log" >&2; die "irgate refresh failed"; }
    ! grep -q 'uncommitted' "$work/refresh.log" || die "refresh saw uncommitted changes in a clean fixture"
    [ -n "$(ls baselines/*.json)" ] || die "irgate refresh wrote no baselines"
    [ -n "$(ls baselines/profiles)" ] || die "the first baselines have no per-function profiles"
    jq -e --arg lib "$library" '.fingerprint.library == $lib' baselines/*.json >/dev/null ||
        die "the baselines' fingerprint does not name $library"
    git add gate.toml baselines .github .irgate && git -c user.name=t -c user.email=t@t commit --quiet -m "irgate: baselines"
    irgate explain "$1" >"$work/explain.log" 2>&1 || { cat "$work/explain.log" >&2; die "explain cannot read the first baselines"; }

    # 3b. The code record came with them (README step 3): init's run records what each benchmark
    # executes, as `irgate run --record` does (gungraun, and iai-callgrind from 0.14), with no
    # benchmark left out.
    jq -e '(.benchmarks | length > 0) and ((.unrecorded // {}) | length == 0)' baselines/code/record.json >/dev/null ||
        { cat "$work/init.log" >&2; die "$name: init's run left refresh no full code record"; }

    # 4. The gate.
    say "$name: irgate run && irgate check (unchanged code: exit 0)"
    [ -z "$(expect_gate 0)" ] || die "unchanged code failed the gate"
    irgate doctor >"$work/doctor.log" || { cat "$work/doctor.log" >&2; die "irgate doctor: the environment does not match the baselines taken here"; }
    grep -q '^ok       runner ' "$work/doctor.log" || die "doctor does not show the runner"

    say "$name: a regression in $function"
    cp "$file" "$work/original.rs"
    # Extra work at the top of FUNCTION's body: a loop the optimiser keeps.
    sed -i "/pub fn $function(/a\\    for i in 0..40u32 { std::hint::black_box(i); }" "$file"
    grep -q "black_box(i)" "$file" || die "could not inject into $function"
    local selected
    selected=$(irgate run --only-touched --dry-run 2>&1 |
        sed -nE 's/^irgate: --only-touched: runs (.*): (executes changed code|counted as touched).*/\1/p' | sort)
    # iai-callgrind's runner cannot run benchmarks by id: the suite runs whole, and irgate says why.
    if [[ $library == iai-callgrind* ]]; then
        irgate run --only-touched --dry-run >"$work/dry-run.log" 2>&1 || true
        grep -q 'only-touched: suite .* runs whole: .*cannot run benchmarks by id' "$work/dry-run.log" ||
            { cat "$work/dry-run.log" >&2; die "$name: --only-touched --dry-run does not say it runs the suite whole"; }
    elif [ "$selected" != "$expected" ]; then
        diff <(echo "$expected") <(echo "$selected") | sed 's/^/  /' >&2 || true
        die "$name: --only-touched must select exactly the benchmarks calling $function (< expected, > selected)"
    fi
    local failing
    if [[ $library != iai-callgrind* ]]; then
        # As the action runs a pull request: selected and checked with the code record of its
        # base (HEAD, the baselines' commit). The report counts what ran and names the record's
        # commit; the selected run fails exactly the benchmarks the full run fails.
        say "$name: the regression, as the action runs a pull request (--only-touched --record-from HEAD)"
        irgate run --only-touched --record-from HEAD >"$work/run.log" 2>&1 ||
            { cat "$work/run.log" >&2; die "irgate run --only-touched failed"; }
        local code=0 total ran record
        irgate check --record-from HEAD --format json >"$work/report.json" || code=$?
        [ "$code" -eq 1 ] || die "the selected run: irgate check exited $code, expected 1"
        failing=$(failing_benchmarks "$work/report.json")
        [ "$failing" = "$expected" ] || die "$name: the selected run failed $failing, not $expected"
        total=$(jq -s '[.[].benchmarks | keys[]] | length' baselines/*.json)
        ran=$(wc -l <<<"$expected")
        record=$(jq -r .commit baselines/code/record.json | cut -c1-12)
        irgate check --record-from HEAD --format markdown >"$work/comment.md" || true
        if [ "$ran" -lt "$total" ]; then
            grep -qF "Ran $ran of $total benchmarks \(\`--only-touched\`\): the other $((total - ran)) executed no code changed since $record, the baselines' code record" "$work/comment.md" ||
                { cat "$work/comment.md" >&2; die "$name: the selected run's comment does not say how many ran and why the rest did not"; }
        elif grep -q 'carried' "$work/comment.md"; then
            # Every benchmark touched (a binary benchmark may read any changed file): all ran.
            cat "$work/comment.md" >&2
            die "$name: every benchmark ran, yet the comment speaks of carried ones"
        fi
        [ "$(grep -F '⏭️ carried, not run' "$work/comment.md" | cut -d'|' -f2 | sort -u | wc -l)" -eq $((total - ran)) ] ||
            die "$name: the comment does not show each carried benchmark as not run"
    fi
    failing=$(expect_gate 1)
    if [ "$failing" != "$expected" ]; then
        diff <(echo "$expected") <(echo "$failing") | sed 's/^/  /' >&2 || true
        die "$name: the regression must fail exactly the benchmarks calling $function (< expected, > failed)"
    fi
    say "$name: exit 1 on exactly $(tr '\n' ' ' <<<"$failing")"
    irgate explain "$1" >"$work/explain.log" 2>&1 || true
    grep -q "$function" "$work/explain.log" || { cat "$work/explain.log" >&2; die "explain does not name $function"; }

    cp "$work/original.rs" "$file"
    say "$name: the revert (exit 0)"
    [ -z "$(expect_gate 0)" ] || die "the reverted code failed the gate"
    cd "$repo"
}

adopt two-targets main text/src/lib.rs fnv1a "gungraun 0.20.0" digest::fnv/b16 digest::fnv/b256
# The two suites share the group `digest`: one baseline file holds both.
jq -e '.benchmarks | has("digest::count/short") and has("digest::fnv/b16")' \
    "$work/two-targets/baselines/digest.json" >/dev/null || die "the shared group's baselines do not hold both suites"
# init calibrates on the first workspace (as the README says); the next two skip it, to keep CI
# short (about 2 minutes each here).
init_args=--no-calibrate
adopt iai-feature master src/lib.rs luhn "iai-callgrind 0.16.1" card::luhn/card card::luhn/long

# --- binary benchmarks (gate/tests/adoption/binary-bench): a command-line tool whose suite is one
# gungraun binary benchmark group (the whole program run with arguments). Adopted as above, then
# the same slowed function again: `irgate explain` must name it, with its file, as the top row of
# each failing benchmark. About 95 s here (82 s of it the first build, in `irgate init`).
explain_binary() {
    local function=$1
    shift
    cd "$work/binary-bench"
    # The profiles of the last run (the reverted code, same counts) into the baselines.
    irgate refresh >/dev/null
    [ -n "$(ls baselines/profiles/*.json)" ] || die "binary-bench: irgate refresh stored no profiles"
    cp src/main.rs "$work/original.rs"
    sed -i "/pub fn $function(/a\\    for i in 0..40u32 { std::hint::black_box(i); }" src/main.rs
    [ "$(expect_gate 1)" = "$(printf '%s\n' "$@" | sort)" ] || die "binary-bench: the regression did not fail $*"
    if grep -q "no per-function profile" "$work/run.log"; then
        cat "$work/run.log" >&2
        die "binary-bench: irgate run left profiles out"
    fi
    local bench top
    for bench in "$@"; do
        irgate explain "$bench" >"$work/explain.log" || { cat "$work/explain.log" >&2; die "irgate explain $bench failed"; }
        top=$(sed -n 3p "$work/explain.log")
        [[ "$top" == *"tool::$function "*"src/main.rs"* ]] ||
            { cat "$work/explain.log" >&2; die "binary-bench: explain $bench does not name $function first"; }
        say "binary-bench: explain $bench: $(awk '{$1=$1};1' <<<"$top")"
    done
    cp "$work/original.rs" src/main.rs
    cd "$repo"
}
adopt binary-bench main src/main.rs collatz_steps "gungraun 0.20.0" cli::tool/large cli::tool/small
explain_binary collatz_steps cli::tool/large cli::tool/small
# --- end of binary benchmarks

say "ok"
