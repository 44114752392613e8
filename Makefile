# --- container (container engineer) ---
# The pinned environment (Dockerfile): the image, and the gate run inside it with the repository
# mounted at /irgate (scripts/container-run.sh). BASE_IMAGE is the official Rust image; pin it by
# digest (README, "The pinned environment"). On a machine that cannot pull images,
# scripts/offline-base-image.sh builds a local stand-in, which is then used when it exists.
IMAGE ?= irgate-env
OFFLINE_BASE_IMAGE := irgate-base:rust-1.95.0-trixie
BASE_IMAGE ?= $(shell docker image inspect $(OFFLINE_BASE_IMAGE) >/dev/null 2>&1 \
                && echo $(OFFLINE_BASE_IMAGE) || echo rust:1.95.0-trixie)
GUNGRAUN_VERSION := $(shell awk '$$0 == "name = \"gungraun\"" { getline; gsub(/[^0-9.]/, ""); print }' Cargo.lock)
# BuildKit when the buildx plugin is there, else the classic builder (the Dockerfile needs neither).
DOCKER_BUILDKIT ?= $(shell docker buildx version >/dev/null 2>&1 && echo 1 || echo 0)
IN_CONTAINER := IRGATE_IMAGE=$(IMAGE) scripts/container-run.sh
IRGATE := cargo run --quiet --locked --release -p irgate --
CONTAINER_RESULTS := --results target/irgate/results.json

.PHONY: image gate-container baseline-container
image: ## Build the pinned image $(IMAGE) on $(BASE_IMAGE)
	@echo "image: $(IMAGE) on $(BASE_IMAGE), gungraun-runner $(GUNGRAUN_VERSION)"
	DOCKER_BUILDKIT=$(DOCKER_BUILDKIT) docker build --quiet \
	  --build-arg BASE_IMAGE=$(BASE_IMAGE) --build-arg GUNGRAUN_VERSION=$(GUNGRAUN_VERSION) \
	  --tag $(IMAGE) .

gate-container: image ## Run the gate (irgate run + check) in the pinned image
	$(IN_CONTAINER) sh -c '$(IRGATE) run $(CONTAINER_RESULTS) && $(IRGATE) check $(CONTAINER_RESULTS)'

baseline-container: image ## Take new baselines (irgate run + refresh) in the pinned image
	$(IN_CONTAINER) sh -c '$(IRGATE) run $(CONTAINER_RESULTS) && $(IRGATE) refresh $(CONTAINER_RESULTS)'
# --- end container ---
