//===- ModuleStateTest.cpp - state_dict, load_state_dict, to --------------===//
//
// state_dict() order and contents, the all-or-nothing load_state_dict() with
// every problem in one message, and conversions in place (to(dtype),
// to(device)) that keep ties tied.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "models/SimpleMLP.h"
#include "nn/Runtime/Cuda.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace nn;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

using nn::testing::names;

/// A Linear, a parameter and two buffers (one int64, one non-persistent).
struct StatefulImpl : Cloneable<StatefulImpl> {
  StatefulImpl() : Cloneable("Stateful") {
    fc = register_module("fc", Linear(2, 2));
    register_buffer("steps", Tensor::zeros({}, DType::i64));
    register_parameter("scale", Tensor::from_vector<float>({1, 2}, {2}));
    register_buffer("cache", Tensor::zeros({2}), /*persistent=*/false);
  }
  Linear fc{nullptr};
};
NN_MODULE(Stateful);

/// b's weight is a's.
struct TiedImpl : Cloneable<TiedImpl> {
  TiedImpl() : Cloneable("Tied") {
    a = register_module("a", Linear(2, 2));
    b = register_module("b", Linear(2, 2));
    b->weight = a->weight;
  }
  Linear a{nullptr}, b{nullptr};
};
NN_MODULE(Tied);

/// A copy of every tensor of `state` with each element set to `value`.
StateDict filled(const StateDict &state, float value) {
  StateDict result;
  for (const auto &[name, t] : state) {
    Tensor copy = Tensor::zeros(t.shape(), t.dtype());
    if (t.dtype() == DType::f32)
      for (int64_t i = 0; i < copy.numel(); ++i)
        copy.data_ptr<float>()[i] = value;
    result.insert(name, copy);
  }
  return result;
}

class ModuleStateTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

//===----------------------------------------------------------------------===//
// state_dict
//===----------------------------------------------------------------------===//

TEST_F(ModuleStateTest, StateDictHasParametersThenBuffersThenChildren) {
  // PyTorch: own parameters, own persistent buffers, then each child's.
  Stateful model;
  EXPECT_THAT(model->state_dict().keys(),
              ElementsAre("scale", "steps", "fc.weight", "fc.bias"));
}

TEST_F(ModuleStateTest, StateDictSharesStorageWithTheModule) {
  Stateful model;
  EXPECT_TRUE(
      model->state_dict().at("fc.weight").shares_storage(model->fc->weight));
}

//===----------------------------------------------------------------------===//
// load_state_dict
//===----------------------------------------------------------------------===//

TEST_F(ModuleStateTest, StrictLoadListsEveryProblem) {
  models::SimpleMLP model;
  StateDict state = model->state_dict();
  StateDict bad;
  for (const auto &[name, tensor] : state)
    if (name != "fc1.bias" && name != "fc2.weight" && name != "fc3.bias")
      bad.insert(name, tensor.clone());
  bad.insert("fc2.weight", Tensor::zeros({3, 3}));
  bad.insert("fc3.bias", Tensor::zeros({10}, DType::f64));
  bad.insert("head.weight", Tensor::zeros({1}));
  EXPECT_THAT([&] { model->load_state_dict(bad); },
              ThrowsMessage<Error>(StrEq(
                  "Error(s) in loading state_dict for SimpleMLP:\n"
                  "\tMissing key(s) in state_dict: \"fc1.bias\".\n"
                  "\tUnexpected key(s) in state_dict: \"head.weight\".\n"
                  "\tsize mismatch for fc2.weight: copying a param with shape "
                  "3x3 from checkpoint, the shape in current model is "
                  "256x256.\n"
                  "\tdtype mismatch for fc3.bias: copying a param of dtype "
                  "float64 from checkpoint, the dtype in current model is "
                  "float32.")));
}

