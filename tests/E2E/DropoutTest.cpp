//===- DropoutTest.cpp - Training dropout, compiled -----------------------===//
//
// Training dropout draws its mask inside the compiled code with
// Philox4x32-10 (codegen/lib/NNToLinalg/Dropout.cpp). The masks are not
// PyTorch's, so these tests check the distribution and the exact
// arithmetic instead of goldens: the zeroed fraction is p within a few
// standard deviations, survivors are exactly x / (1 - p), p = 0 and p = 1
// are the identity and all zeros, a seed reproduces the mask, separate
// calls get separate masks, and the mask is the one a scalar reference of
// the generator gives.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <array>
#include <cmath>

namespace nn::testing {
namespace {

/// Word 0 of Philox4x32-10(counter, key), the reference of the lowering.
uint32_t philoxWord0(uint64_t counter, uint64_t key) {
  std::array<uint32_t, 4> c = {static_cast<uint32_t>(counter),
                               static_cast<uint32_t>(counter >> 32), 0, 0};
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9;
      k1 += 0xBB67AE85;
    }
    uint64_t p0 = uint64_t(0xD2511F53) * c[0], p1 = uint64_t(0xCD9E8D57) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k0, uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ k1, uint32_t(p0)};
  }
  return c[0];
}

/// `count` values 1, 2, 3, ... (never 0, so a zero output means dropped).
Tensor ramp(Shape shape) {
  Tensor t = Tensor::zeros(std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data_ptr<float>()[i] = 1.0f + static_cast<float>(i % 1000) * 0.25f;
  return t;
}

/// Seeds the default generator, traces `calls` training dropouts of x,
/// compiles and runs.
Outputs runDropout(const Tensor &x, double p, uint64_t seed, int calls = 1) {
  manual_seed(seed);
  Module root("Root");
  TracedModule traced =
      trace(root, {TensorSpec(x.shape())}, [&](const Inputs &in) {
        Outputs out;
        for (int i = 0; i < calls; ++i)
          out.push_back(F::dropout(in[0], p, /*training=*/true));
        return out;
      });
  auto outputs = compile(traced)->run({x});
  if (!outputs.ok())
    throw Error(std::string(outputs.status().message()));
  return *outputs;
}

TEST(DropoutTrainingTest, ZeroesAboutPAndScalesSurvivorsExactly) {
  Tensor x = ramp({1000, 1000});
  for (double p : {0.1, 0.5, 0.9}) {
    Tensor y = runDropout(x, p, 1)[0];
    int64_t zeros = 0;
    float scale = static_cast<float>(1.0 - p);
    for (int64_t i = 0; i < y.numel(); ++i) {
      float v = y.data_ptr<float>()[i];
      if (v == 0.0f) {
        ++zeros;
        continue;
      }
      ASSERT_EQ(v, x.data_ptr<float>()[i] / scale) << "element " << i;
    }
    double fraction = double(zeros) / double(y.numel());
    // 10 standard deviations of the binomial: a false failure is impossible
    // in practice, a wrong threshold is caught.
    double sigma = std::sqrt(p * (1 - p) / double(y.numel()));
    EXPECT_NEAR(fraction, p, 10 * sigma) << "p = " << p;
  }
}

TEST(DropoutTrainingTest, PZeroIsTheIdentityAndPOneZeroesAll) {
  Tensor x = ramp({7, 13});
  Tensor same = runDropout(x, 0.0, 1)[0];
  Tensor none = runDropout(x, 1.0, 1)[0];
  for (int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_EQ(same.data_ptr<float>()[i], x.data_ptr<float>()[i]);
    EXPECT_EQ(none.data_ptr<float>()[i], 0.0f);
  }
}

TEST(DropoutTrainingTest, ASeedReproducesTheMaskAndCallsDiffer) {
  Tensor x = ramp({64, 33});
  Outputs a = runDropout(x, 0.5, 42, /*calls=*/2);
  Outputs b = runDropout(x, 0.5, 42, /*calls=*/2);
  Tensor c = runDropout(x, 0.5, 43)[0];
  int64_t sameAcrossCalls = 0, sameAcrossSeeds = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(a[0].data_ptr<float>()[i], b[0].data_ptr<float>()[i]);
    ASSERT_EQ(a[1].data_ptr<float>()[i], b[1].data_ptr<float>()[i]);
    sameAcrossCalls += a[0].data_ptr<float>()[i] == a[1].data_ptr<float>()[i];
    sameAcrossSeeds += a[0].data_ptr<float>()[i] == c.data_ptr<float>()[i];
  }
  // Independent masks agree on about half the elements, not all.
  EXPECT_LT(sameAcrossCalls, x.numel() * 6 / 10);
  EXPECT_LT(sameAcrossSeeds, x.numel() * 6 / 10);
}

TEST(DropoutTrainingTest, MaskIsPhilox4x32OfSeedAndOffset) {
  Tensor x = ramp({3, 5, 7});
  double p = 0.3;
  Outputs y = runDropout(x, p, 5, /*calls=*/2);
  // The trace's seed is the default generator's first draw; the second
  // call's counters start after the first call's elements.
  uint64_t seed = Generator(5).next_u64();
  uint32_t threshold = static_cast<uint32_t>(std::llround((1 - p) * 0x1p24));
  for (int call = 0; call < 2; ++call)
    for (int64_t i = 0; i < x.numel(); ++i) {
      bool keep =
          (philoxWord0(uint64_t(call * x.numel() + i), seed) >> 8) < threshold;
      EXPECT_EQ(y[call].data_ptr<float>()[i] != 0.0f, keep)
          << "call " << call << " element " << i;
    }
}

TEST(DropoutTrainingTest, TheLayerDropsOnlyWhileTraining) {
  Dropout dropout(0.5);
  Tensor x = ramp({16, 16});
  auto run = [&] {
    TracedModule traced =
        trace(*dropout, {TensorSpec(x.shape())},
              [&](const Inputs &in) { return Outputs{dropout(in[0])}; });
    return (*compile(traced)->run({x}))[0];
  };
  dropout->train();
  Tensor trained = run();
  dropout->eval();
  Tensor evaluated = run();
  int64_t zeros = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    zeros += trained.data_ptr<float>()[i] == 0.0f;
    EXPECT_EQ(evaluated.data_ptr<float>()[i], x.data_ptr<float>()[i]);
  }
  EXPECT_GT(zeros, 0);
  EXPECT_LT(zeros, x.numel());
}

} // namespace
} // namespace nn::testing
