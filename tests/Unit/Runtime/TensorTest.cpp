//===- TensorTest.cpp - Tests for Tensor, Storage and DType ---------------===//
//
// Storage alignment and zero-fill, Tensor construction, sharing and copying,
// dtype checks and their error messages, element conversion for every dtype.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Tensor.h"
#include "nn/Runtime/Error.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace nn {
namespace {

using ::testing::HasSubstr;

constexpr DType kAllDTypes[] = {DType::f32,  DType::f64, DType::f16,
                                DType::bf16, DType::i64, DType::i32,
                                DType::i8,   DType::u8,  DType::boolean};

/// The message of the nn::Error that `fn` throws ("" if it does not throw).
template <typename Fn> std::string errorOf(Fn &&fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an nn::Error";
  return "";
}

/// A tensor of `dtype` whose first elements are the given raw 16-bit words.
Tensor fromBits16(std::initializer_list<uint16_t> bits, DType dtype) {
  Tensor t = Tensor::zeros({static_cast<int64_t>(bits.size())}, dtype);
  std::memcpy(t.raw_data(), std::data(bits), bits.size() * 2);
  return t;
}

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

TEST(RuntimeDTypeTest, SizesMatchPyTorch) {
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::i64), 8u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_EQ(dtype_size(DType::i8), 1u);
  EXPECT_EQ(dtype_size(DType::u8), 1u);
  EXPECT_EQ(dtype_size(DType::boolean), 1u);
}

TEST(RuntimeDTypeTest, NamesArePyTorchNames) {
  EXPECT_EQ(dtype_name(DType::f32), "float32");
  EXPECT_EQ(dtype_name(DType::bf16), "bfloat16");
  EXPECT_EQ(dtype_name(DType::i64), "int64");
  EXPECT_EQ(dtype_name(DType::boolean), "bool");
}

TEST(RuntimeDTypeTest, SafetensorsNamesRoundTrip) {
  for (DType dtype : kAllDTypes)
    EXPECT_EQ(dtype_from_safetensors_name(dtype_safetensors_name(dtype)), dtype)
        << dtype_name(dtype);
  EXPECT_EQ(dtype_safetensors_name(DType::boolean), "BOOL");
  EXPECT_EQ(dtype_safetensors_name(DType::bf16), "BF16");
}

TEST(RuntimeDTypeTest, UnknownSafetensorsNameIsNullopt) {
  EXPECT_EQ(dtype_from_safetensors_name("U16"), std::nullopt);
  EXPECT_EQ(dtype_from_safetensors_name("f32"), std::nullopt);
  EXPECT_EQ(dtype_from_safetensors_name(""), std::nullopt);
}

//===----------------------------------------------------------------------===//
// Shapes and Storage
//===----------------------------------------------------------------------===//

TEST(RuntimeShapeTest, ShapeStrJoinsWithX) {
  EXPECT_EQ(shape_str({2, 784}), "2x784");
  EXPECT_EQ(shape_str({0, 3}), "0x3");
  EXPECT_EQ(shape_str({}), "scalar");
}

TEST(RuntimeShapeTest, NumelOfScalarIsOne) {
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({2, 3, 4}), 24);
  EXPECT_EQ(shape_numel({5, 0}), 0);
}

TEST(RuntimeShapeTest, NumelRejectsNegativeDimension) {
  EXPECT_EQ(errorOf([] {
              shape_numel({2, -1});
            }),
            "shape 2x-1 has negative dimension -1 at index 1");
}

TEST(RuntimeShapeTest, NumelRejectsOverflow) {
  EXPECT_EQ(errorOf([] {
              shape_numel({int64_t(1) << 32, int64_t(1) << 32});
            }),
            "shape 4294967296x4294967296 has more elements than int64 can "
            "count");
}

TEST(RuntimeStorageTest, DataIsSixtyFourByteAlignedForEverySize) {
  for (size_t nbytes : {0, 1, 3, 63, 64, 65, 1000, 4096, 100003}) {
    auto storage = Storage::allocate(nbytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(storage->data()) % 64, 0u) << nbytes;
    EXPECT_EQ(storage->nbytes(), nbytes);
  }
}

TEST(RuntimeStorageTest, ZeroByteAllocationHasAValidPointer) {
  auto storage = Storage::allocate(0);
  EXPECT_NE(storage->data(), nullptr);
  EXPECT_EQ(storage->nbytes(), 0u);
}

