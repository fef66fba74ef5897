#!/usr/bin/env bash
# Installs what the benchmark suite (bench/, `make bench`) needs on top of
# scripts/bootstrap.sh: libtorch (Debian's OpenBLAS-backed 1.13) and oneDNN
# 2.6 as the anchors, Google Benchmark for the harness. Idempotent: nothing
# is downloaded when every package is present. Runs as root, or through sudo.
#
# libtorch links libblas.so.3; without OpenBLAS that is the reference BLAS
# and libtorch's matmul would be a straw man. libopenblas0-openmp has a
# higher alternatives priority than libblas3, so the link (auto mode) moves
# to it, and its OpenMP threads follow torch::set_num_threads.
set -euo pipefail

bash "$(dirname "$0")/bootstrap.sh"

packages=(libtorch-dev libdnnl-dev libbenchmark-dev libopenblas0-openmp python3)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi

echo "bootstrap-bench: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
