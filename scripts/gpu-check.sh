#!/usr/bin/env bash
# The CUDA backend's checks on a real GPU, in two halves, so that the machine
# with the GPU needs neither LLVM, MLIR nor a compiler:
#
#   scripts/gpu-check.sh prepare [DIR]   where nn builds (build/, NVRTC):
#       every op-set case's kernels compiled for $NN_GPU_CHECK_ARCH (default
#       sm_90) and the seed models with PyTorch forward goldens compiled with
#       --target=cuda, plus nn-gpu-check, nn-run and the shared libraries
#       they need that a bare machine lacks, into DIR (default build-gpu/).
#   scripts/gpu-check.sh run [DIR] [OUT] on the GPU machine (the NVIDIA
#       driver, python3 with torch for the comparisons): runs them all and
#       writes the logs into OUT (default DIR/logs). Exits non-zero when any
#       check fails.
#
# The goldens are read from the repository (tests/reference/goldens), which
# both machines have.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
mode=${1:-}
dir=${2:-build-gpu}
models="TransformerStack TiedEmbeddingLM ResNet"

prepare() {
  local build=${NN_BUILD_DIR:-build}
  cmake --build "$build" --target E2ETests nn-gpu-check nn-run nn-compile \
    nn-trace-seed-model
  rm -rf "$dir"
  mkdir -p "$dir/cases" "$dir/models" "$dir/bin" "$dir/lib"
  NN_GPU_CHECK_DIR="$repo/$dir/cases" "$build/bin/E2ETests" \
    --gtest_filter=CudaKernelGpuCheck.ExportsEveryCase --gtest_brief=1
  find "$dir/cases" -name '*.cu' -delete # the images are what runs
  local goldens=tests/reference/goldens
  for model in $models; do
    "$build/bin/nn-trace-seed-model" "$model" >"$dir/models/$model.mlir"
    "$build/bin/nn-compile" --target=cuda \
      --cuda-arch="${NN_GPU_CHECK_ARCH:-sm_90}" "$dir/models/$model.mlir" \
      -o "$dir/models/$model.so"
    "${NN_PYTHON3:-/usr/bin/python3}" - "$goldens/ops/models/$model.safetensors" \
      "$dir/models/$model" <<'EOF'
import os, sys
sys.path.insert(0, os.path.join("tests", "reference"))
import safetensors_io
golden = safetensors_io.load_file(sys.argv[1])
safetensors_io.save_file({"input.0": golden["input.0"]}, sys.argv[2] + ".inputs.safetensors")
safetensors_io.save_file({"output.0": golden["output.0"]}, sys.argv[2] + ".expected.safetensors")
EOF
  done
  cp "$build/bin/nn-gpu-check" "$build/bin/nn-run" "$dir/bin/"
  # The libraries outside glibc and libstdc++ (absl's) travel along.
  for tool in "$dir/bin/"*; do
    ldd "$tool" | awk '/=> \// { print $3 }' | grep -v -E \
      '/(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt)\.so' |
      xargs -r cp -L -t "$dir/lib/"
  done
  du -sh "$dir"
}

run() {
  local out=${3:-$dir/logs}
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$repo/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local status=0
  { nvidia-smi || true; } >"$out/gpu.txt" 2>&1
  "$dir/bin/nn-gpu-check" "$dir/cases" tests/reference/goldens \
    >"$out/op-goldens.log" 2>&1 || status=1
  tail -1 "$out/op-goldens.log"
  for model in $models; do
    # Tolerance: the CPU suite's for these models (SeedModelForwardTest).
    if "$dir/bin/nn-run" "$dir/models/$model.so" \
      "tests/reference/goldens/modules/$model.safetensors" \
      "$dir/models/$model.inputs.safetensors" --device cuda \
      -o "$out/$model.outputs.safetensors" >"$out/$model.log" 2>&1 &&
      "${NN_PYTHON3:-python3}" tests/reference/compare_safetensors.py \
        "$out/$model.outputs.safetensors" \
        "$dir/models/$model.expected.safetensors" >>"$out/$model.log" 2>&1; then
      echo "ok   $model"
    else
      echo "FAIL $model (see $out/$model.log)"
    fi
  done | tee "$out/models.log"
  grep -q FAIL "$out/models.log" && status=1
  return $status
}

case "$mode" in
prepare) prepare ;;
run) run "$@" ;;
*)
  echo "usage: scripts/gpu-check.sh prepare [DIR] | run [DIR] [OUT]" >&2
  exit 2
  ;;
esac
