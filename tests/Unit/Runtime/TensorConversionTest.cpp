//===- TensorConversionTest.cpp - Tensor::to and the gradient slot --------===//
//
// Tensor::to(dtype) against the bits PyTorch's casts produce (round to
// nearest even, float64 -> float16/bfloat16 through float32, truncation and
// range checks into integers), and the gradient slot that copies of a Tensor
// share (requires_grad, grad).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Error.h"
#include "nn/Runtime/Safetensors.h"
#include "nn/Runtime/Tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace nn {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

/// The raw 16-bit words of a float16/bfloat16 tensor.
std::vector<uint16_t> bits16(const Tensor &t) {
  std::vector<uint16_t> out(t.numel());
  std::memcpy(out.data(), t.raw_data(), out.size() * 2);
  return out;
}

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.item_as_double(i));
  return out;
}

Tensor f32(std::vector<float> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return Tensor::from_vector<float>(values, {n});
}

//===----------------------------------------------------------------------===//
// Tensor::to
//===----------------------------------------------------------------------===//

TEST(RuntimeTensorToTest, FloatingPointDtypesAreTheFourFloats) {
  for (DType dtype : {DType::f32, DType::f64, DType::f16, DType::bf16})
    EXPECT_TRUE(is_floating_point(dtype)) << dtype_name(dtype);
  for (DType dtype :
       {DType::i64, DType::i32, DType::i8, DType::u8, DType::boolean})
    EXPECT_FALSE(is_floating_point(dtype)) << dtype_name(dtype);
}

TEST(RuntimeTensorToTest, SameDtypeReturnsTheTensorItself) {
  Tensor t = f32({1, 2});
  EXPECT_TRUE(t.to(DType::f32).shares_storage(t));
}

TEST(RuntimeTensorToTest, OtherDtypeIsANewTensor) {
  Tensor t = f32({1, 2});
  Tensor d = t.to(DType::f64);
  EXPECT_FALSE(d.shares_storage(t));
  EXPECT_EQ(d.dtype(), DType::f64);
  EXPECT_EQ(d.shape(), t.shape());
}

TEST(RuntimeTensorToTest, Float32ToFloat64IsExact) {
  Tensor t = f32({0.1f, -3.5f, std::numeric_limits<float>::denorm_min()});
  EXPECT_THAT(valuesOf(t.to(DType::f64)),
              ElementsAre(double(0.1f), -3.5, double(std::ldexp(1.0f, -149))));
}

TEST(RuntimeTensorToTest, Float32ToFloat16RoundsToNearestEven) {
  Tensor t =
      f32({1.0f, 1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11),
           65504.0f, 65519.99f, 65520.0f, std::ldexp(1.0f, -14),
           1023.5f * std::ldexp(1.0f, -24), std::ldexp(1.0f, -24),
           std::ldexp(1.0f, -25), 3 * std::ldexp(1.0f, -25), -0.0f});
  EXPECT_THAT(bits16(t.to(DType::f16)),
              ElementsAre(0x3c00, 0x3c00, 0x3c02, 0x7bff, 0x7bff, 0x7c00,
                          0x0400, 0x0400, 0x0001, 0x0000, 0x0002, 0x8000));
}

TEST(RuntimeTensorToTest, Float32ToFloat16KeepsInfinitiesAndQuietsNaN) {
  float inf = std::numeric_limits<float>::infinity();
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor t = f32({inf, -inf, nan, -nan});
  EXPECT_THAT(bits16(t.to(DType::f16)),
              ElementsAre(0x7c00, 0xfc00, 0x7e00, 0xfe00));
}

TEST(RuntimeTensorToTest, Float32ToBFloat16RoundsToNearestEven) {
  Tensor t =
      f32({1.0f, 1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8),
           std::numeric_limits<float>::max(),
           std::numeric_limits<float>::quiet_NaN(), -2.0f});
  EXPECT_THAT(bits16(t.to(DType::bf16)),
              ElementsAre(0x3f80, 0x3f80, 0x3f82, 0x7f80, 0x7fc0, 0xc000));
}

TEST(RuntimeTensorToTest, Float64ToHalfTypesGoesThroughFloat32) {
  // Rounded once, 1 + 2^-11 + 2^-40 is above the tie and would give
  // 1 + 2^-10; PyTorch rounds to float32 first (1 + 2^-11, a tie), then to
  // even: 1.0. The same holds for bfloat16 at 1 + 2^-8 + 2^-40.
  Tensor h = Tensor::from_vector<double>(
      {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)}, {1});
  EXPECT_THAT(bits16(h.to(DType::f16)), ElementsAre(0x3c00));
  Tensor b = Tensor::from_vector<double>(
      {1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)}, {1});
  EXPECT_THAT(bits16(b.to(DType::bf16)), ElementsAre(0x3f80));
}

