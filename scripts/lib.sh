# What the scripts read from irgate's files, done one way: sourced (`. scripts/lib.sh`), never run.
# A JSON report, a results file and a fingerprint are read here with jq, through the fields irgate
# writes (docs/gate.md), so no script carries its own copy; a gungraun summary is never read by a
# script: `irgate run --from` reads it (its Rust reader), and the script reads the results file.
# Needs jq.

# The checkout this library belongs to.
irgate_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# irgate_executable [--release]: builds irgate from this checkout (debug unless --release; in
# it, so that its rust-toolchain.toml applies) and prints its executable's path.
irgate_executable() {
    (cd "$irgate_repo" && cargo build --quiet --locked -p irgate "$@" --message-format=json |
        jq -r 'select(.executable != null and .target.name == "irgate") | .executable')
}

# seconds_since START: wall seconds since $EPOCHREALTIME was START, to one decimal.
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# failing_benchmarks REPORT: the benchmarks an `irgate check --format json` report fails, sorted,
# one a line.
failing_benchmarks() {
    jq -r '.rows[] | select(.fails) | .benchmark' "$1" | sort -u
}

# filter_chain_benchmarks RESULTS: the benchmarks of a results file that run codec's filter chain
# (the `filter` and `pipeline` groups), sorted, one a line.
filter_chain_benchmarks() {
    jq -r '.benchmarks | keys[] | select(startswith("filter::") or startswith("pipeline::"))' "$1" | sort
}

# benchmark_irs RESULTS: `<benchmark> <Ir>` for every benchmark of a results file, one a line.
benchmark_irs() {
    jq -r '.benchmarks | to_entries[] | "\(.key) \(.value.Ir)"' "$1"
}

# fingerprint_field FILE FIELD: the value of FIELD in the fingerprint of a results or baseline
# file; fails (non-zero) when the file cannot be read or records no such field.
fingerprint_field() {
    jq -er --arg field "$2" '.fingerprint[$field] // error("no fingerprint field \($field)")' "$1"
}

# scratch_dir KEEP: sets `work` to KEEP (emptied) when given, else to a temporary directory
# removed when the script exits.
scratch_dir() {
    if [ -n "$1" ]; then
        work=$(realpath -m "$1"); rm -rf "$work"; mkdir -p "$work"
    else
        work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
    fi
}

# gungraun_workspace DIR PACKAGE BENCH [WORKSPACE_TOML]: a generated workspace at DIR with one
# member PACKAGE that has gungraun 0.20 as a dev-dependency and the bench target BENCH, the lock
# file of gate/tests/adoption/two-targets, `/target` ignored, and WORKSPACE_TOML appended to the
# root manifest. The caller writes PACKAGE/src/lib.rs and PACKAGE/benches/BENCH.rs.
gungraun_workspace() {
    local dir=$1 package=$2 bench=$3
    mkdir -p "$dir/$package/src" "$dir/$package/benches"
    cp "$irgate_repo/gate/tests/adoption/two-targets/Cargo.lock" "$dir/"
    printf '/target\n' >"$dir/.gitignore"
    printf '[workspace]\nresolver = "3"\nmembers = ["%s"]\n%s' "$package" "${4:-}" >"$dir/Cargo.toml"
    printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n[dev-dependencies]\ngungraun = "=0.20.0"\n\n[[bench]]\nname = "%s"\nharness = false\n' \
        "$package" "$bench" >"$dir/$package/Cargo.toml"
}

# replay_history_start DIR: a git repository at DIR holding gate/tests/adoption/two-targets, a
# gate.toml of 1-Ir budgets and `target` ignored, with its first two commits ("initial", a README);
# defines `commit MESSAGE` (every change in the working tree, as one commit) for the caller's
# next ones. Run from the checkout's root; leaves the current directory at DIR.
replay_history_start() {
    cp -r "$irgate_repo/gate/tests/adoption/two-targets/." "$1"
    cd "$1"
    git init -q
    commit() { git add -A && git -c user.name=replay -c user.email=replay@example.invalid \
        -c commit.gpgsign=false commit -q -m "$1"; }
    printf '[budgets]\nIr = { relative_pct = 0.0, absolute = 1 }\n' >gate.toml
    printf 'target\n' >.gitignore
    commit "initial: two bench targets, gate.toml"
    printf '# text\n\nTwo small text functions.\n' >README.md
    commit "docs: a README"
}
