//===- ContainerTest.cpp - Sequential, ModuleList, ModuleDict, Parameter* -===//
//
// Names, order, element access, the operations each container has, its
// PyTorch repr (taken from torch 1.13's output), and calls through the
// containers located at the callee's path when traced.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <sstream>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

using nn::testing::names;
using nn::testing::repr;

/// Applies every module of a ModuleList in turn.
struct ChainImpl : Cloneable<ChainImpl> {
  ChainImpl() : Cloneable("Chain") {
    layers = register_module("layers", ModuleList(Linear(4, 4), ReLU()));
  }
  Tensor forward(const Tensor &x) {
    Tensor y = x;
    for (const AnyModule &layer : *layers)
      y = layer(y);
    return y;
  }
  ModuleList layers{nullptr};
};
NN_MODULE(Chain);

/// torchvision's Conv2dNormActivation: a Sequential under its own name.
class ConvNormActivationImpl
    : public Cloneable<ConvNormActivationImpl, SequentialImpl> {
public:
  ConvNormActivationImpl(int64_t in, int64_t out, int64_t stride)
      : Cloneable("Conv2dNormActivation") {
    push_back(Conv2d(
        Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    push_back(BatchNorm2d(out));
    push_back(ReLU6(true));
  }
};
NN_MODULE(ConvNormActivation);

/// A ModuleList under its own name, applied in order by its owner.
class StagesImpl : public Cloneable<StagesImpl, ModuleListImpl> {
public:
  StagesImpl() : Cloneable("Stages") {
    push_back(Linear(4, 4));
    push_back(ReLU());
  }
};
NN_MODULE(Stages);

/// x * mask + bias: a forward of two Tensors, as a layer that takes an
/// attention mask has.
struct MaskedImpl : Cloneable<MaskedImpl> {
  MaskedImpl() : Cloneable("Masked") {
    bias = register_parameter("bias",
                              Tensor::from_vector<float>({1, -2, 3, -4}, {4}));
  }
  Tensor forward(const Tensor &x, const Tensor &mask) {
    return x * mask + bias;
  }
  Tensor bias;
};
NN_MODULE(Masked);

/// Applies every module of a ModuleList to (x, mask), as a PyTorch encoder
/// calls its layers.
struct MaskedStackImpl : Cloneable<MaskedStackImpl> {
  MaskedStackImpl() : Cloneable("MaskedStack") {
    layers = register_module("layers", ModuleList(Masked(), Masked()));
  }
  Tensor forward(const Tensor &x, const Tensor &mask) {
    Tensor y = x;
    for (const AnyModule &layer : *layers)
      y = layer(y, mask);
    return y;
  }
  ModuleList layers{nullptr};
};
NN_MODULE(MaskedStack);

const std::vector<TensorSpec> kMaskedSpecs = {TensorSpec({4}), TensorSpec({4})};

/// The compiled model's one output on (x, mask).
template <typename Holder>
std::vector<float> compiledOutput(const Holder &model, const Tensor &x,
                                  const Tensor &mask) {
  Tensor y = compile(trace(model, kMaskedSpecs))->run({x, mask}).value().at(0);
  const float *p = y.data_ptr<float>();
  return std::vector<float>(p, p + y.numel());
}

class ContainerTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

TEST_F(ContainerTest, SequentialNamesChildrenByPosition) {
  Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_THAT(names(seq->named_parameters()),
              ElementsAre("0.weight", "0.bias", "2.weight", "2.bias"));
}

TEST_F(ContainerTest, SequentialKeepsTheGivenNames) {
  Sequential named({{"fc", Linear(4, 8)}, {"act", ReLU()}});
  EXPECT_THAT(names(named->named_children()), ElementsAre("fc", "act"));
}

TEST_F(ContainerTest, SequentialPushBackAppends) {
  Sequential seq;
  seq->push_back(Linear(1, 1));
  seq->push_back("act", ReLU());
  EXPECT_THAT(names(seq->named_children()), ElementsAre("0", "act"));
  EXPECT_EQ(seq->ptr<ReLUImpl>(1), seq->get_submodule("act"));
}

TEST_F(ContainerTest, SequentialRefusesADuplicateName) {
  Sequential seq({{"fc", Linear(1, 1)}});
  EXPECT_THAT([&] { seq->push_back("fc", ReLU()); },
              ThrowsMessage<Error>(
                  StrEq("Sequential: a module named \"fc\" is already in it")));
}

TEST_F(ContainerTest, SequentialIndexOutOfRangeThrows) {
  Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));
  EXPECT_THAT([&] { (*seq)[3]; },
              ThrowsMessage<Error>(
                  StrEq("index 3 is out of range for Sequential of size 3")));
}

