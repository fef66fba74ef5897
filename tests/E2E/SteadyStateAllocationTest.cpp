//===- SteadyStateAllocationTest.cpp - No malloc per call, counted --------===//
//
// A compiled forward places its intermediates in an arena planned at compile
// time (nn-plan-buffers) and takes that arena from the calling thread's
// cached workspace, so once a thread has run a model, running it again
// allocates nothing: not in the generated code, the kernels or
// Artifact::run_into. This binary replaces malloc and its relatives with
// counting wrappers (CountingMalloc.cpp) and counts every allocation of the
// whole process while the model runs.
//
// Every case runs on 1 and 2 threads, and on 2 threads also with the pool's
// worker held asleep through the warm-up runs (HeldWorkers), so that the
// caller runs every piece of them, as when the worker is slow to wake on a
// loaded machine: the worker then runs its first pieces in the counted
// runs, and must find the kernels' per-thread buffers already sized. Each
// case first releases the kernels' cached memory (nn_rt_release_cached_memory),
// so its warm-up sizes everything from nothing, whatever ran before.
//
// It also checks that the arena is per thread: two threads running the same
// artifact at once get the bits one thread gets alone; from the bytes the
// allocator holds, that binding a model keeps only what forward reads (a
// batch-norm-folded convolution weight packed, not also dense); and that
// the kernels' cached per-thread memory goes back when its thread exits and
// when the last model context is destroyed.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"
#include "nn/nn.h"

#include "CountingMalloc.h"
#include "E2ETestUtil.h"
#include "models/ResNet.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <malloc.h>
#include <optional>
#include <random>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using nn::testing::allocatedBytes;
using nn::testing::allocations;
using nn::testing::counting;
using nn::testing::liveBytes;
using nn::testing::randomTensor;
using nn::testing::threadsNamed;

using namespace nn;

