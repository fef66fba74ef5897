//===- InitTest.cpp - nn::init against its formulas -----------------------===//
//
// Each initializer is checked statistically against torch.nn.init's formula
// for it: on 200,000 samples the mean must be within 5 standard errors and
// the variance within 3% (its standard error is 0.2-0.4% here), and bounded
// distributions must reach, but not pass, their bounds. The checks are
// tight enough to tell the formulas apart (fan_in from fan_out, xavier from
// kaiming), which some tests assert explicitly. The generator is pinned to
// fixed values so a change of its arithmetic fails loudly.
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <numbers>

using namespace nn;
using namespace nn::init;
using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.item_as_double(i));
  return out;
}

struct Moments {
  double mean = 0, variance = 0, min = INFINITY, max = -INFINITY;
};

Moments momentsOf(const Tensor &t) {
  Moments m;
  std::vector<double> x = valuesOf(t);
  for (double v : x) {
    m.mean += v;
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
  }
  m.mean /= x.size();
  for (double v : x)
    m.variance += (v - m.mean) * (v - m.mean);
  m.variance /= x.size() - 1;
  return m;
}

/// Whether `t`'s sample mean and variance fit `mean` and `variance`.
::testing::AssertionResult momentsFit(const Tensor &t, double mean,
                                      double variance) {
  Moments m = momentsOf(t);
  double meanTolerance = 5 * std::sqrt(variance / t.numel());
  if (std::abs(m.mean - mean) > meanTolerance)
    return ::testing::AssertionFailure() << "mean " << m.mean << ", expected "
                                         << mean << " ± " << meanTolerance;
  if (std::abs(m.variance - variance) > 0.03 * variance)
    return ::testing::AssertionFailure()
           << "variance " << m.variance << ", expected " << variance << " ± 3%";
  return ::testing::AssertionSuccess()
         << "mean " << m.mean << ", variance " << m.variance;
}

/// Whether every value lies in [-bound, bound] and the extremes come within
/// 1% of the bound (so a wrong, wider bound fails too).
::testing::AssertionResult reachesBound(const Tensor &t, double bound) {
  Moments m = momentsOf(t);
  if (m.min < -bound || m.max > bound)
    return ::testing::AssertionFailure()
           << "values in [" << m.min << ", " << m.max << "], bound " << bound;
  if (m.min > -0.99 * bound || m.max < 0.99 * bound)
    return ::testing::AssertionFailure()
           << "values in [" << m.min << ", " << m.max
           << "] stay well inside the bound " << bound;
  return ::testing::AssertionSuccess();
}

/// [out=400, in=500]: fan_in 500, fan_out 400, 200,000 elements.
Tensor weight() { return Tensor::zeros({400, 500}); }

class InitTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

TEST_F(InitTest, GeneratorOutputIsPinned) {
  Generator generator(0);
  EXPECT_EQ(generator.next_u64(), 11091344671253066420ULL);
  EXPECT_EQ(generator.next_u64(), 13793997310169335082ULL);
}

TEST_F(InitTest, UniformAndNormalValuesArePinned) {
  Generator generator(42);
  Tensor u = Tensor::zeros({3}, DType::f64);
  uniform_(u, 0, 1, generator);
  EXPECT_THAT(valuesOf(u),
              ElementsAre(0.083862971059882163, 0.37898025066266861,
                          0.68004341102813937));
  Tensor n = Tensor::zeros({3});
  normal_(n, 0, 1, generator);
  EXPECT_THAT(valuesOf(n),
              ElementsAre(2.27126789f, -0.117068186f, -0.328971624f));
}

TEST_F(InitTest, SameSeedGivesSameValuesForEveryInitializer) {
  std::vector<std::function<void(Tensor &)>> initializers = {[](Tensor &t) { uniform_(t); },
                                                             [](Tensor &t) { normal_(t); },
                                                             [](Tensor &t) { trunc_normal_(t); },
                                                             [](Tensor &t) { xavier_uniform_(t); },
                                                             [](Tensor &t) { xavier_normal_(t); },
                                                             [](Tensor &t) { kaiming_uniform_(t); },
                                                             [](Tensor &t) { kaiming_normal_(t); },
                                                             [](Tensor &t) { orthogonal_(t); }};
  for (size_t i = 0; i < initializers.size(); ++i) {
    Tensor a = Tensor::zeros({5, 7}), b = Tensor::zeros({5, 7});
    manual_seed(7);
    initializers[i](a);
    manual_seed(7);
    initializers[i](b);
    EXPECT_EQ(valuesOf(a), valuesOf(b)) << "initializer " << i;
    manual_seed(8);
    initializers[i](b);
    EXPECT_NE(valuesOf(a), valuesOf(b)) << "initializer " << i;
  }
}

