//===- SteadyStateAllocationTest.cpp - No malloc per call, counted --------===//
//
// A compiled forward places its intermediates in an arena planned at compile
// time (nn-plan-buffers) and takes that arena from the calling thread's
// cached workspace, so once a thread has run a model, running it again
// allocates nothing: not in the generated code, the kernels or
// Artifact::run_into. This binary replaces malloc and its relatives with
// counting wrappers around glibc's allocator (glibc supports replacing them
// in the executable; the JIT-compiled code binds to the same symbols) and
// counts every allocation of the whole process while the model runs.
//
// It also checks that the arena is per thread: two threads running the same
// artifact at once get the bits one thread gets alone; and, from the bytes
// the allocator holds, that binding a model keeps only what forward reads
// (a batch-norm-folded convolution weight packed, not also dense).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"
#include "nn/nn.h"

#include "E2ETestUtil.h"
#include "models/ResNet.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <malloc.h>
#include <random>
#include <thread>

extern "C" {
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *pointer, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *pointer);
}

namespace {

using nn::testing::randomTensor;

std::atomic<bool> counting{false};
std::atomic<int64_t> allocations{0};
/// The bytes of every block the process holds (malloc_usable_size), always
/// tracked.
std::atomic<int64_t> liveBytes{0};

/// Counts the allocation of `pointer` (null: none) and returns it.
void *countOne(void *pointer) {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
  if (pointer)
    liveBytes.fetch_add(static_cast<int64_t>(malloc_usable_size(pointer)),
                        std::memory_order_relaxed);
  return pointer;
}

void forget(void *pointer) {
  if (pointer)
    liveBytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(pointer)),
                        std::memory_order_relaxed);
}

} // namespace

extern "C" void *malloc(size_t size) noexcept {
  return countOne(__libc_malloc(size));
}
extern "C" void *calloc(size_t count, size_t size) noexcept {
  return countOne(__libc_calloc(count, size));
}
extern "C" void *realloc(void *pointer, size_t size) noexcept {
  int64_t before = pointer ? malloc_usable_size(pointer) : 0;
  void *moved = __libc_realloc(pointer, size);
  if (moved || size == 0) // else the old block is still held
    liveBytes.fetch_sub(before, std::memory_order_relaxed);
  return countOne(moved);
}
extern "C" void *aligned_alloc(size_t alignment, size_t size) noexcept {
  return countOne(__libc_memalign(alignment, size));
}
extern "C" void *memalign(size_t alignment, size_t size) noexcept {
  return countOne(__libc_memalign(alignment, size));
}
extern "C" int posix_memalign(void **out, size_t alignment,
                              size_t size) noexcept {
  void *pointer = countOne(__libc_memalign(alignment, size));
  if (!pointer)
    return ENOMEM;
  *out = pointer;
  return 0;
}
extern "C" void free(void *pointer) noexcept {
  forget(pointer);
  __libc_free(pointer);
}

using namespace nn;