TEST(RuntimeTensorToTest, HalfTypesWidenExactly) {
  Tensor h = f32({65504.0f, std::ldexp(1.0f, -24), -1.5f}).to(DType::f16);
  EXPECT_THAT(valuesOf(h.to(DType::f32)),
              ElementsAre(65504.0, std::ldexp(1.0, -24), -1.5));
  Tensor b = f32({3.0f, -0.15625f}).to(DType::bf16);
  EXPECT_THAT(valuesOf(b.to(DType::f64)), ElementsAre(3.0, -0.15625));
}

TEST(RuntimeTensorToTest, FloatToIntegerTruncatesTowardZero) {
  Tensor t = f32({-1.7f, 2.9f, 127.9f, -128.5f});
  EXPECT_THAT(valuesOf(t.to(DType::i8)), ElementsAre(-1, 2, 127, -128));
  EXPECT_THAT(valuesOf(t.to(DType::i64)), ElementsAre(-1, 2, 127, -128));
}

TEST(RuntimeTensorToTest, FloatToIntegerRejectsValuesOutOfRange) {
  Tensor t = f32({1.0f, 128.0f});
  EXPECT_THAT([&] { t.to(DType::i8); },
              ThrowsMessage<Error>(StrEq(
                  "to(int8): element 1 of Tensor[float32, 2] is 128, which "
                  "int8 cannot hold")));
}

TEST(RuntimeTensorToTest, FloatToIntegerRejectsNaN) {
  Tensor t = f32({std::numeric_limits<float>::quiet_NaN()});
  EXPECT_THAT([&] { t.to(DType::i32); },
              ThrowsMessage<Error>(StrEq(
                  "to(int32): element 0 of Tensor[float32, 1] is nan, which "
                  "int32 cannot hold")));
}

TEST(RuntimeTensorToTest, IntegerToIntegerWraps) {
  Tensor t = Tensor::from_vector<int64_t>({300, -1, 255}, {3});
  EXPECT_THAT(valuesOf(t.to(DType::u8)), ElementsAre(44, 255, 255));
  EXPECT_THAT(valuesOf(t.to(DType::i8)), ElementsAre(44, -1, -1));
}

TEST(RuntimeTensorToTest, IntegerToFloatRoundsLikeACast) {
  // 2^53 + 1 has no float64; it rounds to the even neighbour 2^53.
  int64_t big = (int64_t(1) << 53) + 1;
  Tensor t = Tensor::from_vector<int64_t>({-7, big}, {2});
  EXPECT_THAT(valuesOf(t.to(DType::f64)),
              ElementsAre(-7.0, std::ldexp(1.0, 53)));
  EXPECT_THAT(bits16(t.to(DType::f16)), ElementsAre(0xc700, 0x7c00));
}

