#!/usr/bin/env bash
# Installs what the benchmark suite (bench/, `make bench`) needs on top of
# scripts/bootstrap.sh: libtorch (Debian's OpenBLAS-backed 1.13) and oneDNN
# 2.6 as the anchors, Google Benchmark for the harness. Idempotent: nothing
# is downloaded when every package is present. Runs as root, or through sudo.
#
# libtorch links libblas.so.3; the reference BLAS there would make
# libtorch's matmul a straw man, so OpenBLAS (OpenMP build: its threads
# follow torch::set_num_threads) is installed. Installing it would also move
# the system-wide libblas/liblapack alternatives to it, which changes
# python3-torch's results in the last bits and breaks the byte-exact golden
# checks of `make test`: the alternatives are pinned back to the reference
# libraries, and nn-bench alone loads OpenBLAS (it re-executes itself with
# LD_LIBRARY_PATH naming /usr/lib/x86_64-linux-gnu/openblas-openmp).
set -euo pipefail

bash "$(dirname "$0")/bootstrap.sh"

packages=(libtorch-dev libdnnl-dev libbenchmark-dev libopenblas0-openmp python3)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi

if [ ${#missing[@]} -ne 0 ]; then
  echo "bootstrap-bench: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Keep the system's BLAS/LAPACK the reference ones (see above).
multiarch=/usr/lib/x86_64-linux-gnu
for lib in blas lapack; do
  name="lib$lib.so.3-x86_64-linux-gnu"
  reference="$multiarch/$lib/lib$lib.so.3"
  if [ -e "$reference" ] &&
     [ "$(readlink -f "$multiarch/lib$lib.so.3")" != "$(readlink -f "$reference")" ]; then
    echo "bootstrap-bench: pinning $name to $reference"
    $sudo update-alternatives --set "$name" "$reference"
  fi
done
