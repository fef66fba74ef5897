//===- CudaLaunchPlan.h - How a compiled function runs on a GPU -*- C++ -*-===//
//
// What the CUDA backend's compiler (nn/Conversion/CUDA/EmitCuda.h) hands the
// runtime besides the kernel image: per function, the buffers its kernels
// read and write and the launches in order. Plain data, no CUDA types.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_CUDALAUNCHPLAN_H
#define NN_RUNTIME_CUDALAUNCHPLAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace nn::cuda {

/// Threads per block of every emitted kernel (its __launch_bounds__).
constexpr unsigned kBlockSize = 256;

/// One buffer of a launch plan: a function argument (state, input or
/// output, in the function's argument order), a temporary the runtime
/// allocates for the call, or a constant the runtime uploads once.
struct PlanBuffer {
  enum class Kind { Argument, Temporary, Constant };
  Kind kind = Kind::Argument;
  /// The argument's position (Kind::Argument).
  unsigned argument = 0;
  /// The temporary's or constant's size; for an argument, that of `data`.
  int64_t bytes = 0;
  /// The constant's bytes, in the target's (little-endian) order. For a
  /// state argument the artifact embeds (a non-persistent buffer, weights
  /// compiled in), its value, which the runtime passes when the caller
  /// binds none; empty otherwise.
  std::vector<char> data;
};

/// One kernel launch: `kernel` with one pointer parameter per entry of
/// `buffers` (indices into LaunchPlan::buffers, each the base of its
/// buffer; the kernel adds the offsets), over `iterations` threads, or,
/// with `blockPerIteration`, `iterations` blocks (a reduction whose block
/// shares each output's sum). The kernel takes its pointers as one struct,
/// by value.
struct PlanLaunch {
  std::string kernel;
  std::vector<unsigned> buffers;
  int64_t iterations = 0;
  bool blockPerIteration = false;
  /// The launch's grid: a block per kBlockSize iterations (or per
  /// iteration), at most 2^31-1 blocks (the kernels loop over the rest).
  unsigned gridSize() const {
    int64_t blocks = blockPerIteration
                         ? iterations
                         : (iterations + kBlockSize - 1) / kBlockSize;
    int64_t most = (int64_t{1} << 31) - 1;
    return static_cast<unsigned>(blocks < most ? blocks : most);
  }
};

struct LaunchPlan {
  std::string function;
  /// The nn.state names of the function's leading (state) arguments.
  std::vector<std::string> state;
  /// Those of `state` the function writes (train-mode batch-norm running
  /// statistics), in the order first written.
  std::vector<std::string> writtenState;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanLaunch> launches;
};

} // namespace nn::cuda

#endif // NN_RUNTIME_CUDALAUNCHPLAN_H
