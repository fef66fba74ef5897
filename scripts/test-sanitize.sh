#!/usr/bin/env bash
# The suite under sanitizers (make test-sanitize):
#   ASAN_BUILD: RuntimeTests, KernelTests, FrontendTests, ConversionTests,
#     the lifecycle and boundary half of E2ETests (loading, binding, running
#     from many threads, unloading, bad input), every lit test (nn-opt,
#     nn-translate, nn-compile, nn-run, ... built with ASan and UBSan) and
#     each fuzz target once over its committed corpus;
#   TSAN_BUILD: RuntimeTests and KernelTests under TSan.
# Any sanitizer report fails the run.
#   scripts/test-sanitize.sh ASAN_BUILD TSAN_BUILD
set -euo pipefail
asan=$1 tsan=$2
root=$(cd "$(dirname "$0")/.." && pwd)
# LLVM's, MLIR's and GoogleTest's libraries are not instrumented: ASan's
# container-overflow check misreports std::vector's annotations across that
# boundary, and so does its user poisoning the slabs of LLVM's
# BumpPtrAllocator (poisoned by instrumented inline code, handed out
# unpoisoned by libMLIR's). Allocations too large for memory return null, as
# without ASan (BoundaryTest checks that nn reports them).
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0:allocator_may_return_null=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
export NN_CACHE_DIR=$asan/nn-cache
# The E2E tests of what crosses a compiled model's boundary and its
# lifecycle; the numerical ones (golden comparisons of every op) would take
# CI half an hour under ASan and exercise the same compiler paths as the lit
# tests.
E2E_UNDER_ASAN='ArtifactUnloadTest.*:ArtifactConcurrencyTest.*:BoundaryTest.*:EmbeddedStateTest.*:TrainArtifactTest.*:ParallelLoopsTest.*'

step() { echo "test-sanitize: $*"; }

step "ASan+UBSan RuntimeTests"
"$asan/bin/RuntimeTests" --gtest_brief=1
step "ASan+UBSan KernelTests"
"$asan/bin/KernelTests" --gtest_brief=1
step "ASan+UBSan FrontendTests"
"$asan/bin/FrontendTests" --gtest_brief=1
step "ASan+UBSan ConversionTests"
"$asan/bin/ConversionTests" --gtest_brief=1
step "ASan+UBSan E2ETests (lifecycle and boundaries)"
"$asan/bin/E2ETests" --gtest_brief=1 --gtest_filter="$E2E_UNDER_ASAN"
step "ASan+UBSan lit (tests/IR, Transforms, Conversion, tools)"
(cd "$asan" && /usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv \
  tests/IR tests/Transforms tests/Conversion tests/tools)
for fuzzer in nn-fuzz-safetensors nn-fuzz-description nn-fuzz-compile; do
  step "ASan+UBSan $fuzzer over its corpus"
  log=$asan/$fuzzer-corpus.log
  if ! "$asan/bin/$fuzzer" -runs=0 "$root/tests/fuzz/corpus/$fuzzer" \
      >"$log" 2>&1; then
    tail -n 40 "$log"
    exit 1
  fi
  grep -E "INITED|DONE" "$log" | tail -n 1
done
step "TSan RuntimeTests"
"$tsan/bin/RuntimeTests" --gtest_brief=1
step "TSan KernelTests"
"$tsan/bin/KernelTests" --gtest_brief=1
step "passed"
