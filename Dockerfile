# The pinned environment that irgate's instruction counts are taken in (README: "The pinned
# environment"). Nothing here floats: valgrind is pinned at its exact Debian version, the gungraun
# runner at the exact version of the gungraun library in Cargo.lock, and the base image at a digest
# (append @sha256:<digest> to BASE_IMAGE below; the README says how to read and update it).
#
# The repository is not copied in: it is mounted at /irgate (`make gate-container`), so a code change
# never rebuilds the image, and counts are always taken from one fixed path.
#
#   make image                                        # base image: rust:1.95.0-trixie (official)
#   docker build --build-arg BASE_IMAGE=rust:1.95.0-trixie@sha256:<digest> -t irgate-env .
#   scripts/offline-base-image.sh && make image BASE_IMAGE=irgate-base:rust-1.95.0-trixie  # offline
ARG BASE_IMAGE=rust:1.95.0-trixie

# The gungraun runner, built in its own stage so its build files stay out of the final image.
FROM ${BASE_IMAGE} AS runner
ARG GUNGRAUN_VERSION=0.20.0
RUN cargo install gungraun-runner --version "${GUNGRAUN_VERSION}" --locked --root /opt/gungraun \
    && rm -rf "${CARGO_HOME:?}/registry" "${CARGO_HOME:?}/git"

# valgrind at an exact Debian version. valgrind depends on libc6-dbg of exactly the installed glibc;
# pinning libc6-dbg to that version means installing valgrind can never upgrade glibc (whose
# memcpy/memset are in every count): if the archive no longer has it, the build fails instead.
FROM ${BASE_IMAGE}
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# rust-toolchain.toml lists rustfmt and clippy: install them now rather than on first use.
RUN rustup component add rustfmt clippy
ARG VALGRIND_VERSION=1:3.24.0-3
RUN libc_version="$(dpkg-query --show --showformat='${Version}' libc6)" \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        "valgrind=${VALGRIND_VERSION}" \
        "libc6-dbg=${libc_version}" \
    && rm -rf /var/lib/apt/lists/* \
    && valgrind --version

COPY --from=runner /opt/gungraun/bin/gungraun-runner /usr/local/bin/gungraun-runner

# The determinism environment, set once so that `irgate run` needs no flags in here:
# - GLIBC_TUNABLES: glibc copies and clears with SSE/AVX loops at every size instead of switching to
#   `rep movsb`/`rep stosb` (which callgrind counts as one instruction per byte) above a
#   CPU-dependent threshold;
# - one fixed repository path, target dir and cargo home (paths end up in binaries and in counts);
# - IRGATE_ENVIRONMENT: recorded in every fingerprint taken in here (`environment`).
ARG BASE_IMAGE
ENV GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295:glibc.cpu.x86_rep_stosb_threshold=4294967295 \
    CARGO_TARGET_DIR=/irgate/target/container \
    CARGO_HOME=/irgate/target/container/cargo-home \
    HOME=/irgate/target/container/home \
    IRGATE_ENVIRONMENT="container:irgate-env on ${BASE_IMAGE}"
WORKDIR /irgate
LABEL org.opencontainers.image.title="irgate-env" \
      org.opencontainers.image.description="The pinned environment of irgate's callgrind baselines: Rust, valgrind and gungraun-runner at exact versions; mount the repository at /irgate."
CMD ["bash"]