TEST(RuntimeTensorToTest, ToBoolIsNonZero) {
  Tensor t = f32({0.0f, -0.0f, 0.5f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_THAT(valuesOf(t.to(DType::boolean)), ElementsAre(0, 0, 1, 1));
  Tensor i = Tensor::from_vector<int32_t>({0, -3}, {2});
  EXPECT_THAT(valuesOf(i.to(DType::boolean)), ElementsAre(0, 1));
}

TEST(RuntimeTensorToTest, FloatCastsMatchPyTorchBitForBit) {
  // tests/reference/generate_module_goldens.py wrote float32 and float64
  // samples (edge cases and random values) with torch's casts of them.
  auto file =
      load_safetensors(NN_SOURCE_DIR "/tests/reference/goldens/conversions/"
                                     "float_casts.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  const StateDict &t = file->tensors;
  struct Cast {
    const char *source, *golden;
    DType dtype;
  };
  for (Cast cast : {Cast{"f32", "f32_to_f16", DType::f16},
                    Cast{"f32", "f32_to_bf16", DType::bf16},
                    Cast{"f32", "f32_to_f64", DType::f64},
                    Cast{"f64", "f64_to_f32", DType::f32},
                    Cast{"f64", "f64_to_f16", DType::f16},
                    Cast{"f64", "f64_to_bf16", DType::bf16}}) {
    Tensor ours = t.at(cast.source).to(cast.dtype);
    const Tensor &theirs = t.at(cast.golden);
    ASSERT_EQ(ours.dtype(), theirs.dtype()) << cast.golden;
    ASSERT_EQ(ours.numel(), theirs.numel()) << cast.golden;
    size_t width = dtype_size(cast.dtype);
    for (int64_t i = 0; i < ours.numel(); ++i)
      ASSERT_EQ(
          std::memcmp(static_cast<const char *>(ours.raw_data()) + i * width,
                      static_cast<const char *>(theirs.raw_data()) + i * width,
                      width),
          0)
          << cast.golden << "[" << i
          << "]: " << t.at(cast.source).item_as_double(i) << " gives "
          << ours.item_as_double(i) << ", torch " << theirs.item_as_double(i);
  }
}

TEST(RuntimeTensorToTest, UndefinedTensorCannotBeConverted) {
  EXPECT_THAT(
      [] { Tensor().to(DType::f16); },
      ThrowsMessage<Error>(StrEq("to(float16) of an undefined tensor")));
}

//===----------------------------------------------------------------------===//
// The gradient slot
//===----------------------------------------------------------------------===//

TEST(RuntimeGradSlotTest, NewTensorNeedsNoGradAndHasNone) {
  Tensor t = Tensor::zeros({2});
  EXPECT_FALSE(t.requires_grad());
  EXPECT_FALSE(t.grad().defined());
}

TEST(RuntimeGradSlotTest, RequiresGradReturnsTheTensor) {
  Tensor t = Tensor::zeros({2});
  EXPECT_EQ(&t.requires_grad_(), &t);
  EXPECT_TRUE(t.requires_grad());
  t.set_requires_grad(false);
  EXPECT_FALSE(t.requires_grad());
}

TEST(RuntimeGradSlotTest, CopiesShareTheSlot) {
  Tensor t = Tensor::zeros({2});
  Tensor alias = t;
  alias.requires_grad_();
  alias.set_grad(Tensor::from_vector<float>({1, 2}, {2}));
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(t.grad().shares_storage(alias.grad()));
}

TEST(RuntimeGradSlotTest, CloneAndToGetTheirOwnSlot) {
  Tensor t = Tensor::zeros({2});
  t.requires_grad_();
  EXPECT_FALSE(t.clone().requires_grad());
  EXPECT_FALSE(t.to(DType::f64).requires_grad());
}

TEST(RuntimeGradSlotTest, SettingNoneClearsTheGradient) {
  Tensor t = Tensor::zeros({2});
  t.set_grad(Tensor::zeros({2}));
  t.set_grad(Tensor());
  EXPECT_FALSE(t.grad().defined());
}

TEST(RuntimeGradSlotTest, GradientMustMatchShapeAndDtype) {
  Tensor t = Tensor::zeros({2, 3});
  EXPECT_THAT([&] { t.set_grad(Tensor::zeros({3})); },
              ThrowsMessage<Error>(StrEq(
                  "set_grad: the gradient Tensor[float32, 3] must have the "
                  "shape, dtype and device of Tensor[float32, 2x3]")));
  EXPECT_THAT(
      [&] {
        t.set_grad(Tensor::zeros({2, 3}, DType::f64));
      },
      ThrowsMessage<Error>(
          StrEq("set_grad: the gradient Tensor[float64, 2x3] must have the "
                "shape, dtype and device of Tensor[float32, 2x3]")));
}

TEST(RuntimeGradSlotTest, OnlyFloatingPointTensorsRequireGrad) {
  Tensor t = Tensor::zeros({2}, DType::i64);
  EXPECT_THAT([&] { t.requires_grad_(); },
              ThrowsMessage<Error>(StrEq(
                  "set_requires_grad: only tensors of floating point dtype "
                  "can require gradients, got Tensor[int64, 2]")));
  t.requires_grad_(false); // Saying no is always fine.
  EXPECT_FALSE(t.requires_grad());
}

TEST(RuntimeGradSlotTest, UndefinedTensorHasNoSlot) {
  Tensor t;
  EXPECT_FALSE(t.requires_grad());
  EXPECT_FALSE(t.grad().defined());
  EXPECT_THAT(
      [&] { t.requires_grad_(); },
      ThrowsMessage<Error>(StrEq("set_requires_grad on an undefined tensor")));
}

} // namespace
} // namespace nn
