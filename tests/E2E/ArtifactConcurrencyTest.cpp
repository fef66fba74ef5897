//===- ArtifactConcurrencyTest.cpp - Many threads on one artifact
//----------===//
//
// One loaded shared object, bound once, run from 8 threads at once, 2,000
// calls each, with the pool on 2 threads (so calls compete for it and most
// run their loops serially): every call returns the bits a lone call
// returns for its input. Each thread cycles through its own inputs, so a
// call that read another call's arena or workspace would show.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include "E2ETestUtil.h"

#include "gtest/gtest.h"

#include <cstring>
#include <filesystem>
#include <thread>

namespace nn::testing {
namespace {

/// Convolution, batch norm (folded), pooling, linear and softmax: state
/// packed at bind time, intermediates in the per-thread arena.
struct SmallNetImpl : Module {
  SmallNetImpl() : Module("SmallNet") {
    conv = register_module("conv", Conv2d(Conv2dOptions(4, 8, 3).padding(1)));
    bn = register_module("bn", BatchNorm2d(8));
    fc = register_module("fc", Linear(8 * 4 * 4, 10));
  }
  Tensor forward(const Tensor &x) {
    Tensor y = F::max_pool2d(F::relu(bn(conv(x))), F::MaxPool2dFuncOptions(2));
    return F::softmax(fc(F::flatten(y, 1)), 1);
  }
  Conv2d conv{nullptr};
  BatchNorm2d bn{nullptr};
  Linear fc{nullptr};
};
NN_MODULE(SmallNet);

bool sameBits(const Tensor &a, const Tensor &b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

TEST(ArtifactConcurrencyTest, EightThreadsTwoThousandCallsEachSameBits) {
  constexpr int kThreads = 8, kCalls = 2000, kInputsPerThread = 3;
  SmallNet model;
  model->eval();
  std::string dir = ::testing::TempDir() + "/nn_artifact_concurrency";
  std::filesystem::create_directories(dir);
  compile_to_file(trace(model, {TensorSpec({2, 4, 8, 8})}), dir + "/net.so");
  auto artifact = Artifact::load(dir + "/net.so");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  ASSERT_TRUE((*artifact)->bind(model->state_dict()).ok());

  // Every input's output from a lone call.
  std::vector<Tensor> inputs, expected;
  for (int i = 0; i < kThreads * kInputsPerThread; ++i) {
    inputs.push_back(randomTensor({2, 4, 8, 8}, 100 + i));
    auto outputs = (*artifact)->run({inputs.back()});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    expected.push_back((*outputs)[0]);
  }

  nn_rt_set_num_threads(2);
  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int call = 0; call < kCalls; ++call) {
        int i = t * kInputsPerThread + call % kInputsPerThread;
        auto outputs = (*artifact)->run({inputs[i]});
        if (!outputs.ok())
          ++failures[t];
        else if (!sameBits((*outputs)[0], expected[i]))
          ++mismatches[t];
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  nn_rt_set_num_threads(1);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0) << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t << ": calls of " << kCalls
                                << " that differ from a lone call";
  }
}

} // namespace
} // namespace nn::testing
