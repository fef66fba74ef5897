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
// artifact at once get the bits one thread gets alone.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"
#include "nn/nn.h"

#include "E2ETestUtil.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
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

void countOne() {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

extern "C" void *malloc(size_t size) noexcept {
  countOne();
  return __libc_malloc(size);
}
extern "C" void *calloc(size_t count, size_t size) noexcept {
  countOne();
  return __libc_calloc(count, size);
}
extern "C" void *realloc(void *pointer, size_t size) noexcept {
  countOne();
  return __libc_realloc(pointer, size);
}
extern "C" void *aligned_alloc(size_t alignment, size_t size) noexcept {
  countOne();
  return __libc_memalign(alignment, size);
}
extern "C" void *memalign(size_t alignment, size_t size) noexcept {
  countOne();
  return __libc_memalign(alignment, size);
}
extern "C" int posix_memalign(void **out, size_t alignment,
                              size_t size) noexcept {
  countOne();
  void *pointer = __libc_memalign(alignment, size);
  if (!pointer)
    return ENOMEM;
  *out = pointer;
  return 0;
}
extern "C" void free(void *pointer) noexcept { __libc_free(pointer); }

using namespace nn;

namespace {

/// A block with several intermediates of different sizes and lifetimes:
/// linear → gelu → linear (+ residual) → layer_norm → softmax, in the
/// shape of a transformer's feed-forward half. 1024 rows, so that the
/// softmax and layer_norm rows are split over the pool in tiles, each with
/// its own row-statistic temporaries. No convolution: its kernel
/// still packs the weights per call (until they are packed at bind time).
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

class SteadyStateAllocationTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam()); }
  void TearDown() override { nn_rt_set_num_threads(1); }
};

TEST_P(SteadyStateAllocationTest, RunningAgainAllocatesNothing) {
  auto artifact = compileFeedForward();
  // The planner found intermediates to place.
  EXPECT_GT(artifact->description().workspace_bytes, 0);
  const std::vector<Tensor> inputs = {randomTensor({kRows, 64}, 1)};
  std::vector<Tensor> outputs = outputsOf(*artifact);
  // The first runs start the pool's threads, size their packing buffers
  // and this thread's workspace.
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(artifact->run_into(inputs, outputs).ok());
  std::vector<float> first(outputs[0].data_ptr<float>(),
                           outputs[0].data_ptr<float>() + outputs[0].numel());
  int64_t blocks = nn_rt_workspace_allocations();

  allocations.store(0);
  counting.store(true);
  absl::Status status;
  for (int i = 0; i < 20 && status.ok(); ++i)
    status = artifact->run_into(inputs, outputs);
  counting.store(false);

  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_EQ(nn_rt_workspace_allocations(), blocks);
  // Reusing the arena changes nothing in the results.
  EXPECT_EQ(std::memcmp(first.data(), outputs[0].data_ptr<float>(),
                        first.size() * sizeof(float)),
            0);
}

INSTANTIATE_TEST_SUITE_P(Threads, SteadyStateAllocationTest,
                         ::testing::Values(1, 2));

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
