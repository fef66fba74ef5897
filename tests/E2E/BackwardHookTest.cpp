//===- BackwardHookTest.cpp - Backward hooks against PyTorch --------------===//
//
// The DynamicNet seed model (middle.0 is called twice per forward) with
// PyTorch's weights, one forward_backward under each case of
// generate_train_goldens.py's HOOK_CASES: what a full backward hook sees
// (grad_input, grad_output, per call, in backward's order, captured as
// extra outputs of the step), and how a hook that replaces grad_input, a
// pre-hook that replaces grad_output, hooks on a parameter's gradient and
// on an intermediate's change every gradient, as in PyTorch. Then the
// lifecycle (removing a hook recompiles) and the errors a bad hook gets.
//
//===----------------------------------------------------------------------===//

#include "models/DynamicNet.h"

#include "OpGolden.h"

#include "gmock/gmock.h"

#include <cstring>

namespace nn::testing {
namespace {

const std::string kGoldens =
    std::string(NN_SOURCE_DIR) + "/tests/reference/goldens/";

// Gradient sums run in another order than PyTorch's kernels.
const Tolerance kClose = {1e-5, 1e-5};

class BackwardHookTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto weights =
        load_safetensors(kGoldens + "modules/DynamicNet.safetensors");
    ASSERT_TRUE(weights.ok()) << weights.status();
    model->load_state_dict(weights->tensors);
    model->train();
  }

  StateDict golden(const std::string &name) {
    auto file = load_safetensors(kGoldens + "train/DynamicNet/hooks/" + name +
                                 ".safetensors");
    if (!file.ok())
      throw Error(file.status().ToString());
    return file->tensors;
  }

  /// One forward_backward on the golden's batch; every gradient compared.
  Tensor runAndCompare(TrainStep &step, const StateDict &expected) {
    for (auto &[name, p] : model->named_parameters())
      p.set_grad(Tensor());
    Tensor loss =
        step.forward_backward(expected.at("input"), expected.at("target"));
    expectClose(loss, expected.at("loss"), kClose, "loss");
    for (auto &[name, p] : model->named_parameters()) {
      const Tensor *grad = expected.find("grad." + name);
      EXPECT_EQ(p.grad().defined(), grad != nullptr) << name;
      if (grad && p.grad().defined())
        expectClose(p.grad(), *grad, kClose, name + ".grad");
    }
    return loss;
  }

  TrainStep makeStep() {
    return TrainStep(model, loss_fn, {TensorSpec({8, 8})},
                     {TensorSpec({8}, DType::i64)});
  }

  models::DynamicNet model;
  CrossEntropyLoss loss_fn;
};

/// A full backward hook that captures what it sees as
/// seen.<call>.grad_input.<i> / .grad_output.<i> (call counts across every
/// hook made by one `counter`), and records which entries were None.
struct Observer {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  std::shared_ptr<std::vector<std::vector<bool>>> defined =
      std::make_shared<std::vector<std::vector<bool>>>();

  auto hook() const {
    return [calls = calls, defined = defined](Module &, const TensorList &gi,
                                              const TensorList &go) {
      int k = (*calls)++;
      std::vector<bool> which;
      for (auto [what, grads] :
           {std::pair{"grad_input", &gi}, std::pair{"grad_output", &go}})
        for (size_t i = 0; i < grads->size(); ++i) {
          which.push_back((*grads)[i].defined());
          if ((*grads)[i].defined())
            capture("seen." + std::to_string(k) + "." + what + "." +
                        std::to_string(i),
                    (*grads)[i]);
        }
      defined->push_back(which);
    };
  }
};

TEST_F(BackwardHookTest, AFullHookSeesPyTorchsGradInputAndGradOutputPerCall) {
  StateDict expected = golden("observe");
  Observer observer;
  model->middle[0].ptr()->register_full_backward_hook(observer.hook());
  model->input_linear->register_full_backward_hook(observer.hook());
  TrainStep step = makeStep();
  runAndCompare(step, expected);

  // middle.0 twice (its later call first), then input_linear, whose input
  // (the batch) requires no gradient: grad_input is (None,).
  ASSERT_EQ(*observer.calls, 3);
  std::vector<std::vector<bool>> none = {
      {true, true}, {true, true}, {false, true}};
  EXPECT_EQ(*observer.defined, none);
  size_t seen = 0;
  for (const auto &[name, tensor] : expected) {
    if (name.rfind("seen.", 0) != 0 || name.find(".count") != std::string::npos)
      continue;
    ++seen;
    const Tensor *got = step.captured().find(name);
    ASSERT_NE(got, nullptr) << name << " was not captured";
    expectClose(*got, tensor, kClose, name);
  }
  EXPECT_EQ(seen, 5u);
  EXPECT_EQ(step.captured().size(), seen);
}

