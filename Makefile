# The two commands of the README, and their steps.
#   make demo   trace, optimize, compile and run the demo model vs PyTorch
#   make test   the whole test suite through ctest
#   make bench  nn vs libtorch / oneDNN / roofline (docs/benchmarks.md)
#   make train-digits  train a CNN on the 8x8 digits beside PyTorch
#   make fuzz   libFuzzer on the readers of untrusted input (tests/fuzz)
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: demo test bench build configure bootstrap goldens train-digits fuzz clean

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

# examples/train-digits: a CNN trained on scikit-learn's 8x8 digits by nn and
# by PyTorch from the same weights in the same order, side by side.
train-digits: build
	@/usr/bin/python3 examples/train-digits/digits.py $(BUILD)/train-digits >/dev/null
	@$(BUILD)/bin/nn-train-digits $(BUILD)/train-digits

# The benchmark suite: installs libtorch, oneDNN and OpenBLAS, turns the
# bench on, runs it (JSON kept in $(BENCH_JSON)) and prints the table.
# Pass more Google Benchmark flags with BENCH_ARGS, e.g.
#   make bench BENCH_ARGS=--benchmark_filter=W5
BENCH_JSON ?= $(BUILD)/bench.json
BENCH_ARGS ?=
bench:
	@bash scripts/bootstrap-bench.sh
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNN_BUILD_BENCH=ON >/dev/null
	@cmake --build $(BUILD) --target nn-bench -j $(JOBS)
	@OMP_WAIT_POLICY=PASSIVE $(BUILD)/bin/nn-bench --benchmark_repetitions=5 \
	  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
	  --benchmark_out=$(BENCH_JSON) --benchmark_out_format=json $(BENCH_ARGS)
	@python3 bench/report.py $(BENCH_JSON)

# Fuzzing (tests/fuzz, scripts/fuzz.sh): clang-19 builds the targets with
# libFuzzer, ASan and UBSan into $(FUZZ_BUILD), then runs each for
# FUZZ_TIME seconds. FUZZ_TARGETS picks some, e.g.
#   make fuzz FUZZ_TIME=3600 FUZZ_TARGETS=compile
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= safetensors description compile
fuzz: bootstrap
	@CC=clang-19 CXX=clang++-19 cmake -S . -B $(FUZZ_BUILD) -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNN_FUZZ=ON >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix nn-fuzz-,$(FUZZ_TARGETS))
	@bash scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZ_TARGETS)

# Regenerates the PyTorch goldens (committed; only needed when they change).
goldens: bootstrap
	@/usr/bin/python3 tests/reference/generate_goldens.py
	@/usr/bin/python3 tests/reference/generate_module_goldens.py
	@/usr/bin/python3 tests/reference/generate_zoo_goldens.py
	@/usr/bin/python3 tests/reference/generate_op_goldens.py
	@/usr/bin/python3 tests/reference/generate_grad_goldens.py
	@/usr/bin/python3 tests/reference/generate_train_goldens.py

clean:
	@rm -rf $(BUILD)
