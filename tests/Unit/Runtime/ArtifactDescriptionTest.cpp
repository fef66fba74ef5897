//===- ArtifactDescriptionTest.cpp - What a description may say -----------===//
//
// The description fields a training step's artifact adds (an input's
// "default", a buffer's "starts_at_zero") as the runtime reads them, and
// the malformed values it refuses by name: a default on a tensor that is
// not rank 0 or that is not a number, and a tensor of more bytes than an
// int64 counts. Hand-written tables, nothing compiled.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"

#include "ArtifactTestTable.h"

#include "gtest/gtest.h"

namespace nn {
namespace {

int32_t forwardNothing(void *, void *const *) { return 0; }

/// A description with one buffer and one input entry, `input` spliced in.
std::string description(const std::string &input) {
  return R"({"abi_version": 2,
             "state": [{"name": "optimizer.state.w.exp_avg", "shape": [3],
                        "dtype": "F32", "kind": "buffer",
                        "starts_at_zero": true}],
             "inputs": [)" +
         input + R"(],
             "outputs": [{"name": "output.0", "shape": [1], "dtype": "F32"}]})";
}

/// The artifact of a table around `json`; both stay alive with the test.
struct Loaded {
  explicit Loaded(std::string text)
      : json(std::move(text)),
        table(testing::tableWith(json.c_str(), forwardNothing)),
        artifact(Artifact::from_table(&table, nullptr, "<table>")) {}
  std::string json;
  nn_artifact_v2 table;
  absl::StatusOr<std::shared_ptr<Artifact>> artifact;
};

TEST(ArtifactDescriptionTest, DefaultsAndZeroStartsAreRead) {
  Loaded loaded(description(
      R"({"name": "optimizer.param_groups.0.lr", "shape": [], "dtype": "F32",
          "default": 0.001})"));
  auto &artifact = loaded.artifact;
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  const ArtifactDescription &d = (*artifact)->description();
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].default_value, 0.001);
  ASSERT_EQ(d.state.size(), 1u);
  EXPECT_TRUE(d.state[0].starts_at_zero);
  // Not given, the optimizer's state is bound as zeros.
  ASSERT_TRUE((*artifact)->bind(StateDict()).ok());
}

TEST(ArtifactDescriptionTest, ABadDefaultIsRefusedByName) {
  for (const char *input :
       {R"({"name": "lr", "shape": [], "dtype": "F32", "default": "0.1"})",
        R"({"name": "lr", "shape": [2], "dtype": "F32", "default": 0.1})"}) {
    Loaded loaded(description(input));
    auto &artifact = loaded.artifact;
    ASSERT_FALSE(artifact.ok()) << input;
    EXPECT_EQ(artifact.status().message(),
              "<table>: invalid artifact description: 'lr' has a bad default")
        << input;
  }
}

TEST(ArtifactDescriptionTest, ATensorPastInt64BytesIsRefused) {
  Loaded loaded(description(
      R"({"name": "x", "shape": [4611686018427387904, 4], "dtype": "F32"})"));
  auto &artifact = loaded.artifact;
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().message(),
            "<table>: invalid artifact description: 'x' of shape "
            "4611686018427387904x4 has more bytes than an int64 counts");
}

} // namespace
} // namespace nn
