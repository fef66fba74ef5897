#!/usr/bin/env bash
# Installs every build and test dependency of nn from Debian 12 packages.
# Idempotent: packages already present are left alone and nothing is
# downloaded when all of them are installed. Runs as root, or through sudo.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ make pkg-config clang-format
  llvm-19-dev libmlir-19-dev mlir-19-tools clang-19 lld-19 libclang-rt-19-dev
  libabsl-dev libgtest-dev libsimde-dev libgmock-dev libbenchmark-dev
  python3 python3-torch python3-torchvision python3-numpy python3-sklearn
  qemu-user
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev libffi-dev
)

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

echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
