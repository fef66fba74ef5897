//===- ModuleTest.cpp - nn::Module behaviour ------------------------------===//
//
// Registration, traversal, state_dict and printing, checked against what
// torch.nn.Module does for the same models.
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <sstream>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::vector<std::string> names(const auto &pairs) {
  std::vector<std::string> out;
  for (const auto &[name, value] : pairs)
    out.push_back(name);
  return out;
}

class ModuleTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(ModuleTest, NamedParametersInRegistrationOrder) {
  models::SimpleMLP model;
  EXPECT_THAT(names(model->named_parameters()),
              ElementsAre("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                          "fc3.weight", "fc3.bias"));
  EXPECT_THAT(names(model->named_parameters(/*recurse=*/false)), ElementsAre());
}

TEST_F(ModuleTest, NamedModulesIncludeRootFirst) {
  models::SimpleMLP model;
  EXPECT_THAT(names(model->named_modules()),
              ElementsAre("", "fc1", "fc2", "fc3", "dropout"));
  EXPECT_THAT(names(model->named_children()),
              ElementsAre("fc1", "fc2", "fc3", "dropout"));
}

TEST_F(ModuleTest, BiasFalseKeepsAnEmptySlot) {
  Linear fc(LinearOptions(4, 3).bias(false));
  EXPECT_TRUE(fc->has_parameter("bias"));
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_THAT(names(fc->named_parameters()), ElementsAre("weight"));
  EXPECT_THAT(fc->state_dict().keys(), ElementsAre("weight"));
}

TEST_F(ModuleTest, NamesAreValidated) {
  Module m("Net");
  m.register_parameter("w", Tensor::zeros({2}));
  EXPECT_THAT([&] { m.register_parameter("a.b", Tensor::zeros({2})); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("parameter name can't contain \".\", got \"a.b\"")));
  EXPECT_THAT([&] { m.register_buffer("w", Tensor::zeros({2})); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("attribute \"w\" already exists in Net")));
  EXPECT_THAT([&] { m.register_parameter("", Tensor::zeros({2})); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("parameter name can't be empty")));
}

TEST_F(ModuleTest, NonPersistentBuffersStayOutOfStateDict) {
  Module m("Net");
  m.register_buffer("running_mean", Tensor::zeros({3}));
  m.register_buffer("mask", Tensor::zeros({3}), /*persistent=*/false);
  EXPECT_THAT(names(m.named_buffers()), ElementsAre("running_mean", "mask"));
  EXPECT_THAT(m.state_dict().keys(), ElementsAre("running_mean"));
}

TEST_F(ModuleTest, AssigningAMemberTiesParameters) {
  Module net("Net");
  Linear a = net.register_module("a", Linear(4, 4));
  Linear b = net.register_module("b", Linear(4, 4));
  b->weight = a->weight;
  EXPECT_TRUE(b->weight.shares_storage(a->weight));
  // Listed once by named_parameters, under every name by state_dict.
  EXPECT_THAT(names(net.named_parameters()),
              ElementsAre("a.weight", "a.bias", "b.bias"));
  EXPECT_THAT(net.state_dict().keys(),
              ElementsAre("a.weight", "a.bias", "b.weight", "b.bias"));
}

TEST_F(ModuleTest, StrictLoadListsEveryProblem) {
  models::SimpleMLP model;
  StateDict state = model->state_dict();
  StateDict bad;
  for (const auto &[name, tensor] : state)
    if (name != "fc1.bias" && name != "fc2.weight")
      bad.insert(name, tensor.clone());
  bad.insert("fc2.weight", Tensor::zeros({3, 3}));
  bad.insert("head.weight", Tensor::zeros({1}));
  EXPECT_THAT([&] { model->load_state_dict(bad); },
              ::testing::ThrowsMessage<Error>(::testing::StrEq(
                  "Error(s) in loading state_dict for SimpleMLP:\n"
                  "\tMissing key(s) in state_dict: \"fc1.bias\".\n"
                  "\tUnexpected key(s) in state_dict: \"head.weight\".\n"
                  "\tsize mismatch for fc2.weight: copying a param with shape "
                  "3x3 (float32) from checkpoint, the shape in current model "
                  "is 256x256 (float32).")));
}

TEST_F(ModuleTest, NonStrictLoadReturnsMissingAndUnexpected) {
  Linear fc(2, 2);
  StateDict state;
  state.insert("weight", Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  state.insert("extra", Tensor::zeros({1}));
  LoadResult result = fc->load_state_dict(state, /*strict=*/false);
  EXPECT_THAT(result.missing_keys, ElementsAre("bias"));
  EXPECT_THAT(result.unexpected_keys, ElementsAre("extra"));
  EXPECT_EQ(fc->weight.data_ptr<float>()[3], 4.0f);
}

TEST_F(ModuleTest, LoadCopiesIntoExistingStorage) {
  Linear fc(2, 2);
  Tensor before = fc->weight;
  StateDict state = fc->state_dict();
  StateDict fresh;
  for (const auto &[name, t] : state)
    fresh.insert(name, Tensor::zeros(t.shape()));
  fc->load_state_dict(fresh);
  EXPECT_TRUE(fc->weight.shares_storage(before));
  EXPECT_EQ(before.data_ptr<float>()[0], 0.0f);
}

TEST_F(ModuleTest, TrainEvalFlipTheWholeTree) {
  models::SimpleMLP model;
  EXPECT_TRUE(model->fc1->is_training());
  model->eval();
  for (const auto &module : model->modules())
    EXPECT_FALSE(module->is_training());
  model->train();
  EXPECT_TRUE(model->dropout->is_training());
}

TEST_F(ModuleTest, ApplyVisitsChildrenBeforeRoot) {
  models::SimpleMLP model;
  std::vector<std::string> visited;
  model->apply([&](Module &m) { visited.push_back(m.name()); });
  EXPECT_THAT(visited,
              ElementsAre("Linear", "Linear", "Linear", "Dropout", "SimpleMLP"));
}

TEST_F(ModuleTest, PrintsPyTorchRepr) {
  models::SimpleMLP model;
  std::ostringstream os;
  os << *model;
  EXPECT_EQ(os.str(),
            "SimpleMLP(\n"
            "  (fc1): Linear(in_features=784, out_features=256, bias=True)\n"
            "  (fc2): Linear(in_features=256, out_features=256, bias=True)\n"
            "  (fc3): Linear(in_features=256, out_features=10, bias=True)\n"
            "  (dropout): Dropout(p=0.1, inplace=False)\n"
            ")");
}

TEST_F(ModuleTest, SequentialNamesChildrenByPosition) {
  Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_THAT(names(seq->named_parameters()),
              ElementsAre("0.weight", "0.bias", "2.weight", "2.bias"));
  Sequential named({{"fc", Linear(4, 8)}, {"act", ReLU()}});
  EXPECT_THAT(names(named->named_children()), ElementsAre("fc", "act"));
  EXPECT_THAT([&] { (*seq)[3]; },
              ::testing::ThrowsMessage<Error>(HasSubstr(
                  "index 3 is out of range for Sequential of size 3")));
}

TEST_F(ModuleTest, LinearInitFollowsPyTorchBounds) {
  // kaiming_uniform_(a=√5) on [out, in] gives U(±1/√in); the bias too.
  Linear fc(400, 300);
  double bound = 1.0 / std::sqrt(400.0);
  double sum = 0;
  for (int64_t i = 0; i < fc->weight.numel(); ++i) {
    float w = fc->weight.data_ptr<float>()[i];
    ASSERT_LE(std::abs(w), bound);
    sum += w;
  }
  EXPECT_NEAR(sum / fc->weight.numel(), 0.0, 0.01 * bound);
  for (int64_t i = 0; i < fc->bias.numel(); ++i)
    ASSERT_LE(std::abs(fc->bias.data_ptr<float>()[i]), bound);
}

TEST_F(ModuleTest, SameSeedSameWeights) {
  manual_seed(42);
  Linear a(5, 3);
  manual_seed(42);
  Linear b(5, 3);
  for (int64_t i = 0; i < a->weight.numel(); ++i)
    ASSERT_EQ(a->weight.data_ptr<float>()[i], b->weight.data_ptr<float>()[i]);
}

} // namespace
