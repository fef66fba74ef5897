//===- TraceConstantTest.cpp - Tensors made in forward, compiled ----------===//
//
// A concrete tensor that forward uses and that is no state of the model (an
// index list, a mask, position ids) is a constant of the trace: compiled in
// process and ahead of time with the values it had when traced, and no
// gradient flows into it while the gradients around it are PyTorch's.
//
//===----------------------------------------------------------------------===//

#include "nn/nn.h"

#include "gtest/gtest.h"

#include <filesystem>

using namespace nn;

namespace {

std::vector<float> values(const Tensor &t) {
  const float *data = t.data_ptr<float>();
  return std::vector<float>(data, data + t.numel());
}

/// forward(x [2, 4]) = x[:, [3, 0]] * [10, 100] where mask, else -x[:, [3, 0]]
/// ; the index, the scale and the mask are made in forward.
class PickerImpl : public Cloneable<PickerImpl> {
public:
  PickerImpl() : Cloneable("Picker") {}
  Tensor forward(const Tensor &x) {
    Tensor index = Tensor::from_vector<int64_t>({3, 0}, {2});
    Tensor scale = Tensor::from_vector<float>({10, 100}, {2});
    Tensor mask = Tensor::from_vector<bool>({true, false, false, true}, {2, 2});
    Tensor picked = F::index_select(x, 1, index);
    return F::where(mask, picked * scale, -picked);
  }
};
NN_MODULE(Picker);

const std::vector<float> kInput = {1, 2, 3, 4, 5, 6, 7, 8};
const std::vector<float> kExpected = {40, -1, -8, 500};

TEST(TraceConstantTest, ConstantsMadeInForwardCompileInProcess) {
  Picker model;
  auto outputs = compile(trace(model, {TensorSpec({2, 4})}))
                     ->run({Tensor::from_vector<float>(kInput, {2, 4})});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(values((*outputs)[0]), kExpected);
}

TEST(TraceConstantTest, ConstantsMadeInForwardAreInTheSharedObject) {
  Picker model;
  std::string dir = ::testing::TempDir() + "/nn_trace_constants";
  std::filesystem::create_directories(dir);
  compile_to_file(trace(model, {TensorSpec({2, 4})}), dir + "/picker.so");
  auto artifact = Artifact::load(dir + "/picker.so");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_TRUE((*artifact)->description().state.empty());
  ASSERT_TRUE((*artifact)->bind(StateDict()).ok());
  auto outputs = (*artifact)->run({Tensor::from_vector<float>(kInput, {2, 4})});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(values((*outputs)[0]), kExpected);
  std::filesystem::remove_all(dir);
}

/// GPT-2's positions: wpe(arange(T)) with the ids made in forward, scaled
/// per channel by a constant.
class PositionsImpl : public Cloneable<PositionsImpl> {
public:
  PositionsImpl() : Cloneable("Positions") {
    wpe = register_module("wpe", Embedding(8, 3));
  }
  Tensor forward(const Tensor &x) {
    std::vector<int64_t> ids(x.size(1));
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = static_cast<int64_t>(i);
    Tensor position_ids = Tensor::from_vector<int64_t>(ids, {1, x.size(1)});
    Tensor channel_scale = Tensor::from_vector<float>({1, 2, 3}, {3});
    return (x + wpe(position_ids)) * channel_scale;
  }
  Embedding wpe{nullptr};
};
NN_MODULE(Positions);

// d(sum((x + wpe(arange(T))) * [1, 2, 3]))/d wpe.weight: the scale, twice
// (both rows of the batch), in the first T rows, zeros below (PyTorch's
// embedding backward); the constants get no gradient.
TEST(TraceConstantTest, GradientsFlowAroundConstants) {
  Positions model;
  TrainStep step(model,
                 [](const Tensor &out, const Tensor &) { return F::sum(out); },
                 {TensorSpec({2, 5, 3})}, {TensorSpec({1})});
  model->wpe->weight.set_grad({});
  step.forward_backward(Tensor::zeros({2, 5, 3}), Tensor::zeros({1}));
  const Tensor &grad = model->wpe->weight.grad();
  ASSERT_TRUE(grad.defined());
  std::vector<float> expected(8 * 3, 0.0f);
  for (int i = 0; i < 5 * 3; ++i)
    expected[i] = 2.0f * static_cast<float>(i % 3 + 1);
  EXPECT_EQ(values(grad), expected);
}

} // namespace
