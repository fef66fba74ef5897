//===- SerializeTest.cpp - nn::save and nn::load --------------------------===//
//
// A module's state to a safetensors file and back: keys and bytes, metadata,
// ties, strict and non-strict loading, and errors that name the file and
// leave the module unchanged.
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>
#include <filesystem>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

namespace {

/// b's weight is a's.
struct TiedImpl : Cloneable<TiedImpl> {
  TiedImpl() : Cloneable("Tied") {
    a = register_module("a", Linear(3, 3));
    b = register_module("b", Linear(3, 3));
    b->weight = a->weight;
  }
  Linear a{nullptr}, b{nullptr};
};
NN_MODULE(Tied);

bool sameBytes(const Tensor &x, const Tensor &y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape() &&
         std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

class SerializeTest : public ::testing::Test {
protected:
  void SetUp() override {
    manual_seed(0);
    dir = ::testing::TempDir() + "/nn_serialize_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  std::string dir;
};

TEST_F(SerializeTest, SaveWritesTheStateDictAndMetadata) {
  models::SimpleMLP model;
  ASSERT_TRUE(save(model, dir + "/mlp.safetensors", {{"epoch", "3"}}).ok());
  auto file = load_safetensors(dir + "/mlp.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->metadata, (Metadata{{"epoch", "3"}}));
  ASSERT_EQ(file->tensors.size(), 6u);
  for (const auto &[name, t] : model->state_dict())
    EXPECT_TRUE(sameBytes(file->tensors.at(name), t)) << name;
}

TEST_F(SerializeTest, LoadRestoresTheSavedValues) {
  models::SimpleMLP model;
  ASSERT_TRUE(save(model, dir + "/mlp.safetensors").ok());
  manual_seed(1);
  models::SimpleMLP other;
  auto result = load(other, dir + "/mlp.safetensors");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->missing_keys, IsEmpty());
  for (const auto &[name, t] : model->state_dict())
    EXPECT_TRUE(sameBytes(other->state_dict().at(name), t)) << name;
}

TEST_F(SerializeTest, LoadReturnsTheMetadata) {
  models::SimpleMLP model;
  ASSERT_TRUE(save(model, dir + "/mlp.safetensors", {{"format", "pt"}}).ok());
  Metadata metadata;
  ASSERT_TRUE(load(model, dir + "/mlp.safetensors", true, &metadata).ok());
  EXPECT_EQ(metadata, (Metadata{{"format", "pt"}}));
}

TEST_F(SerializeTest, TiedTensorsAreWrittenUnderEveryNameAndStayTied) {
  Tied model;
  ASSERT_TRUE(save(model, dir + "/tied.safetensors").ok());
  auto file = load_safetensors(dir + "/tied.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(
      sameBytes(file->tensors.at("a.weight"), file->tensors.at("b.weight")));
  manual_seed(1);
  Tied other;
  ASSERT_TRUE(load(other, dir + "/tied.safetensors").ok());
  EXPECT_TRUE(other->b->weight.shares_storage(other->a->weight));
  EXPECT_TRUE(sameBytes(other->a->weight, model->a->weight));
}

TEST_F(SerializeTest, StrictLoadOfAnotherModelFailsNamingTheFile) {
  Linear fc(2, 2);
  ASSERT_TRUE(save(fc, dir + "/fc.safetensors").ok());
  models::SimpleMLP model;
  Tensor before = model->fc1->weight.clone();
  auto result = load(model, dir + "/fc.safetensors");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()),
              StartsWith(dir + "/fc.safetensors: Error(s) in loading "
                               "state_dict for SimpleMLP:\n\tMissing key(s) "
                               "in state_dict: \"fc1.weight\""));
  EXPECT_TRUE(sameBytes(model->fc1->weight, before));
}

TEST_F(SerializeTest, NonStrictLoadReturnsTheKeysThatDidNotFit) {
  Sequential seq(Linear(2, 2));
  ASSERT_TRUE(save(seq, dir + "/seq.safetensors").ok());
  Sequential wider(Linear(2, 2), ReLU(), Linear(2, 2));
  auto result = load(wider, dir + "/seq.safetensors", /*strict=*/false);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->missing_keys, ElementsAre("2.weight", "2.bias"));
}

TEST_F(SerializeTest, MissingFileIsAnErrorNamingIt) {
  Linear fc(2, 2);
  auto result = load(fc, dir + "/absent.safetensors");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(result.status().message()),
              StartsWith(dir + "/absent.safetensors: cannot open"));
}

TEST_F(SerializeTest, SaveIntoAMissingFolderFailsAndWritesNothing) {
  Linear fc(2, 2);
  absl::Status status = save(fc, dir + "/no/such/fc.safetensors");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              StartsWith(dir +
                         "/no/such/fc.safetensors: cannot create a "
                         "temporary file in " +
                         dir + "/no/such"));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

} // namespace
