//===- TracerTest.cpp - nn::trace -----------------------------------------===//
//
// What tracing records: symbols named by state_dict keys, ops located at
// module paths, errors prefixed with the path and naming both shapes.
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

using namespace nn;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

/// blocks.0: Linear(8, 31), blocks.1: Linear(32, 96): the second one cannot
/// take the first one's output.
class BrokenImpl : public Module {
public:
  BrokenImpl() : Module("Broken") {
    blocks =
        register_module("blocks", Sequential(Linear(8, 31), Linear(32, 96)));
  }
  Tensor forward(const Tensor &x) { return blocks(x); }
  Sequential blocks{nullptr};
};
NN_MODULE(Broken);

/// Adds a tensor that is not registered anywhere.
struct StrayImpl : Module {
  StrayImpl() : Module("Stray") {}
  Tensor forward(const Tensor &x) { return x + stray; }
  Tensor stray = Tensor::zeros({3});
};
NN_MODULE(Stray);

/// b's weight is a's (assigned after registration).
struct TiedImpl : Module {
  TiedImpl() : Module("Tied") {
    a = register_module("a", Linear(4, 4));
    b = register_module("b", Linear(4, 4));
    b->weight = a->weight;
  }
  Tensor forward(const Tensor &x) { return b(a(x)); }
  Linear a{nullptr}, b{nullptr};
};
NN_MODULE(Tied);

/// Returns (x, (relu(x), -x)), nested as LSTM's (output, (h_n, c_n)).
struct NestedImpl : Module {
  NestedImpl() : Module("Nested") {}
  std::tuple<Tensor, std::pair<Tensor, Tensor>> forward(const Tensor &x) {
    return {x + 1.0, {F::relu(x), -x}};
  }
};
NN_MODULE(Nested);

class TracerTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(TracerTest, SymbolsAreStateDictKeys) {
  models::SimpleMLP model;
  model->eval();
  std::string ir = trace(model, {TensorSpec({2, 784})}).to_string();
  EXPECT_THAT(ir, HasSubstr("nn.parameter @fc1.weight : tensor<256x784xf32>"));
  EXPECT_THAT(ir, HasSubstr("nn.parameter @fc3.bias : tensor<10xf32>"));
  EXPECT_THAT(ir, HasSubstr("func.func @forward(%arg0: tensor<2x784xf32>) -> "
                            "tensor<2x10xf32>"));
}

// A module is traced from a reference as from its holder: a submodule of a
// bigger model, or `*model`, with no forward lambda.
TEST_F(TracerTest, AModuleReferenceIsTracedAsItsHolder) {
  models::SimpleMLP model;
  model->eval();
  std::string fromHolder = trace(model, {TensorSpec({2, 784})}).to_string();
  EXPECT_EQ(trace(*model, {TensorSpec({2, 784})}).to_string(), fromHolder);
  std::string layer = trace(*model->fc1, {TensorSpec({2, 784})}).to_string();
  EXPECT_THAT(layer, HasSubstr("nn.parameter @weight : tensor<256x784xf32>"));
  EXPECT_THAT(layer, HasSubstr("-> tensor<2x256xf32>"));
}

TEST_F(TracerTest, NestedTupleOutputsAreFlattenedDepthFirst) {
  Nested model;
  std::string ir = trace(model, {TensorSpec({3})}).to_string();
  EXPECT_THAT(ir,
              HasSubstr("-> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)"));
  EXPECT_THAT(ir, HasSubstr("nn.relu"));
  EXPECT_THAT(ir, HasSubstr("nn.neg"));
}

TEST_F(TracerTest, OpsAreLocatedAtModulePaths) {
  models::SimpleMLP model;
  model->eval();
  std::string ir = trace(model, {TensorSpec({2, 784})}).to_string(true);
  EXPECT_THAT(ir, HasSubstr("nn.linear %arg0"));
  EXPECT_THAT(ir, HasSubstr("loc(\"fc1\")"));
  EXPECT_THAT(ir, HasSubstr("loc(\"fc3\")"));
  EXPECT_THAT(ir, HasSubstr("loc(\"dropout\")"));
}

TEST_F(TracerTest, ShapeErrorNamesPathOpAndBothShapes) {
  Broken model;
  EXPECT_THAT(
      [&] {
        trace(model, {TensorSpec({2, 5, 8})});
      },
      ::testing::ThrowsMessage<Error>(::testing::StrEq(
          "blocks.1: linear: input has 31 features, weight expects 32 "
          "(input 2x5x31, weight 96x32)")));
}

TEST_F(TracerTest, FunctionalOutsideTraceThrows) {
  Tensor x = Tensor::zeros({2, 2});
  EXPECT_THAT([&] { F::relu(x); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("nn::functional::relu called outside nn::trace")));
}

