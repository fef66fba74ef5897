//===- OpsHalfTest.cpp - float16 and bfloat16 against PyTorch goldens -----===//
//
// linear, matmul, addmm, convolutions and pointwise ops on float16 and
// bfloat16 tensors: each case mirrors the one of the same name in
// tests/reference/ops/half.py, whose golden is the float32 computation on the
// widened inputs rounded once to the storage dtype. Then SimpleMLP converted
// with Module::to, its bfloat16 state_dict byte for byte against PyTorch's,
// and the mixed-dtype errors.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"
#include "models/SimpleMLP.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace nn::testing {
namespace {

// nn and the golden both sum in float32 and round the result once, but in a
// different order, so the float32 sums differ in their last bits and a
// rounding can go the other way: one ulp of the storage type, relative
// (2^-7 for bfloat16's 8-bit significand, 2^-10 for float16's 11 bits). The
// atol covers results near zero, where the float32 sums' own error (K = 33
// products of |x| < 4) is what differs.
constexpr Tolerance kOneUlpBF16 = {0x1p-7, 1e-5};
constexpr Tolerance kOneUlpF16 = {0x1p-10, 1e-5};
// addmm is a composite (matmul, then add), so the product is rounded to the
// storage type before the add where PyTorch rounds once. That costs up to
// half an ulp of the product, absolute, which a cancelling add does not
// shrink: |mat1 · mat2| < 8 in the bfloat16 golden and < 4 in the float16
// one, where half an ulp is 2^-6 and 2^-10, on top of the one-ulp relative
// rounding.
constexpr Tolerance kAddmmBF16 = {0x1p-7, 0x1p-6};
constexpr Tolerance kAddmmF16 = {0x1p-10, 0x1p-10};

using F1 = F::Conv1dFuncOptions;
using F2 = F::Conv2dFuncOptions;
using FT = F::ConvTranspose2dFuncOptions;

std::vector<OpCase> halfCases() {
  std::vector<OpCase> cases;
  for (const char *suffix : {"f16", "bf16"}) {
    bool bf16 = std::string(suffix) == "bf16";
    Tolerance oneUlp = bf16 ? kOneUlpBF16 : kOneUlpF16;
    Tolerance addmmTolerance = bf16 ? kAddmmBF16 : kAddmmF16;
    auto add = [&](std::string name, std::function<Outputs(const Inputs &)> fn,
                   Tolerance tolerance) {
      cases.push_back({"half", name + "_" + suffix, std::move(fn), tolerance});
    };
    for (const char *shapes : {"3x4_4x5", "1x7_7x1", "7x17_17x3",
                               "2x3x17_2x17x5", "5x2x3_3x4", "2x1x3x7_5x7x6"})
      add(
          std::string("matmul_") + shapes,
          [](const Inputs &in) { return Outputs{F::matmul(in[0], in[1])}; },
          oneUlp);
    auto linear = [](const Inputs &in) {
      return Outputs{F::linear(in[0], in[1], in[2])};
    };
    add("linear_2x5x7", linear, oneUlp);
    add("linear_17x33", linear, oneUlp);
    add(
        "linear_nobias_7",
        [](const Inputs &in) { return Outputs{F::linear(in[0], in[1])}; },
        oneUlp);
    add(
        "addmm",
        [](const Inputs &in) { return Outputs{F::addmm(in[0], in[1], in[2])}; },
        addmmTolerance);
    add(
        "conv2d_1x3x7x7_pad1",
        [](const Inputs &in) {
          return Outputs{F::conv2d(in[0], in[1], F2().bias(in[2]).padding(1))};
        },
        oneUlp);
    add(
        "conv2d_stride2_groups2",
        [](const Inputs &in) {
          return Outputs{F::conv2d(in[0], in[1], F2().stride(2).groups(2))};
        },
        oneUlp);
    add(
        "conv2d_depthwise",
        [](const Inputs &in) {
          return Outputs{
              F::conv2d(in[0], in[1], F2().bias(in[2]).padding(1).groups(3))};
        },
        oneUlp);
    add(
        "conv1d_2x3x17",
        [](const Inputs &in) {
          return Outputs{F::conv1d(in[0], in[1], F1().bias(in[2]).padding(1))};
        },
        oneUlp);
    add(
        "conv_transpose2d_stride2",
        [](const Inputs &in) {
          return Outputs{F::conv_transpose2d(
              in[0], in[1], FT().bias(in[2]).stride(2).padding(1))};
        },
        oneUlp);
    add(
        "relu_3x17", [](const Inputs &in) { return Outputs{F::relu(in[0])}; },
        oneUlp);
    add(
        "add_broadcast_3x17_17",
        [](const Inputs &in) { return Outputs{F::add(in[0], in[1])}; }, oneUlp);
    add(
        "gelu_17", [](const Inputs &in) { return Outputs{F::gelu(in[0])}; },
        oneUlp);
    add(
        "sum_7x17_all", [](const Inputs &in) { return Outputs{F::sum(in[0])}; },
        oneUlp);
    add(
        "mean_2x7x17_dim1_keepdim",
        [](const Inputs &in) {
          return Outputs{F::mean(in[0], {1}, /*keepdim=*/true)};
        },
        oneUlp);
    add(
        "softmax_3x17",
        [](const Inputs &in) { return Outputs{F::softmax(in[0], -1)}; },
        oneUlp);
    add(
        "log_softmax_7x3_dim0",
        [](const Inputs &in) { return Outputs{F::log_softmax(in[0], 0)}; },
        oneUlp);
    // linear + relu + add: one nn.fused group, each op rounding as unfused.
    add(
        "linear_relu_add_7x17",
        [](const Inputs &in) {
          return Outputs{
              F::add(F::relu(F::linear(in[0], in[1], in[2])), in[3])};
        },
        oneUlp);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Half, OpGoldenTest, ::testing::ValuesIn(halfCases()),
                         caseName);

//===----------------------------------------------------------------------===//
// SimpleMLP in bfloat16 and float16
//===----------------------------------------------------------------------===//

const std::string kMLPGoldens =
    NN_SOURCE_DIR "/tests/reference/goldens/simple_mlp/";

StateDict loadGolden(const std::string &name) {
  auto contents = load_safetensors(kMLPGoldens + name);
  if (!contents.ok())
    throw Error(std::string(contents.status().message()));
  return std::move(contents->tensors);
}

struct MLPCase {
  DType dtype;
  const char *golden;
  // Hidden activations are rounded to the storage type; a different float32
  // summation order flips some of those roundings by one ulp and the next
  // layers carry each flip to the outputs (the generator's float64- vs
  // float32-accumulated models differ by up to 1.2e-4 in float16). So: one
  // ulp relative plus two ulps of the outputs' largest binade [0.25, 0.5).
  Tolerance tolerance;
};

/// gtest prints a case by its dtype.
void PrintTo(const MLPCase &c, std::ostream *os) { *os << dtype_name(c.dtype); }

class HalfMLPTest : public ::testing::TestWithParam<MLPCase> {
protected:
  void SetUp() override {
    model->eval();
    model->load_state_dict(loadGolden("weights.safetensors"));
    model->to(GetParam().dtype);
    input = loadGolden("inputs.safetensors").at("input.0").to(GetParam().dtype);
    expected = loadGolden(GetParam().golden).at("output.0");
  }
  models::SimpleMLP model;
  Tensor input, expected;
};

TEST_P(HalfMLPTest, JitMatchesPyTorch) {
  auto artifact =
      compile(trace(model, {TensorSpec({64, 784}, GetParam().dtype)}));
  auto outputs = artifact->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], expected, GetParam().tolerance, "SimpleMLP");
}

