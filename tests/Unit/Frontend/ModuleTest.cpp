//===- ModuleTest.cpp - nn::Module registration, traversal, printing ------===//
//
// Registration rules, traversal order and de-duplication, lookup by dotted
// path, training mode, apply, gradients and printing, checked against what
// torch.nn.Module does for the same models.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "models/SimpleMLP.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <sstream>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

using nn::testing::names;
using nn::testing::repr;

/// Two Linear layers that share one submodule of a third.
struct SharingImpl : Cloneable<SharingImpl> {
  SharingImpl() : Cloneable("Sharing") {
    shared = Linear(2, 2);
    left = register_module("left", Sequential(shared));
    right = register_module("right", Sequential(shared));
  }
  Linear shared{nullptr};
  Sequential left{nullptr}, right{nullptr};
};
NN_MODULE(Sharing);

/// A module whose extra_repr spans two lines.
struct TwoLinesImpl : Cloneable<TwoLinesImpl> {
  TwoLinesImpl() : Cloneable("TwoLines") {}
  std::string extra_repr() const override { return "a=1\nb=2"; }
};
NN_MODULE(TwoLines);

class ModuleTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

TEST_F(ModuleTest, RegisteredParameterSharesTheGivenStorage) {
  Module m("Net");
  Tensor w = Tensor::zeros({2});
  Tensor &registered = m.register_parameter("w", w);
  EXPECT_TRUE(registered.shares_storage(w));
  EXPECT_TRUE(m.get_parameter("w").shares_storage(w));
}

TEST_F(ModuleTest, RegisterParameterSetsRequiresGrad) {
  Module m("Net");
  EXPECT_TRUE(m.register_parameter("a", Tensor::zeros({2})).requires_grad());
  EXPECT_FALSE(
      m.register_parameter("b", Tensor::zeros({2}), false).requires_grad());
  EXPECT_TRUE(m.requires_grad("a"));
  EXPECT_FALSE(m.requires_grad("b"));
}

TEST_F(ModuleTest, IntegerParameterCannotRequireGrad) {
  Module m("Net");
  EXPECT_THAT(
      [&] { m.register_parameter("i", Tensor::zeros({2}, DType::i64)); },
      ThrowsMessage<Error>(
          StrEq("set_requires_grad: only tensors of floating point dtype "
                "can require gradients, got Tensor[int64, 2]")));
}

TEST_F(ModuleTest, MemberBackedParameterIsTheMember) {
  Linear fc(3, 2);
  EXPECT_EQ(&fc->get_parameter("weight"), &fc->weight);
  fc->weight = Tensor::zeros({2, 3});
  EXPECT_TRUE(fc->named_parameters()[0].second.shares_storage(fc->weight));
}

TEST_F(ModuleTest, UndefinedMemberIsAnEmptySlotUntilAssigned) {
  struct Lazy : Module {
    Lazy() : Module("Lazy") { register_parameter("w", &w); }
    Tensor w;
  } lazy;
  EXPECT_THAT(names(lazy.named_parameters()), IsEmpty());
  lazy.w = Tensor::zeros({3});
  EXPECT_THAT(names(lazy.named_parameters()), ElementsAre("w"));
}

TEST_F(ModuleTest, EmptySlotKeepsItsNameAndAppearsNowhere) {
  Module m("Net");
  m.register_parameter("weight", Tensor::zeros({2}));
  m.register_parameter("bias", nullptr);
  EXPECT_TRUE(m.has_parameter("bias"));
  EXPECT_FALSE(m.requires_grad("bias"));
  EXPECT_THAT(names(m.named_parameters()), ElementsAre("weight"));
  EXPECT_THAT(m.state_dict().keys(), ElementsAre("weight"));
  EXPECT_THAT([&] { m.register_buffer("bias", Tensor::zeros({2})); },
              ThrowsMessage<Error>(StrEq("Net: can't register buffer "
                                         "\"bias\": the name is taken by a "
                                         "parameter")));
}

TEST_F(ModuleTest, BiasFalseKeepsAnEmptySlot) {
  Linear fc(LinearOptions(4, 3).bias(false));
  EXPECT_TRUE(fc->has_parameter("bias"));
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_THAT(names(fc->named_parameters()), ElementsAre("weight"));
  EXPECT_THAT(fc->state_dict().keys(), ElementsAre("weight"));
}

