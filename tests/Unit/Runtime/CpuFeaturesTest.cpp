//===- CpuFeaturesTest.cpp - This CPU's ISA features, and refusing code
//----===//
//
// cpu_supports agrees with the compiler's own CPU detection
// (__builtin_cpu_supports) on every feature both know, and an artifact whose
// description needs a feature this CPU lacks is refused by name before its
// context is created.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/CpuFeatures.h"
#include "nn/Runtime/Artifact.h"

#include "ArtifactTestTable.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>

namespace nn {
namespace {

using ::testing::ElementsAre;

bool checkable(const std::string &feature) {
  const auto &all = checkable_cpu_features();
  return std::find(all.begin(), all.end(), feature) != all.end();
}

// __builtin_cpu_supports needs its name as a literal.
#define EXPECT_AGREES(name)                                                    \
  do {                                                                         \
    EXPECT_TRUE(checkable(name));                                              \
    EXPECT_EQ(cpu_supports(name), bool(__builtin_cpu_supports(name))) << name; \
  } while (0)

TEST(CpuFeaturesTest, AgreesWithTheCompilersDetection) {
  __builtin_cpu_init();
  EXPECT_AGREES("sse2");
  EXPECT_AGREES("sse3");
  EXPECT_AGREES("ssse3");
  EXPECT_AGREES("sse4.1");
  EXPECT_AGREES("sse4.2");
  EXPECT_AGREES("popcnt");
  EXPECT_AGREES("avx");
  EXPECT_AGREES("avx2");
  EXPECT_AGREES("fma");
  EXPECT_AGREES("bmi");
  EXPECT_AGREES("bmi2");
  EXPECT_AGREES("avx512f");
  EXPECT_AGREES("avx512bw");
  EXPECT_AGREES("avx512dq");
  EXPECT_AGREES("avx512vl");
  EXPECT_AGREES("avx512cd");
  EXPECT_AGREES("avx512vnni");
  EXPECT_AGREES("avx512bf16");
  EXPECT_AGREES("avx512vbmi");
}

TEST(CpuFeaturesTest, EveryX86_64CpuHasTheBaseline) {
  for (const char *feature : {"cmov", "cx8", "fxsr", "mmx", "sse", "sse2"})
    EXPECT_TRUE(cpu_supports(feature)) << feature;
}

TEST(CpuFeaturesTest, UnknownNamesAreMissing) {
  EXPECT_FALSE(cpu_supports("avx513"));
  EXPECT_FALSE(cpu_supports(""));
  EXPECT_THAT(missing_cpu_features({"sse2", "avx513", "cmov", "x"}),
              ElementsAre("avx513", "x"));
}

int32_t forwardNothing(void *, void *const *) { return 0; }

std::string describedFor(const std::string &features) {
  return R"({"abi_version": 2, "state": [], "inputs": [], "outputs": [],
    "target": {"cpu": "future-cpu", "features": [)" +
         features + "]}}";
}

TEST(CpuFeaturesTest, AnArtifactNeedingMissingFeaturesIsRefusedByName) {
  std::string json = describedFor(R"("sse2", "avx513", "avx2049")");
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forwardNothing);
  auto artifact = Artifact::from_table(&table, nullptr, "model.so");
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(artifact.status().message(),
            "model.so: compiled for CPU 'future-cpu', it needs CPU features "
            "this machine lacks: avx513, avx2049; compile it for this machine "
            "(--target-cpu=host) or for a CPU every machine it runs on has "
            "(e.g. --target-cpu=x86-64-v3)");
}

TEST(CpuFeaturesTest, AnArtifactWithinThisCpuLoadsAndSaysItsTarget) {
  std::string json = describedFor(R"("sse2", "cmov")");
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forwardNothing);
  auto artifact = Artifact::from_table(&table, nullptr, "model.so");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_EQ((*artifact)->description().target_cpu, "future-cpu");
  EXPECT_THAT((*artifact)->description().target_features,
              ElementsAre("sse2", "cmov"));
}

TEST(CpuFeaturesTest, AMalformedTargetIsRefused) {
  std::string json = R"({"abi_version": 2, "state": [], "inputs": [],
    "outputs": [], "target": {"cpu": "x", "features": [3]}})";
  nn_artifact_v2 table = testing::tableWith(json.c_str(), forwardNothing);
  auto artifact = Artifact::from_table(&table, nullptr, "model.so");
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().message(),
            "model.so: invalid artifact description: 'target' must hold a cpu "
            "name and a list of feature names");
}

} // namespace
} // namespace nn
