//===- CudaImage.h - A compiled model's GPU half, as bytes ------*- C++ -*-===//
//
// A model compiled for CUDA (nn-compile --target=cuda) carries, besides its
// CPU code, the kernels it runs on a GPU and how to run them: the PTX and
// the cubin NVRTC made for one architecture, and one launch plan per
// function (nn/Runtime/CudaLaunchPlan.h). The shared object exports them as
// one byte string (ArtifactABI.h, nn_get_cuda_image_v1) in this format:
//
//   "NNCUDA01"                     8 bytes, the magic
//   header size                    uint64, little-endian
//   header                         JSON, that many bytes
//   payload                        the bytes the header points into
//
//   {"arch": "sm_90",
//    "ptx": [offset, size], "cubin": [offset, size],       (in the payload)
//    "plans": [{"function": "forward", "state": ["fc.weight", ...],
//               "written_state": ["bn.running_mean", ...],
//               "buffers": [{"argument": 0}, {"temporary": 4096},
//                           {"argument": 1, "default": [offset, size]},
//                           {"constant": [offset, size]}, ...],
//               "launches": [{"kernel": "forward_0_fc", "buffers": [0, 2],
//                             "iterations": 640},
//                            {"kernel": "forward_1_norm", "buffers": [2, 3],
//                             "iterations": 64, "block_per_iteration": true},
//                            ...]}]}
//
// The compiler writes it (serialize_cuda_image) and the runtime reads it
// (parse_cuda_image), which refuses anything out of range by name, so a
// damaged file is an error, never an out-of-bounds read or a wrong launch.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_CUDAIMAGE_H
#define NN_RUNTIME_CUDAIMAGE_H

#include "nn/Runtime/CudaLaunchPlan.h"

#include "absl/status/statusor.h"

#include <string>
#include <string_view>
#include <vector>

namespace nn::cuda {

struct CudaImage {
  /// The architecture the cubin is for, as "sm_90"; the PTX is for the
  /// matching virtual architecture (compute_90).
  std::string arch;
  std::string ptx;
  std::string cubin;
  std::vector<LaunchPlan> plans;

  /// The plan of `function`, or null.
  const LaunchPlan *plan(std::string_view function) const;
};

/// The bytes of `image`, in the format above.
std::string serialize_cuda_image(const CudaImage &image);

/// Reads bytes serialize_cuda_image wrote; `source` names them in errors
/// ("model.so: invalid CUDA image: launch 3 of forward reads buffer 9 of
/// 4").
absl::StatusOr<CudaImage> parse_cuda_image(std::string_view bytes,
                                           const std::string &source);

/// A GPU's compute capability, as the driver reports it.
struct ComputeCapability {
  int major = -1;
  int minor = -1;
  bool valid() const { return major >= 0 && minor >= 0; }
};

/// "sm_90" (or "sm_90a", "compute_90") → {9, 0}; invalid for anything
/// else.
ComputeCapability parse_cuda_arch(std::string_view arch);

} // namespace nn::cuda

#endif // NN_RUNTIME_CUDAIMAGE_H
