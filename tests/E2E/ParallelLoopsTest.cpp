//===- ParallelLoopsTest.cpp - Threaded, vectorized loops are exact -------===//
//
// Ops big enough for nn-tile-and-vectorize to split over the thread pool
// (nn-outline-parallel-loops) give the same bits on one and two threads as a
// plain C++ loop: elementwise ops and transposes are exact per element, and
// a sum over an outer dimension keeps its order (each vector lane adds its
// own column row by row), and so does a sum over the innermost dimension
// (each lane adds its own row's elements in order). Extents with and without a
// power-of-two divisor cover the vectorized and the scalar inner loops. Exact
// comparison on purpose: nothing here may reassociate.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"
#include "nn/nn.h"

#include "E2ETestUtil.h"

#include "gtest/gtest.h"

#include <random>
#include <thread>

using namespace nn;

namespace {

using nn::testing::randomTensor;

constexpr float kScale = 1.5f, kShift = -0.25f;

/// Runs `artifact` on `inputs` with 1 and 2 threads; returns both outputs.
std::vector<Tensor> runOnOneAndTwoThreads(Artifact &artifact,
                                          const std::vector<Tensor> &inputs) {
  std::vector<Tensor> results;
  for (int threads : {1, 2}) {
    nn_rt_set_num_threads(threads);
    auto outputs = artifact.run(inputs);
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    if (outputs.ok())
      results.push_back((*outputs)[0]);
  }
  nn_rt_set_num_threads(1);
  return results;
}

void expectBitsEqual(const Tensor &actual, const std::vector<float> &expected) {
  ASSERT_EQ(actual.numel(), int64_t(expected.size()));
  const float *p = actual.data_ptr<float>();
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_EQ(p[i], expected[i]) << "at " << i;
}

std::shared_ptr<Artifact> compileAffineRelu(int64_t n) {
  Module root("AffineRelu");
  return compile(trace(root, {TensorSpec({n})}, [](const auto &in) {
    return std::vector<Tensor>{
        F::relu(in[0] * double(kScale) + double(kShift))};
  }));
}

std::vector<float> affineReluReference(const Tensor &x) {
  std::vector<float> out(x.numel());
  for (int64_t i = 0; i < x.numel(); ++i) {
    float y = x.data_ptr<float>()[i] * kScale + kShift;
    out[i] = y > 0 ? y : 0;
  }
  return out;
}

class ParallelElementwiseTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(ParallelElementwiseTest, AffineReluIsExactOnOneAndTwoThreads) {
  int64_t n = GetParam();
  auto artifact = compileAffineRelu(n);
  Tensor x = randomTensor({n}, 1);
  std::vector<float> expected = affineReluReference(x);
  for (const Tensor &out : runOnOneAndTwoThreads(*artifact, {x}))
    expectBitsEqual(out, expected);
}

// 2^18 has 64 tiles of 4096, each of 128 vectors; 255255 = 3·5·7·11·13·17
// has no power-of-two divisor, so its tiles run scalar loops.
INSTANTIATE_TEST_SUITE_P(Sizes, ParallelElementwiseTest,
                         ::testing::Values(int64_t(1) << 18, int64_t(255255)));

TEST(ParallelLoopsTest, ColumnSumKeepsItsOrder) {
  const int64_t rows = 512, cols = 384;
  Module root("ColumnSum");
  auto artifact =
      compile(trace(root, {TensorSpec({rows, cols})}, [](const auto &in) {
        return std::vector<Tensor>{F::sum(in[0], {0})};
      }));
  Tensor x = randomTensor({rows, cols}, 2);
  // Accumulated in float64, rounded once (NNToLinalg/Normalization.cpp).
  std::vector<double> sums(cols, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      sums[c] += x.data_ptr<float>()[r * cols + c];
  std::vector<float> expected(sums.begin(), sums.end());
  for (const Tensor &out : runOnOneAndTwoThreads(*artifact, {x}))
    expectBitsEqual(out, expected);
}

// A sum along the innermost dimension is vectorized across rows (each lane
// one row, the row's elements added one by one), so it gives exactly the
// bits of the sequential loop; so does a sum over a middle dimension (each
// lane one output column), accumulated in float64 and rounded once. 384
// columns are 48 blocks of 8; 12 middle rows.
TEST(ParallelLoopsTest, RowAndMiddleSumsKeepTheirOrder) {
  const int64_t outer = 512, middle = 12, inner = 384;
  Module root("Sums");
  auto rowSum =
      compile(trace(root, {TensorSpec({outer, inner})}, [](const auto &in) {
        return std::vector<Tensor>{F::sum(in[0], {1})};
      }));
  Tensor x = randomTensor({outer, inner}, 6);
  std::vector<float> expected(outer, 0.0f);
  for (int64_t r = 0; r < outer; ++r)
    for (int64_t c = 0; c < inner; ++c)
      expected[r] += x.data_ptr<float>()[r * inner + c];
  for (const Tensor &out : runOnOneAndTwoThreads(*rowSum, {x}))
    expectBitsEqual(out, expected);

  auto middleSum = compile(
      trace(root, {TensorSpec({outer, middle, inner})}, [](const auto &in) {
        return std::vector<Tensor>{F::sum(in[0], {1})};
      }));
  Tensor y = randomTensor({outer, middle, inner}, 7);
  std::vector<double> middleSums(outer * inner, 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t m = 0; m < middle; ++m)
      for (int64_t i = 0; i < inner; ++i)
        middleSums[o * inner + i] +=
            y.data_ptr<float>()[(o * middle + m) * inner + i];
  std::vector<float> expectedMiddle(middleSums.begin(), middleSums.end());
  for (const Tensor &out : runOnOneAndTwoThreads(*middleSum, {y}))
    expectBitsEqual(out, expectedMiddle);
}

// softmax and layer_norm (row tiles fused over threads, vectorized row
// sums, polynomial exp) give the same bits on one and two threads.
TEST(ParallelLoopsTest, SoftmaxAndLayerNormAreThreadCountIndependent) {
  const int64_t rows = 1024, cols = 256;
  Module root("Rows");
  auto artifact =
      compile(trace(root, {TensorSpec({rows, cols})}, [](const auto &in) {
        return std::vector<Tensor>{
            F::softmax(in[0], 1) +
            F::layer_norm(in[0], F::LayerNormFuncOptions({cols}))};
      }));
  Tensor x = randomTensor({rows, cols}, 8);
  std::vector<Tensor> results = runOnOneAndTwoThreads(*artifact, {x});
  ASSERT_EQ(results.size(), 2u);
  const float *one = results[0].data_ptr<float>();
  expectBitsEqual(results[1], std::vector<float>(one, one + rows * cols));
}

TEST(ParallelLoopsTest, TransposeIsExact) {
  const int64_t rows = 384, cols = 520;
  Module root("Transpose");
  auto artifact =
      compile(trace(root, {TensorSpec({rows, cols})}, [](const auto &in) {
        return std::vector<Tensor>{F::relu(F::transpose(in[0], 0, 1))};
      }));
  Tensor x = randomTensor({rows, cols}, 3);
  std::vector<float> expected(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      expected[c * rows + r] = std::max(x.data_ptr<float>()[r * cols + c], 0.f);
  for (const Tensor &out : runOnOneAndTwoThreads(*artifact, {x}))
    expectBitsEqual(out, expected);
}

// A compiled forward is re-entrant: two threads running it at once (one
// gets the pool, the other runs its loops serially) both get exact results.
TEST(ParallelLoopsTest, ConcurrentRunsAreIndependent) {
  const int64_t n = int64_t(1) << 18;
  auto artifact = compileAffineRelu(n);
  Tensor x = randomTensor({n}, 4), y = randomTensor({n}, 5);
  std::vector<float> expectedX = affineReluReference(x);
  std::vector<float> expectedY = affineReluReference(y);
  nn_rt_set_num_threads(2);
  for (int round = 0; round < 20; ++round) {
    std::vector<Tensor> results(2);
    auto runOne = [&](int i, const Tensor &input) {
      auto outputs = artifact->run({input});
      if (outputs.ok())
        results[i] = (*outputs)[0];
    };
    std::thread first(runOne, 0, x), second(runOne, 1, y);
    first.join();
    second.join();
    ASSERT_TRUE(results[0].defined() && results[1].defined());
    expectBitsEqual(results[0], expectedX);
    expectBitsEqual(results[1], expectedY);
  }
  nn_rt_set_num_threads(1);
}

} // namespace
