//===- VectorMathTest.cpp - Vectorized exp/log/tanh/erf against libm ------===//
//
// nn-tile-and-vectorize replaces f32 vector exp, log, tanh and erf by MLIR's
// polynomial approximations (one libm call per lane otherwise). This sweeps
// each function, compiled through the whole CPU pipeline on a vectorized
// shape, over its float range (inputs spaced evenly in their bit patterns,
// so every binade is covered from the smallest normal numbers to the
// largest) and bounds the error in ulp against the correctly rounded value
// (libm in double precision, rounded once). The bounds are what the
// approximations reach here, with a margin of one ulp; a golden test at
// rtol 1.3e-6 (about 10 ulp) tolerates each of them. Where the result is
// subnormal (exp below -87.3) the approximation flushes to zero; only the
// absolute error (below 2^-126) is bounded there.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/Passes.h"
#include "nn/Runtime/Artifact.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace nn;

namespace {

/// Elements per function: a multiple of the vector tile, so the whole
/// sweep runs through the vectorized loop.
constexpr int64_t kPoints = int64_t(1) << 16;

struct MathCase {
  const char *name; // the math dialect op
  float lo, hi;     // the inputs swept
  double (*reference)(double);
  int64_t maxUlp; // the bound on the error
};

/// The functions the pass approximates, each over the range where its
/// result is a normal float (log: every positive float, subnormal inputs
/// included); beyond it, and at special values, SpecialValuesMatchLibm
/// checks. Measured here: log 1 ulp; exp 1 ulp up to 88 and 5 ulp in
/// [88, 88.72] (where its 2^k scaling nears overflow; softmax only takes
/// exp of x - max <= 0); tanh and erf 4.
const MathCase kCases[] = {
    {"exp", -87.33f, 88.72f, [](double x) { return std::exp(x); }, 6},
    {"log", 1e-45f, 3.4e38f, [](double x) { return std::log(x); }, 2},
    {"tanh", -10.0f, 10.0f, [](double x) { return std::tanh(x); }, 5},
    {"erf", -4.0f, 4.0f, [](double x) { return std::erf(x); }, 5},
};

/// `kPoints` floats from `lo` to `hi`, evenly spaced in the ordering of
/// their bit patterns (so as many per binade near zero as near the ends).
std::vector<float> sweep(float lo, float hi) {
  auto ordered = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits < 0 ? int64_t(INT32_MIN) - bits : int64_t(bits);
  };
  auto fromOrdered = [](int64_t o) {
    int32_t bits = o < 0 ? int32_t(int64_t(INT32_MIN) - o) : int32_t(o);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  int64_t a = ordered(lo), b = ordered(hi);
  std::vector<float> out(kPoints);
  for (int64_t i = 0; i < kPoints; ++i)
    out[i] = fromOrdered(a + (b - a) * i / (kPoints - 1));
  return out;
}

/// The distance between two finite floats in units in the last place.
int64_t ulpDistance(float a, float b) {
  auto ordered = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits < 0 ? int64_t(INT32_MIN) - bits : int64_t(bits);
  };
  return std::llabs(ordered(a) - ordered(b));
}

/// One compiled function per case: forward(x0, x1, ...) returns
/// (exp(x0), log(x1), ...), each a 1-D linalg.generic on tensors as
/// nn-convert-nn-to-linalg would produce it.
std::string mathModule() {
  std::string type = "tensor<" + std::to_string(kPoints) + "xf32>";
  std::string args, results, body;
  for (size_t i = 0; i < std::size(kCases); ++i) {
    std::string n = std::to_string(i);
    args += (i ? ", %x" : "%x") + n + ": " + type;
    results += (i ? ", " : "") + type;
    body += "  %e" + n + " = tensor.empty() : " + type + "\n" + "  %r" + n +
            " = linalg.generic {indexing_maps = [#id, #id], "
            "iterator_types = [\"parallel\"]} ins(%x" +
            n + " : " + type + ") outs(%e" + n + " : " + type +
            ") {\n  ^bb0(%in: f32, %out: f32):\n    %y = math." +
            kCases[i].name + " %in : f32\n    linalg.yield %y : f32\n  } -> " +
            type + "\n";
  }
  std::string returned;
  for (size_t i = 0; i < std::size(kCases); ++i)
    returned += (i ? ", %r" : "%r") + std::to_string(i);
  return "#id = affine_map<(d0) -> (d0)>\nfunc.func @forward(" + args +
         ") -> (" + results + ") {\n" + body + "  return " + returned + " : " +
         results + "\n}\n";
}

class VectorMathTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    mlir::DialectRegistry registry;
    mlir::nn::registerCodegenDialects(registry);
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    auto module =
        mlir::parseSourceString<mlir::ModuleOp>(mathModule(), &context);
    ASSERT_TRUE(module) << mathModule();
    auto description = mlir::nn::describeArtifact(*module);
    ASSERT_TRUE(mlir::succeeded(description));
    // The module is compiled as written, without nn-optimize.
    mlir::nn::PipelineOptions unoptimized;
    unoptimized.optimize = nullptr;
    auto jit = mlir::nn::compileInProcess(*module, unoptimized);
    ASSERT_TRUE(mlir::succeeded(jit));
    auto artifact =
        Artifact::from_table(jit->table, jit->engine, "VectorMathTest");
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    // No parameters: an empty state binds.
    absl::Status bound = (*artifact)->bind(StateDict());
    ASSERT_TRUE(bound.ok()) << bound;
    artifact_ = new std::shared_ptr<Artifact>(*artifact);
  }
  static void TearDownTestSuite() {
    delete artifact_;
    artifact_ = nullptr;
  }

  /// Runs every function on its sweep with `special` values written over
  /// the first elements; returns the inputs and outputs.
  static void run(std::vector<std::vector<float>> &inputs,
                  std::vector<Tensor> &outputs) {
    ASSERT_TRUE(artifact_);
    std::vector<Tensor> tensors;
    for (const std::vector<float> &values : inputs) {
      Tensor t = Tensor::zeros({kPoints}, DType::f32);
      std::memcpy(t.data_ptr<float>(), values.data(), kPoints * 4);
      tensors.push_back(t);
    }
    auto result = (*artifact_)->run(tensors);
    ASSERT_TRUE(result.ok()) << result.status();
    outputs = *result;
  }

  static std::shared_ptr<Artifact> *artifact_;
};

std::shared_ptr<Artifact> *VectorMathTest::artifact_ = nullptr;

TEST_F(VectorMathTest, ErrorInUlpIsBounded) {
  std::vector<std::vector<float>> inputs;
  for (const MathCase &c : kCases)
    inputs.push_back(sweep(c.lo, c.hi));
  std::vector<Tensor> outputs;
  run(inputs, outputs);
  ASSERT_EQ(outputs.size(), std::size(kCases));
  for (size_t f = 0; f < std::size(kCases); ++f) {
    const float *y = outputs[f].data_ptr<float>();
    int64_t worst = 0;
    float worstAt = 0;
    for (int64_t i = 0; i < kPoints; ++i) {
      float x = inputs[f][i];
      float expected = float(kCases[f].reference(double(x)));
      ASSERT_TRUE(std::isfinite(y[i]))
          << kCases[f].name << "(" << x << ") = " << y[i];
      int64_t ulp = ulpDistance(y[i], expected);
      if (ulp > worst) {
        worst = ulp;
        worstAt = x;
      }
    }
    EXPECT_LE(worst, kCases[f].maxUlp)
        << kCases[f].name << " is " << worst << " ulp off at " << worstAt;
    std::printf("%s: at most %lld ulp (at %.9g)\n", kCases[f].name,
                (long long)worst, worstAt);
  }
}

TEST_F(VectorMathTest, SpecialValuesMatchLibm) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> specials = {
      0.0f,    -0.0f,  inf,     -inf,  nan,    1.0f,   -1.0f,  100.0f,
      -100.0f, 1e-30f, -1e-30f, 88.7f, -88.7f, 1e-45f, 1e-40f, -1e-40f};
  std::vector<std::vector<float>> inputs(std::size(kCases),
                                         std::vector<float>(kPoints, 1.0f));
  for (auto &values : inputs)
    std::copy(specials.begin(), specials.end(), values.begin());
  std::vector<Tensor> outputs;
  run(inputs, outputs);
  ASSERT_EQ(outputs.size(), std::size(kCases));
  for (size_t f = 0; f < std::size(kCases); ++f) {
    const float *y = outputs[f].data_ptr<float>();
    for (size_t i = 0; i < specials.size(); ++i) {
      float expected = float(kCases[f].reference(double(specials[i])));
      std::string what =
          std::string(kCases[f].name) + "(" + std::to_string(specials[i]) +
          ") = " + std::to_string(y[i]) + ", libm " + std::to_string(expected);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(y[i])) << what;
      } else if (std::isinf(expected) || expected == 0.0f) {
        EXPECT_EQ(y[i], expected) << what;
      } else if (std::fpclassify(expected) == FP_SUBNORMAL) {
        // Below the normal range only the absolute error is bounded.
        EXPECT_LE(std::fabs(y[i] - expected), std::numeric_limits<float>::min())
            << what;
      } else {
        EXPECT_LE(ulpDistance(y[i], expected), kCases[f].maxUlp) << what;
      }
    }
  }
}

} // namespace
