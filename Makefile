# --- gate (gate engineer) ---
# The gate on this machine: `make gate` runs the callgrind suite and compares it with baselines/;
# `make baseline` runs it and writes the counts into baselines/ (review the diff, then commit).
# Both install the gungraun runner of the version in Cargo.lock when it is missing. Extra
# arguments: RUN_ARGS (e.g. a filter 'frame::*'), CHECK_ARGS (e.g. --on-env-mismatch=warn),
# REFRESH_ARGS (e.g. a filter, --prune).
IRGATE := cargo run --quiet --locked -p irgate --
GUNGRAUN_VERSION := $(shell awk '$$0 == "name = \"gungraun\"" { getline; gsub(/[^0-9.]/, ""); print }' Cargo.lock)
GUNGRAUN_RUNNER ?= gungraun-runner

.PHONY: gate baseline test install-runner
gate: install-runner ## Run the callgrind suite and check it against baselines/ (exit 0/1/2)
	$(IRGATE) run $(RUN_ARGS)
	$(IRGATE) check $(CHECK_ARGS)

baseline: install-runner ## Run the callgrind suite and write its counts into baselines/
	$(IRGATE) run $(RUN_ARGS)
	$(IRGATE) refresh $(REFRESH_ARGS)

test: ## Run every test of the workspace
	cargo test --workspace --all-features --locked

install-runner: ## Check for valgrind; install gungraun-runner $(GUNGRAUN_VERSION) unless it is there
	@command -v valgrind >/dev/null 2>&1 || { \
	  echo "make: valgrind is missing: install the Debian package 'valgrind' (apt-get install valgrind)," >&2; \
	  echo "      or run the gate in the pinned container: make gate-container" >&2; exit 2; }
	@if [ "$$($(GUNGRAUN_RUNNER) --version 2>/dev/null)" != "gungraun-runner $(GUNGRAUN_VERSION)" ]; then \
	  echo "installing gungraun-runner $(GUNGRAUN_VERSION), the version of the gungraun library in Cargo.lock"; \
	  cargo install gungraun-runner --version $(GUNGRAUN_VERSION) --locked --force; \
	fi
# --- end gate ---

# --- container (container engineer) ---
# The pinned environment (Dockerfile): the image, and the gate run inside it with the repository
# mounted at /irgate (scripts/container-run.sh). BASE_IMAGE is the Dockerfile's (the official Rust
# image; pin its digest there: README, "The pinned environment"). On a machine that cannot pull images,
# scripts/offline-base-image.sh builds a local stand-in, which is then used when it exists.
IMAGE ?= irgate-env
OFFLINE_BASE_IMAGE := irgate-base:rust-1.95.0-trixie
BASE_IMAGE ?= $(shell docker image inspect $(OFFLINE_BASE_IMAGE) >/dev/null 2>&1 \
                && echo $(OFFLINE_BASE_IMAGE) || sed -n 's/^ARG BASE_IMAGE=//p' Dockerfile)
# BuildKit when the buildx plugin is there, else the classic builder (the Dockerfile needs neither).
DOCKER_BUILDKIT ?= $(shell docker buildx version >/dev/null 2>&1 && echo 1 || echo 0)
IN_CONTAINER := IRGATE_IMAGE=$(IMAGE) scripts/container-run.sh
CONTAINER_RESULTS := --results target/irgate/results.json

.PHONY: image gate-container baseline-container
image: ## Build the pinned image $(IMAGE) on $(BASE_IMAGE)
	@echo "image: $(IMAGE) on $(BASE_IMAGE), gungraun-runner $(GUNGRAUN_VERSION)"
	@docker image inspect $(BASE_IMAGE) >/dev/null 2>&1 || docker pull --quiet $(BASE_IMAGE) >/dev/null || { \
	  echo "make: the base image $(BASE_IMAGE) is not here and cannot be pulled." >&2; \
	  echo "      Without access to a registry, build a local stand-in first (needs debootstrap and" >&2; \
	  echo "      this machine's Rust 1.95.0): scripts/offline-base-image.sh" >&2; exit 2; }
	DOCKER_BUILDKIT=$(DOCKER_BUILDKIT) docker build --quiet \
	  --build-arg BASE_IMAGE=$(BASE_IMAGE) --build-arg GUNGRAUN_VERSION=$(GUNGRAUN_VERSION) \
	  --tag $(IMAGE) .

gate-container: image ## Run the gate (irgate run + check) in the pinned image
	$(IN_CONTAINER) sh -c '$(IRGATE) run $(CONTAINER_RESULTS) && $(IRGATE) check $(CONTAINER_RESULTS)'

baseline-container: image ## Take new baselines (irgate run + refresh) in the pinned image
	$(IN_CONTAINER) sh -c '$(IRGATE) run $(CONTAINER_RESULTS) && $(IRGATE) refresh $(CONTAINER_RESULTS)'
# --- end container ---
