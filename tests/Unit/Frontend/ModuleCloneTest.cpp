//===- ModuleCloneTest.cpp - Deep copies of module trees ------------------===//
//
// clone(): new storage for every registered tensor, ties and shared
// submodules preserved inside the copy, member-backed parameters and member
// holders pointing into the copy, and the errors for what can't be copied.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "models/SimpleMLP.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <sstream>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

using nn::testing::names;
using nn::testing::repr;

/// encoder/decoder with decoder.weight = encoder.weight, a shared block
/// reached by two paths, and an owned buffer.
struct NetImpl : Cloneable<NetImpl> {
  NetImpl() : Cloneable("Net") {
    encoder = register_module("encoder", Linear(3, 3));
    decoder = register_module("decoder", Linear(3, 3));
    decoder->weight = encoder->weight;
    block = register_module("block", Sequential(Linear(3, 3), ReLU()));
    again = register_module("again", block);
    register_buffer("mean", Tensor::from_vector<float>({1, 2, 3}, {3}));
  }
  Tensor forward(const Tensor &x) { return again(decoder(encoder(x))); }
  Linear encoder{nullptr}, decoder{nullptr};
  Sequential block{nullptr}, again{nullptr};
};
NN_MODULE(Net);

/// Derives from Cloneable of its base, not of itself.
struct BaseImpl : Cloneable<BaseImpl> {
  BaseImpl() : Cloneable("Base") {}
};
struct DerivedImpl : BaseImpl {
  DerivedImpl() { register_parameter("w", Tensor::zeros({1})); }
};

/// A parameter registered from a Tensor the module does not contain.
Tensor outsider = Tensor::zeros({2});
struct OutsiderImpl : Cloneable<OutsiderImpl> {
  OutsiderImpl() : Cloneable("Outsider") { register_parameter("w", &outsider); }
};

class ModuleCloneTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(ModuleCloneTest, CopyHasTheSameTreeAndValues) {
  models::SimpleMLP model;
  models::SimpleMLP copy = model.clone();
  EXPECT_EQ(repr(*copy), repr(*model));
  EXPECT_THAT(copy->state_dict().keys(), model->state_dict().keys());
  for (const auto &[name, t] : model->state_dict())
    for (int64_t i = 0; i < t.numel(); i += 97)
      ASSERT_EQ(copy->state_dict().at(name).item_as_double(i),
                t.item_as_double(i))
          << name;
}

TEST_F(ModuleCloneTest, CopyHasItsOwnStorage) {
  models::SimpleMLP model;
  models::SimpleMLP copy = model.clone();
  for (const auto &[name, t] : model->state_dict())
    EXPECT_FALSE(copy->state_dict().at(name).shares_storage(t)) << name;
  model->fc1->weight.data_ptr<float>()[0] = 100.0f;
  EXPECT_NE(copy->fc1->weight.data_ptr<float>()[0], 100.0f);
}

TEST_F(ModuleCloneTest, MemberHoldersPointAtTheCopiedChildren) {
  models::SimpleMLP model;
  models::SimpleMLP copy = model.clone();
  EXPECT_EQ(copy->fc1.ptr(), copy->get_submodule("fc1"));
  EXPECT_NE(copy->fc1.ptr(), model->fc1.ptr());
  EXPECT_EQ(copy->dropout.ptr(), copy->get_submodule("dropout"));
}

TEST_F(ModuleCloneTest, MemberBackedParametersAreTheCopysMembers) {
  models::SimpleMLP model;
  models::SimpleMLP copy = model.clone();
  EXPECT_EQ(&copy->get_parameter("fc2.weight"), &copy->fc2->weight);
  copy->fc2->weight = Tensor::zeros({256, 256});
  EXPECT_TRUE(
      copy->state_dict().at("fc2.weight").shares_storage(copy->fc2->weight));
}

TEST_F(ModuleCloneTest, TiesInsideTheTreeStayTied) {
  Net model;
  Net copy = model.clone();
  EXPECT_TRUE(copy->decoder->weight.shares_storage(copy->encoder->weight));
  EXPECT_FALSE(copy->decoder->weight.shares_storage(model->encoder->weight));
  EXPECT_THAT(names(copy->named_parameters()),
              names(model->named_parameters()));
}

