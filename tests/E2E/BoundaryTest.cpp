//===- BoundaryTest.cpp - What crosses a compiled model's boundary --------===//
//
// Outputs are caller-owned buffers, also when forward returns an input as it
// is or the same tensor twice. Index inputs are checked against the ops that
// read them before the compiled code runs.
//
//===----------------------------------------------------------------------===//

#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <functional>

using namespace nn;

namespace {

TEST(BoundaryTest, IdentityModelReturnsACopyOfItsInput) {
  Identity model;
  auto artifact = compile(trace(model, {TensorSpec({2, 3})}));
  Tensor x = Tensor::from_vector<float>({1, -2, 3, -4, 5, -6}, {2, 3});
  auto outputs = artifact->run({x});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_FALSE((*outputs)[0].shares_storage(x));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ((*outputs)[0].data_ptr<float>()[i], x.data_ptr<float>()[i]);
}

TEST(BoundaryTest, SameTensorReturnedTwiceFillsBothOutputs) {
  Module root("Twice");
  auto artifact = compile(trace(root, {TensorSpec({3})}, [](const auto &in) {
    Tensor y = F::relu(in[0]);
    return std::vector<Tensor>{y, y};
  }));
  auto outputs = artifact->run({Tensor::from_vector<float>({-1, 2, -3}, {3})});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  for (const Tensor &out : *outputs) {
    EXPECT_EQ(out.data_ptr<float>()[0], 0.0f);
    EXPECT_EQ(out.data_ptr<float>()[1], 2.0f);
    EXPECT_EQ(out.data_ptr<float>()[2], 0.0f);
  }
}

TEST(BoundaryTest, OutOfRangeEmbeddingIndexIsRefusedWithTheModulePath) {
  Sequential model(Embedding(10, 4));
  auto artifact = compile(trace(model, {TensorSpec({2, 3}, DType::i64)}));
  auto ok =
      artifact->run({Tensor::from_vector<int64_t>({0, 9, 3, 4, 5, 6}, {2, 3})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  for (int64_t bad : {10, -1}) {
    auto outputs = artifact->run(
        {Tensor::from_vector<int64_t>({0, 1, 2, bad, 4, 5}, {2, 3})});
    ASSERT_FALSE(outputs.ok());
    EXPECT_EQ(outputs.status().message(),
              "0: embedding: input 'input.0' holds index " +
                  std::to_string(bad) + " at [1, 0], out of range [0, 10)");
  }
}

TEST(BoundaryTest, IndexChecksFollowViewsAndNameEveryReader) {
  Module root("Gathers");
  auto artifact = compile(
      trace(root, {TensorSpec({5, 2}), TensorSpec({2, 2}, DType::i64)},
            [](const auto &in) {
              Tensor flat = F::flatten(in[1]);
              return std::vector<Tensor>{F::index_select(in[0], 0, flat)};
            }));
  auto outputs =
      artifact->run({Tensor::zeros({5, 2}),
                     Tensor::from_vector<int64_t>({0, 4, 5, 1}, {2, 2})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(std::string(outputs.status().message()),
              ::testing::EndsWith("index_select: input 'input.1' holds index "
                                  "5 at [1, 0], out of range [0, 5)"));
}

TEST(BoundaryTest, NllLossTargetsOutOfRangeAreRefusedButIgnoreIndexIsNot) {
  Module root("Loss");
  auto artifact = compile(
      trace(root, {TensorSpec({3, 4}), TensorSpec({3}, DType::i64)},
            [](const auto &in) {
              return std::vector<Tensor>{F::cross_entropy(in[0], in[1])};
            }));
  Tensor logits = Tensor::zeros({3, 4});
  auto ignored =
      artifact->run({logits, Tensor::from_vector<int64_t>({0, -100, 3}, {3})});
  ASSERT_TRUE(ignored.ok()) << ignored.status();
  auto outputs =
      artifact->run({logits, Tensor::from_vector<int64_t>({0, 4, 3}, {3})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(std::string(outputs.status().message()),
              ::testing::EndsWith("nll_loss: input 'input.1' holds index 4 at "
                                  "[1], out of range [0, 4) (ignore_index "
                                  "-100)"));
}

TEST(BoundaryTest, AnOutputTooLargeForMemoryIsAnErrorAndBadInputsComeFirst) {
  // 2^22 x 2^22 float32 outputs: 64 TiB, more than any machine here has.
  Identity model;
  auto traced =
      trace(*model, {TensorSpec({1, 1})}, [](const std::vector<Tensor> &in) {
        return std::vector<Tensor>{
            F::expand(in[0], {int64_t(1) << 22, int64_t(1) << 22})};
      });
  auto artifact = compile(traced);
  auto wrong = artifact->run({Tensor::zeros({2, 2})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()),
              ::testing::HasSubstr("input"));
  auto huge = artifact->run({Tensor::zeros({1, 1})});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(huge.status().message()),
              ::testing::HasSubstr("cannot allocate output 'output.0'"));
}

TEST(BoundaryTest, ALinearOverZeroFeaturesIsItsBiasAsInPyTorch) {
  Linear model(0, 3);
  for (int64_t i = 0; i < 3; ++i)
    model->bias.data_ptr<float>()[i] = 0.5f * float(i) - 1.0f;
  auto artifact = compile(trace(model, {TensorSpec({2, 0})}));
  auto outputs = artifact->run({Tensor::zeros({2, 0})});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ((*outputs)[0].shape(), (Shape{2, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ((*outputs)[0].data_ptr<float>()[i], 0.5f * float(i % 3) - 1.0f);
}

// A model moved to float64 compiles and runs in both modes; batch norm and
// softmax once failed in the lowering ("'arith.extf' op operand type
// 'vector<3xf64>' and result type 'vector<3xf32>' are cast incompatible").
TEST(BoundaryTest, AModelMovedToFloat64CompilesInBothModes) {
  Sequential model({{"bn", BatchNorm2d(3)}, {"softmax", Softmax(1)}});
  model->to(DType::f64);
  Tensor x = Tensor::zeros({2, 3, 2, 2}, DType::f64);
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data_ptr<double>()[i] = 0.25 * double(i % 7) - 0.5;
  for (bool training : {false, true}) {
    SCOPED_TRACE(training ? "train" : "eval");
    model->train(training);
    auto artifact =
        compile(trace(model, {TensorSpec({2, 3, 2, 2}, DType::f64)}));
    auto outputs = artifact->run({x});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const Tensor &y = (*outputs)[0];
    ASSERT_EQ(y.dtype(), DType::f64);
    // Softmax over the channels: each pixel's three values sum to one.
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t p = 0; p < 4; ++p) {
        double sum = 0;
        for (int64_t c = 0; c < 3; ++c)
          sum += y.data_ptr<double>()[(n * 3 + c) * 4 + p];
        EXPECT_NEAR(sum, 1.0, 1e-12);
      }
  }
}

// Every layer moved to float64 compiles and runs, in eval and train mode.
TEST(BoundaryTest, EveryLayerMovedToFloat64CompilesInBothModes) {
  struct Case {
    const char *name;
    std::function<Sequential()> make;
    Shape input;
  };
  std::vector<Case> cases = {
      {"conv",
       [] {
         return Sequential({{"m", Conv2d(Conv2dOptions(3, 4, 3).padding(1))}});
       },
       {2, 3, 5, 5}},
      {"conv_transpose",
       [] {
         return Sequential(
             {{"m",
               ConvTranspose2d(ConvTranspose2dOptions(3, 2, 2).stride(2))}});
       },
       {2, 3, 3, 3}},
      {"linear_gelu",
       [] {
         return Sequential({{"m", Linear(5, 4)}, {"a", GELU()}});
       },
       {3, 5}},
      {"activations",
       [] {
         return Sequential({{"a", SiLU()},
                            {"b", Sigmoid()},
                            {"c", Tanh()},
                            {"d", LeakyReLU()},
                            {"e", Hardtanh()},
                            {"f", ReLU6()}});
       },
       {3, 5}},
      {"log_softmax",
       [] {
         return Sequential({{"m", LogSoftmax(1)}});
       },
       {3, 5}},
      {"layer_norm",
       [] {
         return Sequential({{"m", LayerNorm(LayerNormOptions({5}))}});
       },
       {3, 5}},
      {"group_norm",
       [] {
         return Sequential({{"m", GroupNorm(GroupNormOptions(2, 4))}});
       },
       {2, 4, 3, 3}},
      {"batch_norm1d",
       [] {
         return Sequential({{"m", BatchNorm1d(5)}});
       },
       {4, 5}},
      {"pools",
       [] {
         return Sequential(
             {{"a", MaxPool2d(MaxPool2dOptions(2))},
              {"b", AvgPool2d(AvgPool2dOptions(2))},
              {"c", AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions(1))}});
       },
       {2, 3, 8, 8}},
      {"upsample",
       [] {
         return Sequential(
             {{"m", Upsample(UpsampleOptions()
                                 .scale_factor(std::vector<double>{2.0, 2.0})
                                 .mode(InterpolateMode::bilinear))}});
       },
       {1, 2, 3, 3}},
      {"dropout",
       [] {
         return Sequential({{"m", Dropout(0.5)}});
       },
       {4, 5}},
      {"flatten",
       [] {
         return Sequential({{"m", Flatten()}});
       },
       {2, 3, 4}},
  };
  for (const Case &c : cases)
    for (bool training : {false, true}) {
      SCOPED_TRACE(std::string(c.name) + (training ? " train" : " eval"));
      Sequential model = c.make();
      model->to(DType::f64);
      model->train(training);
      std::shared_ptr<Artifact> artifact;
      try {
        artifact = compile(trace(model, {TensorSpec(c.input, DType::f64)}));
      } catch (const Error &e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      auto outputs = artifact->run({Tensor::zeros(c.input, DType::f64)});
      ASSERT_TRUE(outputs.ok()) << outputs.status();
      EXPECT_EQ((*outputs)[0].dtype(), DType::f64);
    }
}

TEST(BoundaryTest, ATruncatedSharedObjectIsRefusedNotMapped) {
  std::string dir = ::testing::TempDir() + "/nn_truncated";
  std::filesystem::create_directories(dir);
  Linear model(4, 3);
  compile_to_file(trace(model, {TensorSpec({2, 4})}), dir + "/whole.so");
  std::ifstream in(dir + "/whole.so", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4096u);
  ASSERT_TRUE(Artifact::load(dir + "/whole.so").ok());
  for (double fraction : {0.25, 0.5, 0.75, 0.95, 0.999}) {
    size_t keep = static_cast<size_t>(bytes.size() * fraction);
    std::string path = dir + "/part" + std::to_string(keep) + ".so";
    std::ofstream(path, std::ios::binary).write(bytes.data(), keep);
    auto loaded = Artifact::load(path);
    ASSERT_FALSE(loaded.ok())
        << keep << " of " << bytes.size() << " bytes loaded";
    EXPECT_THAT(std::string(loaded.status().message()),
                ::testing::HasSubstr("truncated or corrupt"));
  }
}

TEST(BoundaryTest, RunIntoWritesTheCallersOutputsInPlace) {
  Module root("Affine");
  auto artifact = compile(trace(root, {TensorSpec({4})}, [](const auto &in) {
    return std::vector<Tensor>{F::relu(in[0] * 2.0)};
  }));
  std::vector<Tensor> outputs{Tensor::zeros({4})};
  const void *buffer = outputs[0].raw_data();
  for (float scale : {1.0f, -1.0f}) {
    Tensor x = Tensor::from_vector<float>(
        {1 * scale, -2 * scale, 3 * scale, -4 * scale}, {4});
    ASSERT_TRUE(artifact->run_into({x}, outputs).ok());
    EXPECT_EQ(outputs[0].raw_data(), buffer);
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(outputs[0].data_ptr<float>()[i],
                std::max(0.0f, 2 * x.data_ptr<float>()[i]));
  }
}

TEST(BoundaryTest, RunIntoRefusesWrongOrAliasedOutputs) {
  Module root("Affine");
  auto artifact = compile(trace(root, {TensorSpec({4})}, [](const auto &in) {
    return std::vector<Tensor>{F::relu(in[0] * 2.0)};
  }));
  Tensor x = Tensor::zeros({4});
  std::vector<Tensor> wrong{Tensor::zeros({5})};
  EXPECT_EQ(artifact->run_into({x}, wrong).message(),
            "output 'output.0': expected 4 float32, got 5 float32");
  std::vector<Tensor> none;
  EXPECT_THAT(std::string(artifact->run_into({x}, none).message()),
              ::testing::EndsWith(" writes 1 outputs, got 0"));
  std::vector<Tensor> aliased{x};
  EXPECT_EQ(artifact->run_into({x}, aliased).message(),
            "output 'output.0' shares storage with an input, the bound state "
            "or another output");
}

} // namespace
