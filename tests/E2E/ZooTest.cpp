//===- ZooTest.cpp - torchvision's architectures against PyTorch ----------===//
//
// Each model of examples/zoo against torchvision 0.14's
// (tests/reference/generate_architecture_goldens.py): its state_dict keys,
// dtypes and shapes, its print(model), and its eval forward on 224x224
// images at batch 1 and 8, compiled in process and ahead of time. Weights
// and images are DeterministicValues.h's, filled in by state_dict key and
// loaded strictly, as PyTorch's own files would be.
//
//===----------------------------------------------------------------------===//

#include "DeterministicValues.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "zoo/BERT.h"
#include "zoo/EfficientNet.h"
#include "zoo/GPT2.h"
#include "zoo/MobileNetV2.h"
#include "zoo/ResNet.h"
#include "zoo/SqueezeNet.h"
#include "zoo/VisionTransformer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

namespace nn::testing {
namespace {

const std::string kGoldens =
    NN_SOURCE_DIR "/tests/reference/goldens/architectures/";

/// A model of the zoo, made and called.
struct Instance {
  std::shared_ptr<Module> module;
  /// Its forward through its holder, the outputs flattened.
  std::function<std::vector<Tensor>(const Tensor &)> forward;
};

struct ZooModel {
  std::string name;
  std::function<Instance()> make;
  /// The gain of its weights (generate_architecture_goldens.py's MODELS).
  double gain;
  /// 0 for 224x224 images; the vocabulary of its 16 token ids otherwise.
  int64_t vocab = 0;
  /// How TrainModeGradientsMatchPyTorch runs it: in f32, as accurate as
  /// PyTorch's float32 run, or in f64, to the float64 answer (nn's float32
  /// gradients of the convolutional networks are up to 100 times further
  /// from it than PyTorch's; in float64 they agree to 1e-14), or, when
  /// unset, not in the suite, for `trainSkip`.
  std::optional<DType> trainDType = DType::f32;
  const char *trainSkip = "";

