//===- BoundaryTest.cpp - What crosses a compiled model's boundary --------===//
//
// Outputs are caller-owned buffers, also when forward returns an input as it
// is or the same tensor twice.
//
//===----------------------------------------------------------------------===//

#include "nn/nn.h"

#include "gtest/gtest.h"

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

} // namespace
