//===- Nvrtc.h - CUDA C++ to PTX and cubin with NVRTC -----------*- C++ -*-===//
//
// The CUDA backend compiles the kernels it emits with NVRTC at compile time,
// as TVM does, and embeds the PTX and cubin in the artifact, so a deployed
// model needs the driver alone. NVRTC needs no GPU: kernels are compiled
// (and so checked) on any machine with the CUDA toolkit.
//
// nn links no CUDA library: NVRTC is opened with dlopen on first use, from
// the file NN_NVRTC names, else libnvrtc.so.13 or .12 on the loader's path,
// else the toolkit's library folder (the one CMake found when nn was built,
// $CUDA_HOME, $CUDA_PATH, /usr/local/cuda). Where none is found, every call
// says so and the rest of nn is unaffected.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CUDA_NVRTC_H
#define NN_CONVERSION_CUDA_NVRTC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::nn::cuda {

struct NvrtcOptions {
  /// The GPU's compute capability as sm_XY: PTX for compute_XY and a cubin
  /// for sm_XY.
  std::string arch = "sm_90";
  /// -lineinfo: source lines in the PTX, for profilers.
  bool lineInfo = false;
  /// More NVRTC options, passed as they are.
  std::vector<std::string> extraOptions;
};

struct NvrtcOutput {
  std::string ptx;
  std::string cubin;
  /// NVRTC's log: warnings, when it compiled.
  std::string log;
};

/// NVRTC's version, as "13.0"; an error saying why when it cannot be
/// loaded.
llvm::Expected<std::string> nvrtcVersion();

/// Compiles the CUDA C++ `source` (called `name` in messages) for
/// `options.arch`. A compile error returns NVRTC's log, which names the
/// lines of `name`; a missing NVRTC or an arch it does not know is an error
/// that says so. Kernels are compiled as written: no fast math, so results
/// are PyTorch's (which builds without it too).
llvm::Expected<NvrtcOutput> compileCuda(llvm::StringRef source,
                                        llvm::StringRef name,
                                        const NvrtcOptions &options = {});

} // namespace mlir::nn::cuda

#endif // NN_CONVERSION_CUDA_NVRTC_H
