#!/usr/bin/env bash
# End to end: a new user adopts irgate in two small workspaces (gate/tests/adoption/), following
# the README's "Use irgate in your project" from top to bottom:
#   two-targets   a workspace whose member crate has two gungraun 0.20 bench targets;
#   iai-feature   a library with an iai-callgrind 0.16 suite behind the `callgrind` feature.
# For each, from a clean copy: install irgate (the README's command), install the runner irgate
# names, `irgate init --ci`, `irgate refresh`, `irgate run && irgate check` passes (exit 0), a
# deliberate regression in one function fails (exit 1) on exactly the benchmarks that call it,
# and the revert passes again. Needs valgrind, jq and cargo. About 8 minutes here from nothing.
#
# usage: scripts/adoption-test.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$repo/gate/tests/adoption

say() { printf 'adoption: %s\n' "$*"; }
die() { printf 'adoption: FAIL: %s\n' "$*" >&2; exit 1; }
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The README's install command, into a scratch root (its build directory is kept between runs).
say "installing irgate: cargo install --locked --path gate"
start=$SECONDS
CARGO_TARGET_DIR=$repo/target/adoption-install \
    cargo install --quiet --locked --path "$repo/gate" --root "$work/irgate"
say "installed in $((SECONDS - start)) s"
export PATH=$work/irgate/bin:$PATH
[ "$(command -v irgate)" = "$work/irgate/bin/irgate" ] || die "irgate is not the installed one"

# expect_gate CODE: `irgate run && irgate check --format json`, whose exit code must be CODE;
# prints the failing benchmarks.
expect_gate() {
    irgate run >"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; die "irgate run failed"; }
    local code=0
    irgate check --format json >"$work/report.json" || code=$?
    [ "$code" -eq "$1" ] || { irgate check >&2 || true; die "irgate check exited $code, expected $1"; }
    jq -r '.rows[] | select(.fails) | .benchmark' "$work/report.json" | sort -u
}

# adopt NAME FILE FUNCTION LIBRARY EXPECTED...: adopts irgate in a copy of fixture NAME, injects
# extra work into FUNCTION of FILE, and expects exactly EXPECTED to fail.
adopt() {
    local name=$1 file=$2 function=$3 library=$4
    shift 4
    local expected
    expected=$(printf '%s\n' "$@" | sort)
    say "$name: a clean copy"
    cp -r "$fixtures/$name" "$work/$name"
    cd "$work/$name"
    git init --quiet && git add -A && git -c user.name=t -c user.email=t@t commit --quiet -m fixture

    # As a user would: init, and when irgate asks for the runner, the command it prints, again.
    say "$name: irgate init --ci"
    if ! irgate init --ci >"$work/init.log" 2>&1; then
        local install
        install=$(sed -n 's/.*: \(cargo install [a-z-]*-runner --version [0-9.]* --locked\).*/\1/p' \
            "$work/init.log" | head -n 1)
        [ -n "$install" ] || { cat "$work/init.log" >&2; die "irgate init failed"; }
        say "$name: $install (as irgate asks)"
        $install --quiet
        irgate init --ci >"$work/init.log" 2>&1 || { cat "$work/init.log" >&2; die "irgate init failed"; }
    fi
    for file_written in gate.toml .irgate/image.env .github/workflows/irgate.yml \
        .github/workflows/irgate-comment.yml .github/workflows/irgate-refresh.yml \
        .github/workflows/irgate-history.yml; do
        [ -f "$file_written" ] || die "irgate init did not write $file_written"
    done
    grep -q "RUNNER_VERSION=${library#* }" .irgate/image.env || die "image pins do not name $library"
    say "$name: irgate refresh"
    irgate refresh >/dev/null
    [ -n "$(ls baselines/*.json)" ] || die "irgate refresh wrote no baselines"
    jq -e --arg lib "$library" '.fingerprint.library == $lib' baselines/*.json >/dev/null ||
        die "the baselines' fingerprint does not name $library"

    say "$name: irgate run && irgate check (unchanged code: exit 0)"
    [ -z "$(expect_gate 0)" ] || die "unchanged code failed the gate"
    irgate doctor >/dev/null || die "irgate doctor: the environment does not match the baselines taken here"

    say "$name: a regression in $function"
    cp "$file" "$work/original.rs"
    # Extra work at the top of FUNCTION's body: a loop the optimiser keeps.
    sed -i "/pub fn $function(/a\\    for i in 0..40u32 { std::hint::black_box(i); }" "$file"
    grep -q "black_box(i)" "$file" || die "could not inject into $function"
    local failing
    failing=$(expect_gate 1)
    if [ "$failing" != "$expected" ]; then
        diff <(echo "$expected") <(echo "$failing") | sed 's/^/  /' >&2 || true
        die "$name: the regression must fail exactly the benchmarks calling $function (< expected, > failed)"
    fi
    say "$name: exit 1 on exactly $(tr '\n' ' ' <<<"$failing")"

    cp "$work/original.rs" "$file"
    say "$name: the revert (exit 0)"
    [ -z "$(expect_gate 0)" ] || die "the reverted code failed the gate"
    cd "$repo"
}

adopt two-targets text/src/lib.rs fnv1a "gungraun 0.20.0" digest::fnv/b16 digest::fnv/b256
adopt iai-feature src/lib.rs luhn "iai-callgrind 0.16.1" card::luhn/card card::luhn/long

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
adopt binary-bench src/main.rs collatz_steps "gungraun 0.20.0" cli::tool/large cli::tool/small
explain_binary collatz_steps cli::tool/large cli::tool/small
# --- end of binary benchmarks

say "ok"
