//===- OpsNormalizationTest.cpp - normalization ops against PyTorch goldens
//---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/normalization.py. Op cases go through the shared
// OpGoldenTest; layer cases (BatchNorm1d/2d, LayerNorm, GroupNorm) load
// PyTorch's state (the golden inputs after the data) into the layer, trace,
// compile and run it; training BatchNorm runs two forwards and also compares
// the buffers the compiled forward wrote (running_mean, running_var,
// num_batches_tracked) after each.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <limits>
#include <sstream>

namespace nn::testing {
namespace {

Outputs pair(std::tuple<Tensor, Tensor> t) {
  return {std::get<0>(t), std::get<1>(t)};
}

const OpCase kNormalizationCases[] = {
    // Reductions.
    {"normalization", "sum_all_3x7x17",
     [](const Inputs &in) { return Outputs{F::sum(in[0])}; }},
    {"normalization", "sum_dim1_3x7x17",
     [](const Inputs &in) { return Outputs{F::sum(in[0], {1})}; }},
    {"normalization", "sum_dims_0_neg1_keepdim_3x7x17",
     [](const Inputs &in) {
       return Outputs{F::sum(in[0], {0, -1}, true)};
     }},
    {"normalization", "sum_1",
     [](const Inputs &in) { return Outputs{F::sum(in[0], {0})}; }},
    {"normalization", "sum_i64_dim0",
     [](const Inputs &in) { return Outputs{F::sum(in[0], {0})}; }},
    {"normalization", "mean_dim2_3x7x17",
     [](const Inputs &in) { return Outputs{F::mean(in[0], {2})}; }},
    {"normalization", "mean_all_keepdim_7x3",
     [](const Inputs &in) {
       return Outputs{F::mean(in[0], {0, 1}, true)};
     }},
    {"normalization", "amax_dim1_3x7x17",
     [](const Inputs &in) { return Outputs{F::amax(in[0], {1})}; }},
    {"normalization", "amax_dims_keepdim_3x7x17",
     [](const Inputs &in) {
       return Outputs{F::amax(in[0], {0, 2}, true)};
     }},
    {"normalization", "amin_all_17",
     [](const Inputs &in) { return Outputs{F::amin(in[0])}; }},
    {"normalization", "amin_dim0_i64",
     [](const Inputs &in) { return Outputs{F::amin(in[0], {0})}; }},
    {"normalization", "max_dim_3x17",
     [](const Inputs &in) { return pair(F::max(in[0], 1)); }},
    {"normalization", "min_dim_keepdim_7x3",
     [](const Inputs &in) { return pair(F::min(in[0], 0, true)); }},
    {"normalization", "amax_nan_3x7",
     [](const Inputs &in) { return Outputs{F::amax(in[0], {1})}; }},
    {"normalization", "var_dim1_3x7x17",
     [](const Inputs &in) { return Outputs{F::var(in[0], {1})}; }},
    {"normalization", "var_all_17",
     [](const Inputs &in) { return Outputs{F::var(in[0])}; }},
    {"normalization", "var_biased_keepdim_3x7x17",
     [](const Inputs &in) {
       return Outputs{F::var(
           in[0], {0, 2}, F::VarFuncOptions().unbiased(false).keepdim(true))};
     }},
    {"normalization", "var_correction0_dim_1x3",
     [](const Inputs &in) {
       return Outputs{F::var(in[0], {0}, F::VarFuncOptions().correction(0))};
     }},
    {"normalization", "argmax_dim1_3x17",
     [](const Inputs &in) { return Outputs{F::argmax(in[0], 1)}; }},
    {"normalization", "argmax_flat_3x7",
     [](const Inputs &in) { return Outputs{F::argmax(in[0])}; }},
    {"normalization", "argmax_keepdim_7x3",
     [](const Inputs &in) { return Outputs{F::argmax(in[0], 0, true)}; }},
    {"normalization", "argmax_ties_3x7",
     [](const Inputs &in) { return Outputs{F::argmax(in[0], 1)}; }},
    {"normalization", "argmax_nan_3x7",
     [](const Inputs &in) { return Outputs{F::argmax(in[0], 1)}; }},
    {"normalization", "argmin_dim0_7x3",
     [](const Inputs &in) { return Outputs{F::argmin(in[0], 0)}; }},
    {"normalization", "argmax_i64_dim1",
     [](const Inputs &in) { return Outputs{F::argmax(in[0], 1)}; }},
    // layer_norm.
    {"normalization", "layer_norm_17",
     [](const Inputs &in) {
       return Outputs{F::layer_norm(
           in[0], F::LayerNormFuncOptions({17}).weight(in[1]).bias(in[2]))};
     }},
    {"normalization", "layer_norm_7x3_no_affine",
     [](const Inputs &in) {
       return Outputs{
           F::layer_norm(in[0], F::LayerNormFuncOptions({7, 3}).eps(1e-3))};
     }},
    {"normalization", "layer_norm_weight_only_1x7",
     [](const Inputs &in) {
       return Outputs{
           F::layer_norm(in[0], F::LayerNormFuncOptions({7}).weight(in[1]))};
     }},
    {"normalization", "layer_norm_3x1x17",
     [](const Inputs &in) {
       return Outputs{F::layer_norm(
           in[0], F::LayerNormFuncOptions({1, 17}).weight(in[1]).bias(in[2]))};
     }},
    // group_norm.
    {"normalization", "group_norm_2x6x7_g3",
     [](const Inputs &in) {
       return Outputs{F::group_norm(
           in[0], F::GroupNormFuncOptions(3).weight(in[1]).bias(in[2]))};
     }},
    {"normalization", "group_norm_1x3x5x5_g1_no_affine",
     [](const Inputs &in) {
       return Outputs{F::group_norm(in[0], F::GroupNormFuncOptions(1))};
     }},
    {"normalization", "group_norm_3x17_g17",
     [](const Inputs &in) {
       return Outputs{F::group_norm(
           in[0],
           F::GroupNormFuncOptions(17).weight(in[1]).bias(in[2]).eps(1e-3))};
     }},
    // batch_norm.
    {"normalization", "batch_norm_eval_4x3x7",
     [](const Inputs &in) {
       return Outputs{
           F::batch_norm(in[0], in[1], in[2],
                         F::BatchNormFuncOptions().weight(in[3]).bias(in[4]))};
     }},
    {"normalization", "batch_norm_eval_no_affine_3x17",
     [](const Inputs &in) {
       return Outputs{F::batch_norm(in[0], in[1], in[2],
                                    F::BatchNormFuncOptions().eps(1e-3))};
     }},
    {"normalization", "batch_norm_batch_stats_7x3x2x2",
     [](const Inputs &in) {
       return Outputs{F::batch_norm(
           in[0], Tensor(), Tensor(),
           F::BatchNormFuncOptions().weight(in[1]).bias(in[2]).training(true))};
     }},
    // Norms and distances.
    {"normalization", "normalize_5x7",
     [](const Inputs &in) { return Outputs{F::normalize(in[0])}; }},
    {"normalization", "normalize_p1_dim_neg_2x3x4",
     [](const Inputs &in) {
       return Outputs{
           F::normalize(in[0], F::NormalizeFuncOptions().p(1).dim(-1))};
     }},
    {"normalization", "normalize_p3_dim0_4x5",
     [](const Inputs &in) {
       return Outputs{
           F::normalize(in[0], F::NormalizeFuncOptions().p(3).dim(0))};
     }},
    {"normalization", "normalize_pinf_3x6",
     [](const Inputs &in) {
       return Outputs{
           F::normalize(in[0], F::NormalizeFuncOptions().p(
                                   std::numeric_limits<double>::infinity()))};
     }},
    {"normalization", "cosine_similarity_6x9",
     [](const Inputs &in) {
       return Outputs{F::cosine_similarity(in[0], in[1])};
     }},
    {"normalization", "cosine_similarity_broadcast_1x5_4x5",
     [](const Inputs &in) {
       return Outputs{F::cosine_similarity(
           in[0], in[1], F::CosineSimilarityFuncOptions().dim(-1))};
     }},
    {"normalization", "cosine_similarity_tiny_row_3x4",
     [](const Inputs &in) {
       return Outputs{F::cosine_similarity(in[0], in[1])};
     }},
    {"normalization", "pairwise_distance_5x8",
     [](const Inputs &in) {
       return Outputs{F::pairwise_distance(in[0], in[1])};
     }},
    {"normalization", "pairwise_distance_p1_keepdim_2x3x4",
     [](const Inputs &in) {
       return Outputs{F::pairwise_distance(
           in[0], in[1], F::PairwiseDistanceFuncOptions().p(1).keepdim(true))};
     }},
    {"normalization", "instance_norm_3x4x7",
     [](const Inputs &in) { return Outputs{F::instance_norm(in[0])}; }},
    {"normalization", "instance_norm_affine_2x3x5x4",
     [](const Inputs &in) {
       return Outputs{F::instance_norm(
           in[0],
           F::InstanceNormFuncOptions().weight(in[1]).bias(in[2]).eps(1e-3))};
     }},
    // Reductions of 256 points or more (a block's on a GPU).
    {"normalization", "sum_rows_3x300",
     [](const Inputs &in) { return Outputs{F::sum(in[0], {1})}; }},
    {"normalization", "amax_nan_rows_4x257",
     [](const Inputs &in) { return Outputs{F::amax(in[0], {1})}; }},
    {"normalization", "mean_cols_300x5",
     [](const Inputs &in) { return Outputs{F::mean(in[0], {0})}; }},
    {"normalization", "sum_i64_rows_2x300",
     [](const Inputs &in) { return Outputs{F::sum(in[0], {1})}; }},
    {"normalization", "softmax_rows_4x300",
     [](const Inputs &in) { return Outputs{F::softmax(in[0], 1)}; }},
    {"normalization", "layer_norm_rows_3x384",
     [](const Inputs &in) {
       return Outputs{F::layer_norm(in[0], F::LayerNormFuncOptions({384}))};
     }},
};
INSTANTIATE_TEST_SUITE_P(Normalization, OpGoldenTest,
                         ::testing::ValuesIn(kNormalizationCases), caseName);

//===----------------------------------------------------------------------===//
// Layers with PyTorch's state
//===----------------------------------------------------------------------===//

struct Layer {
  std::shared_ptr<Module> module;
  std::function<Tensor(const Tensor &)> forward;
};

template <typename Holder> Layer layer(Holder holder) {
  return {holder.ptr(), [holder](const Tensor &x) { return holder(x); }};
}

struct LayerCase {
  std::string name;
  std::function<Layer()> make;
  bool train = false;
  /// Forwards run, each on its own input (training cases: 2).
  int steps = 1;
};

/// gtest prints a parameter's bytes otherwise (and ctest lists them).
void PrintTo(const LayerCase &c, std::ostream *os) { *os << c.name; }

std::string layerCaseName(const ::testing::TestParamInfo<LayerCase> &info) {
  return info.param.name;
}

class LayerGoldenTest : public ::testing::TestWithParam<LayerCase> {};

TEST_P(LayerGoldenTest, MatchesPyTorch) {
  const LayerCase &c = GetParam();
  std::string path = std::string(NN_SOURCE_DIR) +
                     "/tests/reference/goldens/ops/normalization/" + c.name +
                     ".safetensors";
  auto golden = load_safetensors(path);
  ASSERT_TRUE(golden.ok()) << golden.status();
  auto input = [&](int i) {
    const Tensor *t = golden->tensors.find("input." + std::to_string(i));
    return t ? *t : Tensor();
  };
  auto output = [&](int i) {
    const Tensor *t = golden->tensors.find("output." + std::to_string(i));
    return t ? *t : Tensor();
  };

  Layer l = c.make();
  l.module->train(c.train);
  StateDict state;
  int next = c.steps;
  for (const std::string &key : l.module->state_dict().keys()) {
    Tensor t = input(next++);
    ASSERT_TRUE(t.defined()) << "golden lacks the state for " << key;
    state.insert(key, t);
  }
  ASSERT_FALSE(input(next).defined())
      << "golden has more state than " << l.module->name();
  l.module->load_state_dict(state);

  TracedModule traced = trace(*l.module, {TensorSpec(input(0).shape())},
                              [&](const std::vector<Tensor> &x) {
                                return std::vector<Tensor>{l.forward(x[0])};
                              });
  auto artifact = compile(traced);
  int out = 0;
  for (int step = 0; step < c.steps; ++step) {
    std::string at = c.name + " step " + std::to_string(step + 1) + " ";
    auto y = artifact->run({input(step)});
    ASSERT_TRUE(y.ok()) << y.status();
    expectClose((*y)[0], output(out++), {}, at + "output");
    if (!c.train)
      continue;
    for (const char *buffer :
         {"running_mean", "running_var", "num_batches_tracked"}) {
      auto now = l.module->state_dict();
      expectClose(now.at(buffer), output(out++), {}, at + buffer);
    }
  }
  EXPECT_FALSE(output(out).defined()) << "unchecked golden outputs";
}

const LayerCase kLayerCases[] = {
    {"BatchNorm2d_eval_2x3x5x7", [] { return layer(BatchNorm2d(3)); }},
    {"BatchNorm1d_eval_no_affine_3x7",
     [] {
       return layer(BatchNorm1d(BatchNormOptions(7).eps(1e-3).affine(false)));
     }},
    {"BatchNorm2d_train_2x3x5x7", [] { return layer(BatchNorm2d(3)); }, true,
     2},
    {"BatchNorm1d_train_momentum_none_3x7x17",
     [] {
       return layer(BatchNorm1d(BatchNormOptions(7).momentum(std::nullopt)));
     },
     true, 2},
    // Without running statistics eval uses batch statistics too.
    {"BatchNorm1d_no_tracking_17x7",
     [] {
       return layer(
           BatchNorm1d(BatchNormOptions(7).track_running_stats(false)));
     }},
    {"LayerNorm_2x7x3x17",
     [] {
       return layer(LayerNorm(LayerNormOptions({3, 17})));
     }},
    {"GroupNorm_3x6x7",
     [] { return layer(GroupNorm(GroupNormOptions(2, 6).eps(1e-3))); }},
    {"BatchNorm3d_train_2x3x3x4x5", [] { return layer(BatchNorm3d(3)); }, true,
     2},
    {"InstanceNorm2d_2x3x5x4", [] { return layer(InstanceNorm2d(3)); }},
    {"InstanceNorm1d_affine_3x4x9",
     [] { return layer(InstanceNorm1d(InstanceNormOptions(4).affine(true))); }},
    {"InstanceNorm1d_affine_unbatched_4x9",
     [] { return layer(InstanceNorm1d(InstanceNormOptions(4).affine(true))); }},
    {"InstanceNorm3d_affine_2x2x3x4x5",
     [] {
       return layer(
           InstanceNorm3d(InstanceNormOptions(2).eps(1e-3).affine(true)));
     }},
    // Training updates the running statistics (num_batches_tracked stays);
    // eval normalizes with them.
    {"InstanceNorm2d_track_train_2x3x5x4",
     [] {
       return layer(InstanceNorm2d(InstanceNormOptions(3)
                                       .affine(true)
                                       .track_running_stats(true)
                                       .momentum(0.2)));
     },
     true, 2},
    {"InstanceNorm2d_track_eval_2x3x5x4",
     [] {
       return layer(
           InstanceNorm2d(InstanceNormOptions(3).track_running_stats(true)));
     }},
};
INSTANTIATE_TEST_SUITE_P(NormalizationLayers, LayerGoldenTest,
                         ::testing::ValuesIn(kLayerCases), layerCaseName);

// A float32 sum accumulates in float64 and is rounded once
// (NNToLinalg/Normalization.cpp), as PyTorch sums a batch norm's
// statistics: per-channel sums of values with a common offset, over 2x112x112
// terms (summed in float32 partials, they were 6e-7 of the answer off; in
// one float32 accumulator, 6e-6) and over 8x7x7, are within one float32
// rounding (2^-24 relative) of the float64 sum.
class FloatSums : public ::testing::TestWithParam<Shape> {};

TEST_P(FloatSums, ChannelSumsAreRoundedOnce) {
  const Shape shape = GetParam();
  Tensor x = Tensor::zeros(shape);
  float *data = x.data_ptr<float>();
  uint32_t state = 12345;
  for (int64_t i = 0; i < x.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = 0.7f + static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  }
  Module root("sums");
  TracedModule traced =
      trace(root, {TensorSpec(x.shape())}, [](const std::vector<Tensor> &in) {
        return std::vector<Tensor>{F::sum(in[0], {0, 2, 3})};
      });
  auto out = compile(traced)->run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  const float *sums = (*out)[0].data_ptr<float>();
  const int64_t channels = shape[1], plane = shape[2] * shape[3];
  for (int64_t c = 0; c < channels; ++c) {
    double exact = 0;
    for (int64_t n = 0; n < shape[0]; ++n)
      for (int64_t i = 0; i < plane; ++i)
        exact += data[(n * channels + c) * plane + i];
    EXPECT_LE(std::abs(sums[c] - exact), 0x1p-24 * std::abs(exact))
        << "channel " << c;
  }
}

INSTANTIATE_TEST_SUITE_P(LongAndShort, FloatSums,
                         ::testing::Values(Shape{2, 64, 112, 112},
                                           Shape{8, 64, 7, 7}));

TEST(InstanceNormLayers, PrintAndCheckTheirInputAsPyTorch) {
  std::ostringstream os;
  os << *InstanceNorm2d(3) << "\n"
     << *InstanceNorm1d(InstanceNormOptions(4).affine(true).eps(1e-3));
  EXPECT_EQ(os.str(), "InstanceNorm2d(3, eps=1e-05, momentum=0.1, "
                      "affine=False, track_running_stats=False)\n"
                      "InstanceNorm1d(4, eps=0.001, momentum=0.1, "
                      "affine=True, track_running_stats=False)");
  InstanceNorm2d norm(InstanceNormOptions(3).affine(true));
  std::string error;
  try {
    trace(*norm, {TensorSpec({2, 3})},
          [&](const Inputs &in) { return Outputs{norm(in[0])}; });
  } catch (const Error &e) {
    error = e.what();
  }
  EXPECT_NE(error.find("InstanceNorm2d: expected 3D or 4D input (got 2D "
                       "input)"),
            std::string::npos)
      << error;
  error.clear();
  try {
    trace(*norm, {TensorSpec({2, 4, 5, 5})},
          [&](const Inputs &in) { return Outputs{norm(in[0])}; });
  } catch (const Error &e) {
    error = e.what();
  }
  EXPECT_NE(error.find("InstanceNorm2d: expected input with 3 channels, got "
                       "2x4x5x5"),
            std::string::npos)
      << error;
}

/// The distance layers are their functionals (the golden through the
/// layer), print as PyTorch's, and a norm's p must be positive.
TEST(DistanceLayers, MatchTheirFunctionalsAndPrintAsPyTorch) {
  auto golden = load_safetensors(std::string(NN_SOURCE_DIR) +
                                 "/tests/reference/goldens/ops/normalization/"
                                 "cosine_similarity_broadcast_1x5_4x5."
                                 "safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const Tensor &a = golden->tensors.at("input.0"),
               &b = golden->tensors.at("input.1");
  CosineSimilarity cosine(CosineSimilarityOptions().dim(-1));
  TracedModule traced =
      trace(*cosine, {TensorSpec(a.shape()), TensorSpec(b.shape())},
            [&](const Inputs &in) { return Outputs{cosine(in[0], in[1])}; });
  auto outputs = compile(traced)->run({a, b});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], golden->tensors.at("output.0"), {},
              "CosineSimilarity");

  std::ostringstream os;
  os << *cosine << " " << *PairwiseDistance();
  EXPECT_EQ(os.str(), "CosineSimilarity() PairwiseDistance()");

  EXPECT_EQ(traceError({TensorSpec({3, 4})},
                       [](const Inputs &in) {
                         return Outputs{F::normalize(
                             in[0], F::NormalizeFuncOptions().p(0))};
                       }),
            "<root>: normalize: p must be positive or inf, got 0.000000");
}

} // namespace

std::vector<OpCase> normalizationOpCases() {
  return std::vector<OpCase>(std::begin(kNormalizationCases),
                             std::end(kNormalizationCases));
}

} // namespace nn::testing