TEST_F(ModuleStateTest, NonStrictLoadReturnsMissingAndUnexpected) {
  Linear fc(2, 2);
  StateDict state;
  state.insert("weight", Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  state.insert("extra", Tensor::zeros({1}));
  LoadResult result = fc->load_state_dict(state, /*strict=*/false);
  EXPECT_THAT(result.missing_keys, ElementsAre("bias"));
  EXPECT_THAT(result.unexpected_keys, ElementsAre("extra"));
  EXPECT_EQ(fc->weight.data_ptr<float>()[3], 4.0f);
}

TEST_F(ModuleStateTest, NonStrictLoadStillRefusesAShapeMismatch) {
  Linear fc(2, 2);
  StateDict state;
  state.insert("bias", Tensor::zeros({3}));
  EXPECT_THAT([&] { fc->load_state_dict(state, /*strict=*/false); },
              ThrowsMessage<Error>(StrEq(
                  "Error(s) in loading state_dict for Linear:\n"
                  "\tsize mismatch for bias: copying a param with shape 3 "
                  "from checkpoint, the shape in current model is 2.")));
}

TEST_F(ModuleStateTest, LoadCopiesIntoExistingStorage) {
  Linear fc(2, 2);
  Tensor before = fc->weight;
  fc->load_state_dict(filled(fc->state_dict(), 0.0f));
  EXPECT_TRUE(fc->weight.shares_storage(before));
  EXPECT_EQ(before.data_ptr<float>()[0], 0.0f);
}

TEST_F(ModuleStateTest, LoadKeepsTiesTied) {
  Tied model;
  model->load_state_dict(filled(model->state_dict(), 7.0f));
  EXPECT_TRUE(model->b->weight.shares_storage(model->a->weight));
  EXPECT_EQ(model->a->weight.data_ptr<float>()[0], 7.0f);
}

TEST_F(ModuleStateTest, LoadRefusesDifferentValuesForTiedKeys) {
  Tied model;
  StateDict state = filled(model->state_dict(), 1.0f);
  state.at("b.weight").data_ptr<float>()[2] = 5.0f;
  EXPECT_THAT([&] { model->load_state_dict(state); },
              ThrowsMessage<Error>(StrEq(
                  "Error(s) in loading state_dict for Tied:\n"
                  "\ttied tensors a.weight and b.weight share storage in the "
                  "model, but the checkpoint holds different values for "
                  "them.")));
}

TEST_F(ModuleStateTest, LoadRefusesAnotherDtype) {
  Linear fc(2, 2);
  fc->to(DType::f16);
  EXPECT_THAT(
      [&] { fc->load_state_dict(filled(Linear(2, 2)->state_dict(), 1)); },
      ThrowsMessage<Error>(
          StrEq("Error(s) in loading state_dict for Linear:\n"
                "\tdtype mismatch for weight: copying a param of dtype "
                "float32 from checkpoint, the dtype in current model is "
                "float16.\n"
                "\tdtype mismatch for bias: copying a param of dtype "
                "float32 from checkpoint, the dtype in current model is "
                "float16.")));
}

TEST_F(ModuleStateTest, FailedLoadChangesNothing) {
  // PyTorch would have copied fc1..fc3 before failing on the last key; we
  // check everything first.
  models::SimpleMLP model;
  StateDict before;
  for (const auto &[name, t] : model->state_dict())
    before.insert(name, t.clone());
  StateDict state = filled(model->state_dict(), 3.0f);
  state.insert_or_assign("fc3.bias", Tensor::zeros({11}));
  EXPECT_THROW(model->load_state_dict(state), Error);
  for (const auto &[name, t] : model->state_dict())
    for (int64_t i = 0; i < t.numel(); ++i)
      ASSERT_EQ(t.item_as_double(i), before.at(name).item_as_double(i)) << name;
}

TEST_F(ModuleStateTest, NonPersistentBufferInTheDictIsUnexpected) {
  Stateful model;
  StateDict state = filled(model->state_dict(), 1.0f);
  state.insert("cache", Tensor::zeros({2}));
  LoadResult result = model->load_state_dict(state, /*strict=*/false);
  EXPECT_THAT(result.unexpected_keys, ElementsAre("cache"));
  EXPECT_THAT(result.missing_keys, IsEmpty());
}

//===----------------------------------------------------------------------===//
// to(dtype), to(device)
//===----------------------------------------------------------------------===//

TEST_F(ModuleStateTest, ToConvertsFloatingPointParametersAndBuffers) {
  Stateful model;
  model->to(DType::f64);
  EXPECT_EQ(model->fc->weight.dtype(), DType::f64);
  EXPECT_EQ(model->get_parameter("scale").dtype(), DType::f64);
  EXPECT_EQ(model->get_buffer("cache").dtype(), DType::f64);
  EXPECT_EQ(model->get_parameter("scale").item_as_double(1), 2.0);
}

TEST_F(ModuleStateTest, ToLeavesIntegerBuffersAlone) {
  Stateful model;
  Tensor steps = model->get_buffer("steps");
  model->to(DType::bf16);
  EXPECT_TRUE(model->get_buffer("steps").shares_storage(steps));
  EXPECT_EQ(model->get_buffer("steps").dtype(), DType::i64);
}

TEST_F(ModuleStateTest, ToUpdatesMemberBackedParameters) {
  Linear fc(3, 2);
  double first = fc->weight.item_as_double(0);
  fc->to(DType::f64);
  EXPECT_EQ(fc->weight.dtype(), DType::f64);
  EXPECT_EQ(fc->weight.item_as_double(0), first);
  EXPECT_EQ(&fc->get_parameter("weight"), &fc->weight);
}

TEST_F(ModuleStateTest, ToKeepsTiesTied) {
  Tied model;
  model->to(DType::f16);
  EXPECT_EQ(model->b->weight.dtype(), DType::f16);
  EXPECT_TRUE(model->b->weight.shares_storage(model->a->weight));
  EXPECT_THAT(names(model->named_parameters()),
              ElementsAre("a.weight", "a.bias", "b.bias"));
}

TEST_F(ModuleStateTest, ToKeepsRequiresGradAndConvertsGradients) {
  Linear fc(2, 2);
  fc->bias.requires_grad_(false);
  fc->weight.set_grad(Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  fc->to(DType::f64);
  EXPECT_TRUE(fc->weight.requires_grad());
  EXPECT_FALSE(fc->bias.requires_grad());
  EXPECT_EQ(fc->weight.grad().dtype(), DType::f64);
  EXPECT_EQ(fc->weight.grad().item_as_double(3), 4.0);
}

TEST_F(ModuleStateTest, ToRefusesNonFloatingPointDtypes) {
  Linear fc(2, 2);
  EXPECT_THAT([&] { fc->to(DType::i32); },
              ThrowsMessage<Error>(StrEq(
                  "Linear.to(int32): modules convert only to floating point "
                  "dtypes (float32, float64, float16, bfloat16)")));
}

TEST_F(ModuleStateTest, ToCpuChangesNothing) {
  Linear fc(2, 2);
  Tensor weight = fc->weight;
  EXPECT_EQ(&fc->to(Device::cpu()), fc.get());
  EXPECT_TRUE(fc->weight.shares_storage(weight));
}

TEST_F(ModuleStateTest, ToCudaWithoutADriverSaysWhy) {
  if (cuda::is_available())
    GTEST_SKIP() << "this machine has a GPU; CudaModuleTests move modules";
  models::SimpleMLP model;
  Tensor weight = model->fc1->weight;
  EXPECT_THAT([&] { model->to(Device::cuda()); },
              ThrowsMessage<Error>(
                  StartsWith("SimpleMLP.to(cuda:0): no CUDA driver found: ")));
  EXPECT_TRUE(model->fc1->weight.shares_storage(weight));
}

} // namespace