TEST_F(InitTest, ExplicitGeneratorLeavesTheDefaultAlone) {
  Tensor a = Tensor::zeros({4});
  manual_seed(3);
  Generator other(99);
  uniform_(a, 0, 1, other);
  Tensor b = Tensor::zeros({4}), c = Tensor::zeros({4});
  uniform_(b);
  manual_seed(3);
  uniform_(c);
  EXPECT_EQ(valuesOf(b), valuesOf(c));
}

//===----------------------------------------------------------------------===//
// Distributions
//===----------------------------------------------------------------------===//

TEST_F(InitTest, UniformHasItsRangeAndMoments) {
  Tensor t = weight();
  uniform_(t, -2.0, 3.0);
  EXPECT_TRUE(momentsFit(t, 0.5, 25.0 / 12));
  Moments m = momentsOf(t);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LT(m.max, 3.0);
  EXPECT_LT(m.min, -1.99);
  EXPECT_GT(m.max, 2.99);
}

TEST_F(InitTest, NormalHasItsMoments) {
  Tensor t = weight();
  normal_(t, 1.5, 2.0);
  EXPECT_TRUE(momentsFit(t, 1.5, 4.0));
  EXPECT_FALSE(momentsFit(t, 1.5, 4.0 * 1.1)) << "the check must tell 10%";
}

TEST_F(InitTest, NormalDrawsOfAPairAreUncorrelated) {
  // Box–Muller's cosine and sine halves must be independent.
  Tensor t = weight();
  normal_(t);
  std::vector<double> x = valuesOf(t);
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); i += 2)
    sum += x[i] * x[i + 1];
  double correlation = sum / (x.size() / 2);
  EXPECT_LT(std::abs(correlation), 5 / std::sqrt(x.size() / 2.0));
}

TEST_F(InitTest, NormalFillsHalfPrecisionTensors) {
  Tensor t = Tensor::zeros({400, 500}, DType::bf16);
  normal_(t, 0.0, 0.5);
  EXPECT_TRUE(momentsFit(t, 0.0, 0.25));
}

TEST_F(InitTest, TruncNormalStaysInBoundsWithTruncatedMoments) {
  // N(0, 1) truncated to [-1, 2]: Z = Φ(2) - Φ(-1), mean (φ(-1) - φ(2)) / Z,
  // variance 1 + (-φ(-1) - 2φ(2)) / Z - mean².
  Tensor t = weight();
  trunc_normal_(t, 0.0, 1.0, -1.0, 2.0);
  auto phi = [](double x) {
    return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
  };
  auto Phi = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  double z = Phi(2) - Phi(-1);
  double mean = (phi(-1) - phi(2)) / z;
  double variance = 1 + (-1 * phi(-1) - 2 * phi(2)) / z - mean * mean;
  EXPECT_TRUE(momentsFit(t, mean, variance));
  Moments m = momentsOf(t);
  EXPECT_GE(m.min, -1.0);
  EXPECT_LE(m.max, 2.0);
  EXPECT_LT(m.min, -0.99);
  EXPECT_GT(m.max, 1.99);
}

TEST_F(InitTest, TruncNormalScalesAndShifts) {
  Tensor t = weight();
  trunc_normal_(t, 3.0, 0.5, -100.0, 100.0); // no truncation to speak of
  EXPECT_TRUE(momentsFit(t, 3.0, 0.25));
}

TEST_F(InitTest, ConstantZerosOnesFillAnyDtype) {
  Tensor f = Tensor::zeros({2, 2});
  EXPECT_THAT(valuesOf(constant_(f, 0.25)),
              ElementsAre(0.25, 0.25, 0.25, 0.25));
  Tensor i = Tensor::zeros({3}, DType::i32);
  EXPECT_THAT(valuesOf(ones_(i)), ElementsAre(1, 1, 1));
  Tensor h = Tensor::zeros({2}, DType::f16);
  constant_(h, 7.0);
  EXPECT_THAT(valuesOf(zeros_(h)), ElementsAre(0, 0));
}

TEST_F(InitTest, EyeIsTheIdentity) {
  Tensor t = Tensor::zeros({2, 3});
  constant_(t, 5.0);
  EXPECT_THAT(valuesOf(eye_(t)), ElementsAre(1, 0, 0, 0, 1, 0));
}

