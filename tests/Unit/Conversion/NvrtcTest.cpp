//===- NvrtcTest.cpp - CUDA C++ compiled by NVRTC -------------------------===//
//
// NVRTC needs no GPU, so kernels compile wherever the CUDA toolkit is; the
// tests skip, saying why, where it is not. NvrtcMissingTest runs as its own
// ctest with NN_NVRTC naming no file (tests/Unit/Conversion/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CUDA/Nvrtc.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>

using namespace mlir::nn::cuda;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

constexpr const char *kScale = R"cuda(
extern "C" __global__ void __launch_bounds__(256)
scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}
)cuda";

class NvrtcTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::Expected<std::string> version = nvrtcVersion();
    if (!version)
      GTEST_SKIP() << llvm::toString(version.takeError());
  }
};

TEST_F(NvrtcTest, CompilesAKernelToPtxAndCubin) {
  llvm::Expected<NvrtcOutput> out = compileCuda(kScale, "scale.cu");
  ASSERT_TRUE(!!out) << llvm::toString(out.takeError());
  EXPECT_THAT(out->ptx, HasSubstr(".target sm_90"));
  EXPECT_THAT(out->ptx, HasSubstr(".entry scale("));
  EXPECT_THAT(out->ptx, HasSubstr(".maxntid 256"));
  ASSERT_GE(out->cubin.size(), 4u);
  EXPECT_EQ(std::memcmp(out->cubin.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
}

TEST_F(NvrtcTest, CompilesForTheArchAsked) {
  NvrtcOptions options;
  options.arch = "sm_80";
  llvm::Expected<NvrtcOutput> out = compileCuda(kScale, "scale.cu", options);
  ASSERT_TRUE(!!out) << llvm::toString(out.takeError());
  EXPECT_THAT(out->ptx, HasSubstr(".target sm_80"));
}

TEST_F(NvrtcTest, ACompileErrorNamesTheLine) {
  llvm::Expected<NvrtcOutput> out = compileCuda(
      "extern \"C\" __global__ void broken(float *x) {\n  x[0] = y;\n}\n",
      "broken.cu");
  ASSERT_FALSE(!!out);
  std::string message = llvm::toString(out.takeError());
  EXPECT_THAT(message, StartsWith("broken.cu for sm_90: nvrtcCompileProgram "
                                  "failed: NVRTC_ERROR_COMPILATION\n"));
  EXPECT_THAT(message, HasSubstr("broken.cu(2): error: identifier \"y\" is "
                                 "undefined"));
}

TEST_F(NvrtcTest, AnArchNvrtcDoesNotKnowIsRefused) {
  NvrtcOptions options;
  options.arch = "sm_11";
  llvm::Expected<NvrtcOutput> out = compileCuda(kScale, "scale.cu", options);
  ASSERT_FALSE(!!out);
  EXPECT_THAT(llvm::toString(out.takeError()),
              StartsWith("scale.cu for sm_11: nvrtcCompileProgram failed: "
                         "NVRTC_ERROR_INVALID_OPTION"));
}

TEST(NvrtcArchTest, AMalformedArchIsNamed) {
  NvrtcOptions options;
  options.arch = "90";
  llvm::Expected<NvrtcOutput> out = compileCuda(kScale, "scale.cu", options);
  ASSERT_FALSE(!!out);
  EXPECT_EQ(llvm::toString(out.takeError()),
            "scale.cu: '90' is not a CUDA architecture (expected "
            "sm_<compute capability>, such as sm_90)");
}

TEST(NvrtcMissingTest, ANvrtcThatIsNotThereIsNamed) {
  const char *nvrtc = std::getenv("NN_NVRTC");
  if (!nvrtc || std::strcmp(nvrtc, "/nonexistent/libnvrtc.so") != 0)
    GTEST_SKIP() << "runs as Nvrtc.MissingIsNamed, with NN_NVRTC set";
  llvm::Expected<std::string> version = nvrtcVersion();
  ASSERT_FALSE(!!version);
  EXPECT_EQ(llvm::toString(version.takeError()),
            "NVRTC not found (tried NN_NVRTC, /nonexistent/libnvrtc.so); "
            "install the CUDA toolkit or set NN_NVRTC to libnvrtc.so");
  llvm::Expected<NvrtcOutput> out = compileCuda(kScale, "scale.cu");
  ASSERT_FALSE(!!out);
  EXPECT_THAT(llvm::toString(out.takeError()), StartsWith("NVRTC not found"));
}

} // namespace
