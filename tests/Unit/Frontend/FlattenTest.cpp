//===- FlattenTest.cpp - nn::Flatten --------------------------------------===//
//
// Options, printing and tracing as torch.nn.Flatten; the expected strings
// are what PyTorch 1.13 prints for the same options.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <sstream>

using namespace nn;
using ::testing::HasSubstr;

namespace {

using nn::testing::repr;

TEST(FlattenTest, ReprMatchesPyTorch) {
  EXPECT_EQ(repr(*Flatten()), "Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(repr(*Flatten(FlattenOptions().start_dim(0).end_dim(2))),
            "Flatten(start_dim=0, end_dim=2)");
}

TEST(FlattenTest, HasNoState) {
  EXPECT_TRUE(Flatten()->state_dict().keys().empty());
}

TEST(FlattenTest, TracesToOneFlatten) {
  Flatten flatten;
  std::string ir = trace(flatten, {TensorSpec({3, 2, 7})}).to_string();
  EXPECT_THAT(ir, HasSubstr("nn.flatten %arg0 from 1 to -1 : "
                            "(tensor<3x2x7xf32>) -> tensor<3x14xf32>"));
}

TEST(FlattenTest, BadDimsNameTheModuleAndShape) {
  struct NetImpl : Module {
    NetImpl() : Module("Net") {
      flat = register_module("flat", Flatten(FlattenOptions().start_dim(2)));
    }
    Tensor forward(const Tensor &x) { return flat(x); }
    Flatten flat{nullptr};
  };
  auto net = std::make_shared<NetImpl>();
  EXPECT_THAT(
      [&] {
        trace(*net, {TensorSpec({3, 2})}, [&](const std::vector<Tensor> &in) {
          return std::vector<Tensor>{net->forward(in[0])};
        });
      },
      ::testing::ThrowsMessage<Error>(::testing::StrEq(
          "flat: flatten: start_dim 2 is out of range for input 3x2 "
          "(expected -2 to 1)")));
}

TEST(IdentityTest, ReprAndState) {
  EXPECT_EQ(repr(*Identity()), "Identity()");
  EXPECT_TRUE(Identity()->state_dict().keys().empty());
}

} // namespace
