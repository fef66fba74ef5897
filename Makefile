# The two commands of the README, and their steps.
#   make demo   trace, optimize, compile and run the demo model vs PyTorch
#   make test   the whole test suite through ctest
#   make bench  nn vs libtorch / oneDNN / roofline (docs/benchmarks.md)
#   make train-digits  train a CNN on the 8x8 digits beside PyTorch
#   make fuzz   libFuzzer on the readers of untrusted input (tests/fuzz)
#   make test-sanitize  the suite under ASan, UBSan (most of it) and TSan
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: demo test bench build configure bootstrap goldens train-digits fuzz test-sanitize clean

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
# On an AVX-512 CPU nn's rows run a second time with the kernels capped to
# AVX2 (JSON in $(BENCH_AVX2_JSON)), printed beside the native ones; set
# BENCH_AVX2=0 to skip that run.
# Pass more Google Benchmark flags with BENCH_ARGS, e.g.
#   make bench BENCH_ARGS=--benchmark_filter=W5
BENCH_JSON ?= $(BUILD)/bench.json
BENCH_AVX2_JSON ?= $(BUILD)/bench-avx2.json
BENCH_ARGS ?=
BENCH_AVX2 ?= $(if $(shell grep -m1 -o avx512f /proc/cpuinfo 2>/dev/null),1,0)
BENCH_RUN = OMP_WAIT_POLICY=PASSIVE $(BUILD)/bin/nn-bench --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_out_format=json
bench:
	@bash scripts/bootstrap-bench.sh
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNN_BUILD_BENCH=ON >/dev/null
	@cmake --build $(BUILD) --target nn-bench -j $(JOBS)
	@/usr/bin/python3 bench/zoo_torchscript.py $(BUILD)/bench-zoo
	@rm -f $(BENCH_AVX2_JSON)
	@$(BENCH_RUN) --benchmark_out=$(BENCH_JSON) $(BENCH_ARGS)
	@if [ "$(BENCH_AVX2)" = 1 ]; then NN_MAX_ISA=avx2 $(BENCH_RUN) \
	  --benchmark_out=$(BENCH_AVX2_JSON) $(BENCH_ARGS); fi
	@python3 bench/report.py $(BENCH_JSON) \
	  $$([ -f $(BENCH_AVX2_JSON) ] && echo $(BENCH_AVX2_JSON))

# Sanitizer builds, with clang-19: $(ASAN_BUILD) checks with ASan and UBSan
# and links the fuzz targets with libFuzzer; $(TSAN_BUILD) is for TSan.
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
SANITIZE_CMAKE = CC=clang-19 CXX=clang++-19 cmake -S . -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
FUZZERS = nn-fuzz-safetensors nn-fuzz-description nn-fuzz-compile

# Fuzzing (tests/fuzz, scripts/fuzz.sh): each target FUZZ_TIME seconds on a
# working copy of its corpus. FUZZ_TARGETS picks some, e.g.
#   make fuzz FUZZ_TIME=3600 FUZZ_TARGETS=compile
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= safetensors description compile
fuzz: bootstrap
	@$(SANITIZE_CMAKE) -B $(ASAN_BUILD) -DNN_SANITIZE=address >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target $(addprefix nn-fuzz-,$(FUZZ_TARGETS))
	@bash scripts/fuzz.sh $(ASAN_BUILD) $(FUZZ_TIME) $(FUZZ_TARGETS)

# The suite under sanitizers (scripts/test-sanitize.sh): ASan + UBSan on the
# runtime, kernel, frontend and conversion tests, the lifecycle half of the
# E2E tests, every lit test (the tools built with ASan) and the fuzz corpora;
# TSan on the runtime and kernel tests (the thread pool, concurrent runs).
test-sanitize: bootstrap
	@$(SANITIZE_CMAKE) -B $(ASAN_BUILD) -DNN_SANITIZE=address >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target RuntimeTests KernelTests \
	  FrontendTests ConversionTests E2ETests \
	  nn-opt nn-translate nn-compile nn-run nn-trace-seed-model nn_c $(FUZZERS)
	@$(SANITIZE_CMAKE) -B $(TSAN_BUILD) -DNN_SANITIZE=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target RuntimeTests KernelTests
	@bash scripts/test-sanitize.sh $(ASAN_BUILD) $(TSAN_BUILD)

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
