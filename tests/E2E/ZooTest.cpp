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

  /// Its input at `batch` (the first `batch` of the generator's eight).
  Tensor input(int64_t batch) const {
    return vocab ? deterministicTokenIds({batch, 16}, vocab)
                 : deterministicImages({batch, 3, 224, 224});
  }
  TensorSpec spec(int64_t batch) const {
    return vocab ? TensorSpec({batch, 16}, DType::i64)
                 : TensorSpec({batch, 3, 224, 224});
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

INSTANTIATE_TEST_SUITE_P(
    Torchvision, ZooTest,
    ::testing::Values(
        ZooModel{"resnet18", instance([] { return zoo::resnet18(); }), 3.0},
        ZooModel{"resnet50", instance([] { return zoo::resnet50(); }), 3.0},
        ZooModel{"mobilenet_v2", instance([] { return zoo::mobilenet_v2(); }),
                 6.0},
        ZooModel{"squeezenet1_1", instance([] { return zoo::squeezenet1_1(); }),
                 6.0},
        ZooModel{"efficientnet_b0",
                 instance([] { return zoo::efficientnet_b0(); }), 6.0},
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