TEST_F(BackwardHookTest, AHookThatScalesGradInputChangesEveryUpstreamGradient) {
  model->middle[1].ptr()->register_full_backward_hook(
      [](Module &, const TensorList &gi, const TensorList &) {
        TensorList scaled;
        for (const Tensor &g : gi)
          scaled.push_back(g.defined() ? g * 0.5 : g);
        return scaled;
      });
  TrainStep step = makeStep();
  runAndCompare(step, golden("scale_grad_input"));
}

TEST_F(BackwardHookTest,
       APreHookThatScalesGradOutputChangesTheModuleAndUpstream) {
  model->output_linear->register_full_backward_pre_hook(
      [](Module &, const TensorList &go) { return TensorList{go[0] * 3.0}; });
  TrainStep step = makeStep();
  runAndCompare(step, golden("pre_scale_grad_output"));
}

TEST_F(BackwardHookTest, HooksOnAParametersGradientRunInOrderOnItsSum) {
  // middle.0.weight is read by two calls: the hooks see the sum, once.
  Tensor weight = model->middle[0].ptr()->named_parameters().front().second;
  ASSERT_EQ(weight.shape(), Shape({16, 16}));
  int calls = 0;
  weight.register_hook([&](const Tensor &g) {
    ++calls;
    return g * 0.1;
  });
  weight.register_hook(
      [](const Tensor &g) { return F::clamp(g, -0.01, 0.01); });
  TrainStep step = makeStep();
  runAndCompare(step, golden("parameter"));
  EXPECT_EQ(calls, 1);
}

TEST_F(BackwardHookTest, AHookOnAnIntermediateSeesEveryUseOfIt) {
  model->middle[1].ptr()->register_forward_hook(
      [](Module &, const TensorList &, const Tensor &out) {
        Tensor hooked = out;
        hooked.register_hook([](const Tensor &g) { return g * 2.0; });
      });
  TrainStep step = makeStep();
  runAndCompare(step, golden("intermediate"));
}

TEST_F(BackwardHookTest, RemovingAHookRecompilesAndRestoresTheGradients) {
  TrainStep step = makeStep();
  StateDict plain = golden("observe"); // its hooks only watch
  runAndCompare(step, plain);
  RemovableHandle handle = model->middle[1].ptr()->register_full_backward_hook(
      [](Module &, const TensorList &gi, const TensorList &) {
        return TensorList{gi[0] * 0.5};
      });
  runAndCompare(step, golden("scale_grad_input"));
  Tensor weight = model->middle[0].ptr()->named_parameters().front().second;
  ScopedHook scoped =
      weight.register_hook([](const Tensor &g) { return g * 0.0; });
  handle.remove();
  scoped.remove();
  runAndCompare(step, plain);
  // Traced with no hook, with one, then with none again (the tensor hook
  // came and went between two runs).
  EXPECT_EQ(step.compiled().compile_count(), 3u);
}

TEST_F(BackwardHookTest, AForwardOnlyCompileRunsAsWithoutBackwardHooks) {
  Tensor x = golden("observe").at("input");
  CompiledModule plain(model, {TensorSpec({8, 8})});
  Tensor expected = plain({x})[0];
  model->middle[0].ptr()->register_full_backward_hook(
      [](Module &, const TensorList &gi, const TensorList &) {
        return TensorList{gi[0] * 0.0};
      });
  model->input_linear->weight.register_hook(
      [](const Tensor &g) { return g * 0.0; });
  CompiledModule hooked(model, {TensorSpec({8, 8})});
  Tensor got = hooked({x})[0];
  ASSERT_EQ(got.nbytes(), expected.nbytes());
  EXPECT_EQ(std::memcmp(got.raw_data(), expected.raw_data(), got.nbytes()), 0);
}

