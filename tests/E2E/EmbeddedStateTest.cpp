//===- EmbeddedStateTest.cpp - State carried by the compiled artifact -----===//
//
// A non-persistent buffer (in no state_dict) travels in the shared object,
// so the model's own state_dict() binds it; CompileOptions::embed_weights
// carries every tensor, so it runs with nothing bound. A tensor bound by name
// takes precedence over the embedded copy either way.
//
//===----------------------------------------------------------------------===//

#include "E2ETestUtil.h"

#include "gtest/gtest.h"

#include <filesystem>

namespace nn::testing {
namespace {

/// y = fc(x) * scale + mask-selected offset: a parameter pair, a persistent
/// buffer and two non-persistent ones (one bool).
struct MaskedImpl : Module {
  MaskedImpl() : Module("Masked") {
    fc = register_module("fc", Linear(6, 4));
    scale = Tensor::from_vector<float>({1, 2, 3, 4}, {4});
    offset = Tensor::from_vector<float>({0.5f, -0.5f, 1.5f, -1.5f}, {4});
    mask = Tensor::from_vector<bool>({true, false, false, true}, {4});
    register_buffer("offset", &offset);
    register_buffer("scale", &scale, /*persistent=*/false);
    register_buffer("mask", &mask, /*persistent=*/false);
  }
  Tensor forward(const Tensor &x) {
    return F::where(mask, fc(x) * scale, fc(x) + offset);
  }
  Linear fc{nullptr};
  Tensor scale, offset, mask;
};
NN_MODULE(Masked);

class EmbeddedStateTest : public ::testing::Test {
protected:
  void SetUp() override {
    manual_seed(3);
    model = Masked();
    model->eval();
    input = randomTensor({5, 6}, 7);
    expected =
        compile(trace(model, {TensorSpec({5, 6})}))->run({input}).value()[0];
    dir = ::testing::TempDir() + "/nn_embedded_state";
    std::filesystem::create_directories(dir);
  }

  std::shared_ptr<Artifact> compiled(const std::string &name,
                                     CompileOptions options = {}) {
    compile_to_file(trace(model, {TensorSpec({5, 6})}), dir + "/" + name,
                    options);
    auto artifact = Artifact::load(dir + "/" + name);
    EXPECT_TRUE(artifact.ok()) << artifact.status();
    return artifact.ok() ? *artifact : nullptr;
  }

  static void expectEqual(const Tensor &actual, const Tensor &expected) {
    ASSERT_EQ(actual.shape(), expected.shape());
    for (int64_t i = 0; i < actual.numel(); ++i)
      EXPECT_EQ(actual.item_as_double(i), expected.item_as_double(i)) << i;
  }

  Masked model{nullptr};
  Tensor input, expected;
  std::string dir;
};

TEST_F(EmbeddedStateTest, NonPersistentBuffersTravelInTheSharedObject) {
  auto artifact = compiled("masked.so");
  ASSERT_TRUE(artifact);
  // state_dict() holds fc.weight, fc.bias and offset only, as PyTorch's.
  StateDict state = model->state_dict();
  ASSERT_EQ(state.find("scale"), nullptr);
  ASSERT_TRUE(artifact->bind(state).ok());
  expectEqual(artifact->run({input}).value()[0], expected);
}

TEST_F(EmbeddedStateTest, ABufferBoundByNameTakesPrecedence) {
  auto artifact = compiled("masked.so");
  ASSERT_TRUE(artifact);
  StateDict state = model->state_dict();
  state.insert("scale", Tensor::zeros({4}));
  state.insert("mask", Tensor::zeros({4}, DType::boolean));
  ASSERT_TRUE(artifact->bind(state).ok());
  // mask all false: every element takes fc(x) + offset, none the scaled one.
  model->mask.copy_(Tensor::zeros({4}, DType::boolean));
  Tensor allOffset =
      compile(trace(model, {TensorSpec({5, 6})}))->run({input}).value()[0];
  expectEqual(artifact->run({input}).value()[0], allOffset);
}

TEST_F(EmbeddedStateTest, EmbeddedWeightsRunWithNothingBound) {
  CompileOptions options;
  options.embed_weights = true;
  auto artifact = compiled("masked-embedded.so", options);
  ASSERT_TRUE(artifact);
  for (const StateInfo &info : artifact->description().state)
    EXPECT_TRUE(info.embedded) << info.name;
  ASSERT_TRUE(artifact->bind(StateDict()).ok());
  expectEqual(artifact->run({input}).value()[0], expected);
  // Bound weights still win: a zero weight and bias leave offset alone.
  StateDict zeros;
  zeros.insert("fc.weight", Tensor::zeros({4, 6}));
  zeros.insert("fc.bias", Tensor::zeros({4}));
  ASSERT_TRUE(artifact->bind(zeros).ok());
  Tensor out = artifact->run({input}).value()[0];
  for (int64_t row = 0; row < 5; ++row)
    for (int64_t col : {1, 2})
      EXPECT_EQ(out.item_as_double(row * 4 + col),
                model->offset.item_as_double(col));
}

TEST_F(EmbeddedStateTest, WithoutEmbeddingTheWeightsMustBeBound) {
  auto artifact = compiled("masked.so");
  ASSERT_TRUE(artifact);
  absl::Status bound = artifact->bind(StateDict());
  EXPECT_EQ(bound.message(), "cannot bind the weights of " + dir +
                                 "/masked.so; missing: fc.weight, fc.bias, "
                                 "offset");
}

// A strict bind, as PyTorch's load_state_dict(strict=True), also refuses
// what the model does not take, listed with what is missing; a lenient one
// ignores it.
TEST_F(EmbeddedStateTest, AStrictBindRefusesWhatTheModelDoesNotTake) {
  auto artifact = compiled("masked.so");
  ASSERT_TRUE(artifact);
  StateDict state = model->state_dict();
  state.insert("head.weight", Tensor::zeros({2}));
  state.insert("fc.extra", Tensor::zeros({1}));
  EXPECT_EQ(artifact->unexpected_state(state),
            (std::vector<std::string>{"head.weight", "fc.extra"}));
  EXPECT_TRUE(artifact->bind(state).ok());
  EXPECT_EQ(artifact->bind(state, /*strict=*/true).message(),
            "cannot bind the weights of " + dir +
                "/masked.so; unexpected: head.weight, fc.extra");
  StateDict partial;
  partial.insert("fc.weight", *state.find("fc.weight"));
  partial.insert("head.weight", Tensor::zeros({2}));
  EXPECT_EQ(artifact->bind(partial, /*strict=*/true).message(),
            "cannot bind the weights of " + dir +
                "/masked.so; missing: fc.bias, offset; unexpected: "
                "head.weight");
  EXPECT_TRUE(artifact->bind(model->state_dict(), /*strict=*/true).ok());
}

} // namespace
} // namespace nn::testing