TEST_P(HalfMLPTest, SharedObjectMatchesPyTorch) {
  std::string dir = ::testing::TempDir() + "/nn_half_mlp_" +
                    std::string(dtype_name(GetParam().dtype));
  std::filesystem::create_directories(dir);
  compile_to_file(trace(model, {TensorSpec({64, 784}, GetParam().dtype)}),
                  dir + "/model.so");
  auto artifact = Artifact::load(dir + "/model.so");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  ASSERT_TRUE((*artifact)->bind(model->state_dict()).ok());
  auto outputs = (*artifact)->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], expected, GetParam().tolerance, "SimpleMLP");
}

TEST_P(HalfMLPTest, Float32InputIsRefused) {
  auto artifact =
      compile(trace(model, {TensorSpec({64, 784}, GetParam().dtype)}));
  auto outputs = artifact->run({Tensor::zeros({64, 784})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "input 'input.0': expected 64x784 " +
                std::string(dtype_name(GetParam().dtype)) +
                ", got 64x784 float32");
}

INSTANTIATE_TEST_SUITE_P(
    Half, HalfMLPTest,
    ::testing::Values(
        MLPCase{DType::bf16, "outputs_bf16.safetensors", {0x1p-7, 2 * 0x1p-9}},
        MLPCase{DType::f16, "outputs_f16.safetensors", {0x1p-10, 2 * 0x1p-12}}),
    [](const ::testing::TestParamInfo<MLPCase> &info) {
      return std::string(dtype_name(info.param.dtype));
    });

// Module::to(bf16) rounds every parameter as Tensor.to(torch.bfloat16) does,
// and the state_dict saves to the bytes safetensors.torch writes for
// PyTorch's converted model; those bytes load back unchanged.
TEST(HalfStateDictTest, BF16StateDictIsByteCompatibleWithPyTorch) {
  models::SimpleMLP model;
  model->load_state_dict(loadGolden("weights.safetensors"));
  model->to(DType::bf16);
  std::ifstream file(kMLPGoldens + "weights_bf16.safetensors",
                     std::ios::binary);
  std::stringstream torchBytes;
  torchBytes << file.rdbuf();
  EXPECT_TRUE(serialize_safetensors(model->state_dict()) == torchBytes.str());

  models::SimpleMLP reloaded;
  reloaded->to(DType::bf16);
  reloaded->load_state_dict(loadGolden("weights_bf16.safetensors"));
  EXPECT_TRUE(serialize_safetensors(reloaded->state_dict()) ==
              torchBytes.str());
}

//===----------------------------------------------------------------------===//
// Mixed dtypes
//===----------------------------------------------------------------------===//

TEST(HalfTraceTest, LinearRefusesMixedDTypes) {
  EXPECT_EQ(traceError({TensorSpec({2, 4}, DType::bf16), TensorSpec({3, 4})},
                       [](const Inputs &in) {
                         return Outputs{F::linear(in[0], in[1])};
                       }),
            "<root>: linear: input has element type 'bf16' but weight has "
            "'f32'");
}

TEST(HalfTraceTest, MatmulRefusesMixedDTypes) {
  EXPECT_EQ(
      traceError(
          {TensorSpec({2, 4}, DType::f16), TensorSpec({4, 3}, DType::bf16)},
          [](const Inputs &in) { return Outputs{F::matmul(in[0], in[1])}; }),
      "<root>: matmul: lhs has element type 'f16' but rhs has 'bf16'");
}

TEST(HalfTraceTest, Conv2dRefusesMixedDTypes) {
  EXPECT_EQ(
      traceError(
          {TensorSpec({1, 3, 5, 5}, DType::f16), TensorSpec({4, 3, 3, 3})},
          [](const Inputs &in) { return Outputs{F::conv2d(in[0], in[1])}; }),
      "<root>: conv2d: input has element type 'f16' but weight has "
      "'f32'");
}

TEST(HalfTraceTest, LinearRefusesBiasOfAnotherDType) {
  EXPECT_EQ(traceError({TensorSpec({2, 4}, DType::bf16),
                        TensorSpec({3, 4}, DType::bf16), TensorSpec({3})},
                       [](const Inputs &in) {
                         return Outputs{F::linear(in[0], in[1], in[2])};
                       }),
            "<root>: linear: input has element type 'bf16' but bias has "
            "'f32'");
}

// A layer converted to bf16 called on a float32 input names both dtypes and
// the layer's path.
TEST(HalfTraceTest, ConvertedLayerRefusesFloat32Input) {
  models::SimpleMLP model;
  model->to(DType::bf16);
  try {
    trace(model, {TensorSpec({2, 784})});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "fc1: linear: input has element type 'f32' but "
                           "weight has 'bf16'");
  }
}

} // namespace

std::vector<OpCase> halfOpCases() { return halfCases(); }

} // namespace nn::testing
