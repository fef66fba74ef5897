//===- ArtifactIndexCheckTest.cpp - Index inputs checked at the boundary --===//
//
// An input the compiled code indexes with carries "index_checks" in the
// description; Artifact::run refuses values outside them before the forward
// runs. A hand-written table (its forward fails if it is ever reached with a
// bad index) checks the runtime side without compiling anything; the
// compiled side is tests/E2E/BoundaryTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"

#include "ArtifactTestTable.h"

#include "gtest/gtest.h"

namespace nn {
namespace {

/// args = [input.0 (i64[3]), output.0 (f32[1])]; returns 1 on an index
/// outside [0, 4) other than -100, which run() must have refused.
int32_t forward(void *, void *const *args) {
  const int64_t *index = static_cast<const int64_t *>(args[0]);
  for (int i = 0; i < 3; ++i)
    if ((index[i] < 0 || index[i] >= 4) && index[i] != -100)
      return 1;
  return 0;
}

std::string description(const std::string &checks) {
  return R"({"abi_version": 2, "state": [],
             "inputs": [{"name": "input.0", "shape": [3], "dtype": "I64",
                         "index_checks": )" +
         checks + R"(}],
             "outputs": [{"name": "output.0", "shape": [1], "dtype": "F32"}]})";
}

absl::StatusOr<std::vector<Tensor>> runWith(const std::string &checks,
                                            std::vector<int64_t> index) {
  std::string json = description(checks);
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forward);
  auto artifact = Artifact::from_table(&table, nullptr, "<table>");
  if (!artifact.ok())
    return artifact.status();
  if (absl::Status bound = (*artifact)->bind(StateDict()); !bound.ok())
    return bound;
  return (*artifact)->run({Tensor::from_vector<int64_t>(index, {3})});
}

constexpr const char *kLoss =
    R"([{"op": "nll_loss", "high": 4, "ignore": -100, "where": "loss"}])";

TEST(ArtifactIndexCheckTest, InRangeAndIgnoredIndicesRun) {
  auto outputs = runWith(kLoss, {0, 3, -100});
  EXPECT_TRUE(outputs.ok()) << outputs.status();
}

TEST(ArtifactIndexCheckTest, AnIndexOutOfRangeIsRefusedBeforeTheForward) {
  auto outputs = runWith(kLoss, {0, 3, 4});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "loss: nll_loss: input 'input.0' holds index 4 at [2], out of "
            "range [0, 4) (ignore_index -100)");
  outputs = runWith(R"([{"op": "embedding", "high": 4}])", {-100, 0, 0});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "embedding: input 'input.0' holds index -100 at [0], out of range "
            "[0, 4)");
}

TEST(ArtifactIndexCheckTest, ABadIndexCheckEntryIsRefused) {
  for (const char *bad :
       {R"({"op": "gather", "high": 4})", R"([{"high": 4}])",
        R"([{"op": "gather"}])", R"([{"op": "gather", "high": -1}])",
        R"([{"op": "gather", "high": 4, "where": 1}])",
        R"([{"op": "gather", "high": 4, "ignore": "x"}])"}) {
    auto outputs = runWith(bad, {0, 0, 0});
    ASSERT_FALSE(outputs.ok()) << bad;
    EXPECT_EQ(outputs.status().message(),
              "<table>: invalid artifact description: 'input.0' has bad "
              "index_checks")
        << bad;
  }
}

} // namespace
} // namespace nn
