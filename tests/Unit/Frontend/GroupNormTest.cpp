//===- GroupNormTest.cpp - GroupNorm parameters and repr ------------------===//
//
// Expected strings are PyTorch 1.13's (print(torch.nn.GroupNorm(...)) and
// its state_dict's names and shapes).
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "gtest/gtest.h"

namespace nn::testing {
namespace {

TEST(GroupNormTest, DefaultsMatchPyTorch) {
  GroupNorm gn(2, 6);
  EXPECT_EQ(repr(gn), "GroupNorm(2, 6, eps=1e-05, affine=True)");
  EXPECT_EQ(stateSummary(*gn), "weight:6:float32;bias:6:float32;");
  EXPECT_EQ(gn->weight.data_ptr<float>()[5], 1.0f);
  EXPECT_EQ(gn->bias.data_ptr<float>()[5], 0.0f);
}

TEST(GroupNormTest, NoAffine) {
  GroupNorm gn(GroupNormOptions(4, 8).eps(1e-6).affine(false));
  EXPECT_EQ(repr(gn), "GroupNorm(4, 8, eps=1e-06, affine=False)");
  EXPECT_EQ(stateSummary(*gn), "");
}

TEST(GroupNormTest, ChannelsMustSplitIntoGroups) {
  try {
    GroupNorm gn(4, 6);
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "GroupNorm: num_channels must be divisible by num_groups (got 6 "
              "channels, 4 groups)");
  }
}

} // namespace
} // namespace nn::testing
