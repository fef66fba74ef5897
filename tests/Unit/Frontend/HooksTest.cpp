//===- HooksTest.cpp - Forward hooks, capture, the compiled cache ---------===//
//
// Hooks run at trace time: what they return replaces values in the traced
// graph, so each test compiles the model and checks the numbers the
// compiled code gives against the same computation done without the hook.
//
//===----------------------------------------------------------------------===//

#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <vector>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

class TwoStageImpl : public Cloneable<TwoStageImpl> {
public:
  TwoStageImpl() : Cloneable("TwoStage") {
    fc1 = register_module("fc1", Linear(4, 3));
    fc2 = register_module("fc2", Linear(3, 2));
  }
  Tensor forward(const Tensor &x) { return fc2(F::relu(fc1(x))); }
  Linear fc1{nullptr}, fc2{nullptr};
};
NN_MODULE(TwoStage);

const std::vector<TensorSpec> kSpecs = {TensorSpec({5, 4})};

Tensor randomInput(double scale = 1.0) {
  Tensor x = Tensor::zeros({5, 4});
  init::uniform_(x, -scale, scale);
  return x;
}

std::vector<float> values(const Tensor &t) {
  const float *p = t.data_ptr<float>();
  return std::vector<float>(p, p + t.numel());
}

/// The model's compiled output on `x`.
std::vector<float> run(const TwoStage &model, const Tensor &x) {
  return values(compile(trace(model, kSpecs))->run({x}).value().at(0));
}

/// x · Wᵀ + b on concrete tensors, in double.
std::vector<float> linearRef(const Tensor &x, const Linear &fc) {
  int64_t rows = x.size(0), in = x.size(1), out = fc->weight.size(0);
  const float *xp = x.data_ptr<float>(), *w = fc->weight.data_ptr<float>(),
              *b = fc->bias.data_ptr<float>();
  std::vector<float> y(rows * out);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double acc = b[o];
      for (int64_t i = 0; i < in; ++i)
        acc += double(xp[r * in + i]) * w[o * in + i];
      y[r * out + o] = static_cast<float>(acc);
    }
  return y;
}

/// torch.testing's float32 tolerance. Not exact equality: a hook's extra
/// ops change what nn-fuse groups, and a fused group may accumulate the
/// contraction in another order than the matmul kernel does.
void expectClose(const std::vector<float> &actual,
                 const std::vector<float> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1.3e-6 * std::abs(expected[i]))
        << "at " << i;
}

class HooksTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(HooksTest, PreHookReplacesTheInputInTheGraph) {
  TwoStage model;
  Tensor x = randomInput();
  Tensor doubled = Tensor::zeros({5, 4});
  for (int64_t i = 0; i < x.numel(); ++i)
    doubled.data_ptr<float>()[i] = 2 * x.data_ptr<float>()[i];
  std::vector<float> expected = run(model, doubled);

  model->fc1->register_forward_pre_hook(
      [](Module &, const TensorList &in) { return TensorList{in[0] * 2.0}; });
  expectClose(run(model, x), expected);
}

TEST_F(HooksTest, ForwardHookReplacesTheOutputInTheGraph) {
  TwoStage model;
  Tensor x = randomInput();
  std::vector<float> expected = run(model, x);
  for (float &v : expected)
    v += 1.0f;

  model->register_forward_hook([](Module &, const TensorList &,
                                  const Tensor &out) { return out + 1.0; });
  expectClose(run(model, x), expected);
}

TEST_F(HooksTest, HooksRunInOrderEachOnThePreviousResult) {
  TwoStage model;
  Tensor x = randomInput();
  std::vector<float> expected = run(model, x);
  for (float &v : expected)
    v = (v * 3.0f) + 1.0f;

  std::vector<std::string> seen;
  model->fc2->register_forward_pre_hook(
      [&](Module &m, const TensorList &in) -> std::optional<TensorList> {
        seen.push_back("pre " + m.name() + " " + shape_str(in[0].shape()));
        return std::nullopt;
      });
  model->fc2->register_forward_hook(
      [&](Module &, const TensorList &, const Tensor &out) {
        seen.push_back("times 3");
        return out * 3.0;
      });
  model->fc2->register_forward_hook(
      [&](Module &, const TensorList &in, const TensorList &out) {
        seen.push_back("observe " + std::to_string(in.size()) + " " +
                       shape_str(out[0].shape()));
      });
  model->fc2->register_forward_hook(
      [&](Module &, const TensorList &, const TensorList &out) {
        seen.push_back("plus 1");
        return TensorList{out[0] + 1.0};
      });
  expectClose(run(model, x), expected);
  EXPECT_THAT(seen, ElementsAre("pre Linear 5x3", "times 3", "observe 1 5x2",
                                "plus 1"));
}

