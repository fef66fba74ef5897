//===- SeedModelForwardTest.cpp - seed models' forward against PyTorch ----===//
//
// The seed models with attention, and ResNet (examples/models/SeedModels.h),
// with the weights PyTorch's twin has after torch.manual_seed(0)
// (goldens/modules/<Model>.safetensors), compiled in eval mode: their forward
// on the golden input must give PyTorch's output
// (goldens/ops/models/<Model>.safetensors, from tests/reference/ops/models.py).
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include "models/SeedModels.h"

namespace nn::testing {
namespace {

const std::string kGoldens = NN_SOURCE_DIR "/tests/reference/goldens";

const models::ModelCase &seedModel(const std::string &name) {
  for (const models::ModelCase &c : models::seed_models())
    if (c.name == name)
      return c;
  throw Error("no seed model " + name);
}

class SeedModelForwardTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SeedModelForwardTest, CompiledForwardMatchesPyTorchInEval) {
  const models::ModelCase &c = seedModel(GetParam());
  std::shared_ptr<Module> model =
      c.make(/*seed=*/1); // values come from PyTorch
  auto loaded = load(*model, kGoldens + "/modules/" + c.name + ".safetensors",
                     /*strict=*/true);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  model->eval();
  auto golden =
      load_safetensors(kGoldens + "/ops/models/" + c.name + ".safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  auto outputs = compile(c.trace(model))->run({golden->tensors.at("input.0")});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 1u);
  expectClose((*outputs)[0], golden->tensors.at("output.0"), Tolerance(),
              c.name + " output");
}

INSTANTIATE_TEST_SUITE_P(Attention, SeedModelForwardTest,
                         ::testing::Values("TransformerStack",
                                           "TiedEmbeddingLM"),
                         [](const auto &info) { return info.param; });

// Batch norms folded into the convolutions, every conv + bias (+ residual)
// + relu one nn.fused group lowered to one conv kernel call with its
// epilogue.
INSTANTIATE_TEST_SUITE_P(Convolution, SeedModelForwardTest,
                         ::testing::Values("ResNet"),
                         [](const auto &info) { return info.param; });

} // namespace
} // namespace nn::testing
