#!/usr/bin/env bash
# OFFLINE PATH ONLY: builds a local stand-in for the official `rust:1.95.0-trixie` image.
#
# Use it on a machine that cannot pull images. With registry access, skip this script: the
# Dockerfile's default base image (the official `rust:1.95.0-trixie`, pinned by digest) is the real
# thing, and `make image` builds on it directly.
#
# What it does:
#   1. `debootstrap --variant=minbase trixie` from the Debian mirror that the host's apt already uses,
#      plus what the official image has and our build needs (gcc, libc6-dev, make, git,
#      ca-certificates);
#   2. copies this machine's Rust toolchain (rustup toolchain 1.95.0 and rustup itself) into it,
#      laid out like the official image: RUSTUP_HOME=/usr/local/rustup, CARGO_HOME=/usr/local/cargo,
#      /usr/local/cargo/bin on PATH;
#   3. seeds /usr/local/cargo/registry with the crates that the runner pinned in .irgate/image.env
#      (and every runner named with --runner CRATE@VERSION: another repository's pins) and irgate
#      itself (this workspace's Cargo.lock) need, downloaded by the host's cargo, and sets
#      CARGO_NET_OFFLINE=true, so the Dockerfile's unchanged install steps build without network
#      (rebuild with --force when Cargo.lock or the pins change). The runners seeded are listed
#      in the image's label `irgate.runners`; docker/irgate-container refuses, before building,
#      pins whose runner the base cannot build offline, and names the command that seeds it;
#   4. `docker import`s the result as $IRGATE_BASE_IMAGE (default irgate-base:rust-1.95.0-trixie).
#
# Idempotent: when the tag exists, seeded for this Cargo.lock and these pins, it is reused and
# nothing is rebuilt (--force rebuilds).
# Needs root (debootstrap), debootstrap, docker, and the rustup toolchain 1.95.0 on the host.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUST_VERSION=$("$REPO_ROOT/scripts/pin" RUST_TOOLCHAIN)
SUITE=trixie
HOST_TRIPLE=x86_64-unknown-linux-gnu
TAG=${IRGATE_BASE_IMAGE:-irgate-base:rust-${RUST_VERSION}-${SUITE}}