TEST(RuntimeStorageTest, AllocationIsZeroFilled) {
  auto storage = Storage::allocate(777);
  const auto *bytes = static_cast<const unsigned char *>(storage->data());
  for (size_t i = 0; i < 777; ++i)
    ASSERT_EQ(bytes[i], 0) << i;
}

TEST(RuntimeStorageTest, ImpossibleAllocationThrows) {
  EXPECT_THAT(errorOf([] {
                Storage::allocate(std::numeric_limits<size_t>::max() - 8);
              }),
              HasSubstr("size too large"));
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

TEST(RuntimeTensorTest, DefaultTensorIsUndefined) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_EQ(t.to_string(), "Tensor[undefined]");
  EXPECT_EQ(errorOf([&] { t.raw_data(); }),
            "data access on an undefined tensor");
}

TEST(RuntimeTensorTest, ZerosHasShapeDtypeAndSizes) {
  Tensor t = Tensor::zeros({2, 3}, DType::i64);
  EXPECT_TRUE(t.defined());
  EXPECT_FALSE(t.is_symbolic());
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 48u);
  EXPECT_EQ(t.dtype(), DType::i64);
  EXPECT_EQ(t.to_string(), "Tensor[int64, 2x3]");
}

TEST(RuntimeTensorTest, ZerosIsZeroFilled) {
  Tensor t = Tensor::zeros({4, 5});
  const float *p = t.data_ptr<float>();
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(p[i], 0.0f);
}

TEST(RuntimeTensorTest, ZerosWorksForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    Tensor t = Tensor::zeros({3, 2}, dtype);
    EXPECT_EQ(t.nbytes(), 6 * dtype_size(dtype)) << dtype_name(dtype);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
    for (int64_t i = 0; i < 6; ++i)
      EXPECT_EQ(t.item_as_double(i), 0.0) << dtype_name(dtype);
  }
}

TEST(RuntimeTensorTest, EmptyTensorHasAlignedDataAndNoBytes) {
  Tensor t = Tensor::zeros({0, 3});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
}

TEST(RuntimeTensorTest, ScalarHasOneElement) {
  Tensor t = Tensor::from_vector<float>({2.5f}, {});
  EXPECT_EQ(t.dim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.item_as_double(0), 2.5);
  EXPECT_EQ(t.to_string(), "Tensor[float32, scalar]");
}

TEST(RuntimeTensorTest, ZerosRejectsNegativeDimension) {
  EXPECT_EQ(errorOf([] {
              Tensor::zeros({3, -2});
            }),
            "shape 3x-2 has negative dimension -2 at index 1");
}

TEST(RuntimeTensorTest, FromVectorCopiesFloatValues) {
  Tensor t = Tensor::from_vector<float>({1.5f, -2.0f, 3.25f, 0.0f}, {2, 2});
  EXPECT_EQ(t.dtype(), DType::f32);
  EXPECT_EQ(t.data_ptr<float>()[0], 1.5f);
  EXPECT_EQ(t.data_ptr<float>()[2], 3.25f);
}

TEST(RuntimeTensorTest, FromVectorKeepsInt64Exact) {
  int64_t big = (int64_t(1) << 62) + 1; // Not representable as a double.
  Tensor t = Tensor::from_vector<int64_t>({big, -big}, {2});
  EXPECT_EQ(t.dtype(), DType::i64);
  EXPECT_EQ(t.data_ptr<int64_t>()[0], big);
  EXPECT_EQ(t.data_ptr<int64_t>()[1], -big);
}

TEST(RuntimeTensorTest, FromVectorRejectsWrongValueCount) {
  EXPECT_EQ(errorOf([] {
              Tensor::from_vector<float>({1, 2, 3, 4, 5}, {2, 3});
            }),
            "from_vector: shape 2x3 has 6 elements, but 5 values were given");
}

TEST(RuntimeTensorTest, DataPtrRejectsWrongDtype) {
  Tensor t = Tensor::zeros({2, 3});
  EXPECT_EQ(errorOf([&] { t.data_ptr<int64_t>(); }),
            "data_ptr<int64>() on Tensor[float32, 2x3]: expected dtype int64, "
            "but the tensor is float32");
}

TEST(RuntimeTensorTest, SizeCountsNegativeIndexFromTheEnd) {
  Tensor t = Tensor::zeros({2, 3, 4});
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.size(-3), 2);
}

