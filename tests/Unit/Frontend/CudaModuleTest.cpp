//===- CudaModuleTest.cpp - Modules moved to a GPU ------------------------===//
//
// Module::to(Device::cuda(i)) over the fake driver (tests/Unit/Runtime/
// Inputs/fake_libcuda.c, two GPUs whose addresses fault on the host):
// every parameter, buffer and gradient moves, ties stay tied, requires_grad
// carries over, the state_dict saves the same bytes and loads back, and
// what cannot be done yet (tracing a GPU model) is refused by name. main()
// points NN_CUDA_DRIVER at the fake before anything loads the driver.
//
//===----------------------------------------------------------------------===//

#include "../Runtime/TensorTestUtil.h"
#include "models/ConvNet.h"
#include "models/SimpleMLP.h"
#include "models/TiedModel.h"
#include "nn/Runtime/Safetensors.h"
#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace nn;
using nn::test::valuesOf;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

TEST(CudaModuleTest, ToMovesEveryParameterBufferAndGradient) {
  models::ConvNet model; // BatchNorm: running stats and a counter
  std::string saved = serialize_safetensors(model->state_dict());
  Tensor first = model->parameters()[0];
  first.set_grad(Tensor::from_vector<float>(
      std::vector<float>(first.numel(), 1.0f), first.shape()));
  EXPECT_EQ(&model->to(Device::cuda(1)), model.get());
  for (const auto &[name, t] : model->state_dict())
    EXPECT_EQ(t.device(), Device::cuda(1)) << name;
  for (const Tensor &p : model->parameters())
    EXPECT_TRUE(p.requires_grad());
  EXPECT_EQ(model->parameters()[0].grad().device(), Device::cuda(1));
  // The same file as from the CPU.
  EXPECT_EQ(serialize_safetensors(model->state_dict()), saved);
  model->zero_grad(/*set_to_none=*/false);
  EXPECT_THAT(valuesOf(model->parameters()[0].grad()), ::testing::Each(0.0));
  model->to(Device::cpu());
  EXPECT_EQ(serialize_safetensors(model->state_dict()), saved);
}

TEST(CudaModuleTest, TiesStayTied) {
  models::TiedModel model;
  model->to(Device::cuda());
  EXPECT_EQ(model->encoder->weight.device(), Device::cuda(0));
  EXPECT_TRUE(model->decoder->weight.shares_storage(model->encoder->weight));
  EXPECT_EQ(model->parameters().size(), 3u); // one weight, two biases
}

TEST(CudaModuleTest, LoadStateDictIntoAGpuModel) {
  models::SimpleMLP source, target;
  target->to(Device::cuda(1));
  target->load_state_dict(source->state_dict());
  EXPECT_EQ(target->fc2->weight.device(), Device::cuda(1));
  EXPECT_EQ(valuesOf(target->fc2->weight), valuesOf(source->fc2->weight));
}

TEST(CudaModuleTest, AMissingGpuIsNamedAndNothingMoves) {
  models::SimpleMLP model;
  Tensor weight = model->fc1->weight;
  EXPECT_THAT([&] { model->to(Device::cuda(2)); },
              ThrowsMessage<Error>(StrEq("SimpleMLP.to(cuda:2): device 2 "
                                         "requested, 2 devices present")));
  EXPECT_TRUE(model->fc1->weight.shares_storage(weight));
}

TEST(CudaModuleTest, TracingAGpuModelIsRefusedByName) {
  models::SimpleMLP model;
  model->to(Device::cuda());
  EXPECT_THAT(
      [&] {
        nn::trace(model, {TensorSpec({4, 784})});
      },
      ThrowsMessage<Error>(
          StrEq("nn::trace: fc1.weight is on cuda:0, and nn traces and "
                "compiles models on the CPU until its CUDA backend lands; "
                "move the model with to(Device::cpu())")));
}

} // namespace

int main(int argc, char **argv) {
  setenv("NN_CUDA_DRIVER", NN_TEST_FAKE_CUDA_DRIVER_PATH, 1);
  setenv("NN_FAKE_CUDA_DEVICES", "2", 1);
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