TEST_F(ContainerTest, SequentialForwardChainsItsModules) {
  Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));
  std::string ir = trace(seq, {TensorSpec({1, 4})}).to_string(true);
  EXPECT_THAT(ir, HasSubstr("-> tensor<1x2xf32>"));
  EXPECT_THAT(ir, HasSubstr("loc(\"0\")"));
  EXPECT_THAT(ir, HasSubstr("loc(\"1\")"));
  EXPECT_THAT(ir, HasSubstr("loc(\"2\")"));
}

TEST_F(ContainerTest, SequentialForwardNeedsSingleTensorModules) {
  Sequential seq{ModuleList(), Linear(1, 1)};
  EXPECT_THAT(
      [&] {
        trace(seq, {TensorSpec({1, 1})});
      },
      ThrowsMessage<Error>(
          StrEq("Sequential: module \"0\" (ModuleList) has no forward that "
                "takes and returns one Tensor")));
}

TEST_F(ContainerTest, SequentialGivesAllItsArgumentsToItsFirstModule) {
  Sequential seq{Masked(), ReLU()};
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, {4});
  Tensor mask = Tensor::from_vector<float>({1, 1, 0, -1}, {4});
  // relu(x * mask + (1, -2, 3, -4))
  EXPECT_THAT(compiledOutput(seq, x, mask), ElementsAre(2, 0, 3, 0));
  std::string ir = trace(seq, kMaskedSpecs).to_string(true);
  EXPECT_THAT(ir, HasSubstr("loc(\"0\")"));
}

TEST_F(ContainerTest, SequentialNamesTheModuleThatTakesOtherArguments) {
  // One argument where the first module takes two.
  Sequential first{Masked(), ReLU()};
  EXPECT_THAT([&] { trace(first, {TensorSpec({4})}); },
              ThrowsMessage<Error>(
                  StrEq("Sequential: module \"0\" (Masked) has no forward "
                        "that takes and returns one Tensor")));
  // Two arguments where it takes one.
  Sequential relu(ReLU(), Linear(4, 4));
  EXPECT_THAT([&] { trace(relu, kMaskedSpecs); },
              ThrowsMessage<Error>(
                  StrEq("Sequential: module \"0\" (ReLU) has no forward that "
                        "takes 2 Tensors and returns one Tensor")));
  // An empty Sequential returns its one input.
  Sequential empty;
  EXPECT_THAT([&] { trace(empty, kMaskedSpecs); },
              ThrowsMessage<Error>(StrEq("Sequential is empty: it returns its "
                                         "one input, and was given 2")));
  // A later module is given the one output of the one before.
  Sequential later{ReLU(), Masked()};
  EXPECT_THAT([&] { trace(later, {TensorSpec({4})}); },
              ThrowsMessage<Error>(
                  StrEq("Sequential: module \"1\" (Masked) has no forward "
                        "that takes and returns one Tensor")));
}

TEST_F(ContainerTest, SequentialSubclassIsASequentialUnderItsName) {
  ConvNormActivation block(3, 16, 2);
  // torchvision 0.14's print(mobilenet_v2().features[0]).
  EXPECT_EQ(repr(*block), "Conv2dNormActivation(\n"
                          "  (0): Conv2d(3, 16, kernel_size=(3, 3), "
                          "stride=(2, 2), padding=(1, 1), bias=False)\n"
                          "  (1): BatchNorm2d(16, eps=1e-05, momentum=0.1, "
                          "affine=True, track_running_stats=True)\n"
                          "  (2): ReLU6(inplace=True)\n"
                          ")");
  EXPECT_THAT(names(block->named_parameters()),
              ElementsAre("0.weight", "1.weight", "1.bias"));
  EXPECT_EQ(block->size(), 3u);
  std::string ir = trace(block, {TensorSpec({1, 3, 8, 8})}).to_string(true);
  EXPECT_THAT(ir, HasSubstr("-> tensor<1x16x4x4xf32>"));
  EXPECT_THAT(ir, HasSubstr("loc(\"2\")"));
  EXPECT_THAT([&] { block->push_back("0", ReLU()); },
              ThrowsMessage<Error>(StrEq("Conv2dNormActivation: a module "
                                         "named \"0\" is already in it")));
  EXPECT_THAT([&] { (*block)[3]; },
              ThrowsMessage<Error>(StrEq(
                  "index 3 is out of range for Conv2dNormActivation of size "
                  "3")));
}

