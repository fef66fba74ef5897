//===- ArtifactPrepareTest.cpp - The prepare entry of artifact ABI v2 -----===//
//
// nn::Artifact runs the table's prepare when weights are bound and refuses
// to run forward before it succeeded. The table here is written by hand: its
// prepare derives `2 * w` from the parameter into the context and forward
// adds that to the input, so a test sees which binding (and which contents
// of it) forward's context was prepared from. Also: tables and shared
// objects of ABI version 1 are refused, naming both versions. And an entry
// is called as the compiled code it is, wherever it lies.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"

#include "ArtifactTestTable.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace nn {
namespace {

struct Context {
  float derived[2];
};

void *createContext() { return calloc(1, sizeof(Context)); }
void destroyContext(void *context) { free(context); }

/// state_args = [w (f32[2])]: derived = 2 * w; a NaN weight fails.
int32_t prepare(void *context, void *const *state) {
  auto *ctx = static_cast<Context *>(context);
  const float *w = static_cast<const float *>(state[0]);
  for (int i = 0; i < 2; ++i) {
    if (std::isnan(w[i]))
      return 7;
    ctx->derived[i] = 2 * w[i];
  }
  return 0;
}

/// args = [w, input.0, output.0]: output = input + derived (w unread).
int32_t forward(void *context, void *const *args) {
  auto *ctx = static_cast<Context *>(context);
  const float *in = static_cast<const float *>(args[1]);
  float *out = static_cast<float *>(args[2]);
  for (int i = 0; i < 2; ++i)
    out[i] = in[i] + ctx->derived[i];
  return 0;
}

std::string description(int version = NN_ARTIFACT_ABI_VERSION) {
  return R"({"abi_version": )" + std::to_string(version) + R"(,
    "state": [{"name": "w", "kind": "parameter", "shape": [2], "dtype": "F32"}],
    "inputs": [{"name": "input.0", "shape": [2], "dtype": "F32"}],
    "outputs": [{"name": "output.0", "shape": [2], "dtype": "F32"}]})";
}

class ArtifactPrepareTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto loaded = Artifact::from_table(&table, nullptr, "<table>");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    artifact = *loaded;
  }
  StateDict weights(float a, float b) {
    StateDict state;
    state.insert("w", Tensor::from_vector<float>({a, b}, {2}));
    return state;
  }
  std::vector<float> runOnOnes() {
    auto outputs = artifact->run({Tensor::from_vector<float>({1, 1}, {2})});
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    if (!outputs.ok())
      return {};
    const float *out = (*outputs)[0].data_ptr<float>();
    return {out[0], out[1]};
  }

  std::string json = description();
  nn_artifact_v2 table{NN_ARTIFACT_ABI_VERSION, json.c_str(), createContext,
                       destroyContext,          forward,      prepare};
  std::shared_ptr<Artifact> artifact;
};

TEST_F(ArtifactPrepareTest, BindRunsPrepareAndForwardReadsWhatItDerived) {
  ASSERT_TRUE(artifact->bind(weights(1, 2)).ok());
  EXPECT_EQ(artifact->prepare_count(), 1u);
  EXPECT_EQ(runOnOnes(), (std::vector<float>{3, 5}));
}