// As torch.jit.trace does: a tensor forward uses that is no state of the
// model is a constant of the trace, with its values at the time of the call.
TEST_F(TracerTest, UnregisteredTensorIsCapturedAsAConstant) {
  Stray model;
  model->stray = Tensor::from_vector<float>({1, 2, 3}, {3});
  TracedModule traced = trace(model, {TensorSpec({3})});
  model->stray.data_ptr<float>()[0] = 7;
  std::string ir = traced.to_string();
  EXPECT_THAT(ir, HasSubstr("arith.constant dense<[1.000000e+00, "
                            "2.000000e+00, 3.000000e+00]> : tensor<3xf32>"));
  EXPECT_THAT(ir, ::testing::Not(HasSubstr("nn.buffer")));
  EXPECT_TRUE(traced.state().empty());
}

TEST_F(TracerTest, ConstantsKeepTheirDType) {
  Stray model;
  model->stray = Tensor::from_vector<int64_t>({0, 2}, {2});
  auto forward = [&](const std::vector<Tensor> &inputs) {
    Tensor mask = Tensor::from_vector<bool>({true, false, true}, {3});
    return std::vector<Tensor>{F::index_select(inputs[0], 0, model->stray),
                               F::where(mask, inputs[0], inputs[0] * 2.0)};
  };
  std::string ir = trace(*model, {TensorSpec({3})}, forward).to_string();
  EXPECT_THAT(ir, HasSubstr("dense<[0, 2]> : tensor<2xi64>"));
  EXPECT_THAT(ir, HasSubstr("dense<[true, false, true]> : tensor<3xi1>"));
}

TEST_F(TracerTest, UnregisteredTensorThatRequiresGradIsRefused) {
  Stray model;
  model->stray.set_requires_grad(true);
  EXPECT_THAT([&] { trace(model, {TensorSpec({3})}); },
              ::testing::ThrowsMessage<Error>(HasSubstr(
                  "<root>: add: rhs (Tensor[float32, 3]) requires grad but is "
                  "not a parameter of the traced model; register it with "
                  "register_parameter")));
}

TEST_F(TracerTest, WrongInputCountIsRefused) {
  models::SimpleMLP model;
  EXPECT_THAT(
      [&] {
        trace(model, {TensorSpec({2, 784}), TensorSpec({2})});
      },
      ::testing::ThrowsMessage<Error>(HasSubstr(
          "2 input specs given, but SimpleMLP's forward does not take "
          "that many tensors")));
}

TEST_F(TracerTest, TiedParametersAreDeclaredTiedToTheFirstName) {
  Tied model;
  TracedModule traced = trace(model, {TensorSpec({1, 4})});
  std::string ir = traced.to_string();
  EXPECT_THAT(ir, HasSubstr("nn.parameter @a.weight"));
  EXPECT_THAT(ir, HasSubstr("nn.parameter @b.weight : tensor<4x4xf32> "
                            "tied_to @a.weight"));
  EXPECT_THAT(ir, Not(HasSubstr("nn.load @b.weight")));
  EXPECT_NE(traced.state().find("b.weight"), nullptr);
}

TEST_F(TracerTest, OptimizeMakesTiedParametersOneSymbol) {
  Tied model;
  std::string ir = trace(model, {TensorSpec({1, 4})}).optimize().to_string();
  EXPECT_THAT(ir, HasSubstr("nn.parameter @a.weight : tensor<4x4xf32> "
                            "aliases [\"b.weight\"]"));
  EXPECT_THAT(ir, Not(HasSubstr("@b.weight")));
}

TEST_F(TracerTest, OptimizeFusesAndDropsEvalDropout) {
  models::SimpleMLP model;
  model->eval();
  TracedModule traced = trace(model, {TensorSpec({2, 784})});
  EXPECT_THAT(traced.to_string(), HasSubstr("nn.dropout"));
  traced.optimize();
  std::string ir = traced.to_string();
  EXPECT_THAT(ir, Not(HasSubstr("nn.dropout")));
  // Every relu is in a group right after its linear.
  EXPECT_THAT(ir, HasSubstr("nn.fused"));
  EXPECT_THAT(ir,
              ::testing::ContainsRegex(
                  "nn.linear [^\n]*\n *%[0-9]+ = nn.relu [^\n]*\n *nn.yield"));
}

TEST_F(TracerTest, TracedDemoMatchesTheCommittedExport) {
  // tests/tools/Inputs/simple_mlp.mlir is what nn-demo exports; the lit
  // tests compile it, so it must stay what the tracer produces.
  models::SimpleMLP model;
  model->eval();
  std::string ir = trace(model, {TensorSpec({64, 784})}).to_string();
  std::ifstream file(NN_SOURCE_DIR "/tests/tools/Inputs/simple_mlp.mlir");
  std::stringstream committed;
  committed << file.rdbuf();
  EXPECT_EQ(ir, committed.str());
}

} // namespace
