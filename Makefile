# The two commands of the README, and their steps.
#   make demo   trace, optimize, compile and run the demo model vs PyTorch
#   make test   the whole test suite through ctest
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: demo test build configure bootstrap goldens clean

bootstrap:
	@bash scripts/bootstrap.sh

configure: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/bin/nn-demo tests/reference/goldens/simple_mlp $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Regenerates the PyTorch goldens (committed; only needed when they change).
goldens: bootstrap
	@/usr/bin/python3 tests/reference/generate_goldens.py

clean:
	@rm -rf $(BUILD)