TEST_F(ModuleTest, EmptyBufferSlotAppearsNowhere) {
  Module m("Net");
  m.register_buffer("mask", nullptr);
  EXPECT_TRUE(m.has_buffer("mask"));
  EXPECT_THAT(names(m.named_buffers()), IsEmpty());
  EXPECT_THAT(m.state_dict().keys(), IsEmpty());
}

TEST_F(ModuleTest, EmptyNameIsRefused) {
  Module m("Net");
  EXPECT_THAT(
      [&] { m.register_parameter("", Tensor::zeros({2})); },
      ThrowsMessage<Error>(StrEq("Net: parameter name can't be empty")));
}

TEST_F(ModuleTest, DottedNameIsRefused) {
  Module m("Net");
  EXPECT_THAT([&] { m.register_module("a.b", Linear(1, 1)); },
              ThrowsMessage<Error>(
                  StrEq("Net: module name can't contain \".\", got \"a.b\"")));
}

TEST_F(ModuleTest, NameTakenByAnotherKindIsRefused) {
  Module m("Net");
  m.register_buffer("w", Tensor::zeros({2}));
  EXPECT_THAT([&] { m.register_module("w", Linear(1, 1)); },
              ThrowsMessage<Error>(StrEq("Net: can't register module \"w\": "
                                         "the name is taken by a buffer")));
}

TEST_F(ModuleTest, RegisteringAParameterAgainReplacesItInPlace) {
  Module m("Net");
  m.register_parameter("a", Tensor::zeros({1}));
  m.register_parameter("b", Tensor::zeros({1}));
  Tensor replacement = Tensor::zeros({3});
  m.register_parameter("a", replacement);
  EXPECT_THAT(names(m.named_parameters()), ElementsAre("a", "b"));
  EXPECT_TRUE(m.get_parameter("a").shares_storage(replacement));
}

TEST_F(ModuleTest, RegisteringAModuleAgainReplacesItInPlace) {
  Module m("Net");
  m.register_module("fc", Linear(1, 1));
  m.register_module("act", ReLU());
  Linear wider(1, 5);
  m.register_module("fc", wider);
  EXPECT_THAT(names(m.named_children()), ElementsAre("fc", "act"));
  EXPECT_EQ(m.get_submodule("fc"), wider.ptr());
}

TEST_F(ModuleTest, UndefinedParameterTensorIsRefused) {
  Module m("Net");
  EXPECT_THAT([&] { m.register_parameter("w", Tensor()); },
              ThrowsMessage<Error>(StrEq(
                  "Net: parameter \"w\" is an undefined tensor; use "
                  "register_parameter(name, nullptr) for an empty slot")));
}

TEST_F(ModuleTest, NullModuleIsRefused) {
  Module m("Net");
  EXPECT_THAT([&] { m.register_module("fc", std::shared_ptr<Module>()); },
              ThrowsMessage<Error>(
                  StrEq("Net: submodule \"fc\" is an empty module (nullptr)")));
}

TEST_F(ModuleTest, ModuleCannotContainItself) {
  Sequential outer(Linear(1, 1));
  Sequential inner;
  outer->push_back(inner);
  EXPECT_THAT([&] { inner->register_module("loop", outer); },
              ThrowsMessage<Error>(StrEq(
                  "Sequential: can't register module \"loop\": it contains "
                  "this module, and a module tree can't contain itself")));
}

TEST_F(ModuleTest, NonPersistentBuffersStayOutOfStateDict) {
  Module m("Net");
  m.register_buffer("running_mean", Tensor::zeros({3}));
  m.register_buffer("mask", Tensor::zeros({3}), /*persistent=*/false);
  EXPECT_THAT(names(m.named_buffers()), ElementsAre("running_mean", "mask"));
  EXPECT_THAT(m.state_dict().keys(), ElementsAre("running_mean"));
  EXPECT_FALSE(m.is_persistent_buffer("mask"));
}

//===----------------------------------------------------------------------===//
// Traversal
//===----------------------------------------------------------------------===//