TEST(RuntimeTensorTest, SizeRejectsOutOfRangeDimension) {
  Tensor t = Tensor::zeros({2, 3});
  EXPECT_EQ(errorOf([&] { t.size(2); }),
            "dimension 2 is out of range for a tensor of rank 2 "
            "(Tensor[float32, 2x3])");
  EXPECT_EQ(errorOf([&] { t.size(-3); }),
            "dimension -3 is out of range for a tensor of rank 2 "
            "(Tensor[float32, 2x3])");
}

TEST(RuntimeTensorTest, CopyingATensorSharesStorage) {
  Tensor a = Tensor::from_vector<float>({1, 2}, {2});
  Tensor b = a;
  b.data_ptr<float>()[0] = 9.0f;
  EXPECT_EQ(a.data_ptr<float>()[0], 9.0f);
  EXPECT_TRUE(a.shares_storage(b));
}

TEST(RuntimeTensorTest, CloneCopiesData) {
  Tensor a = Tensor::from_vector<int64_t>({1, 2, 3}, {3});
  Tensor b = a.clone();
  EXPECT_FALSE(a.shares_storage(b));
  b.data_ptr<int64_t>()[0] = 7;
  EXPECT_EQ(a.data_ptr<int64_t>()[0], 1);
  EXPECT_EQ(b.data_ptr<int64_t>()[1], 2);
  EXPECT_EQ(b.shape(), a.shape());
}

TEST(RuntimeTensorTest, CloneWorksForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    Tensor a = Tensor::zeros({4}, dtype);
    std::memset(a.raw_data(), 1, a.nbytes());
    Tensor b = a.clone();
    EXPECT_EQ(b.dtype(), dtype);
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0);
  }
}

TEST(RuntimeTensorTest, CopyIntoKeepsTiedStorage) {
  Tensor weight = Tensor::zeros({2});
  Tensor tiedAlias = weight;
  weight.copy_(Tensor::from_vector<float>({3, 4}, {2}));
  EXPECT_TRUE(weight.shares_storage(tiedAlias));
  EXPECT_EQ(tiedAlias.data_ptr<float>()[1], 4.0f);
}

TEST(RuntimeTensorTest, CopyIntoRejectsShapeMismatchNamingBoth) {
  Tensor dst = Tensor::zeros({2, 3});
  Tensor src = Tensor::zeros({3, 2});
  EXPECT_EQ(errorOf([&] { dst.copy_(src); }),
            "copy_: destination Tensor[float32, 2x3] and source "
            "Tensor[float32, 3x2] differ in shape");
}

TEST(RuntimeTensorTest, CopyIntoRejectsDtypeMismatchNamingBoth) {
  Tensor dst = Tensor::zeros({2}, DType::f32);
  Tensor src = Tensor::zeros({2}, DType::i64);
  EXPECT_EQ(errorOf([&] { dst.copy_(src); }),
            "copy_: destination Tensor[float32, 2] and source "
            "Tensor[int64, 2] differ in dtype");
}

TEST(RuntimeTensorTest, CopyIntoItselfIsANoOp) {
  Tensor a = Tensor::from_vector<float>({5, 6}, {2});
  a.copy_(a);
  EXPECT_EQ(a.data_ptr<float>()[1], 6.0f);
}

TEST(RuntimeTensorTest, ItemAsDoubleConvertsIntegerAndBoolDtypes) {
  EXPECT_EQ(Tensor::from_vector<int32_t>({-7}, {1}).item_as_double(0), -7.0);
  EXPECT_EQ(Tensor::from_vector<int8_t>({-128}, {1}).item_as_double(0), -128.0);
  EXPECT_EQ(Tensor::from_vector<uint8_t>({255}, {1}).item_as_double(0), 255.0);
  EXPECT_EQ(Tensor::from_vector<bool>({true, false}, {2}).item_as_double(0),
            1.0);
  EXPECT_EQ(Tensor::from_vector<bool>({true, false}, {2}).item_as_double(1),
            0.0);
  EXPECT_EQ(Tensor::from_vector<double>({0.1}, {1}).item_as_double(0), 0.1);
}

