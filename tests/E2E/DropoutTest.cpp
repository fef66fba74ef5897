//===- DropoutTest.cpp - Training dropout, compiled -----------------------===//
//
// Training dropout draws its mask inside the compiled code with
// Philox4x32-10 (codegen/lib/NNToLinalg/Dropout.cpp) from a generator state
// the runtime passes in and advances on every run. The masks are not
// PyTorch's, so these tests check the distribution and the exact arithmetic
// instead of goldens: the zeroed fraction is p within a few standard
// deviations, survivors are exactly x / (1 - p), p = 0 and p = 1 are the
// identity and all zeros, every run draws a fresh mask, a seed reproduces
// the sequence (JIT and shared object alike), separate calls get separate
// masks, evaluation takes no generator state, and the mask is the one a
// scalar reference of the generator gives. Attention dropout draws the same
// numbers as a dropout written out after the softmax.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <array>
#include <cmath>
#include <filesystem>

namespace nn::testing {
namespace {

/// Word 0 of Philox4x32-10(counter, key), the reference of the lowering.
uint32_t philoxWord0(uint64_t counter, uint64_t key) {
  std::array<uint32_t, 4> c = {static_cast<uint32_t>(counter),
                               static_cast<uint32_t>(counter >> 32), 0, 0};
  uint32_t k0 = static_cast<uint32_t>(key),
           k1 = static_cast<uint32_t>(key >> 32);
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

/// A training trace of `calls` dropouts of an input shaped like `x`.
TracedModule traceDropout(const Tensor &x, double p, int calls = 1) {
  Module root("Root");
  return trace(root, {TensorSpec(x.shape())}, [&](const Inputs &in) {
    Outputs out;
    for (int i = 0; i < calls; ++i)
      out.push_back(F::dropout(in[0], p, /*training=*/true));
    return out;
  });
}

Outputs runOrThrow(const Artifact &artifact, const Inputs &inputs,
                   std::optional<RngState> rng = std::nullopt) {
  auto outputs = artifact.run(inputs, rng);
  if (!outputs.ok())
    throw Error(std::string(outputs.status().message()));
  return *outputs;
}

/// Seeds the default generator, traces `calls` training dropouts of x,
/// compiles and runs once.
Outputs runDropout(const Tensor &x, double p, uint64_t seed, int calls = 1) {
  manual_seed(seed);
  return runOrThrow(*compile(traceDropout(x, p, calls)), {x});
}

/// How many elements `a` and `b` agree on.
int64_t agreeing(const Tensor &a, const Tensor &b) {
  int64_t same = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    same += a.data_ptr<float>()[i] == b.data_ptr<float>()[i];
  return same;
}

bool identical(const Tensor &a, const Tensor &b) {
  return agreeing(a, b) == a.numel();
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

TEST(DropoutTrainingTest, SeparateCallsGetSeparateMasks) {
  Tensor x = ramp({64, 33});
  Outputs a = runDropout(x, 0.5, 42, /*calls=*/2);
  // Independent masks agree on about half the elements, not all.
  EXPECT_LT(agreeing(a[0], a[1]), x.numel() * 6 / 10);
}

TEST(DropoutTrainingTest, EveryRunDrawsAFreshMask) {
  Tensor x = ramp({64, 33});
  manual_seed(3);
  std::shared_ptr<Artifact> artifact = compile(traceDropout(x, 0.5));
  RngState before = artifact->rng_state();
  Tensor first = runOrThrow(*artifact, {x})[0];
  Tensor second = runOrThrow(*artifact, {x})[0];
  EXPECT_LT(agreeing(first, second), x.numel() * 6 / 10);
  // Each run moves the counters past the numbers it drew.
  EXPECT_EQ(artifact->rng_state(),
            (RngState{before.seed, before.offset + 2 * uint64_t(x.numel())}));
}

TEST(DropoutTrainingTest, ASeedReproducesTheSequence) {
  Tensor x = ramp({64, 33});
  auto sequence = [&](uint64_t seed) {
    manual_seed(seed);
    std::shared_ptr<Artifact> artifact = compile(traceDropout(x, 0.5));
    Tensor first = runOrThrow(*artifact, {x})[0];
    return std::pair{first, runOrThrow(*artifact, {x})[0]};
  };
  auto [a1, a2] = sequence(42);
  auto [b1, b2] = sequence(42);
  auto [c1, c2] = sequence(43);
  EXPECT_TRUE(identical(a1, b1));
  EXPECT_TRUE(identical(a2, b2));
  EXPECT_LT(agreeing(a1, c1), x.numel() * 6 / 10);

  // Reseeding the artifact restarts its sequence.
  manual_seed(7);
  std::shared_ptr<Artifact> artifact = compile(traceDropout(x, 0.5));
  artifact->manual_seed(99);
  Tensor r1 = runOrThrow(*artifact, {x})[0];
  runOrThrow(*artifact, {x});
  artifact->manual_seed(99);
  EXPECT_TRUE(identical(runOrThrow(*artifact, {x})[0], r1));
}

TEST(DropoutTrainingTest, AnExplicitStateReproducesARunAndLeavesTheGenerator) {
  Tensor x = ramp({16, 9});
  manual_seed(11);
  std::shared_ptr<Artifact> artifact = compile(traceDropout(x, 0.5));
  RngState state = artifact->rng_state();
  Tensor drawn = runOrThrow(*artifact, {x})[0];
  RngState after = artifact->rng_state();
  EXPECT_TRUE(identical(runOrThrow(*artifact, {x}, state)[0], drawn));
  EXPECT_EQ(artifact->rng_state(), after);
  // Named inputs take the state too.
  StateDict inputs;
  inputs.insert("input.0", x);
  auto named = artifact->run(inputs, state);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_TRUE(identical(*named->find("output.0"), drawn));
}

TEST(DropoutTrainingTest, MaskIsPhilox4x32OfSeedAndOffset) {
  Tensor x = ramp({3, 5, 7});
  double p = 0.3;
  std::shared_ptr<Artifact> artifact = compile(traceDropout(x, p, 2));
  RngState state{0x123456789abcdef0ull, (1ull << 32) - 20};
  Outputs y = runOrThrow(*artifact, {x}, state);
  // The second call's counters start after the first call's elements; the
  // base offset crosses 2^32 inside the first call (the counter's high word).
  uint32_t threshold = static_cast<uint32_t>(std::llround((1 - p) * 0x1p24));
  for (int call = 0; call < 2; ++call)
    for (int64_t i = 0; i < x.numel(); ++i) {
      uint64_t counter = state.offset + uint64_t(call * x.numel() + i);
      bool keep = (philoxWord0(counter, state.seed) >> 8) < threshold;
      EXPECT_EQ(y[call].data_ptr<float>()[i] != 0.0f, keep)
          << "call " << call << " element " << i;
    }
}

TEST(DropoutTrainingTest, TheDescriptionListsTheStateOnlyInTraining) {
  Tensor x = ramp({4, 6});
  TracedModule training = traceDropout(x, 0.25, 3);
  EXPECT_NE(training.to_string().find("nn.rng = 72 : i64"), std::string::npos)
      << training.to_string();
  std::shared_ptr<Artifact> artifact = compile(training);
  EXPECT_TRUE(artifact->description().has_rng);
  EXPECT_EQ(artifact->description().rng_draws, 72u);
  EXPECT_NE(artifact->description_json().find(
                R"("rng":{"name":"rng","shape":[2],"dtype":"I64","draws":72})"),
            std::string::npos)
      << artifact->description_json();

  Module root("Root");
  TracedModule eval =
      trace(root, {TensorSpec(x.shape())}, [&](const Inputs &in) {
        return Outputs{F::dropout(in[0], 0.25, /*training=*/false)};
      });
  EXPECT_EQ(eval.to_string().find("nn.rng"), std::string::npos);
  std::shared_ptr<Artifact> evalArtifact = compile(eval);
  EXPECT_FALSE(evalArtifact->description().has_rng);
  EXPECT_EQ(evalArtifact->description_json().find("rng"), std::string::npos);
  // A state passed to a forward that draws nothing changes nothing.
  EXPECT_TRUE(identical(runOrThrow(*evalArtifact, {x}, RngState{1, 2})[0], x));
}

TEST(DropoutTrainingTest, ASharedObjectDrawsAsTheJitDoes) {
  Tensor x = ramp({32, 17});
  TracedModule traced = traceDropout(x, 0.4, 2);
  std::string dir = ::testing::TempDir() + "/nn_dropout";
  std::filesystem::create_directories(dir);
  compile_to_file(traced, dir + "/dropout.so");
  auto loaded = Artifact::load(dir + "/dropout.so");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Artifact &so = **loaded;
  ASSERT_TRUE(so.bind(StateDict()).ok());
  EXPECT_TRUE(so.description().has_rng);
  std::shared_ptr<Artifact> jit = compile(traced);
  RngState state{5, 1000};
  Outputs fromSo = runOrThrow(so, {x}, state);
  Outputs fromJit = runOrThrow(*jit, {x}, state);
  for (int call = 0; call < 2; ++call)
    EXPECT_TRUE(identical(fromSo[call], fromJit[call])) << "call " << call;
  // The loaded artifact advances its own generator (seed 0 at load).
  EXPECT_EQ(so.rng_state(), RngState{});
  Tensor first = runOrThrow(so, {x})[0];
  EXPECT_LT(agreeing(first, runOrThrow(so, {x})[0]), x.numel() * 7 / 10);
  EXPECT_EQ(so.rng_state(), (RngState{0, 4 * uint64_t(x.numel())}));
}

TEST(DropoutTrainingTest, TheLayerDropsOnlyWhileTraining) {
  Dropout dropout(0.5);
  Tensor x = ramp({16, 16});
  auto run = [&] {
    TracedModule traced =
        trace(*dropout, {TensorSpec(x.shape())},
              [&](const Inputs &in) { return Outputs{dropout(in[0])}; });
    return runOrThrow(*compile(traced), {x})[0];
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

//===----------------------------------------------------------------------===//
// Attention dropout
//===----------------------------------------------------------------------===//

/// Values spread over [-1, 1], deterministic per `salt`.
Tensor spread(Shape shape, int salt) {
  Tensor t = Tensor::zeros(std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data_ptr<float>()[i] =
        static_cast<float>(std::sin(0.37 * double(i) + 1.3 * salt));
  return t;
}

/// q [2, 3, 5, 8], k [2, 3, 7, 8], v [2, 3, 7, 4] compiled as `attention`.
Tensor runAttention(const std::function<Tensor(const Inputs &)> &attention,
                    RngState state) {
  Inputs qkv = {spread({2, 3, 5, 8}, 1), spread({2, 3, 7, 8}, 2),
                spread({2, 3, 7, 4}, 3)};
  Module root("Root");
  TracedModule traced =
      trace(root,
            {TensorSpec(qkv[0].shape()), TensorSpec(qkv[1].shape()),
             TensorSpec(qkv[2].shape())},
            [&](const Inputs &in) { return Outputs{attention(in)}; });
  return runOrThrow(*compile(traced), qkv, state)[0];
}

TEST(AttentionDropoutTest, MatchesADropoutAfterTheSoftmax) {
  RngState state{21, 77};
  for (double p : {0.2, 0.6}) {
    Tensor fused = runAttention(
        [&](const Inputs &in) {
          return F::scaled_dot_product_attention(
              in[0], in[1], in[2],
              F::ScaledDotProductAttentionFuncOptions().dropout_p(p));
        },
        state);
    Tensor spelledOut = runAttention(
        [&](const Inputs &in) {
          Tensor weights = F::softmax(F::matmul(F::div(in[0], std::sqrt(8.0)),
                                                F::transpose(in[1], -2, -1)),
                                      -1);
          return F::matmul(F::dropout(weights, p, true), in[2]);
        },
        state);
    Tensor plain = runAttention(
        [&](const Inputs &in) {
          return F::scaled_dot_product_attention(in[0], in[1], in[2]);
        },
        state);
    // Same mask, same arithmetic up to the order of the scale.
    expectClose(fused, spelledOut, {}, "p = " + std::to_string(p));
    EXPECT_LT(agreeing(fused, plain), fused.numel() / 2) << "p = " << p;
  }
}

TEST(AttentionDropoutTest, POneDropsEverything) {
  Tensor out = runAttention(
      [&](const Inputs &in) {
        return F::scaled_dot_product_attention(
            in[0], in[1], in[2],
            F::ScaledDotProductAttentionFuncOptions().dropout_p(1.0));
      },
      RngState{1, 0});
  for (int64_t i = 0; i < out.numel(); ++i)
    ASSERT_EQ(out.data_ptr<float>()[i], 0.0f) << "element " << i;
}

TEST(AttentionDropoutTest, MultiheadAttentionDropsWithOrWithoutWeights) {
  // Without need_weights MultiheadAttention calls the attention op with
  // dropout_p; with them it spells the dropout out. Both draw the same mask.
  manual_seed(0);
  MultiheadAttention mha(MultiheadAttentionOptions(8, 2).dropout(0.5));
  mha->train();
  Tensor x = spread({5, 2, 8}, 4);
  auto run = [&](bool needWeights) {
    TracedModule traced =
        trace(*mha, {TensorSpec(x.shape())}, [&](const Inputs &in) {
          return Outputs{
              std::get<0>(mha(in[0], in[0], in[0], Tensor(), needWeights))};
        });
    return runOrThrow(*compile(traced), {x}, RngState{8, 0})[0];
  };
  Tensor viaOp = run(false);
  expectClose(viaOp, run(true), {}, "need_weights");
  mha->eval();
  Tensor evaluated = run(false);
  EXPECT_LT(agreeing(viaOp, evaluated), x.numel() / 2);
}

TEST(AttentionDropoutTest, DropoutPOutsideZeroOneIsRefused) {
  Module root("Root");
  try {
    trace(root, {TensorSpec({5, 8}), TensorSpec({7, 8}), TensorSpec({7, 3})},
          [](const Inputs &in) {
            return Outputs{F::scaled_dot_product_attention(
                in[0], in[1], in[2],
                F::ScaledDotProductAttentionFuncOptions().dropout_p(1.5))};
          });
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "<root>: scaled_dot_product_attention: dropout_p "
                           "must be in [0, 1], got 1.500000");
  }
}

} // namespace
} // namespace nn::testing