TEST_F(ModuleCloneTest, SharedSubmodulesStayShared) {
  Net model;
  Net copy = model.clone();
  EXPECT_EQ(copy->get_submodule("block"), copy->get_submodule("again"));
  EXPECT_EQ(copy->block.ptr(), copy->again.ptr());
  EXPECT_NE(copy->block.ptr(), model->block.ptr());
}

TEST_F(ModuleCloneTest, ContainersCallTheCopiedModules) {
  Net model;
  Net copy = model.clone();
  EXPECT_EQ((*copy->block)[0].ptr(), copy->get_submodule("block.0"));
  EXPECT_EQ((*copy->block)[0].ptr<LinearImpl>()->weight.storage(),
            copy->get_parameter("block.0.weight").storage());
}

TEST_F(ModuleCloneTest, BuffersAreCopiedToo) {
  Net model;
  Net copy = model.clone();
  EXPECT_FALSE(
      copy->get_buffer("mean").shares_storage(model->get_buffer("mean")));
  EXPECT_EQ(copy->get_buffer("mean").item_as_double(2), 3.0);
}

TEST_F(ModuleCloneTest, RequiresGradAndGradientsAreCopied) {
  Linear fc(2, 2);
  fc->bias.requires_grad_(false);
  fc->weight.set_grad(Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  Linear copy = fc.clone();
  EXPECT_TRUE(copy->weight.requires_grad());
  EXPECT_FALSE(copy->bias.requires_grad());
  EXPECT_FALSE(copy->weight.grad().shares_storage(fc->weight.grad()));
  EXPECT_EQ(copy->weight.grad().item_as_double(3), 4.0);
}

TEST_F(ModuleCloneTest, TrainingFlagIsCopied) {
  models::SimpleMLP model;
  model->eval();
  models::SimpleMLP copy = model.clone();
  EXPECT_FALSE(copy->dropout->is_training());
}

TEST_F(ModuleCloneTest, CloneThroughModuleReturnsTheSameType) {
  Linear fc(2, 3);
  std::shared_ptr<Module> copy = fc->clone();
  ASSERT_NE(std::dynamic_pointer_cast<LinearImpl>(copy), nullptr);
  EXPECT_EQ(std::dynamic_pointer_cast<LinearImpl>(copy)->options.out_features(),
            3);
}

TEST_F(ModuleCloneTest, PlainModuleCannotBeCloned) {
  Module m("Plain");
  EXPECT_THAT([&] { m.clone(); },
              ThrowsMessage<Error>(StrEq(
                  "clone() is not implemented for Plain: derive its class "
                  "from nn::Cloneable<Class> instead of nn::Module")));
}

TEST_F(ModuleCloneTest, ChildThatIsNotCloneableStopsTheClone) {
  Sequential seq(Linear(1, 1));
  seq->push_back(std::make_shared<Module>("Plain"));
  EXPECT_THAT([&] { seq->clone(); },
              ThrowsMessage<Error>(StrEq(
                  "clone() is not implemented for Plain: derive its class "
                  "from nn::Cloneable<Class> instead of nn::Module")));
}

TEST_F(ModuleCloneTest, SubclassOfACloneableNeedsItsOwnCloneable) {
  DerivedImpl derived;
  EXPECT_THAT([&] { derived.clone(); },
              ThrowsMessage<Error>(StrEq(
                  "clone() of Base: its class derives from a Cloneable of one "
                  "of its bases, which would copy only that base; derive the "
                  "class itself from nn::Cloneable<Class>")));
}

TEST_F(ModuleCloneTest, ParameterOutsideTheObjectCannotBeCloned) {
  OutsiderImpl module;
  EXPECT_THAT([&] { module.clone(); },
              ThrowsMessage<Error>(StrEq(
                  "Outsider: clone() can't copy the parameter \"w\": it is "
                  "registered from a Tensor that is not a member of the "
                  "module")));
}

TEST_F(ModuleCloneTest, CopyConstructorOutsideCloneThrows) {
  Linear fc(1, 1);
  EXPECT_THAT([&] { LinearImpl copy(*fc); },
              ThrowsMessage<Error>(StrEq(
                  "Linear: modules are copied only by clone(), which copies "
                  "the whole tree; copy-constructing one can't")));
}

} // namespace