// A forward capture hook keeps working in a training step: what it
// captures comes out beside the gradients, which it leaves alone.
TEST_F(BackwardHookTest, AForwardCaptureIsKeptBesideTheGradients) {
  StateDict expected = golden("observe");
  auto handle = model->input_linear->register_capture_hook("features");
  CompiledModule forward(model, {TensorSpec({8, 8})});
  StateDict inputs;
  inputs.insert("input.0", expected.at("input"));
  Tensor features = forward.run_named(inputs).at("features");
  TrainStep step = makeStep();
  runAndCompare(step, expected);
  const Tensor *got = step.captured().find("features");
  ASSERT_NE(got, nullptr) << "the capture was dropped";
  expectClose(*got, features, kClose, "features");
}

TEST_F(BackwardHookTest, AReplacementOfTheWrongShapeOrCountIsNamed) {
  {
    ScopedHook hook = model->output_linear->register_full_backward_pre_hook(
        [](Module &, const TensorList &go) {
          return TensorList{go[0], go[0]};
        });
    TrainStep step = makeStep();
    EXPECT_THAT(
        [&] {
          step.forward_backward(Tensor::zeros({8, 8}),
                                Tensor::zeros({8}, DType::i64));
        },
        ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
            "output_linear: a backward pre-hook returned 2 gradients for 1")));
  }
  {
    ScopedHook hook = model->middle[1].ptr()->register_full_backward_hook(
        [](Module &, const TensorList &gi, const TensorList &) {
          return TensorList{F::sum(gi[0], {1}, false)};
        });
    TrainStep step = makeStep();
    EXPECT_THAT(
        [&] {
          step.forward_backward(Tensor::zeros({8, 8}),
                                Tensor::zeros({8}, DType::i64));
        },
        ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
            "middle.1: a full backward hook returned Tensor[float32, 8, "
            "symbolic] for gradient 0, which is tensor<8x16xf32>")));
  }
  {
    // The batch requires no gradient: PyTorch refuses one for it too.
    ScopedHook hook = model->input_linear->register_full_backward_hook(
        [](Module &, const TensorList &, const TensorList &go) {
          return TensorList{go[0]};
        });
    TrainStep step = makeStep();
    EXPECT_THAT(
        [&] {
          step.forward_backward(Tensor::zeros({8, 8}),
                                Tensor::zeros({8}, DType::i64));
        },
        ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
            "input_linear: a full backward hook returned gradients for "
            "inputs that require none")));
  }
  EXPECT_THAT([] { Tensor::zeros({2}).register_hook([](const Tensor &) {}); },
              ::testing::ThrowsMessage<Error>(
                  ::testing::HasSubstr("does not require grad")));
}

TEST_F(BackwardHookTest,
       AHookOnAModelInputIsRefusedUnlessInputsAreDifferentiated) {
  auto loss = [this](bool hook) {
    return [this, hook](const std::vector<Tensor> &in) {
      Tensor x = in[0];
      if (hook)
        x.register_hook([](const Tensor &g) { return g * 2.0; });
      return std::vector<Tensor>{F::sum(model->forward(x))};
    };
  };
  TracedModule refused = trace(*model, {TensorSpec({8, 8})}, loss(true));
  EXPECT_THAT(
      [&] { refused.differentiate(); },
      ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
          "register_hook: model input 'input.0' does not require grad")));
  // With the inputs' gradients asked for, the hook doubles the input's.
  StateDict x;
  x.insert("input.0", golden("observe").at("input"));
  auto gradOfInput = [&](bool hook) {
    TracedModule traced = trace(*model, {TensorSpec({8, 8})}, loss(hook));
    traced.differentiate(/*inputs=*/true);
    auto outputs = nn::compile(traced)->run(x);
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    return outputs->at("grad.input.0");
  };
  Tensor plain = gradOfInput(false), doubled = gradOfInput(true);
  ASSERT_EQ(plain.numel(), doubled.numel());
  for (int64_t i = 0; i < plain.numel(); ++i)
    EXPECT_EQ(doubled.item_as_double(i), 2 * plain.item_as_double(i)) << i;
}

} // namespace
} // namespace nn::testing