TEST_F(ContainerTest, SequentialSubclassNestsAndClonesAsItself) {
  Sequential features(ConvNormActivation(3, 8, 1), ConvNormActivation(8, 8, 2));
  EXPECT_THAT(names(features->named_parameters()),
              ElementsAre("0.0.weight", "0.1.weight", "0.1.bias", "1.0.weight",
                          "1.1.weight", "1.1.bias"));
  std::string ir = trace(features, {TensorSpec({1, 3, 8, 8})}).to_string(true);
  EXPECT_THAT(ir, HasSubstr("loc(\"1.0\")"));
  EXPECT_THAT(ir, HasSubstr("-> tensor<1x8x4x4xf32>"));

  ConvNormActivation block(3, 8, 1);
  ConvNormActivation copy = block.clone();
  EXPECT_EQ(copy->name(), "Conv2dNormActivation");
  EXPECT_EQ(repr(*copy), repr(*block));
  EXPECT_EQ(copy[0].ptr(), copy->get_submodule("0"));
  EXPECT_NE(copy[0].ptr(), block[0].ptr());
  EXPECT_FALSE(copy->get_parameter("0.weight")
                   .shares_storage(block->get_parameter("0.weight")));
}

TEST_F(ContainerTest, ModuleListSubclassIsAModuleListUnderItsName) {
  Stages stages;
  EXPECT_EQ(repr(*stages),
            "Stages(\n"
            "  (0): Linear(in_features=4, out_features=4, bias=True)\n"
            "  (1): ReLU()\n"
            ")");
  EXPECT_THAT([&] { stages->insert(3, ReLU()); },
              ThrowsMessage<Error>(StrEq(
                  "Stages: can't insert at index 3 of a list of size 2")));
  Stages copy = stages.clone();
  EXPECT_EQ(copy->name(), "Stages");
  EXPECT_NE(copy[0].ptr(), stages[0].ptr());
}

//===----------------------------------------------------------------------===//
// ModuleList
//===----------------------------------------------------------------------===//

TEST_F(ContainerTest, ModuleListNamesByPosition) {
  ModuleList list(Linear(1, 2), ReLU());
  list->push_back(Dropout(0.5));
  EXPECT_THAT(names(list->named_children()), ElementsAre("0", "1", "2"));
  EXPECT_EQ(list->size(), 3u);
}

TEST_F(ContainerTest, ModuleListIndexingGivesTheModule) {
  Linear fc(1, 2);
  ModuleList list(ReLU(), fc);
  EXPECT_EQ(list[1].ptr(), fc.ptr());
  EXPECT_EQ(list->ptr<LinearImpl>(1)->options.out_features(), 2);
  EXPECT_EQ(list[1]->name(), "Linear");
}

TEST_F(ContainerTest, ModuleListIndexOutOfRangeThrows) {
  ModuleList list{ReLU()};
  EXPECT_THAT([&] { list[1]; },
              ThrowsMessage<Error>(
                  StrEq("index 1 is out of range for ModuleList of size 1")));
}

TEST_F(ContainerTest, ModuleListIteratesInOrder) {
  ModuleList list(Linear(1, 1), ReLU(), Dropout());
  std::vector<std::string> types;
  for (const AnyModule &module : *list)
    types.push_back(module->name());
  EXPECT_THAT(types, ElementsAre("Linear", "ReLU", "Dropout"));
}

TEST_F(ContainerTest, ModuleListExtendAppendsEveryModule) {
  ModuleList list{ReLU()};
  list->extend(std::vector<Linear>{Linear(1, 1), Linear(1, 2)});
  list->extend(ModuleList(Dropout()));
  EXPECT_THAT(names(list->named_children()), ElementsAre("0", "1", "2", "3"));
  EXPECT_EQ(list[3]->name(), "Dropout");
}

