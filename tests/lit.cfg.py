# lit configuration for nn's IR tests (tests/IR, tests/Transforms,
# tests/Conversion, tests/tools).
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "nn"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nn_obj_root, "tests")
config.excludes = ["Inputs", "Unit", "reference", "E2E", "fuzz", "CMakeLists.txt", "lit.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# Compiles in tests share a cache in the build tree, not the user's.
config.environment["NN_CACHE_DIR"] = os.path.join(config.nn_obj_root, "nn-cache")
config.environment.pop("NN_CACHE_DISABLE", None)
llvm_config.use_default_substitutions()
config.substitutions.append(("%nn_src", config.nn_source_root))
config.substitutions.append(("%goldens", os.path.join(
    config.nn_source_root, "tests", "reference", "goldens")))
config.substitutions.append(("%nn_tools_dir", config.nn_tools_dir))
# The build's libraries (libnn_c.so), laid out as an installation's lib/.
config.substitutions.append(("%nn_lib_dir", os.path.join(config.nn_obj_root, "lib")))
# Debian's torch imports only in the system interpreter.
config.substitutions.append(("%torch_python", config.nn_python3))
llvm_config.add_tool_substitutions(
    ["nn-opt", "nn-translate", "nn-compile", "nn-run", "nn-trace-seed-model"],
    [config.nn_tools_dir])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Debian's qemu-user runs the tools on an emulated older CPU (Haswell: AVX2
# and FMA, no AVX-512), to show what a compiled model does there. Not in a
# sanitizer build: ASan's and TSan's shadow memory does not map under it.
import shutil
qemu = shutil.which("qemu-x86_64")
if qemu and not config.nn_sanitize:
    config.available_features.add("qemu-x86_64")
    config.substitutions.append(("%qemu_haswell", qemu + " -cpu Haswell"))
# This machine's own ISA, for the tests of what needs it.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                      if line.startswith("flags")), [])
except OSError:
    flags = []
if "avx512f" in flags:
    config.available_features.add("host-avx512")
# A C compiler, for the programs built against generated headers.
cc = shutil.which("cc")
if config.nn_sanitize == "address":
    # A program linked against the instrumented libnn_c needs clang's ASan
    # and UBSan runtimes.
    clang = shutil.which("clang-19")
    cc = clang and clang + " -fsanitize=address,undefined"
if cc:
    config.available_features.add("cc")
    config.substitutions.append(("%cc", cc))
# A C++ compiler, for emitted CUDA kernels compiled as host code.
cxx = shutil.which("c++")
if cxx:
    config.available_features.add("cxx")
    config.substitutions.append(("%cxx", cxx))
# NVRTC, found where nn looks for it (codegen/lib/CUDA/Nvrtc.cpp): the CUDA
# backend's tests compile kernels with it and need no GPU.
import ctypes
import glob
def nvrtc_found():
    candidates = [os.environ.get("NN_NVRTC", ""), "libnvrtc.so.13", "libnvrtc.so.12"]
    for root in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]:
        if root:
            candidates += sorted(glob.glob(os.path.join(root, "lib64", "libnvrtc.so.1*")))
    for candidate in candidates:
        try:
            if candidate:
                ctypes.CDLL(candidate)
                return True
        except OSError:
            pass
    return False
if nvrtc_found():
    config.available_features.add("nvrtc")
# The stand-in for the NVIDIA driver that the runtime's tests use
# (tests/Unit/Runtime/Inputs/fake_libcuda.c): nn-run "on a GPU" without one.
fake_libcuda = os.path.join(config.nn_obj_root, "lib", "libnn_test_fake_libcuda.so")
if os.path.exists(fake_libcuda):
    config.available_features.add("fake-cuda-driver")
    config.substitutions.append(("%fake_libcuda", fake_libcuda))