usage() {
    cat <<EOF
usage: $0 [--force] [--runner CRATE@VERSION]... | --tag

Builds the offline base image $TAG (a stand-in for rust:${RUST_VERSION}-${SUITE}) from debootstrap
and this machine's Rust toolchain, unless it already exists. --force rebuilds it; --runner also
seeds the crates of another runner (e.g. iai-callgrind-runner@0.16.1, for a repository pinning
it); --tag prints the tag and exits.
Environment: IRGATE_BASE_IMAGE (tag), IRGATE_DEBIAN_MIRROR (default: the host apt's Debian mirror).
EOF
}

force=false
# Runners to seed, CRATE@VERSION: this repository's pin first.
runners=("$("$REPO_ROOT/scripts/pin" RUNNER_CRATE)@$("$REPO_ROOT/scripts/pin" RUNNER_VERSION)")
while [ $# -gt 0 ]; do
    case "$1" in
        --force) force=true ;;
        --runner)
            [[ ${2:-} =~ ^(gungraun-runner|iai-callgrind-runner)@[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
                { echo "--runner takes gungraun-runner@X.Y.Z or iai-callgrind-runner@X.Y.Z, not '${2:-}'" >&2; exit 2; }
            runners+=("$2")
            shift ;;
        --tag) echo "$TAG"; exit 0 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
    shift
done
mapfile -t runners < <(printf '%s\n' "${runners[@]}" | sort -u)

say() { printf 'offline-base-image: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# The seeded crates follow Cargo.lock and the pins: an image seeded for others is rebuilt.
seed_key=$( { cat "$REPO_ROOT/Cargo.lock" "$REPO_ROOT/.irgate/image.env"; echo "${runners[*]}"; } | sha256sum | cut -c1-16)
if ! $force && [ "$(docker image inspect --format '{{index .Config.Labels "irgate.seed"}}' "$TAG" 2>/dev/null)" = "$seed_key" ]; then
    say "reusing $TAG ($(docker image inspect --format '{{.Id}}' "$TAG" | cut -c1-19))"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "debootstrap needs root; run as root (or build on a machine that can pull rust:${RUST_VERSION}-${SUITE})"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
command -v docker >/dev/null || die "docker is missing"
command -v cargo >/dev/null || die "cargo is missing (the host's cargo downloads the runner's crates)"

rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
toolchain_src=$rustup_home/toolchains/$RUST_VERSION-$HOST_TRIPLE
[ -d "$toolchain_src/" ] || die "no Rust $RUST_VERSION toolchain at $toolchain_src"
rustup_bin=$(command -v rustup) || die "rustup is missing"
rustup_bin=$(readlink -f "$rustup_bin")


# The Debian mirror that the host's apt already uses (deb822 "URIs:" or one-line "deb URL ...").
mirror=${IRGATE_DEBIAN_MIRROR:-$(
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
        2>/dev/null |
        awk '$1 == "URIs:" { print $2 } $1 == "deb" { print ($2 ~ /^\[/ ? $3 : $2) }' |
        grep -E '/debian/?$' | head -n 1 || true
)}
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d /var/tmp/irgate-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

say "1/4 debootstrap $SUITE from $mirror"
debootstrap --variant=minbase --include=ca-certificates,gcc,libc6-dev,make,git \
    "$SUITE" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb

say "2/4 copying Rust $RUST_VERSION from $toolchain_src (without its HTML docs)"
dest=$rootfs/usr/local/rustup/toolchains/$RUST_VERSION-$HOST_TRIPLE
mkdir -p "$dest" "$rootfs/usr/local/cargo/bin"
tar -C "$toolchain_src/" --exclude=./share/doc -cf - . | tar -C "$dest" -xf -
# Drop the rust-docs component whose files were left out, so rustup's records match the files.
sed -i '/^rust-docs-/d' "$dest/lib/rustlib/components"
rm -f "$dest"/lib/rustlib/manifest-rust-docs-*
awk -v RS= -v ORS='\n\n' '!/pkg = "rust-docs"/' "$dest/lib/rustlib/multirust-config.toml" >"$work/config.toml"
mv "$work/config.toml" "$dest/lib/rustlib/multirust-config.toml"
cat >"$rootfs/usr/local/rustup/settings.toml" <<EOF
version = "12"
default_toolchain = "$RUST_VERSION-$HOST_TRIPLE"
profile = "minimal"
EOF
install -m 0755 "$rustup_bin" "$rootfs/usr/local/cargo/bin/rustup"
for proxy in cargo cargo-clippy cargo-fmt clippy-driver rustc rustdoc rustfmt rust-gdb rust-gdbgui rust-lldb; do
    ln -s rustup "$rootfs/usr/local/cargo/bin/$proxy"
done

say "3/4 downloading the crates of ${runners[*]} and of irgate (host cargo, --locked)"
seed=$work/cargo-seed
mkdir -p "$seed"
# seed_runner CRATE VERSION: the runner's crates as `cargo install --locked` resolves them (its own
# Cargo.lock), through a probe package that depends on it.
seed_runner() {
    local crate=$1 version=$2 probe=$work/probe-$1-$2 file
    mkdir -p "$probe/src"
    printf 'fn main() {}\n' >"$probe/src/main.rs"
    printf '[package]\nname = "runner-probe"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' \
        "$crate" "$version" >"$probe/Cargo.toml"
    (cd "$probe" && cargo fetch --quiet) || { echo "no $crate $version on the crates registry" >&2; return 1; }
    file=$(find "$seed/registry/cache" -name "$crate-$version.crate" | head -n 1)
    [ -n "$file" ] || { echo "$crate-$version.crate was not downloaded" >&2; return 1; }
    tar -xzf "$file" -C "$work"
    cargo fetch --quiet --locked --manifest-path "$work/$crate-$version/Cargo.toml"
}
(
    export CARGO_HOME=$seed RUSTUP_TOOLCHAIN=$RUST_VERSION
    for runner in "${runners[@]}"; do
        seed_runner "${runner%@*}" "${runner#*@}"
    done
    # irgate itself is built in the image from this source, with its locked crates.
    cargo fetch --quiet --locked --manifest-path "$REPO_ROOT/Cargo.toml"
) || die "could not download the runners' crates (${runners[*]}) with the host's cargo"
mkdir -p "$rootfs/usr/local/cargo/registry"
cp -a "$seed/registry/index" "$seed/registry/cache" "$rootfs/usr/local/cargo/registry/"
# As in the official image: any user may use the toolchain and cargo home.
chmod -R a+w "$rootfs/usr/local/rustup" "$rootfs/usr/local/cargo"

say "4/4 docker import as $TAG"
tar -C "$rootfs" --numeric-owner -cf - . | docker import \
    --change 'ENV PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV RUSTUP_HOME=/usr/local/rustup' \
    --change 'ENV CARGO_HOME=/usr/local/cargo' \
    --change "ENV RUST_VERSION=$RUST_VERSION" \
    --change 'ENV CARGO_NET_OFFLINE=true' \
    --change 'CMD ["bash"]' \
    --change "LABEL irgate.seed=$seed_key" \
    --change "LABEL irgate.runners=\"${runners[*]}\"" \
    --message "irgate offline base: debootstrap $SUITE ($mirror) + host Rust $RUST_VERSION + ${runners[*]} and irgate crates" \
    - "$TAG" >/dev/null
say "built $TAG ($(docker image inspect --format '{{.Id}}' "$TAG" | cut -c1-19))"
