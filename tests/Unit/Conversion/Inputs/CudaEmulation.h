//===- CudaEmulation.h - Emitted CUDA kernels as host C++ -------*- C++ -*-===//
//
// Included ahead of an nn-emitted kernel source (nn/Conversion/CUDA/
// EmitCuda.h) to compile it as host C++: the CUDA built-ins the kernels use,
// as thread-local variables, and the two ways a launch runs.
//
// - nn_emulate_launch: a kernel whose threads share nothing and never
//   synchronize (a thread per point) runs its threads one after another,
//   which computes what the GPU does.
// - nn_emulate_block_launch: a kernel that calls __syncthreads and shares
//   __shared__ memory within a block (a block reduction) runs each block's
//   threads as fibers, each from one __syncthreads to the next in turn.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_CUDAEMULATION_H
#define NN_TESTS_CUDAEMULATION_H

#define NN_CUDA_EMULATION 1
#define NN_DEVICE static inline
#define __global__
#define __launch_bounds__(threads)
#define __shared__ static

#include <math.h>

#include <stdint.h>

#include <memory>
#include <vector>

struct nn_emulated_dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline thread_local nn_emulated_dim3 threadIdx, blockIdx, blockDim, gridDim;

/// Runs `kernel` (the kernel's body, a callable) as a launch of `grid`
/// blocks of `block` threads that never synchronize.
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

// --- Fibers -------------------------------------------------------------
//
// A block's threads are fibers on the launching thread. The switch saves
// the callee-saved registers on the running stack and its stack pointer in
// *from, then resumes the stack *to points at (x86-64 System V; a few
// nanoseconds, where swapcontext's signal-mask system call made a 256-thread
// block reduction 30 times slower).
extern "C" void nn_emulated_switch(void **from, void *to);
asm(R"(
  .text
  .p2align 4
  .hidden nn_emulated_switch
  .type nn_emulated_switch, @function
nn_emulated_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size nn_emulated_switch, .-nn_emulated_switch
)");

/// The fibers that run one block's threads (see nn_emulate_block_launch).
struct nn_emulated_block {
  void *scheduler = nullptr;
  std::vector<void *> threads; // each fiber's saved stack pointer
  std::vector<char> finished;
  unsigned current = 0;
  void (*run)(const void *) = nullptr;
  const void *kernel = nullptr;
};

/// 64 KiB of stack per thread: the kernels' frames are a few scalars.
inline constexpr size_t nn_emulated_stack_bytes = 64 * 1024;
inline thread_local nn_emulated_block *nn_emulated_current_block;

/// The stacks of `threads` fibers, kept by the launching thread from launch
/// to launch and never cleared: each touches the few pages at its top, so
/// a launch neither zeroes nor faults in the whole.
inline char *nn_emulated_stacks(unsigned threads) {
  static thread_local std::unique_ptr<char[]> stacks;
  static thread_local unsigned capacity = 0;
  if (threads > capacity) {
    stacks.reset(new char[size_t{threads} * nn_emulated_stack_bytes]);
    capacity = threads;
  }
  return stacks.get();
}

/// __syncthreads: back to the scheduler, which resumes this thread once
/// every other thread of the block has reached the barrier too.
inline void nn_emulated_syncthreads() {
  nn_emulated_block &block = *nn_emulated_current_block;
  nn_emulated_switch(&block.threads[block.current], block.scheduler);
}

#define __syncthreads() nn_emulated_syncthreads()

/// A fiber's first frame: runs the kernel, then hands the stack back for
/// good.
[[noreturn]] inline void nn_emulated_thread_entry() {
  nn_emulated_block &block = *nn_emulated_current_block;
  block.run(block.kernel);
  block.finished[block.current] = 1;
  void *unused;
  nn_emulated_switch(&unused, block.scheduler);
  __builtin_unreachable();
}

/// A fresh fiber on the stack that ends at `top`: six zero registers for
/// nn_emulated_switch to pop, then its return address, the entry, at a
/// 16-byte boundary (so the entry starts as if called).
inline void *nn_emulated_fiber(char *top) {
  auto *slot = reinterpret_cast<void **>(reinterpret_cast<uintptr_t>(top - 64) &
                                         ~uintptr_t{15});
  *slot = reinterpret_cast<void *>(&nn_emulated_thread_entry);
  for (int i = 1; i <= 6; ++i)
    slot[-i] = nullptr;
  return slot - 6;
}

/// Runs `kernel` as a launch of `grid` blocks of `block` threads that share
/// memory and synchronize: each block's threads are fibers on the calling
/// thread, run in turn from one __syncthreads to the next (every thread of
/// a block reaches the same barriers), so __shared__ variables, function
/// statics here, are the block's.
template <typename Kernel>
void nn_emulate_block_launch(unsigned grid, unsigned block,
                             const Kernel &kernel) {
  nn_emulated_block state;
  state.threads.resize(block);
  state.finished.resize(block);
  char *stacks = nn_emulated_stacks(block);
  state.kernel = &kernel;
  state.run = [](const void *k) { (*static_cast<const Kernel *>(k))(); };
  nn_emulated_block *outer = nn_emulated_current_block;
  nn_emulated_current_block = &state;
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx.x = b;
    for (unsigned t = 0; t < block; ++t) {
      state.threads[t] =
          nn_emulated_fiber(stacks + (t + 1) * nn_emulated_stack_bytes);
      state.finished[t] = 0;
    }
    for (unsigned left = block; left > 0;) {
      left = 0;
      for (unsigned t = 0; t < block; ++t) {
        if (state.finished[t])
          continue;
        state.current = t;
        threadIdx.x = t;
        nn_emulated_switch(&state.scheduler, state.threads[t]);
        left += !state.finished[t];
      }
    }
  }
  nn_emulated_current_block = outer;
}

#endif // NN_TESTS_CUDAEMULATION_H
