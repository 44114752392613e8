# irgate's pinned environment, for any repository (docs/container.md). It holds a Rust
# toolchain, valgrind at an exact Debian version, the callgrind runner of the repository's suites
# at an exact version, and irgate itself, built from this source. The repository is not copied in:
# it is mounted at /irgate at run time (docker/irgate-container), so a code change never rebuilds
# the image and counts are always taken from one fixed path.
#
# The build context is irgate's source (this directory). The build arguments pin the rest:
#   BASE_IMAGE      the official Rust image; pin a digest (rust:1.95.0-trixie@sha256:...)
#   RUST_TOOLCHAIN  the repository's exact toolchain (rust-toolchain.toml's channel, or the one
#                   `irgate init --ci` found in use); it wins over a rust-toolchain.toml in here
#   RUNNER_CRATE    gungraun-runner or iai-callgrind-runner: the suites' library's runner
#   RUNNER_VERSION  its exact version (the library's, from cargo metadata)
#   IRGATE_FEATURES `github` adds `irgate comment` (GitHub Actions needs it)
#   IRGATE_BINARY   optional: an irgate executable already built from this source, as a path in
#                   the build context (`docker/prebuilt/irgate`: the action puts its release
#                   binary there); used when it runs here, else irgate is built as without it
# `irgate init --ci` writes the repository's values to .irgate/image.env.
ARG BASE_IMAGE=rust:1.95.0-trixie

# The runner, in its own stage so its build files stay out of the final image.
FROM ${BASE_IMAGE} AS runner
ARG RUNNER_CRATE=gungraun-runner
ARG RUNNER_VERSION=0.20.0
RUN cargo install "${RUNNER_CRATE}" --version "${RUNNER_VERSION}" --locked --root /opt/runner \
    && rm -rf "${CARGO_HOME:?}/registry" "${CARGO_HOME:?}/git"

# irgate, from this source, with its locked dependencies (or its release binary, which was).
FROM ${BASE_IMAGE} AS irgate
ARG IRGATE_FEATURES=
ARG IRGATE_BINARY=
WORKDIR /src
COPY . .
RUN if [ -n "${IRGATE_BINARY}" ] && "./${IRGATE_BINARY}" --version; then \
        install -D -m 755 "./${IRGATE_BINARY}" /opt/irgate/bin/irgate; \
    else \
        cargo install --path gate --locked --root /opt/irgate --features "${IRGATE_FEATURES}"; \
    fi \
    && rm -rf target docker/prebuilt "${CARGO_HOME:?}/registry" "${CARGO_HOME:?}/git"

# valgrind at an exact Debian version. valgrind depends on libc6-dbg of exactly the installed glibc;
# pinning libc6-dbg to that version means installing valgrind can never upgrade glibc (whose
# memcpy/memset are in every count): if the archive no longer has it, the build fails instead.
FROM ${BASE_IMAGE}
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ARG RUST_TOOLCHAIN=1.95.0
# The repository's toolchain, with rustfmt and clippy, installed now rather than on first use.
RUN if ! rustup toolchain list | grep -q "^${RUST_TOOLCHAIN}-"; then \
        rustup toolchain install "${RUST_TOOLCHAIN}" --profile minimal; \
    fi \
    && rustup component add --toolchain "${RUST_TOOLCHAIN}" rustfmt clippy \
    && rustup default "${RUST_TOOLCHAIN}"
ARG VALGRIND_VERSION=1:3.24.0-3
# strace: the record pass (`irgate run --record`, the refresh mode) observes what each benchmark's
# processes read with it (docs/selection.md, "Observed inputs").
ARG STRACE_VERSION=6.13+ds-1
RUN libc_version="$(dpkg-query --show --showformat='${Version}' libc6)" \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        "valgrind=${VALGRIND_VERSION}" \
        "libc6-dbg=${libc_version}" \
        "strace=${STRACE_VERSION}" \
    && rm -rf /var/lib/apt/lists/* \
    && valgrind --version \
    && strace --version

COPY --from=runner /opt/runner/bin/ /usr/local/bin/
COPY --from=irgate /opt/irgate/bin/irgate /usr/local/bin/irgate

# The determinism environment, set once so that `irgate run` needs no flags in here:
# - GLIBC_TUNABLES: glibc copies and clears with SSE/AVX loops at every size instead of switching to
#   `rep movsb`/`rep stosb` (which callgrind counts as one instruction per byte) above a
#   CPU-dependent threshold;
# - one fixed repository path, target dir and cargo home (paths end up in binaries and in counts);
# - RUSTUP_TOOLCHAIN: the pinned toolchain, even where the repository's rust-toolchain.toml names a
#   loose channel (`stable`) or none;
# - IRGATE_ENVIRONMENT: recorded in every fingerprint taken in here (`environment`).
ARG BASE_IMAGE
ENV RUSTUP_TOOLCHAIN=${RUST_TOOLCHAIN} \
    GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295:glibc.cpu.x86_rep_stosb_threshold=4294967295 \
    CARGO_TARGET_DIR=/irgate/target/container \
    CARGO_HOME=/irgate/target/container/cargo-home \
    HOME=/irgate/target/container/home \
    IRGATE_ENVIRONMENT="container:irgate-env on ${BASE_IMAGE}"
WORKDIR /irgate
LABEL org.opencontainers.image.title="irgate-env" \
      org.opencontainers.image.description="irgate's pinned environment: Rust, valgrind, the callgrind runner and irgate at exact versions; mount the repository at /irgate."
CMD ["sh", "-c", "irgate run && irgate check"]
