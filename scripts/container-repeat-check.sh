#!/usr/bin/env bash
# Asserts that counts taken in the pinned container repeat to the instruction:
#   1. runs the callgrind suite twice in the image (`irgate run`, docker/irgate-container);
#   2. requires every benchmark's Ir to be identical across the two runs (`irgate check` of the
#      second run against the first, with docker/exact-gate.toml: no slack, --strict);
#   3. requires the first run to equal the committed baselines/ the same way. The baselines must
#      have been taken in the container (their fingerprint's `environment` says `container:...`);
#      no baselines at all is an error (exit 2), never a pass.
# With --after-gate, the first run is the one `make gate-container` just made (its results file,
# target/container/irgate/results.json, must exist), so the suite runs once more, not twice.
# Exit 0 when every count repeats; 1 when one moved; 2 when the gate could not decide.
# Uses the image $IRGATE_IMAGE (default irgate-env; `make image` builds it). Needs jq.
#
# usage: scripts/container-repeat-check.sh [--after-gate]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
after_gate=false
case ${1-} in
    "") ;;
    --after-gate) after_gate=true ;;
    *) echo "container-repeat-check: unknown argument $1 (usage: $0 [--after-gate])" >&2; exit 2 ;;
esac

out=target/container/repeat
rm -rf "$out"
mkdir -p "$out/baselines"
irgate=(irgate)
exact=(--config docker/exact-gate.toml --strict)

shopt -s nullglob
baselines=(baselines/*.json)
if [ ${#baselines[@]} -eq 0 ]; then
    echo "container-repeat-check: no baselines in baselines/: take them with \`make baseline-container\`" >&2
    exit 2
fi
# Baselines taken elsewhere are refused before the suite runs.
for file in "${baselines[@]}"; do
    environment=$(fingerprint_field "$file" environment 2>/dev/null) ||
        { echo "container-repeat-check: $file: cannot read its fingerprint's environment" >&2; exit 2; }
    case "$environment" in
        container:*) ;;
        *)
            echo "container-repeat-check: $file was taken in '$environment', not in the container:" \
                "take the baselines with \`make baseline-container\`" >&2
            exit 2
            ;;
    esac
done
if $after_gate; then
    gate_results=target/container/irgate/results.json
    [ -f "$gate_results" ] || {
        echo "container-repeat-check: --after-gate: $gate_results is missing: run \`make gate-container\` first" >&2
        exit 2
    }
    cp "$gate_results" "$out/run1.json"
    first="echo 'container-repeat-check: run 1 is the gate run of make gate-container'"
else
    first="${irgate[*]} run --results $out/run1.json"
fi
echo "container-repeat-check: the suite in ${IRGATE_IMAGE:-irgate-env}"
docker/irgate-container sh -c "
    $first &&
    ${irgate[*]} run --results $out/run2.json &&
    ${irgate[*]} refresh --results $out/run1.json --baselines $out/baselines >/dev/null &&
    echo 'container-repeat-check: run 2 against run 1 (every Ir must be identical)' &&
    ${irgate[*]} check --results $out/run2.json --baselines $out/baselines ${exact[*]}"

echo "container-repeat-check: run 1 against the committed baselines (every Ir must be identical)"
docker/irgate-container "${irgate[@]}" check --results "$out/run1.json" "${exact[@]}"
