//===- CpuTargetTest.cpp - Compiling for a chosen CPU ---------------------===//
//
// CpuTarget names a CPU and features LLVM knows, every feature the runtime
// checks at load is one LLVM's x86 target knows by that name, and the
// frontend's compile and compile_to_file generate code for the CPU
// CompileOptions::target_cpu names, recording it in the description.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Runtime/CpuFeatures.h"
#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <filesystem>

namespace {

using mlir::nn::CpuTarget;
using ::testing::Contains;
using ::testing::Not;

std::string verifyError(const CpuTarget &target) {
  std::string error;
  return mlir::succeeded(mlir::nn::verifyCpuTarget(target, error)) ? "ok"
                                                                   : error;
}

TEST(CpuTargetTest, KnownCpusAndFeaturesVerify) {
  for (const char *cpu : {"host", "x86-64", "x86-64-v2", "x86-64-v3",
                          "x86-64-v4", "haswell", "skylake-avx512", "znver4"})
    EXPECT_EQ(verifyError({cpu, ""}), "ok") << cpu;
  EXPECT_EQ(verifyError({"haswell", "+avx512f, -avx512vl"}), "ok");
}

TEST(CpuTargetTest, EveryFeatureTheRuntimeChecksIsAnLLVMFeature) {
  for (const std::string &feature : nn::checkable_cpu_features())
    EXPECT_EQ(verifyError({"host", "+" + feature}), "ok") << feature;
}

TEST(CpuTargetTest, UnknownNamesAreRefusedByName) {
  EXPECT_EQ(verifyError({"i9", ""}),
            "unknown target CPU 'i9' (host, x86-64-v2, x86-64-v3, x86-64-v4, "
            "or an LLVM CPU name such as haswell, skylake-avx512 or znver4)");
  EXPECT_EQ(verifyError({"host", "+avx2,+sse5"}),
            "unknown target feature 'sse5'");
  EXPECT_EQ(verifyError({"host", "avx2"}),
            "target feature 'avx2' must start with + (add) or - (remove)");
}

class CompileForCpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    nn::manual_seed(0);
    layer = nn::Linear(nn::LinearOptions(40, 24));
    std::vector<float> values(8 * 40);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = float(i % 7) - 3;
    input = nn::Tensor::from_vector(values, {8, 40});
  }
  nn::Linear layer{nullptr};
  nn::Tensor input;
};

TEST_F(CompileForCpuTest, TheJitCompilesForTheTargetAndRecordsIt) {
  nn::TracedModule traced = nn::trace(layer, {nn::TensorSpec({8, 40})});
  nn::CompileOptions options;
  options.target_cpu = "haswell";
  auto haswell = nn::compile(traced, options);
  const nn::ArtifactDescription &described = haswell->description();
  EXPECT_EQ(described.target_cpu, "haswell");
  EXPECT_THAT(described.target_features, Contains("avx2"));
  EXPECT_THAT(described.target_features, Not(Contains("avx512f")));
  auto host = nn::compile(traced);
  EXPECT_NE(host->description().target_cpu, "host"); // the CPU's own name
  // Same numbers, whichever CPU the code is for (one product each: no sum
  // depends on the vector width).
  std::vector<nn::Tensor> a = haswell->run({input}).value();
  std::vector<nn::Tensor> b = host->run({input}).value();
  for (int64_t i = 0; i < a[0].numel(); ++i)
    EXPECT_NEAR(a[0].item_as_double(i), b[0].item_as_double(i), 1e-5);
}

TEST_F(CompileForCpuTest, ASharedObjectRecordsItsTargetAndUnknownCpusThrow) {
  nn::TracedModule traced = nn::trace(layer, {nn::TensorSpec({8, 40})});
  std::string dir = ::testing::TempDir() + "/nn_cpu_target";
  std::filesystem::create_directories(dir);
  nn::CompileOptions options;
  options.target_cpu = "x86-64-v3";
  nn::compile_to_file(traced, dir + "/v3.so", options);
  auto loaded = nn::Artifact::load(dir + "/v3.so");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->description().target_cpu, "x86-64-v3");
  EXPECT_THAT((*loaded)->description().target_features, Contains("fma"));

  options.target_cpu = "i9";
  try {
    nn::compile_to_file(traced, dir + "/i9.so", options);
    FAIL() << "an unknown CPU compiled";
  } catch (const nn::Error &error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("unknown target CPU 'i9'"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/i9.so"));
}

} // namespace
