# This repository's shortcuts around irgate. `make help` lists them.
#
# The gate on this machine: `make gate` runs the callgrind suite and compares it with baselines/;
# `make baseline` runs it and writes the counts into baselines/ (review the diff, then commit).
# Extra arguments: RUN_ARGS (e.g. a filter 'frame::*'), CHECK_ARGS (e.g. --on-env-mismatch=warn),
# REFRESH_ARGS (e.g. a filter, --prune). `make install-runner` installs the suite's runner at its
# exact version into irgate's runner cache (beside any other version; reused when the PATH has
# it), which `make test` does first. `make test-fast` runs irgate's integration tests but the slow
# ones (module `slow`: real fingerprints under valgrind, the dashboard in Chromium), in seconds.
#
# The pinned environment (Dockerfile, docs/container.md): `make image` builds it with this
# repository's pins (.irgate/image.env), `make gate-container` / `make baseline-container` run
# the gate or take the baselines in it, with this checkout mounted at /irgate
# (docker/irgate-container). Where no image can be pulled, scripts/offline-base-image.sh builds
# a local base image first, which is then used.
IRGATE := scripts/irgate
IN_CONTAINER := docker/irgate-container

.PHONY: help gate baseline install-runner test test-fast image gate-container baseline-container
help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 22

gate: ## Run the callgrind suite and check it against baselines/ (exit 0/1/2)
	$(IRGATE) run $(RUN_ARGS)
	$(IRGATE) check $(CHECK_ARGS)

baseline: ## Run the callgrind suite and write its counts (and its code record) into baselines/
	$(IRGATE) run --record $(RUN_ARGS)
	$(IRGATE) refresh $(REFRESH_ARGS)

install-runner: ## Install the suite's runner into irgate's cache (skipped when found)
	$(IRGATE) runner install

test: install-runner ## Run every test of the workspace (a test lists the suite: it needs the runner)
	GUNGRAUN_RUNNER="$$($(IRGATE) runner path)" cargo test --workspace --all-features --locked

test-fast: ## irgate's integration tests without the slow ones (valgrind, Chromium): seconds
	cargo test -p irgate --all-features --locked --test it -- --skip slow::

image: ## Build the pinned image (irgate-env) with this repository's pins
	$(IN_CONTAINER) --build-only

gate-container: image ## The gate (irgate run + check) in the pinned image
	$(IN_CONTAINER) sh -c 'irgate run $(RUN_ARGS) && irgate check $(CHECK_ARGS)'

baseline-container: image ## Take new baselines (irgate run --record + refresh) in the pinned image
	$(IN_CONTAINER) sh -c 'irgate run --record $(RUN_ARGS) && irgate refresh $(REFRESH_ARGS)'