namespace {

/// A block with several intermediates of different sizes and lifetimes:
/// linear → gelu → linear (+ residual) → layer_norm → softmax, in the
/// shape of a transformer's feed-forward half. 1024 rows, so that the
/// softmax and layer_norm rows are split over the pool in tiles, each with
/// its own row-statistic temporaries.
struct FeedForwardImpl : Module {
  FeedForwardImpl() : Module("FeedForward") {
    up = register_module("up", Linear(64, 256));
    down = register_module("down", Linear(256, 64));
    norm = register_module("norm", LayerNorm(LayerNormOptions({64})));
  }
  Tensor forward(const Tensor &x) {
    return F::softmax(norm(down(F::gelu(up(x))) + x), 1);
  }
  Linear up{nullptr}, down{nullptr};
  LayerNorm norm{nullptr};
};
NN_MODULE(FeedForward);

constexpr int64_t kRows = 1024;

std::shared_ptr<Artifact> compileFeedForward() {
  FeedForward model;
  model->eval();
  return compile(trace(model, {TensorSpec({kRows, 64})}));
}

std::vector<Tensor> outputsOf(const Artifact &artifact) {
  std::vector<Tensor> outputs;
  for (const TensorInfo &info : artifact.description().outputs)
    outputs.push_back(Tensor::zeros(info.shape, info.dtype));
  return outputs;
}

/// Convolutions of both kinds of weights, each big enough to be split over
/// two threads: a batch-norm-folded one, whose weights are state packed at
/// bind time, then two whose weights are inputs, which each call packs
/// itself: a 3x3 one (the direct kernel) and a 1x1 one (the implicit GEMM).
std::shared_ptr<Artifact> compileConvolutions() {
  Sequential block({{"conv", Conv2d(Conv2dOptions(32, 32, 3).padding(1)
                                        .bias(false))},
                    {"bn", BatchNorm2d(32)},
                    {"relu", ReLU()}});
  block->eval();
  auto forward = [&](const std::vector<Tensor> &in) -> std::vector<Tensor> {
    Tensor y = F::conv2d(block->forward(in[0]), in[1],
                         F::Conv2dFuncOptions().padding(1));
    return {F::conv2d(F::relu(y), in[2])};
  };
  return compile(trace(*block,
                       {TensorSpec({4, 32, 32, 32}), TensorSpec({64, 32, 3, 3}),
                        TensorSpec({128, 64, 1, 1})},
                       forward));
}

/// Attention on the runtime's fused kernel: 8 batch-heads of 96 queries (two
/// query blocks each), 128 keys.
std::shared_ptr<Artifact> compileAttention() {
  Sequential none({{"relu", ReLU()}}); // stateless: only inputs
  auto forward = [](const std::vector<Tensor> &in) -> std::vector<Tensor> {
    return {F::scaled_dot_product_attention(in[0], in[1], in[2])};
  };
  return compile(trace(*none,
                       {TensorSpec({2, 4, 96, 32}), TensorSpec({2, 4, 128, 32}),
                        TensorSpec({2, 4, 128, 32})},
                       forward));
}

class SteadyStateAllocationTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam()); }
  void TearDown() override { nn_rt_set_num_threads(1); }

  /// Runs `artifact` on `inputs` to warm up, then 20 more times while
  /// counting allocations: at most `oneTime` (see ConvolutionsAllocateNothing),
  /// and the same bits every time.
  static void expectNoAllocations(const Artifact &artifact,
                                  const std::vector<Tensor> &inputs,
                                  int64_t oneTime = 0);
};

TEST_P(SteadyStateAllocationTest, RunningAgainAllocatesNothing) {
  auto artifact = compileFeedForward();
  // The planner found intermediates to place.
  EXPECT_GT(artifact->description().workspace_bytes, 0);
  expectNoAllocations(*artifact, {randomTensor({kRows, 64}, 1)});
}

// A convolution whose weights are an input packs them on every call, into a
// buffer its thread keeps (not a malloc per call: that made 40 allocations
// in the 20 runs). A pool worker sizes its own kernel scratch and packing
// buffers (three) the first time it runs a piece of each kernel; on a
// loaded machine a worker slow to wake may leave every piece to the caller
// for many runs, so those one-time allocations may fall in any run and are
// allowed, for the workers only.
TEST_P(SteadyStateAllocationTest, ConvolutionsAllocateNothing) {
  auto artifact = compileConvolutions();
  expectNoAllocations(*artifact,
                      {randomTensor({4, 32, 32, 32}, 1),
                       randomTensor({64, 32, 3, 3}, 2),
                       randomTensor({128, 64, 1, 1}, 3)},
                      /*oneTime=*/3 * (GetParam() - 1));
}

// The attention kernel keeps each thread's block scratch and packed k and v
// (it was a malloc and a free per claimed range of query blocks). Pool
// workers size their buffers once, as in ConvolutionsAllocateNothing.
TEST_P(SteadyStateAllocationTest, AttentionAllocatesNothing) {
  auto artifact = compileAttention();
  expectNoAllocations(*artifact,
                      {randomTensor({2, 4, 96, 32}, 1),
                       randomTensor({2, 4, 128, 32}, 2),
                       randomTensor({2, 4, 128, 32}, 3)},
                      /*oneTime=*/3 * (GetParam() - 1));
}

void SteadyStateAllocationTest::expectNoAllocations(
    const Artifact &artifact, const std::vector<Tensor> &inputs,
    int64_t oneTime) {
  std::vector<Tensor> outputs = outputsOf(artifact);
  // The first runs start the pool's threads, size their packing buffers
  // and this thread's workspace.
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(artifact.run_into(inputs, outputs).ok());
  std::vector<float> first(outputs[0].data_ptr<float>(),
                           outputs[0].data_ptr<float>() + outputs[0].numel());
  int64_t blocks = nn_rt_workspace_allocations();

  allocations.store(0);
  counting.store(true);
  absl::Status status;
  for (int i = 0; i < 20 && status.ok(); ++i)
    status = artifact.run_into(inputs, outputs);
  counting.store(false);

  ASSERT_TRUE(status.ok()) << status;
  EXPECT_LE(allocations.load(), oneTime);
  EXPECT_EQ(nn_rt_workspace_allocations(), blocks);
  // Reusing the arena changes nothing in the results.
  EXPECT_EQ(std::memcmp(first.data(), outputs[0].data_ptr<float>(),
                        first.size() * sizeof(float)),
            0);
}

