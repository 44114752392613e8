#!/usr/bin/env bash
# Regenerates docker/seccomp-aslr.json: Docker's default seccomp profile plus exactly one rule,
# personality(PER_LINUX | ADDR_NO_RANDOMIZE) = personality(0x0040000), the call `setarch x86_64 -R`
# makes. gungraun runs valgrind under `setarch -R` to switch ASLR off; the default profile refuses
# that value, so in a default container every benchmark fails (docs/container.md: "ASLR: measured, and why there is a seccomp profile").
#
# usage: scripts/container-seccomp-profile.sh [DEFAULT_PROFILE_JSON]
# Without an argument the default profile is taken from Debian's golang-github-docker-docker-dev
# package of the installed engine's version (profiles/seccomp/default.json), fetched with
# `apt-get download`. Commit the result; `make gate-container` and CI use it.
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "$0")/.." && pwd)
out=$REPO_ROOT/docker/seccomp-aslr.json

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -ge 1 ]; then
    default=$1
    source_note="$1"
else
    pkg=golang-github-docker-docker-dev
    version=$(dpkg-query --show --showformat='${source:Version}' docker.io)
    (cd "$work" && apt-get download "$pkg=$version" >/dev/null 2>&1) ||
        { echo "could not apt-get download $pkg=$version; pass a default.json path" >&2; exit 1; }
    dpkg-deb -x "$work"/"$pkg"_*.deb "$work/pkg"
    default=$work/pkg/usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/default.json
    source_note="Debian $pkg $version, profiles/seccomp/default.json"
fi

python3 - "$default" "$out" "$source_note" <<'EOF'
import json
import sys

default_path, out_path, source_note = sys.argv[1:]
with open(default_path) as f:
    profile = json.load(f)

ADDR_NO_RANDOMIZE = 0x0040000
rule = {
    "names": ["personality"],
    "action": "SCMP_ACT_ALLOW",
    "args": [{"index": 0, "value": ADDR_NO_RANDOMIZE, "op": "SCMP_CMP_EQ"}],
    "comment": "irgate: the default profile (" + source_note + ") plus this rule only: "
    "personality(PER_LINUX | ADDR_NO_RANDOMIZE), which `setarch x86_64 -R` needs to run "
    "valgrind with ASLR off",
    "includes": {},
    "excludes": {},
}
syscalls = profile["syscalls"]
last_personality = max(
    (i for i, s in enumerate(syscalls) if "personality" in s.get("names", [])), default=len(syscalls) - 1
)
if any(rule["args"] == s.get("args") and "personality" in s.get("names", []) for s in syscalls):
    sys.exit("the default profile already allows personality(ADDR_NO_RANDOMIZE)")
syscalls.insert(last_personality + 1, rule)
with open(out_path, "w") as f:
    json.dump(profile, f, indent=2)
    f.write("\n")
EOF
echo "wrote $out"
