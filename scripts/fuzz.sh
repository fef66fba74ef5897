#!/usr/bin/env bash
# Runs the fuzz targets of tests/fuzz, built by `make fuzz` with libFuzzer,
# ASan and UBSan: each for SECONDS on a working copy of its committed seed
# corpus (new inputs libFuzzer keeps go there, not into the source tree).
# An input that crashes a target is saved as BUILD/fuzz/crashes/<target>-*
# and fails the run; add it to the target's corpus once fixed.
#   scripts/fuzz.sh BUILD SECONDS TARGET...   (TARGET: safetensors, ...)
set -euo pipefail
build=$1 seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build/fuzz/crashes"
# LLVM's libraries are not instrumented: ASan's container-overflow check
# misreports std::vector's annotations across that boundary, and so does its
# user poisoning of LLVM's BumpPtrAllocator slabs (see test-sanitize.sh).
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for target in "$@"; do
  name=nn-fuzz-$target
  corpus=$build/fuzz/corpus/$target
  mkdir -p "$corpus"
  cp -n "$root/tests/fuzz/corpus/$name"/* "$corpus"/
  log=$build/fuzz/$target.log
  echo "fuzz: $name for ${seconds}s"
  if "$build/bin/$name" "$corpus" -max_total_time="$seconds" \
      -rss_limit_mb=4096 -timeout=60 -print_final_stats=1 \
      -artifact_prefix="$build/fuzz/crashes/$target-" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$log" |
      sed "s/^/fuzz: $target /"
  else
    echo "fuzz: $name FAILED; the input and the report:"
    ls "$build/fuzz/crashes/$target-"* 2>/dev/null || true
    tail -n 40 "$log"
    status=1
  fi
done
exit $status