TEST_F(ContainerTest, ModuleListInsertRenamesTheModulesAfterIt) {
  // torch 1.13: [ReLU, Linear, Dropout].insert(1, Tanh) gives
  // 0: ReLU, 1: Tanh, 2: Linear, 3: Dropout.
  ModuleList list(ReLU(), Linear(1, 2), Dropout());
  Linear inserted(2, 2);
  list->insert(1, inserted);
  EXPECT_THAT(names(list->named_children()), ElementsAre("0", "1", "2", "3"));
  EXPECT_EQ(list->get_submodule("1"), inserted.ptr());
  EXPECT_EQ(list->get_submodule("2")->name(), "Linear");
  EXPECT_EQ(list->get_submodule("3")->name(), "Dropout");
  EXPECT_EQ(list[1].ptr(), inserted.ptr());
}

TEST_F(ContainerTest, ModuleListInsertAtTheEndAppends) {
  ModuleList list{ReLU()};
  list->insert(1, Dropout());
  EXPECT_EQ(list->get_submodule("1")->name(), "Dropout");
}

TEST_F(ContainerTest, ModuleListInsertPastTheEndThrows) {
  ModuleList list{ReLU()};
  EXPECT_THAT([&] { list->insert(2, Dropout()); },
              ThrowsMessage<Error>(StrEq(
                  "ModuleList: can't insert at index 2 of a list of size 1")));
}

TEST_F(ContainerTest, ModuleListCallsAreLocatedAtTheElement) {
  Chain chain;
  std::string ir = trace(chain, {TensorSpec({1, 4})}).to_string(true);
  EXPECT_THAT(ir, HasSubstr("loc(\"layers.0\")"));
  EXPECT_THAT(ir, HasSubstr("loc(\"layers.1\")"));
}

TEST_F(ContainerTest, ModuleListElementsTakeSeveralArguments) {
  MaskedStack stack;
  EXPECT_TRUE(stack->layers[0].is_callable(2));
  EXPECT_FALSE(stack->layers[0].is_callable(1));
  EXPECT_FALSE(stack->layers[0].is_callable());
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4}, {4});
  Tensor mask = Tensor::from_vector<float>({2, 1, 0, -1}, {4});
  // ((x * mask + b) * mask + b), b = (1, -2, 3, -4)
  EXPECT_THAT(compiledOutput(stack, x, mask), ElementsAre(7, -2, 3, 4));
  std::string ir = trace(stack, kMaskedSpecs).to_string(true);
  EXPECT_THAT(ir, HasSubstr("loc(\"layers.0\")"));
  EXPECT_THAT(ir, HasSubstr("loc(\"layers.1\")"));
}

TEST_F(ContainerTest, ModuleListReprIsPyTorchs) {
  ModuleList list(Linear(2, 2), Linear(2, 2), ReLU());
  EXPECT_EQ(repr(*list),
            "ModuleList(\n"
            "  (0): Linear(in_features=2, out_features=2, bias=True)\n"
            "  (1): Linear(in_features=2, out_features=2, bias=True)\n"
            "  (2): ReLU()\n"
            ")");
  EXPECT_EQ(repr(*ModuleList()), "ModuleList()");
}

TEST_F(ContainerTest, AnyModuleOfTheWrongTypeThrows) {
  ModuleList list{ReLU()};
  EXPECT_THAT([&] { list->ptr<LinearImpl>(0); },
              ThrowsMessage<Error>(StrEq(
                  "AnyModule: the module is a ReLU, not the type asked for")));
}

TEST_F(ContainerTest, AnyModuleWithoutSingleTensorForwardCannotBeCalled) {
  ModuleList outer{ModuleList(), ReLU()};
  EXPECT_FALSE(outer[0].is_callable());
  EXPECT_TRUE(outer[1].is_callable());
  EXPECT_THAT([&] { outer[0](Tensor::zeros({1})); },
              ThrowsMessage<Error>(
                  StrEq("ModuleList has no forward that takes and returns one "
                        "Tensor; call it through ptr<ModuleListImpl>() or its "
                        "holder")));
  EXPECT_THAT([&] { outer[1](Tensor::zeros({1}), Tensor::zeros({1})); },
              ThrowsMessage<Error>(
                  StrEq("ReLU has no forward that takes 2 Tensors and returns "
                        "one Tensor; call it through ptr<ReLUImpl>() or its "
                        "holder")));
}

