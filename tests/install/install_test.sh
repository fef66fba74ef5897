#!/usr/bin/env bash
# install_test.sh BUILD SOURCE
#
# What a user of an installed nn does, checked with the build folder out of
# reach: `cmake --install BUILD --prefix` a temporary folder; an application outside
# the tree (tests/install/app) configured with find_package(nn), one program
# linking nn::nn that traces and compiles a model ahead of time, one linking
# only nn::runtime that runs it; the deploy program again built with
# pkg-config alone; the installed nn-compile and nn-run, and the Python
# loader. While they run, an
# empty folder is mounted over BUILD in a private mount namespace (unshare
# -m, or -rm without root), so a path of the build folder anywhere would fail them; without the
# privilege for that the test says so and also checks that no installed file
# names the build folder.
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
# Outside the build folder, which is hidden later; kept when a step fails.
work=$(mktemp -d "${TMPDIR:-/tmp}/nn-install-test.XXXXXX")
trap 'echo "(files of this run: $work)"' ERR
mkdir -p "$work/out" "$work/empty"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
if grep -rl --binary-files=text -F "$build" "$prefix"; then
  echo "FAIL: the installed files above name the build folder $build"
  exit 1
fi

# The application, configured against the installation only.
cmake -S "$source/tests/install/app" -B "$work/app" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER_LAUNCHER= > "$work/configure.log"
cmake --build "$work/app" > "$work/build.log"
# The deploy program through pkg-config alone.
PKG_CONFIG_PATH=$prefix/lib/pkgconfig c++ -O1 \
  "$source/tests/install/app/deploy_app.cpp" -o "$work/deploy_pc" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs nn-runtime)

cat > "$work/run.sh" <<RUN
set -euo pipefail
export NN_CACHE_DISABLE=1
"$work/app/compile_app" "$work/out"
"$work/app/deploy_app" "$work/out"
"$work/deploy_pc" "$work/out"
# The installed tools on the same model: nn-compile writes it again from
# its IR, nn-run runs it.
"$prefix/bin/nn-compile" "$source/tests/tools/Inputs/simple_mlp.mlir" -o "$work/out/mlp.so"
"$prefix/bin/nn-run" "$work/out/mlp.so" "$source/tests/reference/goldens/simple_mlp/weights.safetensors" \
  "$source/tests/reference/goldens/simple_mlp/inputs.safetensors" -o "$work/out/mlp-out.safetensors"
# The installed Python loader, with the libnn_c.so installed beside it.
PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c "
import numpy as np, nn_runtime
m = nn_runtime.Model('$work/out/model.so', '$work/out/weights.safetensors')
print('python: output.0', m(np.zeros((4, 12), np.float32))[0].shape)"
RUN
# As root, or as a user in a user namespace of its own.
namespace=""
for flags in -m -rm; do
  if unshare $flags true 2>/dev/null; then namespace=$flags; break; fi
done
if [ -n "$namespace" ]; then
  unshare $namespace bash -c "mount --bind '$work/empty' '$build' && test ! -e '$build/bin' && bash '$work/run.sh'"
  echo "ran with the build folder $build hidden"
else
  echo "NOTE: unshare -m is not permitted here: the build folder stays visible (no installed file names it)"
  bash "$work/run.sh"
fi
/usr/bin/python3 "$source/tests/reference/compare_safetensors.py" \
  "$work/out/mlp-out.safetensors" "$source/tests/reference/goldens/simple_mlp/outputs.safetensors"
rm -rf "$work"
