//===- ArtifactRngTest.cpp - The generator state a run passes -------------===//
//
// nn::Artifact supplies the random generator state of a forward that draws
// random numbers ("rng" in the description) and advances it per run. These
// tests drive Artifact with a hand-written table whose forward copies the
// state it receives into its output, so they check the calling convention
// (state after the inputs, before the outputs) and the bookkeeping without
// compiling anything.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"

#include "ArtifactTestTable.h"

#include "gtest/gtest.h"

#include <cstring>
#include <set>
#include <thread>

namespace nn {
namespace {

/// args = [input.0 (f32[1]), rng (i64[2]), output.0 (i64[2])].
int32_t copyRngForward(void *, void *const *args) {
  std::memcpy(args[2], args[1], 2 * sizeof(int64_t));
  return 0;
}

constexpr const char *kTensors =
    R"("state": [],
       "inputs": [{"name": "input.0", "shape": [1], "dtype": "F32"}],
       "outputs": [{"name": "output.0", "shape": [2], "dtype": "I64"}])";

std::string description(const std::string &rng) {
  return std::string(R"({"abi_version": 2, )") + kTensors +
         (rng.empty() ? "" : ", \"rng\": " + rng) + "}";
}

struct TableArtifact {
  explicit TableArtifact(const std::string &rng)
      : json(description(rng)),
        table(testing::tableWith(json.c_str(), copyRngForward)) {}
  absl::StatusOr<std::shared_ptr<Artifact>> load() {
    auto artifact = Artifact::from_table(&table, nullptr, "<table>");
    if (artifact.ok()) {
      EXPECT_TRUE((*artifact)->bind(StateDict()).ok());
    }
    return artifact;
  }
  std::string json;
  nn_artifact_v2 table;
};

constexpr const char *kRng =
    R"({"name": "rng", "shape": [2], "dtype": "I64", "draws": 10})";

/// The state the forward saw, read back from its output.
RngState seen(const std::vector<Tensor> &outputs) {
  const int64_t *words = outputs[0].data_ptr<int64_t>();
  return {static_cast<uint64_t>(words[0]), static_cast<uint64_t>(words[1])};
}

TEST(ArtifactRngTest, EachRunGetsTheNextStateAndAdvancesIt) {
  TableArtifact source(kRng);
  auto artifact = source.load();
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  Artifact &a = **artifact;
  EXPECT_TRUE(a.description().has_rng);
  EXPECT_EQ(a.description().rng_draws, 10u);
  EXPECT_EQ(a.rng_state(), RngState{});
  a.manual_seed(77);
  Tensor x = Tensor::zeros({1});
  EXPECT_EQ(seen(*a.run({x})), (RngState{77, 0}));
  EXPECT_EQ(seen(*a.run({x})), (RngState{77, 10}));
  EXPECT_EQ(a.rng_state(), (RngState{77, 20}));
  // An explicit state is used as given and leaves the generator alone.
  EXPECT_EQ(seen(*a.run({x}, RngState{5, 123})), (RngState{5, 123}));
  EXPECT_EQ(a.rng_state(), (RngState{77, 20}));
  a.set_rng_state({9, 1ull << 40});
  EXPECT_EQ(seen(*a.run({x})), (RngState{9, 1ull << 40}));
}

TEST(ArtifactRngTest, ConcurrentRunsNeverShareAState) {
  TableArtifact source(kRng);
  auto artifact = source.load();
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  constexpr int kThreads = 4, kRuns = 50;
  std::vector<std::vector<uint64_t>> offsets(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i)
        offsets[t].push_back(
            seen(*(*artifact)->run({Tensor::zeros({1})})).offset);
    });
  for (std::thread &t : threads)
    t.join();
  std::set<uint64_t> all;
  for (const auto &list : offsets)
    all.insert(list.begin(), list.end());
  EXPECT_EQ(all.size(), size_t(kThreads * kRuns));
  EXPECT_EQ(*all.rbegin(), uint64_t(kThreads * kRuns - 1) * 10);
}

TEST(ArtifactRngTest, ABadRngEntryIsRefused) {
  for (const char *bad :
       {R"({"name": "rng", "shape": [3], "dtype": "I64", "draws": 1})",
        R"({"name": "rng", "shape": [2], "dtype": "F32", "draws": 1})",
        R"({"name": "rng", "shape": [2], "dtype": "I64"})",
        R"({"name": "rng", "shape": [2], "dtype": "I64", "draws": -1})"}) {
    TableArtifact source(bad);
    auto artifact = source.load();
    ASSERT_FALSE(artifact.ok()) << bad;
    EXPECT_EQ(artifact.status().message(),
              "<table>: invalid artifact description: 'rng' must be a [2] I64 "
              "tensor with draws >= 0")
        << bad;
  }
}

/// The description's "workspace_bytes" (nn-plan-buffers' arena) is read
/// into the description, and refused when it is not a size; the same table
/// serves, as the field is independent of the generator.
absl::StatusOr<std::shared_ptr<Artifact>>
loadWithWorkspace(TableArtifact &source, const std::string &bytes) {
  source.json.insert(source.json.size() - 1, ", \"workspace_bytes\": " + bytes);
  source.table.description_json = source.json.c_str();
  return source.load();
}

TEST(ArtifactWorkspaceTest, TheArenaSizeIsReadFromTheDescription) {
  // The tables outlive the artifacts loaded from them.
  TableArtifact absent(""), present("");
  auto artifact = absent.load();
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_EQ((*artifact)->description().workspace_bytes, 0);
  artifact = loadWithWorkspace(present, "4096");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_EQ((*artifact)->description().workspace_bytes, 4096);
}

TEST(ArtifactWorkspaceTest, ABadArenaSizeIsRefused) {
  for (const char *bad : {"-64", "1.5", "\"64\""}) {
    TableArtifact source("");
    auto artifact = loadWithWorkspace(source, bad);
    ASSERT_FALSE(artifact.ok()) << bad;
    EXPECT_EQ(artifact.status().message(),
              "<table>: invalid artifact description: 'workspace_bytes' must "
              "be an integer >= 0")
        << bad;
  }
}

} // namespace
} // namespace nn