INSTANTIATE_TEST_SUITE_P(Threads, SteadyStateAllocationTest,
                         ::testing::Values(1, 2));

/// The bytes the allocator holds after binding `traced`'s state to its
/// shared object, less those it held before: what the artifact keeps for
/// the weights (its context: folded values and packed weights).
int64_t bytesKeptByBind(const TracedModule &traced, const std::string &name) {
  std::string dir = ::testing::TempDir() + "/nn_bind_bytes";
  std::filesystem::create_directories(dir);
  CompileOptions options;
  options.cache = false; // this build's code, whatever the cache holds
  compile_to_file(traced, dir + "/" + name + ".so", options);
  auto artifact = Artifact::load(dir + "/" + name + ".so");
  if (!artifact.ok()) {
    ADD_FAILURE() << artifact.status();
    return -1;
  }
  int64_t before = liveBytes.load();
  absl::Status bound = (*artifact)->bind(traced.state());
  int64_t kept = liveBytes.load() - before;
  EXPECT_TRUE(bound.ok()) << bound;
  return kept;
}

// Batch-norm folded into a convolution is computed at bind time and packed
// for the kernel. Only the packed weight is kept: the folded dense one is a
// temporary of the prepare step. Measured on W2's layer (conv 64→64 3x3 +
// BatchNorm + ReLU at 56x56) and W3's two residual blocks (four of them).
TEST(BindMemoryTest, AFoldedConvolutionWeightIsKeptOnlyPacked) {
  nn_rt_set_num_threads(1);
  const int64_t denseBytes = 64 * 64 * 3 * 3 * sizeof(float);
  const int64_t packedBytes = nn_rt_conv2d_pack_weight_size(
      64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 56, 56);
  ASSERT_GT(packedBytes, 0);

  Sequential w2({{"conv", models::conv3x3(64, 64)},
                 {"bn", BatchNorm2d(64)},
                 {"relu", ReLU()}});
  Sequential w3({{"0", models::ResidualBlock(64)},
                 {"1", models::ResidualBlock(64)}});
  struct Case {
    const char *name;
    Sequential model;
    int64_t convolutions;
  };
  for (Case c : {Case{"W2", w2, 1}, Case{"W3", w3, 4}}) {
    c.model->eval();
    int64_t kept =
        bytesKeptByBind(trace(c.model, {TensorSpec({1, 64, 56, 56})}), c.name);
    int64_t packed = c.convolutions * packedBytes,
            dense = c.convolutions * denseBytes;
    std::cout << c.name << ": bind keeps " << kept << " bytes; its weights are "
              << packed << " bytes packed, " << dense << " dense\n";
    // The packed weights and little else (the folded biases, the bound
    // tensors' list); a dense copy of the weights would double it.
    EXPECT_GE(kept, packed) << c.name;
    EXPECT_LT(kept, packed + dense / 2) << c.name;
  }
}

TEST(WorkspaceConcurrencyTest, TwoThreadsRunningAtOnceNeverShareAnArena) {
  auto artifact = compileFeedForward();
  Tensor x = randomTensor({kRows, 64}, 2), y = randomTensor({kRows, 64}, 3);
  auto alone = [&](const Tensor &input) {
    std::vector<Tensor> outputs = outputsOf(*artifact);
    EXPECT_TRUE(artifact->run_into({input}, outputs).ok());
    return outputs[0];
  };
  Tensor expectedX = alone(x), expectedY = alone(y);
  auto same = [](const Tensor &a, const Tensor &b) {
    return std::memcmp(a.data_ptr<float>(), b.data_ptr<float>(),
                       a.numel() * sizeof(float)) == 0;
  };
  std::atomic<int> mismatches{0};
  auto runMany = [&](const Tensor &input, const Tensor &expected) {
    std::vector<Tensor> outputs = outputsOf(*artifact);
    for (int i = 0; i < 50; ++i) {
      if (!artifact->run_into({input}, outputs).ok() ||
          !same(outputs[0], expected))
        mismatches.fetch_add(1);
    }
  };
  std::thread first(runMany, x, expectedX), second(runMany, y, expectedY);
  first.join();
  second.join();
  EXPECT_EQ(mismatches.load(), 0);
}

} // namespace