TEST_F(HooksTest, RemovedAndScopedHooksNoLongerRun) {
  TwoStage model;
  Tensor x = randomInput();
  std::vector<float> plain = run(model, x);
  auto negate = [](Module &, const TensorList &, const Tensor &out) {
    return -out;
  };

  RemovableHandle handle = model->register_forward_hook(negate);
  EXPECT_TRUE(handle.active());
  EXPECT_NE(run(model, x), plain);
  handle.remove();
  EXPECT_FALSE(handle.active());
  handle.remove(); // a second remove is harmless
  expectClose(run(model, x), plain);
  {
    ScopedHook scoped = model->register_forward_hook(negate);
    EXPECT_NE(run(model, x), plain);
  }
  EXPECT_FALSE(model->has_forward_hooks());
  expectClose(run(model, x), plain);
}

TEST_F(HooksTest, CaptureHookAddsANamedOutput) {
  TwoStage model;
  auto handle = model->fc1->register_capture_hook("hidden");
  TracedModule traced = trace(model, kSpecs);
  EXPECT_THAT(traced.to_string(), HasSubstr("nn.name = \"hidden\""));

  Tensor x = randomInput();
  StateDict inputs;
  inputs.insert("input.0", x);
  StateDict outputs = compile(traced)->run(inputs).value();
  ASSERT_TRUE(outputs.contains("output.0"));
  ASSERT_TRUE(outputs.contains("hidden"));
  std::vector<float> hidden = values(outputs.at("hidden"));
  std::vector<float> expected = linearRef(x, model->fc1);
  expectClose(hidden, expected);
}

TEST_F(HooksTest, CaptureErrorsNameTheProblem) {
  TwoStage model;
  Tensor x = randomInput();
  EXPECT_THROW(capture("x", x), Error); // no trace in progress

  auto a = model->fc1->register_capture_hook("features");
  auto b = model->fc2->register_capture_hook("features");
  try {
    trace(model, kSpecs);
    FAIL() << "expected a duplicate-capture error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(),
                HasSubstr("fc2: nn::capture: \"features\" is captured twice"));
  }
  b.remove();
  auto c = model->fc2->register_capture_hook("output.0");
  EXPECT_THROW(trace(model, kSpecs), Error);
}

TEST_F(HooksTest, AReplacementOfTheWrongCountIsAnError) {
  TwoStage model;
  model->fc1->register_forward_pre_hook([](Module &, const TensorList &in) {
    return TensorList{in[0], in[0]};
  });
  try {
    trace(model, kSpecs);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(),
                HasSubstr("forward pre-hook returned 2 tensors for 1"));
  }
}

TEST_F(HooksTest, CloneCopiesHooksIndependently) {
  TwoStage model;
  RemovableHandle handle = model->register_forward_hook(
      [](Module &, const TensorList &, const Tensor &out) { return -out; });
  TwoStage copy(std::dynamic_pointer_cast<TwoStageImpl>(model->clone()));
  handle.remove();
  EXPECT_FALSE(model->has_forward_hooks());
  EXPECT_TRUE(copy->has_forward_hooks());
}

TEST_F(HooksTest, CompiledModuleRecompilesOnlyWhenTheTraceWouldChange) {
  TwoStage model;
  model->eval();
  CompiledModule compiled(model, kSpecs);
  Tensor x = randomInput();
  std::vector<float> first = values(compiled({x}).at(0));
  EXPECT_EQ(compiled.compile_count(), 1u);
  compiled({x});
  EXPECT_EQ(compiled.compile_count(), 1u);
  EXPECT_FALSE(compiled.is_stale());

  // New weight values are read, not recompiled.
  model->fc2->bias.data_ptr<float>()[0] += 1.0f;
  std::vector<float> shifted = values(compiled({x}).at(0));
  EXPECT_EQ(compiled.compile_count(), 1u);
  EXPECT_FLOAT_EQ(shifted[0], first[0] + 1.0f);

  // A hook added, then removed: two recompiles, each taking effect.
  RemovableHandle handle = model->fc2->register_forward_hook(
      [](Module &, const TensorList &, const Tensor &out) {
        return out * 0.0;
      });
  EXPECT_TRUE(compiled.is_stale());
  EXPECT_EQ(values(compiled({x}).at(0)), std::vector<float>(10, 0.0f));
  EXPECT_EQ(compiled.compile_count(), 2u);
  handle.remove();
  expectClose(values(compiled({x}).at(0)), shifted);
  EXPECT_EQ(compiled.compile_count(), 3u);

  // A capture hook on a submodule, train(), a replaced parameter.
  auto capture = model->fc1->register_capture_hook("hidden");
  StateDict inputs;
  inputs.insert("input.0", x);
  EXPECT_TRUE(compiled.run_named(inputs).contains("hidden"));
  EXPECT_EQ(compiled.compile_count(), 4u);
  model->train();
  EXPECT_TRUE(compiled.is_stale());
  model->eval();
  EXPECT_FALSE(compiled.is_stale());
  model->fc2->register_parameter("bias", Tensor::zeros({2}));
  EXPECT_TRUE(compiled.is_stale());
}

} // namespace