TEST(RuntimeTensorTest, ItemAsDoubleConvertsHalf) {
  Tensor t = fromBits16(
      {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x3555},
      DType::f16);
  EXPECT_EQ(t.item_as_double(0), 1.0);
  EXPECT_EQ(t.item_as_double(1), -2.0);
  EXPECT_EQ(t.item_as_double(2), 65504.0);
  EXPECT_EQ(t.item_as_double(3), std::ldexp(1.0, -24)); // Smallest subnormal.
  EXPECT_EQ(t.item_as_double(4), 0.0);
  EXPECT_TRUE(std::signbit(t.item_as_double(4)));
  EXPECT_EQ(t.item_as_double(5), std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.item_as_double(6), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(t.item_as_double(7)));
  EXPECT_EQ(t.item_as_double(8), 0.333251953125); // Nearest half to 1/3.
}

TEST(RuntimeTensorTest, ItemAsDoubleConvertsBFloat16) {
  Tensor t = fromBits16({0x3F80, 0xC040, 0x3E20, 0x7F7F, 0x0001}, DType::bf16);
  EXPECT_EQ(t.item_as_double(0), 1.0);
  EXPECT_EQ(t.item_as_double(1), -3.0);
  EXPECT_EQ(t.item_as_double(2), 0.15625);
  EXPECT_EQ(t.item_as_double(3), 3.3895313892515355e38);
  EXPECT_EQ(t.item_as_double(4), std::ldexp(1.0, -133));
}

TEST(RuntimeTensorTest, ItemAsDoubleRejectsOutOfRangeIndex) {
  Tensor t = Tensor::zeros({2, 2});
  EXPECT_EQ(errorOf([&] { t.item_as_double(4); }),
            "item_as_double: index 4 is out of range for Tensor[float32, 2x2] "
            "with 4 elements");
}

struct FakeNode : TraceNode {};

TEST(RuntimeTensorTest, SymbolicTensorHasShapeButNoData) {
  Tensor t = Tensor::symbolic({2, 3}, DType::f32, std::make_shared<FakeNode>());
  EXPECT_TRUE(t.defined());
  EXPECT_TRUE(t.is_symbolic());
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.storage(), nullptr);
  EXPECT_EQ(errorOf([&] { t.raw_data(); }),
            "data access on a symbolic tensor Tensor[float32, 2x3, symbolic]: "
            "it has no storage while tracing");
}

TEST(RuntimeTensorTest, SymbolicTensorsNeverShareStorage) {
  auto node = std::make_shared<FakeNode>();
  Tensor a = Tensor::symbolic({2}, DType::f32, node);
  Tensor b = Tensor::symbolic({2}, DType::f32, node);
  EXPECT_FALSE(a.shares_storage(b));
}

TEST(RuntimeTensorTest, GradientHooksAreSharedByCopiesAndRemovedByHandle) {
  Tensor w = Tensor::zeros({3});
  EXPECT_EQ(errorOf([&] { w.register_hook([](const Tensor &) {}); }),
            "register_hook: Tensor[float32, 3] does not require grad, so it "
            "gets no gradient to hook");
  w.set_requires_grad(true);
  Tensor copy = w;
  uint64_t before = w.grad_hooks_version();
  RemovableHandle first = copy.register_hook([](const Tensor &g) { return g; });
  RemovableHandle second = w.register_hook(
      [](const Tensor &) -> std::optional<Tensor> { return std::nullopt; });
  EXPECT_EQ(w.grad_hooks().size(), 2u);
  EXPECT_NE(w.grad_hooks_version(), before);
  EXPECT_TRUE(first.active());
  EXPECT_TRUE(w.clone().grad_hooks().empty()); // a fresh gradient slot
  first.remove();
  first.remove(); // once is enough; again does nothing
  EXPECT_FALSE(first.active());
  EXPECT_EQ(w.grad_hooks().size(), 1u);
  {
    ScopedHook scoped = copy.register_hook([](const Tensor &) {});
    EXPECT_EQ(w.grad_hooks().size(), 2u);
  }
  EXPECT_EQ(w.grad_hooks().size(), 1u);
  RemovableHandle outlived = second;
  w = Tensor();
  copy = Tensor();
  outlived.remove(); // the tensor is gone: harmless
  EXPECT_FALSE(outlived.active());
}

TEST(RuntimeTensorTest, AGradientHookOnASymbolicTensorNeedsItsTrace) {
  Tensor t = Tensor::symbolic({2}, DType::f32, std::make_shared<FakeNode>());
  EXPECT_EQ(errorOf([&] { t.register_hook([](const Tensor &) {}); }),
            "register_hook: Tensor[float32, 2, symbolic] belongs to no trace "
            "in progress");
}

} // namespace
} // namespace nn