//===----------------------------------------------------------------------===//
// ModuleDict
//===----------------------------------------------------------------------===//

TEST_F(ContainerTest, ModuleDictKeepsInsertionOrder) {
  ModuleDict dict({{"z", ReLU()}, {"a", Linear(1, 1)}});
  EXPECT_THAT(dict->keys(), ElementsAre("z", "a"));
  EXPECT_THAT(names(dict->named_children()), ElementsAre("z", "a"));
  EXPECT_THAT(names(dict->items()), ElementsAre("z", "a"));
  EXPECT_EQ(dict->values()[1]->name(), "Linear");
}

TEST_F(ContainerTest, ModuleDictLooksUpByKey) {
  Linear fc(1, 1);
  ModuleDict dict({{"fc", fc}});
  EXPECT_TRUE(dict->contains("fc"));
  EXPECT_FALSE(dict->contains("act"));
  EXPECT_EQ((*dict)["fc"].ptr(), fc.ptr());
  EXPECT_EQ(dict->ptr<LinearImpl>("fc"), fc.ptr());
}

TEST_F(ContainerTest, ModuleDictMissingKeyThrows) {
  ModuleDict dict({{"fc", Linear(1, 1)}});
  EXPECT_THAT([&] { (*dict)["head"]; },
              ThrowsMessage<Error>(StrEq("ModuleDict has no key \"head\"")));
}

TEST_F(ContainerTest, ModuleDictInsertReplacesAnExistingKeyInPlace) {
  ModuleDict dict({{"a", ReLU()}, {"b", ReLU()}});
  Linear fc(1, 1);
  dict->insert("a", fc);
  dict->update({{"c", Dropout()}});
  EXPECT_THAT(dict->keys(), ElementsAre("a", "b", "c"));
  EXPECT_EQ(dict->get_submodule("a"), fc.ptr());
  EXPECT_EQ((*dict)["a"].ptr(), fc.ptr());
}

TEST_F(ContainerTest, ModuleDictKeysAreValidatedNames) {
  ModuleDict dict;
  EXPECT_THAT([&] { dict->insert("a.b", ReLU()); },
              ThrowsMessage<Error>(StrEq(
                  "ModuleDict: module name can't contain \".\", got \"a.b\"")));
}

TEST_F(ContainerTest, ModuleDictReprIsPyTorchs) {
  ModuleDict dict({{"z", ReLU()}, {"a", Linear(1, 1)}});
  EXPECT_EQ(repr(*dict),
            "ModuleDict(\n"
            "  (z): ReLU()\n"
            "  (a): Linear(in_features=1, out_features=1, bias=True)\n"
            ")");
}

//===----------------------------------------------------------------------===//
// ParameterList
//===----------------------------------------------------------------------===//

TEST_F(ContainerTest, ParameterListNamesByPosition) {
  ParameterList list(Tensor::zeros({3, 4}), Tensor::zeros({4}));
  list->append(Tensor::zeros({2}));
  EXPECT_THAT(names(list->named_parameters()), ElementsAre("0", "1", "2"));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_TRUE((*list)[2].requires_grad());
}

TEST_F(ContainerTest, ParameterListElementIsTheRegisteredTensor) {
  ParameterList list(Tensor::zeros({2}));
  EXPECT_EQ(&(*list)[0], &list->get_parameter("0"));
  Tensor other = Tensor::zeros({2});
  (*list)[0] = other;
  EXPECT_TRUE(list->state_dict().at("0").shares_storage(other));
}

TEST_F(ContainerTest, ParameterListSharesTheStorageGiven) {
  Linear fc(2, 2);
  ParameterList list;
  list->append(fc->weight);
  EXPECT_TRUE((*list)[0].shares_storage(fc->weight));
  list->extend({fc->bias});
  EXPECT_TRUE(list->values()[1].shares_storage(fc->bias));
}

TEST_F(ContainerTest, ParameterListIndexOutOfRangeThrows) {
  ParameterList list;
  EXPECT_THAT([&] { (*list)[0]; },
              ThrowsMessage<Error>(StrEq(
                  "index 0 is out of range for ParameterList of size 0")));
}

