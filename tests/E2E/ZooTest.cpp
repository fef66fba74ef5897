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
#include "gtest/gtest.h"

#include "zoo/EfficientNet.h"
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

struct ZooModel {
  std::string name;
  std::function<AnyModule()> make;
  /// The gain of its weights (generate_architecture_goldens.py's MODELS).
  double gain;
};

/// gtest prints a model by its name.
void PrintTo(const ZooModel &model, std::ostream *os) { *os << model.name; }

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

/// The model's forward traced on images of `shape`.
TracedModule traceAt(const AnyModule &model, const Shape &shape) {
  return trace(*model, {TensorSpec(shape)},
               [&](const std::vector<Tensor> &inputs) {
                 return std::vector<Tensor>{model(inputs[0])};
               });
}

class ZooTest : public ::testing::TestWithParam<ZooModel> {
protected:
  /// The model with the deterministic weights, in eval mode.
  AnyModule loadedModel() {
    AnyModule model = GetParam().make();
    LoadResult loaded = model->load_state_dict(
        deterministicState(*model, GetParam().gain), /*strict=*/true);
    EXPECT_TRUE(loaded.missing_keys.empty() && loaded.unexpected_keys.empty());
    model->eval();
    return model;
  }

  /// The golden output `name` ("batch8", "batch8.float64", ...).
  Tensor golden(const std::string &name) {
    auto outputs =
        load_safetensors(kGoldens + GetParam().name + "/outputs.safetensors");
    if (!outputs.ok())
      throw Error(std::string(outputs.status().message()));
    return outputs->tensors.at(name);
  }

  /// Expects nn's float32 output at `batch` to be as accurate as PyTorch's:
  /// its largest distance from the float64 answer at most twice PyTorch's
  /// float32 one (plus torch.testing's float32 atol). Deep networks of
  /// float32 convolutions lose digits whatever the summation order; how
  /// many depends on the model (PyTorch's own error is 1e-7 of the output's
  /// size for squeezenet1_1, 3e-5 for mobilenet_v2), so the bound is
  /// PyTorch's, not a fixed tolerance.
  void expectAsAccurateAsPyTorch(const Tensor &actual, int64_t batch) {
    std::string name = "batch" + std::to_string(batch);
    Tensor theirs = golden(name), exact = golden(name + ".float64");
    ASSERT_EQ(actual.shape(), exact.shape()) << name;
    ASSERT_EQ(actual.dtype(), DType::f32) << name;
    double ourError = maxError(actual, exact),
           theirError = maxError(theirs, exact);
    EXPECT_LE(ourError, 2 * theirError + 1e-5)
        << GetParam().name << " at batch " << batch
        << ": nn's float32 output is " << ourError
        << " from the float64 answer at most, PyTorch's " << theirError;
  }

  /// max |actual - exact| over the elements.
  static double maxError(const Tensor &actual, const Tensor &exact) {
    const float *a = actual.data_ptr<float>();
    const double *e = exact.data_ptr<double>();
    double error = 0;
    for (int64_t i = 0, n = exact.numel(); i < n; ++i)
      error = std::max(error, std::abs(static_cast<double>(a[i]) - e[i]));
    return error;
  }
};

TEST_P(ZooTest, KeysAndReprArePyTorchs) {
  AnyModule model = GetParam().make();
  EXPECT_EQ(keysText(*model),
            readText(kGoldens + GetParam().name + "/keys.txt"));
  std::ostringstream repr;
  repr << *model << "\n";
  EXPECT_EQ(repr.str(), readText(kGoldens + GetParam().name + "/repr.txt"));
}

TEST_P(ZooTest, CompiledForwardMatchesPyTorch) {
  AnyModule model = loadedModel();
  for (int64_t batch : {1, 8}) {
    Shape shape = {batch, 3, 224, 224};
    auto outputs =
        compile(traceAt(model, shape))->run({deterministicImages(shape)});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    expectAsAccurateAsPyTorch((*outputs)[0], batch);
  }
}

TEST_P(ZooTest, SharedObjectForwardMatchesPyTorch) {
  AnyModule model = loadedModel();
  std::string dir = ::testing::TempDir() + "/nn_zoo_" + GetParam().name;
  std::filesystem::create_directories(dir);
  for (int64_t batch : {1, 8}) {
    Shape shape = {batch, 3, 224, 224};
    std::string path = dir + "/b" + std::to_string(batch) + ".so";
    compile_to_file(traceAt(model, shape), path);
    auto artifact = Artifact::load(path);
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    ASSERT_TRUE((*artifact)->bind(model->state_dict(), /*strict=*/true).ok());
    auto outputs = (*artifact)->run({deterministicImages(shape)});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    expectAsAccurateAsPyTorch((*outputs)[0], batch);
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Torchvision, ZooTest,
    ::testing::Values(
        ZooModel{"resnet18", [] { return zoo::resnet18(); }, 3.0},
        ZooModel{"resnet50", [] { return zoo::resnet50(); }, 3.0},
        ZooModel{"mobilenet_v2", [] { return zoo::mobilenet_v2(); }, 6.0},
        ZooModel{"squeezenet1_1", [] { return zoo::squeezenet1_1(); }, 6.0},
        ZooModel{"efficientnet_b0", [] { return zoo::efficientnet_b0(); }, 6.0},
        ZooModel{"vit_b_16_2_layers",
                 [] {
                   return zoo::VisionTransformer(zoo::VisionTransformerOptions(
                       224, 16, 2, 12, 768, 3072));
                 },
                 3.0}),
    [](const auto &info) { return info.param.name; });

} // namespace
} // namespace nn::testing