namespace {

constexpr int64_t kRows = 1024, kFeatures = 128;

/// A block with several intermediates of different sizes and lifetimes:
/// linear → gelu → linear (+ residual) → layer_norm → softmax, in the
/// shape of a transformer's feed-forward half. 1024 rows, so that the
/// softmax and layer_norm rows are split over the pool in tiles, each with
/// its own row-statistic temporaries; 128 features and 512 hidden, so that
/// each linear (64 Mi multiply-adds) is split over the pool too.
struct FeedForwardImpl : Module {
  FeedForwardImpl() : Module("FeedForward") {
    up = register_module("up", Linear(kFeatures, 4 * kFeatures));
    down = register_module("down", Linear(4 * kFeatures, kFeatures));
    norm = register_module("norm", LayerNorm(LayerNormOptions({kFeatures})));
  }
  Tensor forward(const Tensor &x) {
    return F::softmax(norm(down(F::gelu(up(x))) + x), 1);
  }
  Linear up{nullptr}, down{nullptr};
  LayerNorm norm{nullptr};
};
NN_MODULE(FeedForward);

std::shared_ptr<Artifact> compileFeedForward() {
  FeedForward model;
  model->eval();
  return compile(trace(model, {TensorSpec({kRows, kFeatures})}));
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
  Sequential block(
      {{"conv", Conv2d(Conv2dOptions(32, 32, 3).padding(1).bias(false))},
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

/// Attention on the runtime's fused kernel: 8 batch-heads of 192 queries
/// (four query blocks each), 256 keys (one key block: k and v packed once
/// per batch-head), heads of 64: 48 Mi multiply-adds, split over the pool.
std::shared_ptr<Artifact> compileAttention() {
  Sequential none({{"relu", ReLU()}}); // stateless: only inputs
  auto forward = [](const std::vector<Tensor> &in) -> std::vector<Tensor> {
    return {F::scaled_dot_product_attention(in[0], in[1], in[2])};
  };
  return compile(
      trace(*none,
            {TensorSpec({2, 4, 192, 64}), TensorSpec({2, 4, 256, 64}),
             TensorSpec({2, 4, 256, 64})},
            forward));
}

//===----------------------------------------------------------------------===//
// Holding the pool's workers
//===----------------------------------------------------------------------===//

std::atomic<bool> holding{false};
std::atomic<int> held{0};

/// Keeps a signalled worker here while `holding` (atomics and nanosleep
/// only: async-signal-safe).
void holdHere(int) {
  held.fetch_add(1);
  while (holding.load()) {
    timespec pause = {0, 200 * 1000};
    nanosleep(&pause, nullptr);
  }
  held.fetch_sub(1);
}

/// The ids of this process's threads named `name`.
/// Whether thread `id` is asleep (state S): a pool worker between loops
/// sleeps on its doorbell, outside any loop's bookkeeping.
bool asleep(pid_t id) {
  std::ifstream stat("/proc/self/task/" + std::to_string(id) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() &&
         text[close + 2] == 'S';
}

/// Holds every pool worker (threads named nn-worker) in a signal handler
/// from construction to destruction. A worker is signalled only once it
/// sleeps between loops, so it is held before it joins another: the loops
/// meanwhile run every piece on their caller, since work is claimed, not
/// assigned, and the caller waits only for workers inside the loop. (Only
/// workers of a loaded copy of the kernels may be held: one of a dlclose'd
/// shared object would return from the handler into unmapped code. The
/// shared objects this binary loads run on one thread and start none.)
class HeldWorkers {
public:
  HeldWorkers() {
    struct sigaction action = {};
    action.sa_handler = holdHere;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR1, &action, &previous_);
    holding.store(true);
    std::vector<pid_t> workers = threadsNamed("nn-worker");
    EXPECT_FALSE(workers.empty()) << "no pool worker to hold";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (pid_t id : workers) {
      while (!asleep(id) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      syscall(SYS_tgkill, getpid(), id, SIGUSR1);
    }
    while (held.load() < static_cast<int>(workers.size()) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(held.load(), static_cast<int>(workers.size()))
        << "a pool worker was not held";
  }
  ~HeldWorkers() {
    holding.store(false);
    while (held.load() > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    sigaction(SIGUSR1, &previous_, nullptr);
  }

private:
  struct sigaction previous_ = {};
};

void nothing(void *, int64_t, int64_t) {}

//===----------------------------------------------------------------------===//
// Steady state
//===----------------------------------------------------------------------===//

/// The thread count, and whether the pool's workers sleep through the
/// warm-up runs (see HeldWorkers).
struct Schedule {
  int threads;
  bool workersLate;
};

std::string scheduleName(const ::testing::TestParamInfo<Schedule> &info) {
  std::string name = info.param.threads == 1 ? "OneThread" : "TwoThreads";
  return info.param.workersLate ? name + "WorkersLate" : name;
}

class SteadyStateAllocationTest : public ::testing::TestWithParam<Schedule> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam().threads); }
  void TearDown() override { nn_rt_set_num_threads(1); }

  /// Runs `artifact` on `inputs` twice to warm up, then 20 more times while
  /// counting allocations: none, and the same bits every time.
  static void expectNoAllocations(const Artifact &artifact,
                                  const std::vector<Tensor> &inputs);
};

TEST_P(SteadyStateAllocationTest, RunningAgainAllocatesNothing) {
  auto artifact = compileFeedForward();
  // The planner found intermediates to place.
  EXPECT_GT(artifact->description().workspace_bytes, 0);
  expectNoAllocations(*artifact, {randomTensor({kRows, kFeatures}, 1)});
}

// A convolution whose weights are an input packs them on every call, into a
// buffer its thread keeps (not a malloc per call: that made 40 allocations
// in the 20 runs). Each thread of a call also keeps its kernel scratch and
// packing blocks, which every parallel loop sizes on all its threads before
// it hands out a piece: sized by the piece itself, a worker's first piece
// allocated in whichever run it came (TwoThreadsWorkersLate, and 2 in 25
// plain two-thread runs under ctest -j2).
TEST_P(SteadyStateAllocationTest, ConvolutionsAllocateNothing) {
  auto artifact = compileConvolutions();
  expectNoAllocations(*artifact, {randomTensor({4, 32, 32, 32}, 1),
                                  randomTensor({64, 32, 3, 3}, 2),
                                  randomTensor({128, 64, 1, 1}, 3)});
}

// The attention kernel keeps each thread's block scratch and packed k and v
// (it was a malloc and a free per claimed range of query blocks).
TEST_P(SteadyStateAllocationTest, AttentionAllocatesNothing) {
  auto artifact = compileAttention();
  expectNoAllocations(*artifact, {randomTensor({2, 4, 192, 64}, 1),
                                  randomTensor({2, 4, 256, 64}, 2),
                                  randomTensor({2, 4, 256, 64}, 3)});
}

void SteadyStateAllocationTest::expectNoAllocations(
    const Artifact &artifact, const std::vector<Tensor> &inputs) {
  std::vector<Tensor> outputs = outputsOf(artifact);
  // Every thread's buffers start empty, whatever earlier tests sized.
  nn_rt_release_cached_memory();
  std::optional<HeldWorkers> late;
  if (GetParam().workersLate) {
    nn_rt_parallel_for(GetParam().threads, nothing, nullptr); // starts them
    late.emplace();
  }
  // The first runs start the pool's threads and size the kernels' buffers
  // and this thread's workspace.
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(artifact.run_into(inputs, outputs).ok());
  late.reset();
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
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_EQ(nn_rt_workspace_allocations(), blocks);
  // Reusing the arena changes nothing in the results.
  EXPECT_EQ(std::memcmp(first.data(), outputs[0].data_ptr<float>(),
                        first.size() * sizeof(float)),
            0);
}

INSTANTIATE_TEST_SUITE_P(Schedules, SteadyStateAllocationTest,
                         ::testing::Values(Schedule{1, false},
                                           Schedule{2, false},
                                           Schedule{2, true}),
                         scheduleName);

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
  Sequential w3(
      {{"0", models::ResidualBlock(64)}, {"1", models::ResidualBlock(64)}});
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

//===----------------------------------------------------------------------===//
// The kernels' cached memory goes back
//===----------------------------------------------------------------------===//

/// Runs kernels that keep per-thread buffers, straight through the C ABI:
/// a GEMM (packing blocks; on 2 threads also B packed once and shared) and
/// a 3x3 convolution whose weights are an input (the weights packed per
/// call, the direct kernel's band scratch). Together several MiB.
void runKernelsThatKeepBuffers() {
  const int64_t n = 512;
  std::vector<float> a(n * n, 1.f), b(n * n, 0.5f), c(n * n);
  nn_rt_sgemm(n, n, n, a.data(), n, 1, b.data(), n, 1, c.data(), n, 0, nullptr);
  std::vector<float> input(4 * 32 * 32 * 32, 1.f), weight(64 * 32 * 9, 0.25f),
      output(4 * 64 * 32 * 32);
  nn_rt_conv2d_nchw(4, 32, 32, 32, input.data(), 64, 3, 3, weight.data(), 1, 1,
                    1, 1, 1, 1, 32, 32, output.data(), nullptr);
}

/// What the allocator may still hold after everything the kernels cached
/// went back: thread bookkeeping, not a buffer (the smallest, a GEMM's A
/// packing block, is over 100 KiB).
constexpr int64_t kBookkeepingBytes = 64 << 10;

// The kernels' buffers were thread_local pointers, which nothing freed: a
// thread that exited leaked them (several MiB per thread here). They now
// go with the thread.
TEST(CachedMemoryTest, AThreadsKernelBuffersGoWhenItExits) {
  nn_rt_set_num_threads(1);
  int64_t before = liveBytes.load(), during = 0;
  std::thread worker([&] {
    runKernelsThatKeepBuffers();
    during = liveBytes.load();
  });
  worker.join();
  EXPECT_GT(during - before, int64_t(4) << 20) << "the kernels kept nothing";
  EXPECT_LT(liveBytes.load() - before, kBookkeepingBytes);
}

// A server that unloads its models gets back what the kernels cached for
// them: the calling thread's buffers and the pool workers' go when the
// last context is destroyed.
TEST(CachedMemoryTest, TheLastContextTakesTheKernelBuffersWithIt) {
  nn_rt_set_num_threads(2);
  nn_rt_parallel_for(2, nothing, nullptr); // the worker, started beforehand
  nn_rt_release_cached_memory();           // what earlier tests left
  void **context = nn_rt_context_create(0);
  ASSERT_NE(context, nullptr);
  int64_t before = liveBytes.load();
  // The worker's buffers are sized by the caller too (presized loops),
  // whether or not it runs a piece.
  runKernelsThatKeepBuffers();
  int64_t kept = liveBytes.load() - before;
  EXPECT_GT(kept, int64_t(8) << 20) << "the kernels kept little";
  nn_rt_context_destroy(context, 0);
  EXPECT_LT(liveBytes.load() - before, kBookkeepingBytes) << kept << " kept";
  // And they come back on the next call.
  runKernelsThatKeepBuffers();
  EXPECT_GT(liveBytes.load() - before, int64_t(8) << 20);
  nn_rt_release_cached_memory();
  EXPECT_LT(liveBytes.load() - before, kBookkeepingBytes);
  nn_rt_set_num_threads(1);
}

/// A training step (TrainStep::operator()) writes each gradient into the
/// tensor the last step left in the parameter's grad() when nothing else
/// holds it: past the first steps, what it allocates (the loss, the
/// hyper-parameters' scalars, names) is a small part of the gradients'
/// bytes, where allocating them afresh would take all of them again.
TEST(TrainStepAllocationTest, AStepReusesTheGradientsNothingElseHolds) {
  Sequential model(
      {{"up", Linear(256, 512)}, {"relu", ReLU()}, {"down", Linear(512, 256)}});
  model->train();
  MSELoss loss_fn;
  optim::SGD optimizer(model->parameters(),
                       optim::SGDOptions(0.01).momentum(0.9));
  TrainStep step(model, loss_fn, {TensorSpec({16, 256})},
                 {TensorSpec({16, 256})}, optimizer);
  Tensor x = randomTensor({16, 256}, 4), y = randomTensor({16, 256}, 5);
  int64_t gradientBytes = 0;
  for (const Tensor &p : model->parameters())
    gradientBytes += static_cast<int64_t>(p.nbytes());
  for (int warmup = 0; warmup < 2; ++warmup)
    step(x, y);
  allocatedBytes = 0;
  counting = true;
  step(x, y);
  counting = false;
  EXPECT_LT(allocatedBytes.load(), gradientBytes / 8)
      << "gradients: " << gradientBytes << " bytes";
  for (const Tensor &p : model->parameters())
    EXPECT_TRUE(p.grad().defined());
}

TEST(WorkspaceConcurrencyTest, TwoThreadsRunningAtOnceNeverShareAnArena) {
  auto artifact = compileFeedForward();
  Tensor x = randomTensor({kRows, kFeatures}, 2),
         y = randomTensor({kRows, kFeatures}, 3);
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
