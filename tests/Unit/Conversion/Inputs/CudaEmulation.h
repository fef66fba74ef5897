//===- CudaEmulation.h - Emitted CUDA kernels as host C++ -------*- C++ -*-===//
//
// Included ahead of an nn-emitted kernel source (nn/Conversion/CUDA/
// EmitCuda.h) to compile it as host C++: the CUDA built-ins the kernels use,
// as thread-local variables, and nn_emulate_launch, which runs a launch's
// threads one after another. The kernels share nothing between threads and
// never synchronize, so running threads in sequence computes what the GPU
// does; a kernel that calls __syncthreads does not compile here (it needs
// each block's threads run as fibers).
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_CUDAEMULATION_H
#define NN_TESTS_CUDAEMULATION_H

#define NN_CUDA_EMULATION 1
#define NN_DEVICE static inline
#define __global__
#define __launch_bounds__(threads)

#include <math.h>

struct nn_emulated_dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline thread_local nn_emulated_dim3 threadIdx, blockIdx, blockDim, gridDim;

/// Runs `kernel` (the kernel's body, a callable) as a launch of `grid`
/// blocks of `block` threads.
template <typename Kernel>
void nn_emulate_launch(unsigned grid, unsigned block, const Kernel &kernel) {
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx.x = b;
    for (unsigned t = 0; t < block; ++t) {
      threadIdx.x = t;
      kernel();
    }
  }
}

#endif // NN_TESTS_CUDAEMULATION_H