TEST_F(ModuleTest, NamedParametersInRegistrationOrder) {
  models::SimpleMLP model;
  EXPECT_THAT(names(model->named_parameters()),
              ElementsAre("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                          "fc3.weight", "fc3.bias"));
  EXPECT_THAT(names(model->named_parameters(/*recurse=*/false)), IsEmpty());
}

TEST_F(ModuleTest, NamedParametersTakeAPrefix) {
  models::SimpleMLP model;
  EXPECT_THAT(names(model->fc1->named_parameters("fc1")),
              ElementsAre("fc1.weight", "fc1.bias"));
  EXPECT_THAT(names(model->named_parameters("model", /*recurse=*/true))[5],
              "model.fc3.bias");
}

TEST_F(ModuleTest, NamedBuffersTakeAPrefixAndRecurse) {
  Module root("Root");
  auto child = root.register_module("child", std::make_shared<Module>("Child"));
  root.register_buffer("step", Tensor::zeros({}, DType::i64));
  child->register_buffer("mean", Tensor::zeros({2}));
  EXPECT_THAT(names(root.named_buffers("net")),
              ElementsAre("net.step", "net.child.mean"));
  EXPECT_THAT(names(root.named_buffers(/*recurse=*/false)),
              ElementsAre("step"));
  EXPECT_EQ(root.buffers().size(), 2u);
}

TEST_F(ModuleTest, NamedModulesIncludeRootFirst) {
  models::SimpleMLP model;
  EXPECT_THAT(names(model->named_modules()),
              ElementsAre("", "fc1", "fc2", "fc3", "dropout"));
  EXPECT_THAT(
      names(model->named_modules("mlp")),
      ElementsAre("mlp", "mlp.fc1", "mlp.fc2", "mlp.fc3", "mlp.dropout"));
  EXPECT_THAT(names(model->named_children()),
              ElementsAre("fc1", "fc2", "fc3", "dropout"));
}

TEST_F(ModuleTest, SharedModuleIsListedOnce) {
  Sharing model;
  EXPECT_THAT(names(model->named_modules()),
              ElementsAre("", "left", "left.0", "right"));
  EXPECT_EQ(model->modules().size(), 4u);
  EXPECT_THAT(names(model->named_parameters()),
              ElementsAre("left.0.weight", "left.0.bias"));
}

TEST_F(ModuleTest, StateDictListsASharedModuleUnderEveryPath) {
  Sharing model;
  EXPECT_THAT(model->state_dict().keys(),
              ElementsAre("left.0.weight", "left.0.bias", "right.0.weight",
                          "right.0.bias"));
}

TEST_F(ModuleTest, ChildRegisteredUnderTwoNamesIsOneChild) {
  Module m("Net");
  Linear fc(1, 1);
  m.register_module("a", fc);
  m.register_module("b", fc);
  EXPECT_THAT(names(m.named_children()), ElementsAre("a"));
  EXPECT_EQ(m.get_submodule("b"), fc.ptr());
  EXPECT_THAT(m.state_dict().keys(),
              ElementsAre("a.weight", "a.bias", "b.weight", "b.bias"));
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

//===----------------------------------------------------------------------===//
// Lookup by path
//===----------------------------------------------------------------------===//

TEST_F(ModuleTest, GetSubmoduleWalksADottedPath) {
  Sequential outer(Sequential(Linear(1, 2)), ReLU());
  EXPECT_EQ(outer->get_submodule("0.0")->name(), "Linear");
  EXPECT_EQ(outer->get_submodule("").get(), outer.get());
}

TEST_F(ModuleTest, GetSubmoduleNamesWhatIsMissing) {
  Sequential outer(Sequential(Linear(1, 2)), ReLU());
  EXPECT_THAT([&] { outer->get_submodule("0.1.fc"); },
              ThrowsMessage<Error>(
                  StrEq("get_submodule(\"0.1.fc\"): Sequential at \"0\" has no "
                        "submodule \"1\"")));
}

TEST_F(ModuleTest, GetParameterReturnsTheRegisteredTensor) {
  models::SimpleMLP model;
  EXPECT_EQ(&model->get_parameter("fc2.bias"), &model->fc2->bias);
}

TEST_F(ModuleTest, GetParameterOfAnEmptySlotThrows) {
  Sequential seq(Linear(LinearOptions(2, 2).bias(false)));
  EXPECT_THAT([&] { seq->get_parameter("0.bias"); },
              ThrowsMessage<Error>(
                  StrEq("get_parameter(\"0.bias\"): the parameter \"bias\" of "
                        "Linear at \"0\" is an empty slot")));
}

TEST_F(ModuleTest, GetParameterNamesTheMissingParameter) {
  Linear fc(2, 2);
  EXPECT_THAT([&] { fc->get_parameter("wieght"); },
              ThrowsMessage<Error>(
                  StrEq("get_parameter(\"wieght\"): Linear has no parameter "
                        "\"wieght\"")));
}

TEST_F(ModuleTest, GetBufferFindsOnlyBuffers) {
  Module m("Net");
  m.register_buffer("mean", Tensor::zeros({2}));
  m.register_parameter("w", Tensor::zeros({2}));
  EXPECT_EQ(m.get_buffer("mean").shape(), (Shape{2}));
  EXPECT_THAT([&] { m.get_buffer("w"); },
              ThrowsMessage<Error>(
                  StrEq("get_buffer(\"w\"): Net has no buffer \"w\"")));
}

//===----------------------------------------------------------------------===//
// Modes and apply
//===----------------------------------------------------------------------===//

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
  EXPECT_THAT(visited, ElementsAre("Linear", "Linear", "Linear", "Dropout",
                                   "SimpleMLP"));
}

TEST_F(ModuleTest, ApplyVisitsASharedModuleUnderEachParent) {
  // As PyTorch: root.apply recurses through each parent's children().
  Sharing model;
  std::vector<std::string> visited;
  model->apply([&](Module &m) { visited.push_back(m.name()); });
  EXPECT_THAT(visited, ElementsAre("Linear", "Sequential", "Linear",
                                   "Sequential", "Sharing"));
}

TEST_F(ModuleTest, ApplyReturnsTheModule) {
  Linear fc(1, 1);
  EXPECT_EQ(&fc->apply([](Module &) {}), fc.get());
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

TEST_F(ModuleTest, RequiresGradFalseFreezesTheTree) {
  models::SimpleMLP model;
  model->requires_grad_(false);
  for (const Tensor &p : model->parameters())
    EXPECT_FALSE(p.requires_grad());
  model->fc3->requires_grad_();
  EXPECT_TRUE(model->fc3->weight.requires_grad());
  EXPECT_FALSE(model->fc1->weight.requires_grad());
}

TEST_F(ModuleTest, FreezingByPrefixWorksThroughNamedParameters) {
  models::SimpleMLP model;
  for (auto &[name, p] : model->named_parameters())
    if (name.starts_with("fc1."))
      p.requires_grad_(false);
  EXPECT_FALSE(model->fc1->weight.requires_grad());
  EXPECT_FALSE(model->fc1->requires_grad("bias"));
  EXPECT_TRUE(model->fc2->weight.requires_grad());
}

TEST_F(ModuleTest, TiedParameterHasOneRequiresGradFlag) {
  Module net("Net");
  Linear a = net.register_module("a", Linear(4, 4));
  Linear b = net.register_module("b", Linear(4, 4));
  b->weight = a->weight;
  a->weight.requires_grad_(false);
  EXPECT_FALSE(b->requires_grad("weight"));
}

TEST_F(ModuleTest, GradientsStartAsNone) {
  models::SimpleMLP model;
  for (const Tensor &p : model->parameters())
    EXPECT_FALSE(p.grad().defined());
}

TEST_F(ModuleTest, ZeroGradSetsGradientsToNone) {
  Linear fc(2, 2);
  fc->weight.set_grad(Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}));
  fc->zero_grad();
  EXPECT_FALSE(fc->weight.grad().defined());
}

TEST_F(ModuleTest, ZeroGradWithoutSetToNoneZeroesInPlace) {
  Linear fc(2, 2);
  Tensor grad = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  fc->weight.set_grad(grad);
  fc->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(fc->weight.grad().shares_storage(grad));
  EXPECT_EQ(grad.data_ptr<float>()[3], 0.0f);
  EXPECT_FALSE(fc->bias.grad().defined());
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

TEST_F(ModuleTest, PrintsPyTorchRepr) {
  models::SimpleMLP model;
  EXPECT_EQ(repr(*model),
            "SimpleMLP(\n"
            "  (fc1): Linear(in_features=784, out_features=256, bias=True)\n"
            "  (fc2): Linear(in_features=256, out_features=256, bias=True)\n"
            "  (fc3): Linear(in_features=256, out_features=10, bias=True)\n"
            "  (dropout): Dropout(p=0.1, inplace=False)\n"
            ")");
}

TEST_F(ModuleTest, NestedReprIndentsEveryLevel) {
  // PyTorch 1.13 prints exactly this for
  // nn.Sequential(nn.Sequential(nn.Linear(1, 1)), M()), M's extra_repr
  // being "a=1\nb=2".
  Sequential seq(Sequential(Linear(1, 1)), TwoLines());
  EXPECT_EQ(repr(*seq), "Sequential(\n"
                        "  (0): Sequential(\n"
                        "    (0): Linear(in_features=1, out_features=1, "
                        "bias=True)\n"
                        "  )\n"
                        "  (1): TwoLines(\n"
                        "    a=1\n"
                        "    b=2\n"
                        "  )\n"
                        ")");
}

TEST_F(ModuleTest, ModuleWithNothingToShowPrintsEmptyParentheses) {
  EXPECT_EQ(repr(*ReLU()), "ReLU()");
  EXPECT_EQ(repr(*Sequential()), "Sequential()");
}

// What PyTorch 1.13 prints for nn.ReLU(True), nn.ReLU6(inplace=True),
// nn.LeakyReLU(0.2, True) and nn.Hardtanh(inplace=True) (torchvision builds
// its models with them).
TEST_F(ModuleTest, ActivationsPrintInplaceAsPyTorch) {
  EXPECT_EQ(repr(*ReLU(true)), "ReLU(inplace=True)");
  EXPECT_EQ(repr(*ReLU6(ReLU6Options().inplace(true))), "ReLU6(inplace=True)");
  EXPECT_EQ(repr(*ReLU6()), "ReLU6()");
  EXPECT_EQ(repr(*LeakyReLU(LeakyReLUOptions(0.2).inplace(true))),
            "LeakyReLU(negative_slope=0.2, inplace=True)");
  EXPECT_EQ(repr(*LeakyReLU()), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(repr(*Hardtanh(HardtanhOptions().inplace(true))),
            "Hardtanh(min_val=-1.0, max_val=1.0, inplace=True)");
  // nn.Hardswish(inplace=True), nn.Hardsigmoid(True), nn.ELU(),
  // nn.ELU(0.5, True).
  EXPECT_EQ(repr(*Hardswish(true)), "Hardswish()");
  EXPECT_EQ(repr(*Hardsigmoid(true)), "Hardsigmoid()");
  EXPECT_EQ(repr(*ELU()), "ELU(alpha=1.0)");
  EXPECT_EQ(repr(*ELU(ELUOptions().alpha(0.5).inplace(true))),
            "ELU(alpha=0.5, inplace=True)");
  // nn.SiLU(inplace=True), nn.SiLU(), nn.Dropout(p=0.2, inplace=True)
  // (torchvision's EfficientNet).
  EXPECT_EQ(repr(*SiLU(true)), "SiLU(inplace=True)");
  EXPECT_EQ(repr(*SiLU()), "SiLU()");
  EXPECT_EQ(repr(*Dropout(DropoutOptions(0.2).inplace(true))),
            "Dropout(p=0.2, inplace=True)");
  EXPECT_EQ(repr(*Dropout()), "Dropout(p=0.5, inplace=False)");
}

// What PyTorch 1.13 prints for the further activation layers (the
// constructor calls in each comment).
TEST_F(ModuleTest, MoreActivationLayersPrintAsPyTorch) {
  // nn.SELU(), nn.SELU(inplace=True), nn.CELU(), nn.CELU(0.5, inplace=True)
  EXPECT_EQ(repr(*SELU()), "SELU()");
  EXPECT_EQ(repr(*SELU(true)), "SELU(inplace=True)");
  EXPECT_EQ(repr(*CELU()), "CELU(alpha=1.0)");
  EXPECT_EQ(repr(*CELU(CELUOptions().alpha(0.5).inplace(true))),
            "CELU(alpha=0.5, inplace=True)");
  // nn.Softplus(), nn.Softplus(beta=2, threshold=10.5)
  EXPECT_EQ(repr(*Softplus()), "Softplus(beta=1, threshold=20)");
  EXPECT_EQ(repr(*Softplus(SoftplusOptions().beta(2).threshold(10.5))),
            "Softplus(beta=2, threshold=10.5)");
  // nn.Mish(), nn.Mish(inplace=True), nn.LogSigmoid(), nn.Softsign(),
  // nn.Tanhshrink()
  EXPECT_EQ(repr(*Mish()), "Mish()");
  EXPECT_EQ(repr(*Mish(true)), "Mish(inplace=True)");
  EXPECT_EQ(repr(*LogSigmoid()), "LogSigmoid()");
  EXPECT_EQ(repr(*Softsign()), "Softsign()");
  EXPECT_EQ(repr(*Tanhshrink()), "Tanhshrink()");
  // nn.Hardshrink(), nn.Hardshrink(1.5), nn.Softshrink()
  EXPECT_EQ(repr(*Hardshrink()), "Hardshrink(0.5)");
  EXPECT_EQ(repr(*Hardshrink(1.5)), "Hardshrink(1.5)");
  EXPECT_EQ(repr(*Softshrink()), "Softshrink(0.5)");
  // nn.Threshold(0.1, 20), nn.Threshold(0.1, 20, inplace=True)
  EXPECT_EQ(repr(*Threshold(ThresholdOptions(0.1, 20))),
            "Threshold(threshold=0.1, value=20)");
  EXPECT_EQ(repr(*Threshold(ThresholdOptions(0.1, 20).inplace(true))),
            "Threshold(threshold=0.1, value=20, inplace=True)");
  // nn.GLU(), nn.GLU(1), nn.Softmin(dim=1)
  EXPECT_EQ(repr(*GLU()), "GLU(dim=-1)");
  EXPECT_EQ(repr(*GLU(1)), "GLU(dim=1)");
  EXPECT_EQ(repr(*Softmin(1)), "Softmin(dim=1)");
}

TEST_F(ModuleTest, MoreActivationLayersRejectBadOptions) {
  EXPECT_THROW(CELU(CELUOptions().alpha(0.0)), Error);
  EXPECT_THROW(Softshrink(-1.0), Error);
  // GLU halves its dimension: an odd size is an error naming it.
  GLU glu(1);
  try {
    trace(glu, {TensorSpec({2, 5, 4})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("glu: halving dimension must be even, but "
                                     "dimension 1 is size 5 (input 2x5x4)"));
  }
}

// What PyTorch 1.13 prints for each padding layer and PReLU.
TEST_F(ModuleTest, PaddingLayersAndPReLUPrintAsPyTorch) {
  EXPECT_EQ(repr(*ZeroPad2d(1)), "ZeroPad2d((1, 1, 1, 1))");
  EXPECT_EQ(repr(*ZeroPad2d(ExpandingArray<4>({1, 1, 2, 0}))),
            "ZeroPad2d((1, 1, 2, 0))");
  EXPECT_EQ(repr(*ConstantPad1d(ConstantPad1dOptions(2, 3.5))),
            "ConstantPad1d(padding=(2, 2), value=3.5)");
  EXPECT_EQ(repr(*ConstantPad2d(ConstantPad2dOptions({1, 1, 2, 0}, -1.0))),
            "ConstantPad2d(padding=(1, 1, 2, 0), value=-1.0)");
  EXPECT_EQ(repr(*ConstantPad3d(ConstantPad3dOptions(1, 0.5))),
            "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=0.5)");
  EXPECT_EQ(repr(*ReflectionPad1d(ReflectionPad1dOptions({3, 1}))),
            "ReflectionPad1d((3, 1))");
  EXPECT_EQ(repr(*ReflectionPad2d(2)), "ReflectionPad2d((2, 2, 2, 2))");
  EXPECT_EQ(repr(*ReflectionPad3d(1)), "ReflectionPad3d((1, 1, 1, 1, 1, 1))");
  EXPECT_EQ(repr(*ReplicationPad1d(2)), "ReplicationPad1d((2, 2))");
  EXPECT_EQ(repr(*ReplicationPad2d(ReplicationPad2dOptions({1, 1, 2, 0}))),
            "ReplicationPad2d((1, 1, 2, 0))");
  EXPECT_EQ(repr(*ReplicationPad3d(1)), "ReplicationPad3d((1, 1, 1, 1, 1, 1))");
  EXPECT_EQ(repr(*PReLU()), "PReLU(num_parameters=1)");
  PReLU prelu(PReLUOptions().num_parameters(64).init(0.1));
  EXPECT_EQ(repr(*prelu), "PReLU(num_parameters=64)");
  EXPECT_THAT(names(prelu->named_parameters()), ElementsAre("weight"));
  EXPECT_EQ(prelu->weight.shape(), Shape{64});
  EXPECT_FLOAT_EQ(prelu->weight.data_ptr<float>()[63], 0.1f);
}

} // namespace
