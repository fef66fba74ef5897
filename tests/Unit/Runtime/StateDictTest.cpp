//===- StateDictTest.cpp - Tests for StateDict ----------------------------===//
//
// Insertion order, duplicate keys, replacement in place, lookups and their
// errors, and tied tensors listed under every name.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/StateDict.h"
#include "nn/Runtime/Error.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nn {
namespace {

using ::testing::ElementsAre;

TEST(RuntimeStateDictTest, KeepsInsertionOrder) {
  StateDict sd;
  sd.insert("fc2.weight", Tensor::zeros({1}));
  sd.insert("fc1.weight", Tensor::zeros({1}));
  sd.insert("bn.running_mean", Tensor::zeros({1}));
  EXPECT_THAT(sd.keys(),
              ElementsAre("fc2.weight", "fc1.weight", "bn.running_mean"));
  EXPECT_EQ(sd.size(), 3u);
  EXPECT_FALSE(sd.empty());
}

TEST(RuntimeStateDictTest, InsertRejectsDuplicateKey) {
  StateDict sd;
  sd.insert("w", Tensor::zeros({1}));
  try {
    sd.insert("w", Tensor::zeros({2}));
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "StateDict: duplicate key 'w'");
  }
  EXPECT_EQ(sd.at("w").numel(), 1);
}

TEST(RuntimeStateDictTest, InsertOrAssignReplacesInPlace) {
  StateDict sd;
  sd.insert("a", Tensor::zeros({1}));
  sd.insert("b", Tensor::zeros({1}));
  sd.insert_or_assign("a", Tensor::zeros({5}));
  sd.insert_or_assign("c", Tensor::zeros({1}));
  EXPECT_THAT(sd.keys(), ElementsAre("a", "b", "c"));
  EXPECT_EQ(sd.at("a").numel(), 5);
}

TEST(RuntimeStateDictTest, FindReturnsNullWhenAbsent) {
  StateDict sd;
  sd.insert("a", Tensor::zeros({1}));
  EXPECT_NE(sd.find("a"), nullptr);
  EXPECT_EQ(sd.find("b"), nullptr);
  EXPECT_TRUE(sd.contains("a"));
  EXPECT_FALSE(sd.contains("b"));
}

TEST(RuntimeStateDictTest, AtThrowsNamingTheKey) {
  StateDict sd;
  try {
    sd.at("layers.3.bias");
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "StateDict: no tensor named 'layers.3.bias'");
  }
}

TEST(RuntimeStateDictTest, TiedTensorsAppearUnderEveryName) {
  Tensor shared = Tensor::zeros({4});
  StateDict sd;
  sd.insert("embed.weight", shared);
  sd.insert("head.weight", shared);
  EXPECT_EQ(sd.size(), 2u);
  EXPECT_TRUE(sd.at("embed.weight").shares_storage(sd.at("head.weight")));
}

TEST(RuntimeStateDictTest, IteratesItemsInOrder) {
  StateDict sd;
  sd.insert("x", Tensor::zeros({1}));
  sd.insert("y", Tensor::zeros({2}));
  std::vector<std::string> names;
  for (const auto &[name, tensor] : sd)
    names.push_back(name + ":" + std::to_string(tensor.numel()));
  EXPECT_THAT(names, ElementsAre("x:1", "y:2"));
}

} // namespace
} // namespace nn