TEST_F(ArtifactPrepareTest, RunBeforeBindIsRefused) {
  auto outputs = artifact->run({Tensor::from_vector<float>({1, 1}, {2})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "<table>: weights are not bound; call bind() before run()");
  absl::Status prepared = artifact->prepare();
  EXPECT_EQ(prepared.message(),
            "<table>: weights are not bound; call bind() before prepare()");
}

TEST_F(ArtifactPrepareTest, RebindPreparesAgain) {
  ASSERT_TRUE(artifact->bind(weights(1, 2)).ok());
  EXPECT_EQ(runOnOnes(), (std::vector<float>{3, 5}));
  ASSERT_TRUE(artifact->bind(weights(10, 20)).ok());
  EXPECT_EQ(artifact->prepare_count(), 2u);
  EXPECT_EQ(runOnOnes(), (std::vector<float>{21, 41}));
}

TEST_F(ArtifactPrepareTest, InPlaceUpdatesAreSeenAfterPrepare) {
  StateDict state = weights(1, 2);
  ASSERT_TRUE(artifact->bind(state).ok());
  state.find("w")->copy_(Tensor::from_vector<float>({4, 5}, {2}));
  // The derived values are a snapshot of the binding's contents...
  EXPECT_EQ(runOnOnes(), (std::vector<float>{3, 5}));
  // ...until prepare runs again on the same tensors.
  ASSERT_TRUE(artifact->prepare().ok());
  EXPECT_EQ(runOnOnes(), (std::vector<float>{9, 11}));
}

TEST_F(ArtifactPrepareTest, AFailedPrepareUnbindsUntilOneSucceeds) {
  StateDict state = weights(NAN, 2);
  absl::Status bound = artifact->bind(state);
  EXPECT_EQ(bound.message(), "<table>: prepare failed with code 7");
  EXPECT_FALSE(artifact->is_bound());
  auto outputs = artifact->run({Tensor::from_vector<float>({1, 1}, {2})});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "<table>: the last prepare failed; run() needs a prepare() that "
            "succeeds");
  state.find("w")->copy_(Tensor::from_vector<float>({1, 2}, {2}));
  ASSERT_TRUE(artifact->prepare().ok());
  EXPECT_EQ(runOnOnes(), (std::vector<float>{3, 5}));
}

TEST(ArtifactVersionTest, Version1TableIsRefused) {
  std::string json = description(1);
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forward);
  table.abi_version = 1;
  auto artifact = Artifact::from_table(&table, nullptr, "<table>");
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().message(),
            "<table>: artifact ABI version 1, this runtime reads version 2");
}

TEST(ArtifactVersionTest, Version1DescriptionIsRefused) {
  std::string json = description(1);
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forward);
  auto artifact = Artifact::from_table(&table, nullptr, "<table>");
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().message(),
            "<table>: invalid artifact description: abi_version is 1, this "
            "runtime reads version 2");
}

TEST(ArtifactVersionTest, ATableWithoutPrepareIsRefused) {
  std::string json = description();
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forward);
  table.prepare = nullptr;
  auto artifact = Artifact::from_table(&table, nullptr, "<table>");
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().message(),
            "<table>: the artifact table has null entries");
}

TEST(ArtifactVersionTest, Version1SharedObjectIsRefusedByName) {
  auto artifact = Artifact::load(NN_TEST_ARTIFACT_V1_PATH);
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().message(),
            std::string("'") + NN_TEST_ARTIFACT_V1_PATH +
                "' was compiled for artifact ABI version 1 (it exports "
                "nn_get_artifact_v1); this runtime reads version 2: compile "
                "it again with this nn");
}

/// A compiled model's entries are code without the prologue an
/// instrumented caller may read before its callee (UBSan's function check
/// reads a type hash 8 bytes before it), and the first of them can start a
/// page that follows an unmapped gap: ld.lld lays out a .so so whenever its
/// read-only data ends on a page. Here forward is `xor eax, eax; ret` at
/// such a page start; calling it must not read the page before.
TEST(ArtifactEntryTest, ForwardAtAPageStartAfterAGapIsCalled) {
#if defined(__x86_64__)
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void *pages =
      mmap(nullptr, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  std::shared_ptr<void> unmap(pages, [&](void *p) { munmap(p, 2 * page); });
  char *code = static_cast<char *>(pages) + page;
  ASSERT_EQ(mprotect(code, page, PROT_READ | PROT_WRITE), 0);
  const unsigned char returnZero[] = {0x31, 0xc0, 0xc3};
  std::memcpy(code, returnZero, sizeof returnZero);
  ASSERT_EQ(mprotect(code, page, PROT_READ | PROT_EXEC), 0);

  std::string json = description();
  nn_artifact_v2 table = testing::tableWith(
      json.c_str(), reinterpret_cast<int32_t (*)(void *, void *const *)>(
                        reinterpret_cast<uintptr_t>(code)));
  auto artifact = Artifact::from_table(&table, nullptr, "<table>");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  StateDict state;
  state.insert("w", Tensor::from_vector<float>({1, 2}, {2}));
  ASSERT_TRUE((*artifact)->bind(state).ok());
  auto outputs = (*artifact)->run({Tensor::from_vector<float>({1, 1}, {2})});
  EXPECT_TRUE(outputs.ok()) << outputs.status();
#else
  GTEST_SKIP() << "the entry here is x86-64 machine code";
#endif
}

} // namespace
} // namespace nn