  /// Its input at `batch` (the first `batch` of the generator's eight).
  Tensor input(int64_t batch) const {
    return vocab ? deterministicTokenIds({batch, 16}, vocab)
                 : deterministicImages({batch, 3, 224, 224});
  }
  TensorSpec spec(int64_t batch) const {
    return vocab ? TensorSpec({batch, 16}, DType::i64)
                 : TensorSpec({batch, 3, 224, 224});
  }
  /// The training case's two images (in trainDType) or sequences.
  Tensor trainInput() const {
    return vocab ? deterministicTokenIds({2, 16}, vocab)
                 : deterministicImages({2, 3, 224, 224}).to(*trainDType);
  }
};

/// gtest prints a model by its name.
void PrintTo(const ZooModel &model, std::ostream *os) { *os << model.name; }

template <typename Make> std::function<Instance()> instance(Make make) {
  return [make] {
    auto holder = make();
    return Instance{holder.ptr(), [holder](const Tensor &x) {
                      return detail::flatten_outputs(holder(x));
                    }};
  };
}

std::string readText(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// "key dtype [d0, d1]" a line, as the generator writes keys.txt.
std::string keysText(const Module &model) {
  std::string text;
  for (const auto &[key, tensor] : model.state_dict()) {
    text += key + " " + std::string(dtype_name(tensor.dtype())) + " [";
    for (int64_t d = 0; d < tensor.dim(); ++d)
      text += (d ? ", " : "") + std::to_string(tensor.size(d));
    text += "]\n";
  }
  return text;
}

class ZooTest : public ::testing::TestWithParam<ZooModel> {
protected:
  /// The model with the deterministic weights, in eval mode.
  Instance loadedModel() {
    Instance model = GetParam().make();
    LoadResult loaded = model.module->load_state_dict(
        deterministicState(*model.module, GetParam().gain), /*strict=*/true);
    EXPECT_TRUE(loaded.missing_keys.empty() && loaded.unexpected_keys.empty());
    model.module->eval();
    return model;
  }

  TracedModule traceAt(const Instance &model, int64_t batch) {
    return trace(*model.module, {GetParam().spec(batch)},
                 [&](const std::vector<Tensor> &inputs) {
                   return model.forward(inputs[0]);
                 });
  }

  /// Expects nn's float32 outputs at `batch` to be as accurate as
  /// PyTorch's: for each image or sequence, each output's largest distance
  /// from the float64 answer at most 4 times PyTorch's float32 one (plus
  /// torch.testing's float32 atol, which also covers the answer's rounding
  /// to float32). Deep networks of float32 convolutions and matmuls lose
  /// digits whatever the summation order; how many depends on the model and
  /// the image (PyTorch's own error is 1e-7 of the output's size for
  /// squeezenet1_1, 3e-5 for mobilenet_v2), so the bound is PyTorch's, not
  /// a fixed tolerance. One summation order's error is a sample of a
  /// distribution: over the 162 rows of these models nn's measured 0.3 to
  /// 2.3 times PyTorch's (3.5 where both are below 1e-6), and a wrong op
  /// (BERT with tanh-approximated GELU) 100 times.
  void expectAsAccurateAsPyTorch(const std::vector<Tensor> &outputs,
                                 int64_t batch) {
    auto golden =
        load_safetensors(kGoldens + GetParam().name + "/outputs.safetensors");
    ASSERT_TRUE(golden.ok()) << golden.status();
    size_t count = 0;
    while (golden->tensors.contains("output." + std::to_string(count)))
      ++count;
    ASSERT_EQ(outputs.size(), count);
    for (size_t i = 0; i < count; ++i) {
      std::string name = "output." + std::to_string(i);
      const Tensor &answer = golden->tensors.at(name);
      const Tensor &actual = outputs[i];
      Shape shape = answer.shape();
      shape[0] = batch;
      ASSERT_EQ(actual.shape(), shape) << name;
      ASSERT_EQ(actual.dtype(), DType::f32) << name;
      const Tensor &theirErrors = golden->tensors.at(
          "batch" + std::to_string(batch) + "." + name + ".pytorch_error");
      ASSERT_EQ(theirErrors.shape(), Shape{batch}) << name;
      // Each image's (or sequence's) max |actual - answer| against
      // PyTorch's for it: the answer's first rows are the batch's.
      const float *a = actual.data_ptr<float>(), *e = answer.data_ptr<float>();
      int64_t row = actual.numel() / batch;
      for (int64_t r = 0; r < batch; ++r) {
        double ourError = 0, theirError = theirErrors.data_ptr<double>()[r];
        for (int64_t j = r * row; j < (r + 1) * row; ++j)
          ourError = std::max(ourError, std::abs(static_cast<double>(a[j]) -
                                                 static_cast<double>(e[j])));
        EXPECT_LE(ourError, 4 * theirError + 1e-5)
            << GetParam().name << " " << name << " at batch " << batch
            << ", row " << r << ": nn's float32 output is " << ourError
            << " from the float64 answer at most, PyTorch's " << theirError;
      }
    }
  }
};

/// "a,b,c" split at the commas.
std::vector<std::string> splitNames(const std::string &list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');)
    names.push_back(name);
  return names;
}

/// (sum(t * P), |t|_2) in float64 for each of `named`, P =
/// deterministicUniform(prefix + name): what the generator's summaries()
/// computes.
std::pair<std::vector<double>, std::vector<double>>
summaries(const std::vector<Module::NamedTensor> &named,
          const std::string &prefix) {
  std::vector<double> dots, norms;
  for (const auto &[name, tensor] : named) {
    Tensor pattern = deterministicUniform(prefix + name, tensor.shape());
    Tensor wide = tensor.to(DType::f64);
    const double *t = wide.data_ptr<double>();
    const float *p = pattern.data_ptr<float>();
    double dot = 0, square = 0;
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      dot += t[i] * static_cast<double>(p[i]);
      square += t[i] * t[i];
    }
    dots.push_back(dot);
    norms.push_back(std::sqrt(square));
  }
  return {dots, norms};
}

/// The float64 entries of `t`.
std::vector<double> valuesOf(const Tensor &t) {
  return std::vector<double>(t.data_ptr<double>(),
                             t.data_ptr<double>() + t.numel());
}

/// Expects each of `ours` within 4 times PyTorch's float32 error
/// ("<key>.pytorch_error") of the float64 answer `key` (as the forward
/// tests), or 1e-5 of the answer.
void expectNearAnswer(const StateDict &expected, const std::string &key,
                      const std::vector<double> &ours,
                      const std::vector<std::string> &names) {
  std::vector<double> answer = valuesOf(expected.at(key)),
                      theirs = valuesOf(expected.at(key + ".pytorch_error"));
  ASSERT_EQ(answer.size(), ours.size()) << key;
  for (size_t i = 0; i < ours.size(); ++i)
    EXPECT_LE(std::abs(ours[i] - answer[i]),
              4 * theirs[i] + 1e-5 * std::abs(answer[i]))
        << key << " of " << names[i] << ": nn " << ours[i]
        << ", the float64 answer " << answer[i] << ", PyTorch's float32 "
        << theirs[i] << " from it";
}

/// Expects each of `ours`, computed in float64, within 1e-9 of the float64
/// answer `key` (relative to it, or to the largest answer for those near
/// zero: a gradient that is zero in exact arithmetic is rounding noise).
void expectEqualToFloat64(const StateDict &expected, const std::string &key,
                          const std::vector<double> &ours,
                          const std::vector<std::string> &names) {
  std::vector<double> answer = valuesOf(expected.at(key));
  ASSERT_EQ(answer.size(), ours.size()) << key;
  double largest = 0;
  for (double a : answer)
    largest = std::max(largest, std::abs(a));
  for (size_t i = 0; i < ours.size(); ++i)
    EXPECT_LE(std::abs(ours[i] - answer[i]),
              1e-9 * (std::abs(answer[i]) + 1e-3 * largest))
        << key << " of " << names[i] << ": nn " << ours[i]
        << ", the float64 answer " << answer[i];
}

/// Expects the summaries (dot, norm) of `kind` ("grad" or "buffer") as
/// accurate as PyTorch's. A tensor's float32 error scales with its norm, and
/// how much it does is the model's (a batch norm's few samples amplify
/// rounding): so each may be 4 times off as PyTorch's own, or 4 times
/// PyTorch's median error per norm times its norm, whichever is larger; and
/// a gradient that is zero in exact arithmetic (a bias before a batch norm
/// that removes it) 1e-6 of the largest norm, the noise of the float32 sums
/// it comes from.
void expectSummariesMatch(
    const StateDict &expected, const std::string &kind,
    const std::pair<std::vector<double>, std::vector<double>> &ours,
    const std::vector<std::string> &names) {
  std::vector<double> norm = valuesOf(expected.at(kind + ".norm"));
  ASSERT_EQ(norm.size(), names.size()) << kind;
  std::vector<double> relative;
  double largest = 0;
  for (const char *summary : {".dot", ".norm"}) {
    std::vector<double> theirs =
        valuesOf(expected.at(kind + summary + ".pytorch_error"));
    for (size_t i = 0; i < norm.size(); ++i)
      if (norm[i] > 0)
        relative.push_back(theirs[i] / norm[i]);
  }
  for (double n : norm)
    largest = std::max(largest, n);
  std::nth_element(relative.begin(), relative.begin() + relative.size() / 2,
                   relative.end());
  double typical = relative.empty() ? 0 : relative[relative.size() / 2];
  for (const char *summary : {".dot", ".norm"}) {
    std::string key = kind + summary;
    std::vector<double> answer = valuesOf(expected.at(key)),
                        theirs = valuesOf(expected.at(key + ".pytorch_error"));
    const std::vector<double> &value =
        std::string(summary) == ".dot" ? ours.first : ours.second;
    ASSERT_EQ(value.size(), names.size()) << key;
    for (size_t i = 0; i < names.size(); ++i) {
      double bound =
          4 * std::max(theirs[i], typical * norm[i]) + 1e-6 * largest;
      EXPECT_LE(std::abs(value[i] - answer[i]), bound)
          << key << " of " << names[i] << ": nn " << value[i]
          << ", the float64 answer " << answer[i] << ", PyTorch's float32 "
          << theirs[i] << " from it (norm " << norm[i] << ")";
    }
  }
}

TEST_P(ZooTest, KeysAndReprArePyTorchs) {
  Instance model = GetParam().make();
  EXPECT_EQ(keysText(*model.module),
            readText(kGoldens + GetParam().name + "/keys.txt"));
  std::ostringstream repr;
  repr << *model.module << "\n";
  EXPECT_EQ(repr.str(), readText(kGoldens + GetParam().name + "/repr.txt"));
}

TEST_P(ZooTest, CompiledForwardMatchesPyTorch) {
  Instance model = loadedModel();
  for (int64_t batch : {1, 8}) {
    auto outputs =
        compile(traceAt(model, batch))->run({GetParam().input(batch)});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    expectAsAccurateAsPyTorch(*outputs, batch);
  }
}

TEST_P(ZooTest, SharedObjectForwardMatchesPyTorch) {
  Instance model = loadedModel();
  std::string dir = ::testing::TempDir() + "/nn_zoo_" + GetParam().name;
  std::filesystem::create_directories(dir);
  for (int64_t batch : {1, 8}) {
    std::string path = dir + "/b" + std::to_string(batch) + ".so";
    compile_to_file(traceAt(model, batch), path);
    auto artifact = Artifact::load(path);
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    ASSERT_TRUE(
        (*artifact)->bind(model.module->state_dict(), /*strict=*/true).ok());
    auto outputs = (*artifact)->run({GetParam().input(batch)});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    expectAsAccurateAsPyTorch(*outputs, batch);
  }
  std::filesystem::remove_all(dir);
}

// Training mode: the batch norms normalize with the batch's statistics and
// update their running ones (every other module evaluates: dropout's masks
// are not PyTorch's); the loss sum(output.0 * R) differentiated by
// nn-autodiff. Each gradient and running statistic is compared through two
// summaries (generate_architecture_goldens.py) with the float64 answer, as
// accurate as PyTorch's float32 run is.
TEST_P(ZooTest, TrainModeGradientsMatchPyTorch) {
  const ZooModel &zooModel = GetParam();
  if (!zooModel.trainDType)
    GTEST_SKIP() << zooModel.trainSkip;
  DType dtype = *zooModel.trainDType;
  auto golden =
      load_safetensors(kGoldens + zooModel.name + "/train.safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const StateDict &expected = golden->tensors;
  Instance model = loadedModel();
  model.module->to(dtype);
  for (auto &[name, module] : model.module->named_modules())
    if (module->name().rfind("BatchNorm", 0) == 0)
      module->train();
  Tensor input = zooModel.trainInput();
  Shape outputShape;
  for (const std::string &d : splitNames(golden->metadata.at("output_shape")))
    outputShape.push_back(std::stoll(d));
  Tensor weight = deterministicUniform("train.R", outputShape).to(dtype);
  TrainStep step(
      model.module,
      [&model](const std::vector<Tensor> &in) { return model.forward(in[0]); },
      [](const Tensor &out, const Tensor &r) { return F::sum(out * r); },
      {TensorSpec(input.shape(), input.dtype())},
      {TensorSpec(outputShape, dtype)});
  double loss = step.forward_backward(input, weight).item_as_double(0);

  std::vector<Module::NamedTensor> grads, stats;
  std::vector<std::string> paramNames, statNames;
  // Those the loss reaches: the others have none, as in PyTorch.
  for (auto &[name, p] : model.module->named_parameters())
    if (p.grad().defined()) {
      grads.push_back({name, p.grad()});
      paramNames.push_back(name);
    }
  for (auto &[name, b] : model.module->named_buffers())
    if (name.ends_with("running_mean") || name.ends_with("running_var")) {
      stats.push_back({name, b});
      statNames.push_back(name);
    }
  ASSERT_EQ(paramNames, splitNames(golden->metadata.at("parameters")));
  ASSERT_EQ(statNames, splitNames(golden->metadata.at("buffers")));
  auto gradSummaries = summaries(grads, "train.");
  auto statSummaries = summaries(stats, "train.");
  if (dtype == DType::f64) {
    expectEqualToFloat64(expected, "loss", {loss}, {"the loss"});
    expectEqualToFloat64(expected, "grad.dot", gradSummaries.first, paramNames);
    expectEqualToFloat64(expected, "grad.norm", gradSummaries.second,
                         paramNames);
    expectEqualToFloat64(expected, "buffer.dot", statSummaries.first,
                         statNames);
    expectEqualToFloat64(expected, "buffer.norm", statSummaries.second,
                         statNames);
    return;
  }
  expectNearAnswer(expected, "loss", {loss}, {"the loss"});
  expectSummariesMatch(expected, "grad", gradSummaries, paramNames);
  if (!stats.empty())
    expectSummariesMatch(expected, "buffer", statSummaries, statNames);
}

/// Why the larger convolutional networks have no training case in the suite
/// (their goldens are committed; set trainDType to run one).
constexpr const char *kSlowTrainCase =
    "not in the suite: in float64 the step takes 1.5-3 minutes on two "
    "cores, and in float32 any implementation's gradients of these networks "
    "are about 1% from the float64 answer (PyTorch's as nn's: float32 "
    "rounding moves values across ReLU6's kinks and between the "
    "near-equal maxima of a pooling window), too far apart for a golden";

INSTANTIATE_TEST_SUITE_P(
    Torchvision, ZooTest,
    ::testing::Values(
        ZooModel{"resnet18", instance([] { return zoo::resnet18(); }), 3.0, 0,
                 DType::f64},
        ZooModel{"resnet50", instance([] { return zoo::resnet50(); }), 3.0, 0,
                 std::nullopt, kSlowTrainCase},
        ZooModel{"mobilenet_v2", instance([] { return zoo::mobilenet_v2(); }),
                 6.0, 0, std::nullopt, kSlowTrainCase},
        ZooModel{"squeezenet1_1", instance([] { return zoo::squeezenet1_1(); }),
                 6.0, 0, DType::f64},
        ZooModel{"efficientnet_b0",
                 instance([] { return zoo::efficientnet_b0(); }), 6.0, 0,
                 std::nullopt, kSlowTrainCase},
        ZooModel{"vit_b_16_2_layers", instance([] {
                   return zoo::VisionTransformer(zoo::VisionTransformerOptions(
                       224, 16, 2, 12, 768, 3072));
                 }),
                 3.0}),
    [](const auto &info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    HuggingFace, ZooTest,
    ::testing::Values(ZooModel{"gpt2_2_layers", instance([] {
                                 return zoo::GPT2LMHeadModel(
                                     zoo::GPT2Config().vocab_size(2048).n_layer(
                                         2));
                               }),
                               3.0, 2048},
                      ZooModel{"bert_base_2_layers", instance([] {
                                 return zoo::BertModel(
                                     zoo::BertConfig().num_hidden_layers(2));
                               }),
                               3.0, 30522}),
    [](const auto &info) { return info.param.name; });

// The zoo's own checks name the model and what is wrong.
TEST(ZooErrors, BadSizesAndInputsAreNamed) {
  using ::testing::StrEq;
  using ::testing::ThrowsMessage;
  EXPECT_THAT(
      [] {
        zoo::ResNet(zoo::ResNetImpl::Block::Basic,
                    std::vector<int64_t>{2, 2, 2});
      },
      ThrowsMessage<Error>(
          StrEq("ResNet: layers must give the blocks of 4 stages, got 3")));
  EXPECT_THAT(
      [] {
        zoo::VisionTransformer(
            zoo::VisionTransformerOptions(30, 16, 1, 2, 8, 16));
      },
      ThrowsMessage<Error>(StrEq("VisionTransformer: image_size 30 is not a "
                                 "multiple of patch_size 16")));
  EXPECT_THAT([] { zoo::StochasticDepth(0.5, "column"); },
              ThrowsMessage<Error>(StrEq("StochasticDepth: mode has to be "
                                         "either 'batch' or 'row', but got "
                                         "column")));
  zoo::GPT2LMHeadModel gpt2(zoo::GPT2Config()
                                .vocab_size(32)
                                .n_positions(8)
                                .n_embd(8)
                                .n_layer(1)
                                .n_head(2));
  EXPECT_THAT(
      [&] {
        trace(gpt2, {TensorSpec({1, 16}, DType::i64)});
      },
      ThrowsMessage<Error>(::testing::HasSubstr(
          "GPT2Model: 16 tokens, but the model has 8 positions")));
}

} // namespace
} // namespace nn::testing