TEST_F(ContainerTest, ParameterListReprIsPyTorchs) {
  ParameterList list(Tensor::zeros({3, 4}), Tensor::zeros({}),
                     Tensor::zeros({2}, DType::f64));
  EXPECT_EQ(repr(*list),
            "ParameterList(\n"
            "    (0): Parameter containing: [torch.float32 of size 3x4]\n"
            "    (1): Parameter containing: [torch.float32 of size ]\n"
            "    (2): Parameter containing: [torch.float64 of size 2]\n"
            ")");
  EXPECT_EQ(repr(*ParameterList()), "ParameterList()");
}

//===----------------------------------------------------------------------===//
// ParameterDict
//===----------------------------------------------------------------------===//

TEST_F(ContainerTest, ParameterDictKeepsInsertionOrder) {
  ParameterDict dict({{"b", Tensor::zeros({3})}, {"a", Tensor::zeros({2})}});
  EXPECT_THAT(dict->keys(), ElementsAre("b", "a"));
  EXPECT_THAT(names(dict->named_parameters()), ElementsAre("b", "a"));
  EXPECT_THAT(names(dict->items()), ElementsAre("b", "a"));
  EXPECT_EQ(dict->values()[1].shape(), (Shape{2}));
}

TEST_F(ContainerTest, ParameterDictLooksUpByKey) {
  ParameterDict dict({{"scale", Tensor::zeros({3})}});
  EXPECT_TRUE(dict->contains("scale"));
  EXPECT_FALSE(dict->contains("shift"));
  EXPECT_EQ(&(*dict)["scale"], &dict->get_parameter("scale"));
  EXPECT_THAT(
      [&] { (*dict)["shift"]; },
      ThrowsMessage<Error>(StrEq("ParameterDict has no key \"shift\"")));
}

TEST_F(ContainerTest, ParameterDictInsertReplacesAnExistingKeyInPlace) {
  ParameterDict dict({{"a", Tensor::zeros({1})}, {"b", Tensor::zeros({1})}});
  Tensor wider = Tensor::zeros({5});
  dict->insert("a", wider, /*requires_grad=*/false);
  EXPECT_THAT(dict->keys(), ElementsAre("a", "b"));
  EXPECT_TRUE((*dict)["a"].shares_storage(wider));
  EXPECT_FALSE((*dict)["a"].requires_grad());
}

TEST_F(ContainerTest, ParameterDictReprIsPyTorchs) {
  // torch 1.13 prints torch.typename() here, unlike ParameterList.
  ParameterDict dict(
      {{"a", Tensor::zeros({2, 2}, DType::f16)}, {"b", Tensor::zeros({3})}});
  EXPECT_EQ(repr(*dict),
            "ParameterDict(\n"
            "    (a): Parameter containing: [torch.HalfTensor of size 2x2]\n"
            "    (b): Parameter containing: [torch.FloatTensor of size 3]\n"
            ")");
}

//===----------------------------------------------------------------------===//
// Containers and clone()
//===----------------------------------------------------------------------===//

TEST_F(ContainerTest, ClonedModuleListHoldsTheCopies) {
  ModuleList list(Linear(2, 2), ReLU());
  ModuleList copy = list.clone();
  EXPECT_EQ(copy[0].ptr(), copy->get_submodule("0"));
  EXPECT_NE(copy[0].ptr(), list[0].ptr());
}

TEST_F(ContainerTest, ClonedModuleDictHoldsTheCopies) {
  ModuleDict dict({{"fc", Linear(2, 2)}});
  ModuleDict copy = dict.clone();
  EXPECT_EQ((*copy)["fc"].ptr(), copy->get_submodule("fc"));
  EXPECT_NE((*copy)["fc"].ptr(), (*dict)["fc"].ptr());
}

TEST_F(ContainerTest, ClonedParameterContainersHoldTheCopies) {
  ParameterList list(Tensor::zeros({2}));
  ParameterList listCopy = list.clone();
  EXPECT_EQ(&(*listCopy)[0], &listCopy->get_parameter("0"));
  EXPECT_FALSE((*listCopy)[0].shares_storage((*list)[0]));
  ParameterDict dict({{"w", Tensor::zeros({2})}});
  ParameterDict dictCopy = dict.clone();
  EXPECT_EQ(&(*dictCopy)["w"], &dictCopy->get_parameter("w"));
  EXPECT_FALSE((*dictCopy)["w"].shares_storage((*dict)["w"]));
}

} // namespace
