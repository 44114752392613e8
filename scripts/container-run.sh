#!/usr/bin/env bash
# Runs a command in the pinned image (the Dockerfile) with this repository mounted at /irgate, as
# the calling user, so everything it writes (target/container/ for builds, target/irgate/ for
# results) lands in the host's checkout with the host user's ownership.
#
# usage: scripts/container-run.sh COMMAND [ARG...]
#   e.g. scripts/container-run.sh cargo run --locked --release -p irgate -- run
#
# Environment:
#   IRGATE_IMAGE    image to run (default irgate-env; `make image` builds it)
#   IRGATE_SECCOMP  seccomp profile (default docker/seccomp-aslr.json: Docker's default profile plus
#                   the one personality() call `setarch -R` needs, so gungraun can switch ASLR off)
#
# Builds and caches go to target/container/ (CARGO_TARGET_DIR, CARGO_HOME and HOME in the image),
# never to the host's own target/release, so host and container builds do not overwrite each other.
# When the image was built offline (its environment has CARGO_NET_OFFLINE=true, see
# scripts/offline-base-image.sh) the container cannot download crates: the host's cargo fetches the
# locked crates into target/container/cargo-home first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
image=${IRGATE_IMAGE:-irgate-env}
seccomp=${IRGATE_SECCOMP:-$root/docker/seccomp-aslr.json}

die() { printf 'container-run: error: %s\n' "$*" >&2; exit 2; }

[ $# -gt 0 ] || die "usage: $0 COMMAND [ARG...]"
command -v docker >/dev/null || die "docker is missing"
image_env=$(docker image inspect --format '{{join .Config.Env "\n"}}' "$image" 2>/dev/null) ||
    die "image $image not found: build it with \`make image\` (offline: see scripts/offline-base-image.sh)"
[ -f "$seccomp" ] || die "seccomp profile $seccomp not found"

mkdir -p "$root/target/container/home" "$root/target/container/cargo-home"
if grep -qx 'CARGO_NET_OFFLINE=true' <<<"$image_env"; then
    command -v cargo >/dev/null ||
        die "$image is an offline image and cannot download crates; fetch them with a host cargo"
    CARGO_HOME=$root/target/container/cargo-home cargo fetch --locked --quiet \
        --manifest-path "$root/Cargo.toml" ||
        die "could not fetch the locked crates into target/container/cargo-home"
fi

tty=()
[ -t 0 ] && [ -t 1 ] && tty=(--interactive --tty)
exec docker run --rm "${tty[@]}" \
    --user "$(id -u):$(id -g)" \
    --security-opt "seccomp=$seccomp" \
    --volume "$root:/irgate" \
    --env CARGO_TERM_COLOR \
    "$image" "$@"
