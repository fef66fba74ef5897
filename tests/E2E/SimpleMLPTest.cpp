//===- SimpleMLPTest.cpp - SimpleMLP against PyTorch ----------------------===//
//
// The demo model with PyTorch's weights, compiled in process (JIT) and ahead
// of time (shared object through the runtime alone), gives PyTorch's output
// within torch.testing's float32 tolerance (rtol 1.3e-6, atol 1e-5).
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include "E2ETestUtil.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <filesystem>

using namespace nn;

namespace {

using nn::testing::loadSimpleMLPGolden;

void expectClose(const Tensor &actual, const Tensor &expected) {
  ASSERT_EQ(actual.shape(), expected.shape());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.item_as_double(i), e = expected.item_as_double(i);
    ASSERT_LE(std::abs(a - e), 1e-5 + 1.3e-6 * std::abs(e)) << "element " << i;
  }
}

class SimpleMLPTest : public ::testing::Test {
protected:
  void SetUp() override {
    model->eval();
    weights = loadSimpleMLPGolden("weights.safetensors").tensors;
    model->load_state_dict(weights);
    input = loadSimpleMLPGolden("inputs.safetensors").tensors.at("input.0");
    expected =
        loadSimpleMLPGolden("outputs.safetensors").tensors.at("output.0");
  }
  models::SimpleMLP model;
  StateDict weights;
  Tensor input, expected;
};

TEST_F(SimpleMLPTest, JitMatchesPyTorch) {
  auto artifact = compile(trace(model, {TensorSpec({64, 784})}));
  auto outputs = artifact->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], expected);
}

TEST_F(SimpleMLPTest, WithoutFusionMatchesPyTorch) {
  CompileOptions options;
  options.optimize_options.fuse = false;
  auto artifact = compile(trace(model, {TensorSpec({64, 784})}), options);
  auto outputs = artifact->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], expected);
}

TEST_F(SimpleMLPTest, SharedObjectMatchesPyTorch) {
  std::string dir = ::testing::TempDir() + "/nn_simple_mlp";
  std::filesystem::create_directories(dir);
  compile_to_file(trace(model, {TensorSpec({64, 784})}), dir + "/model.so");
  auto artifact = Artifact::load(dir + "/model.so");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  ASSERT_TRUE((*artifact)->bind(weights).ok());
  auto outputs = (*artifact)->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], expected);
}

TEST_F(SimpleMLPTest, WeightUpdatesAreSeenAfterPrepareWithoutRecompiling) {
  auto artifact = compile(trace(model, {TensorSpec({64, 784})}));
  // Zero every weight in place: the bound storage is shared, and prepare
  // packs the new values, so the output becomes the zero vector.
  StateDict zeros;
  for (const auto &[name, t] : model->state_dict())
    zeros.insert(name, Tensor::zeros(t.shape()));
  model->load_state_dict(zeros);
  ASSERT_TRUE(artifact->prepare().ok());
  auto outputs = artifact->run({input});
  ASSERT_TRUE(outputs.ok());
  for (int64_t i = 0; i < (*outputs)[0].numel(); ++i)
    ASSERT_EQ((*outputs)[0].item_as_double(i), 0.0);
}

TEST_F(SimpleMLPTest, WrongInputShapeIsRefused) {
  auto artifact = compile(trace(model, {TensorSpec({64, 784})}));
  auto outputs = artifact->run({Tensor::zeros({2, 784})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "input 'input.0': expected 64x784 float32, got 2x784 float32");
}

} // namespace
