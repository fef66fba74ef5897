//===- NontemporalStoresTest.cpp - Streaming stores keep every bit --------===//
//
// nn-use-nontemporal-stores writes the vectors of outputs larger than the
// last-level cache (32 MiB) with non-temporal stores when their address is
// 32-byte aligned, and with plain stores otherwise. The forward is called
// through the artifact's C table with output pointers at every alignment
// the check distinguishes (64-byte aligned, 16-byte, 4-byte), on one and two
// threads; every element must equal the scalar reference bit for bit, and
// the floats just outside the output must be untouched.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/Passes.h"
#include "nn/Runtime/ArtifactABI.h"
#include "nn/Runtime/Kernels.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

/// 36 MiB of floats: above the pass's default threshold, and a multiple of
/// the vector tile and the parallel tiles.
constexpr int64_t kElements = int64_t(9) << 20;
constexpr float kScale = 1.5f, kShift = -0.25f;

std::string affineReluModule() {
  std::string type = "tensor<" + std::to_string(kElements) + "xf32>";
  return "#id = affine_map<(d0) -> (d0)>\n"
         "func.func @forward(%x: " +
         type + ") -> " + type +
         " {\n"
         "  %a = arith.constant 1.5 : f32\n"
         "  %b = arith.constant -0.25 : f32\n"
         "  %z = arith.constant 0.0 : f32\n"
         "  %e = tensor.empty() : " +
         type +
         "\n"
         "  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
         "[\"parallel\"]} ins(%x : " +
         type + ") outs(%e : " + type +
         ") {\n"
         "  ^bb0(%in: f32, %out: f32):\n"
         "    %m = arith.mulf %in, %a : f32\n"
         "    %s = arith.addf %m, %b : f32\n"
         "    %y = arith.maximumf %s, %z : f32\n"
         "    linalg.yield %y : f32\n"
         "  } -> " +
         type +
         "\n"
         "  return %r : " +
         type + "\n}\n";
}

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};

class NontemporalStoresTest : public ::testing::TestWithParam<int64_t> {
protected:
  static void SetUpTestSuite() {
    mlir::DialectRegistry registry;
    mlir::nn::registerCodegenDialects(registry);
    context_ = new mlir::MLIRContext(registry);
    context_->loadAllAvailableDialects();
    auto module =
        mlir::parseSourceString<mlir::ModuleOp>(affineReluModule(), context_);
    ASSERT_TRUE(module);
    // The module is compiled as written, without nn-optimize.
    mlir::nn::PipelineOptions unoptimized;
    unoptimized.optimize = nullptr;
    auto jit = mlir::nn::compileInProcess(*module, unoptimized);
    ASSERT_TRUE(mlir::succeeded(jit));
    jit_ = new mlir::nn::JitArtifact(*jit);
  }
  static void TearDownTestSuite() {
    delete jit_;
    jit_ = nullptr;
    delete context_;
    context_ = nullptr;
  }

  static mlir::MLIRContext *context_;
  static mlir::nn::JitArtifact *jit_;
};

mlir::MLIRContext *NontemporalStoresTest::context_ = nullptr;
mlir::nn::JitArtifact *NontemporalStoresTest::jit_ = nullptr;

TEST_P(NontemporalStoresTest, EveryOutputAlignmentGivesTheScalarLoopsBits) {
  ASSERT_TRUE(jit_);
  const nn_artifact_v2 *table = jit_->table;
  int64_t shift = GetParam(); // floats past a 64-byte boundary
  std::unique_ptr<float, FreeDeleter> input(
      static_cast<float *>(std::aligned_alloc(64, kElements * sizeof(float))));
  std::unique_ptr<float, FreeDeleter> output(static_cast<float *>(
      std::aligned_alloc(64, (kElements + 32) * sizeof(float))));
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (int64_t i = 0; i < kElements; ++i)
    input.get()[i] = dist(rng);
  void *context = table->create_context();
  ASSERT_EQ(table->prepare(context, nullptr), 0);
  const float guard = 1234.5f;
  for (int threads : {1, 2}) {
    float *out = output.get() + 16 + shift; // 16 guard floats before
    for (int64_t i = 0; i < kElements + 32; ++i)
      output.get()[i] = guard;
    nn_rt_set_num_threads(threads);
    void *args[] = {input.get(), out};
    ASSERT_EQ(table->forward(context, args), 0);
    for (int64_t i = 0; i < kElements; ++i) {
      float y = input.get()[i] * kScale + kShift;
      ASSERT_EQ(out[i], y > 0 ? y : 0.f)
          << "at " << i << " on " << threads << " threads";
    }
    for (float *p = output.get(); p < out; ++p)
      ASSERT_EQ(*p, guard) << "written before the output";
    for (float *p = out + kElements; p < output.get() + kElements + 32; ++p)
      ASSERT_EQ(*p, guard) << "written after the output";
  }
  nn_rt_set_num_threads(1);
  table->destroy_context(context);
}

// 0: 64-byte aligned (non-temporal stores); 4: 16-byte aligned and 1: 4-byte
// aligned (plain stores).
INSTANTIATE_TEST_SUITE_P(Shifts, NontemporalStoresTest,
                         ::testing::Values(0, 4, 1));

} // namespace
