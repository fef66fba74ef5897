//===- ArtifactDescriptionTest.cpp - What a description may say -----------===//
//
// The typed description and its JSON: every field survives to_json and
// parse_artifact_description; every malformed description is refused by
// name. Then the fields a training step's artifact adds (an input's
// "default", a buffer's "starts_at_zero") as a loaded artifact reads them.
// Hand-written tables, nothing compiled.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"

#include "ArtifactTestTable.h"

#include "gtest/gtest.h"

#include <utility>
#include <vector>

namespace nn {
namespace {

/// A description with every field set away from its default.
ArtifactDescription everyField() {
  ArtifactDescription d;
  StateInfo weight;
  weight.name = "fc.weight";
  weight.shape = {3, 4};
  weight.dtype = DType::bf16;
  weight.requires_grad = false;
  weight.aliases = {"head.weight", "tied.weight"};
  weight.argument = false;
  weight.embedded = true;
  StateInfo buffer;
  buffer.name = "optimizer.state.fc.weight.exp_avg";
  buffer.shape = {3, 4};
  buffer.is_buffer = true;
  buffer.persistent = false;
  buffer.requires_grad = false;
  buffer.starts_at_zero = true;
  d.state = {weight, buffer};
  TensorInfo tokens{"tokens", {2, 7}, DType::i64, {}, std::nullopt};
  tokens.index_checks = {{"embedding", "encoder.embed", 100, std::nullopt},
                         {"nll_loss", "", 10, -100}};
  TensorInfo lr{"optimizer.param_groups.0.lr", {}, DType::f32, {}, 1e-3};
  d.inputs = {tokens, lr};
  d.outputs = {{"loss", {}, DType::f64, {}, std::nullopt},
               {"mask", {2, 7}, DType::boolean, {}, std::nullopt}};
  d.has_rng = true;
  d.rng_draws = 50176;
  d.workspace_bytes = 1 << 20;
  d.target_cpu = "znver4";
  d.target_features = {"avx2", "avx512f", "fma"};
  return d;
}

TEST(ArtifactDescriptionTest, EveryFieldRoundTripsThroughJson) {
  ArtifactDescription d = everyField();
  std::string json = to_json(d);
  absl::StatusOr<ArtifactDescription> back =
      parse_artifact_description(json, "<json>");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << json;
  EXPECT_EQ(*back, d) << json;
  // And the text is stable: written again, the same bytes.
  EXPECT_EQ(to_json(*back), json);
}

TEST(ArtifactDescriptionTest, OptionalFieldsAreWrittenOnlyWhenSet) {
  ArtifactDescription d;
  d.inputs = {{"input.0", {2}, DType::f32, {}, std::nullopt}};
  EXPECT_EQ(to_json(d),
            R"({"abi_version":2,"state":[],"inputs":[{"name":"input.0",)"
            R"("shape":[2],"dtype":"F32"}],"outputs":[]})");
  absl::StatusOr<ArtifactDescription> back =
      parse_artifact_description(to_json(d), "<json>");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, d);
}

TEST(ArtifactDescriptionTest, EveryMalformedDescriptionIsRefusedByName) {
  const std::string head = R"({"abi_version": 2, )";
  const std::string io = R"("inputs": [], "outputs": [])";
  auto withState = [&](const std::string &entry) {
    return head + R"("state": [)" + entry + "], " + io + "}";
  };
  auto withInput = [&](const std::string &entry) {
    return head + R"("state": [], "inputs": [)" + entry +
           R"(], "outputs": []})";
  };
  auto withRoot = [&](const std::string &field) {
    return head + R"("state": [], )" + io + ", " + field + "}";
  };
  const std::string tensor = R"("name": "w", "shape": [2], "dtype": "F32")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1,", "invalid JSON at byte 3: unexpected end of input (expected a "
              "JSON value)"},
      {"[]", "not a JSON object"},
      {"{}", "abi_version is missing"},
      {R"({"abi_version": 3})",
       "abi_version is 3, this runtime reads version 2"},
      {head + R"("state": {}, )" + io + "}", "'state' is not a list"},
      {head + R"("state": [], "outputs": []})", "'inputs' is not a list"},
      {head + R"("state": [], "inputs": []})", "'outputs' is not a list"},
      {withState("1"), "a tensor entry is not an object"},
      {withState(R"({"name": "w", "shape": [2]})"),
       "a tensor entry needs name, shape and dtype"},
      {withState(R"({"name": "w", "shape": [-1], "dtype": "F32"})"),
       "'w' has a bad shape"},
      {withState(R"({"name": "w", "shape": [1.5], "dtype": "F32"})"),
       "'w' has a bad shape"},
      {withState(R"({"name": "w", "shape": [2], "dtype": "F31"})"),
       "'w' has unknown dtype F31"},
      {withState("{" + tensor + "}"), "'w' has no valid kind"},
      {withState("{" + tensor + R"(, "kind": "constant"})"),
       "'w' has no valid kind"},
      {withState("{" + tensor + R"(, "kind": "parameter", "aliases": "v"})"),
       "'w' has bad aliases"},
      {withState("{" + tensor + R"(, "kind": "parameter", "aliases": [1]})"),
       "'w' has bad aliases"},
      {withInput(R"({"name": "i", "shape": [2], "dtype": "F32",
                     "index_checks": []})"),
       "'i' has bad index_checks"},
      {withInput(R"({"name": "i", "shape": [2], "dtype": "I64",
                     "index_checks": {}})"),
       "'i' has bad index_checks"},
      {withInput(R"({"name": "i", "shape": [2], "dtype": "I64",
                     "index_checks": [{"op": "embedding"}]})"),
       "'i' has bad index_checks"},
      {withInput(R"({"name": "i", "shape": [2], "dtype": "I64",
                     "index_checks": [{"op": "embedding", "high": -1}]})"),
       "'i' has bad index_checks"},
      {withInput(R"({"name": "i", "shape": [2], "dtype": "I64",
                     "index_checks": [{"op": "gather", "high": 3,
                                       "where": 7}]})"),
       "'i' has bad index_checks"},
      {withInput(R"({"name": "i", "shape": [2], "dtype": "I64",
                     "index_checks": [{"op": "nll_loss", "high": 3,
                                       "ignore": 0.5}]})"),
       "'i' has bad index_checks"},
      {withRoot(R"("rng": {"name": "rng", "shape": [3], "dtype": "I64",
                           "draws": 1})"),
       "'rng' must be a [2] I64 tensor with draws >= 0"},
      {withRoot(R"("rng": {"name": "rng", "shape": [2], "dtype": "I64"})"),
       "'rng' must be a [2] I64 tensor with draws >= 0"},
      {withRoot(R"("rng": {"name": "rng", "shape": [2], "dtype": "I64",
                           "draws": -1})"),
       "'rng' must be a [2] I64 tensor with draws >= 0"},
      {withRoot(R"("workspace_bytes": -1)"),
       "'workspace_bytes' must be an integer >= 0"},
      {withRoot(R"("workspace_bytes": 1.5)"),
       "'workspace_bytes' must be an integer >= 0"},
      {withRoot(R"("target": {"cpu": "znver4"})"),
       "'target' must hold a cpu name and a list of feature names"},
      {withRoot(R"("target": {"cpu": "znver4", "features": [1]})"),
       "'target' must hold a cpu name and a list of feature names"},
      {withInput("{" + tensor + "}, {" + tensor + "}"),
       "two inputs are named 'w'"},
      {head + R"("state": [], "inputs": [], "outputs": [{)" + tensor + "}, {" +
           tensor + "}]}",
       "two outputs are named 'w'"},
      {withState("{" + tensor + R"(, "kind": "parameter"}, {)" + tensor +
                 R"(, "kind": "buffer"})"),
       "two state tensors are named 'w'"},
      {withState("{" + tensor + R"(, "kind": "parameter"}, {"name": "v",
                  "shape": [2], "dtype": "F32", "kind": "parameter",
                  "aliases": ["w"]})"),
       "two state tensors are named 'w'"},
  };
  for (const auto &[json, why] : cases) {
    absl::StatusOr<ArtifactDescription> d =
        parse_artifact_description(json, "<json>");
    ASSERT_FALSE(d.ok()) << json;
    EXPECT_EQ(d.status().message(),
              "<json>: invalid artifact description: " + why)
        << json;
  }
}

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