TEST_F(InitTest, EyeNeedsTwoDimensions) {
  Tensor t = Tensor::zeros({3});
  EXPECT_THAT([&] { eye_(t); },
              ThrowsMessage<Error>(StrEq(
                  "eye_: only tensors with 2 dimensions are supported, got "
                  "Tensor[float32, 3]")));
}

//===----------------------------------------------------------------------===//
// Fans and gains
//===----------------------------------------------------------------------===//

TEST_F(InitTest, FansOfAMatrixAndOfAConvolutionWeight) {
  EXPECT_EQ(calculate_fan_in_and_fan_out(Tensor::zeros({3, 4})),
            std::make_pair(int64_t(4), int64_t(3)));
  EXPECT_EQ(calculate_fan_in_and_fan_out(Tensor::zeros({16, 8, 3, 3})),
            std::make_pair(int64_t(72), int64_t(144)));
}

TEST_F(InitTest, FansNeedTwoDimensions) {
  EXPECT_THAT([] { calculate_fan_in_and_fan_out(Tensor::zeros({5})); },
              ThrowsMessage<Error>(StrEq(
                  "Fan in and fan out can not be computed for tensor with "
                  "fewer than 2 dimensions (got Tensor[float32, 5])")));
}

TEST_F(InitTest, GainsArePyTorchs) {
  EXPECT_EQ(calculate_gain(Nonlinearity::linear), 1.0);
  EXPECT_EQ(calculate_gain(Nonlinearity::conv2d), 1.0);
  EXPECT_EQ(calculate_gain(Nonlinearity::conv_transpose3d), 1.0);
  EXPECT_EQ(calculate_gain(Nonlinearity::sigmoid), 1.0);
  EXPECT_DOUBLE_EQ(calculate_gain(Nonlinearity::tanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(calculate_gain(Nonlinearity::relu), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(calculate_gain(Nonlinearity::leaky_relu),
                   std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(calculate_gain(Nonlinearity::leaky_relu, 0.2),
                   std::sqrt(2.0 / 1.04));
  EXPECT_EQ(calculate_gain(Nonlinearity::selu), 0.75);
}

//===----------------------------------------------------------------------===//
// Xavier and Kaiming
//===----------------------------------------------------------------------===//

TEST_F(InitTest, XavierUniformFollowsItsFormula) {
  Tensor t = weight();
  xavier_uniform_(t, 2.0);
  double bound = 2.0 * std::sqrt(6.0 / (500 + 400));
  EXPECT_TRUE(reachesBound(t, bound));
  EXPECT_TRUE(momentsFit(t, 0, bound * bound / 3));
}

TEST_F(InitTest, XavierNormalFollowsItsFormula) {
  Tensor t = weight();
  xavier_normal_(t, 0.5);
  EXPECT_TRUE(momentsFit(t, 0, 0.25 * 2.0 / 900));
  EXPECT_FALSE(momentsFit(t, 0, 0.25 * 2.0 / 500)) << "must tell it from "
                                                      "kaiming";
}

TEST_F(InitTest, KaimingUniformDefaultsToFanInLeakyRelu) {
  // a = 0 with leaky_relu is ReLU's gain √2: variance 2 / fan_in.
  Tensor t = weight();
  kaiming_uniform_(t);
  EXPECT_TRUE(reachesBound(t, std::sqrt(6.0 / 500)));
  EXPECT_TRUE(momentsFit(t, 0, 2.0 / 500));
}

TEST_F(InitTest, KaimingUniformFanOutUsesFanOut) {
  Tensor t = weight();
  kaiming_uniform_(t, 0.0, FanMode::fan_out, Nonlinearity::relu);
  EXPECT_TRUE(momentsFit(t, 0, 2.0 / 400));
  EXPECT_FALSE(momentsFit(t, 0, 2.0 / 500)) << "must tell fan_out from fan_in";
}

TEST_F(InitTest, KaimingUniformUsesTheSlopeForLeakyRelu) {
  // Linear's a = √5: bound 1 / √fan_in.
  Tensor t = weight();
  kaiming_uniform_(t, std::sqrt(5.0));
  EXPECT_TRUE(reachesBound(t, 1.0 / std::sqrt(500.0)));
}

TEST_F(InitTest, KaimingNormalFollowsItsFormula) {
  Tensor t = weight();
  kaiming_normal_(t, 0.0, FanMode::fan_in, Nonlinearity::tanh);
  EXPECT_TRUE(momentsFit(t, 0, (25.0 / 9) / 500));
}

TEST_F(InitTest, KaimingUsesTheReceptiveField) {
  Tensor t = Tensor::zeros({64, 32, 5, 5}); // fan_in 800, 51,200 elements
  kaiming_normal_(t, 0.0, FanMode::fan_in, Nonlinearity::relu);
  EXPECT_TRUE(momentsFit(t, 0, 2.0 / 800));
}

TEST_F(InitTest, KaimingLeavesAnEmptyTensorAlone) {
  Tensor t = Tensor::zeros({0, 3});
  EXPECT_EQ(&kaiming_uniform_(t), &t);
}

//===----------------------------------------------------------------------===//
// Orthogonal
//===----------------------------------------------------------------------===//

/// The largest |(A·Aᵀ)ᵢⱼ - scale·δᵢⱼ| over the rows of `t` as [rows, cols]
/// (or over its columns when `columns`).
double orthogonalityError(const Tensor &t, bool columns, double scale) {
  int64_t rows = t.size(0), cols = t.numel() / rows;
  std::vector<double> x = valuesOf(t);
  auto at = [&](int64_t vector, int64_t i) {
    return columns ? x[i * cols + vector] : x[vector * cols + i];
  };
  int64_t count = columns ? cols : rows, len = columns ? rows : cols;
  double worst = 0;
  for (int64_t a = 0; a < count; ++a)
    for (int64_t b = 0; b < count; ++b) {
      double dot = 0;
      for (int64_t i = 0; i < len; ++i)
        dot += at(a, i) * at(b, i);
      worst = std::max(worst, std::abs(dot - (a == b ? scale : 0.0)));
    }
  return worst;
}

TEST_F(InitTest, OrthogonalWideMatrixHasOrthonormalRows) {
  Tensor t = Tensor::zeros({6, 10}, DType::f64);
  orthogonal_(t);
  EXPECT_LT(orthogonalityError(t, /*columns=*/false, 1.0), 1e-12);
}

TEST_F(InitTest, OrthogonalTallTensorHasOrthonormalColumnsTimesGain) {
  Tensor t = Tensor::zeros({10, 2, 3}, DType::f64); // seen as [10, 6]
  orthogonal_(t, 2.0);
  EXPECT_LT(orthogonalityError(t, /*columns=*/true, 4.0), 1e-12);
}

TEST_F(InitTest, OrthogonalNeedsTwoDimensions) {
  Tensor t = Tensor::zeros({4});
  EXPECT_THAT([&] { orthogonal_(t); },
              ThrowsMessage<Error>(StrEq(
                  "orthogonal_: only tensors with 2 or more dimensions are "
                  "supported, got Tensor[float32, 4]")));
}

//===----------------------------------------------------------------------===//
// Bad input
//===----------------------------------------------------------------------===//

TEST_F(InitTest, RandomInitializersNeedFloatingPoint) {
  Tensor t = Tensor::zeros({3}, DType::i64);
  EXPECT_THAT([&] { normal_(t); },
              ThrowsMessage<Error>(
                  StrEq("normal_: expected a floating point tensor, got "
                        "Tensor[int64, 3]")));
}

TEST_F(InitTest, UniformRejectsAReversedRange) {
  Tensor t = Tensor::zeros({3});
  EXPECT_THAT([&] { uniform_(t, 2, 1); },
              ThrowsMessage<Error>(StrEq(
                  "uniform_ expects to return a [from, to) range, but found "
                  "from=2.000000 > to=1.000000")));
}

TEST_F(InitTest, NormalRejectsANegativeStd) {
  Tensor t = Tensor::zeros({3});
  EXPECT_THAT([&] { normal_(t, 0, -1); },
              ThrowsMessage<Error>(StrEq(
                  "normal_ expects std >= 0.0, but found std -1.000000")));
}

//===----------------------------------------------------------------------===//
// Linear's initialization
//===----------------------------------------------------------------------===//

TEST_F(InitTest, LinearInitFollowsPyTorchBounds) {
  // kaiming_uniform_(a=√5) on [out, in] gives U(±1/√in); the bias too.
  Linear fc(500, 400);
  double bound = 1.0 / std::sqrt(500.0);
  EXPECT_TRUE(reachesBound(fc->weight, bound));
  EXPECT_TRUE(momentsFit(fc->weight, 0, bound * bound / 3));
  Moments bias = momentsOf(fc->bias);
  EXPECT_GE(bias.min, -bound);
  EXPECT_LE(bias.max, bound);
}

TEST_F(InitTest, SameSeedSameWeights) {
  manual_seed(42);
  Linear a(5, 3);
  manual_seed(42);
  Linear b(5, 3);
  EXPECT_EQ(valuesOf(a->weight), valuesOf(b->weight));
  EXPECT_EQ(valuesOf(a->bias), valuesOf(b->bias));
}

} // namespace
