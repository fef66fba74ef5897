//===- TrainArtifactTest.cpp - One compiled call per step, in and out of process
//
// TrainStep::operator() runs forward, loss, backward and the optimizer's
// update as one compiled function. Checked here: it changes every
// parameter, gradient and optimizer state bit for bit as forward_backward
// then Optimizer::step do (which TrainTest checks against PyTorch); a
// scheduler's new learning rate reaches it without a recompile; and the
// same step compiled to a shared object and run by nn-run, which links only
// the runtime, trains ten steps to the same bits, in one run or in two
// that resume from the state the first saved.
//
//===----------------------------------------------------------------------===//

#include "E2ETestUtil.h"
#include "OpGolden.h"
#include "TrainCases.h"

#include "gmock/gmock.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace nn::testing {
namespace {

const std::string kGoldens =
    std::string(NN_SOURCE_DIR) + "/tests/reference/goldens/";

/// The optimizer cases the one-call step takes (clipping runs between
/// backward and the update, so it needs the two-call form; a frozen
/// parameter has no gradient to compare).
std::vector<TrainCase> fusedCases() {
  std::vector<TrainCase> cases;
  for (TrainCase &c : trainCases())
    if (!c.clip && c.frozen.empty())
      cases.push_back(c);
  return cases;
}

TrainCase caseNamed(const std::string &name) {
  for (TrainCase &c : trainCases())
    if (c.name == name)
      return c;
  throw Error("no train case " + name);
}

/// A DynamicNet with PyTorch's weights, its optimizer and its train step.
struct Trainer {
  explicit Trainer(const TrainCase &c) {
    auto weights =
        load_safetensors(kGoldens + "modules/DynamicNet.safetensors");
    if (!weights.ok())
      throw Error(std::string(weights.status().message()));
    model->load_state_dict(weights->tensors);
    model->train();
    optimizer = c.optimizer(model);
    step = std::make_unique<TrainStep>(
        model, loss_fn, std::vector<TensorSpec>{TensorSpec({8, 8})},
        std::vector<TensorSpec>{TensorSpec({8}, DType::i64)}, *optimizer);
  }
  models::DynamicNet model;
  CrossEntropyLoss loss_fn;
  std::unique_ptr<optim::Optimizer> optimizer;
  std::unique_ptr<TrainStep> step;
};

/// Batch k (from 0) of a fixed, seeded stream: inputs [8, 8], classes [8].
std::pair<Tensor, Tensor> batch(int k) {
  Tensor x = Tensor::zeros({8, 8});
  Tensor y = Tensor::zeros({8}, DType::i64);
  uint32_t s = 12345u + 977u * static_cast<uint32_t>(k);
  auto next = [&s] {
    s = s * 1664525u + 1013904223u;
    return s >> 8;
  };
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data_ptr<float>()[i] = static_cast<float>(next() % 2001) / 1000.0f - 1.0f;
  for (int64_t i = 0; i < y.numel(); ++i)
    y.data_ptr<int64_t>()[i] = next() % 4;
  return {x, y};
}

class FusedStepTest : public ::testing::TestWithParam<TrainCase> {};

TEST_P(FusedStepTest, ChangesTheSameBitsAsForwardBackwardThenStep) {
  Trainer fused(GetParam()), split(GetParam());
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    auto [x, y] = batch(k);
    Tensor loss = (*fused.step)(x, y);
    split.optimizer->zero_grad();
    Tensor expected = split.step->forward_backward(x, y);
    split.optimizer->step();
    expectSameBits(loss, expected, "loss");
    auto ours = fused.model->named_parameters();
    auto theirs = split.model->named_parameters();
    for (size_t i = 0; i < ours.size(); ++i) {
      const std::string &name = ours[i].first;
      expectSameBits(ours[i].second, theirs[i].second, name);
      ASSERT_TRUE(ours[i].second.grad().defined()) << name;
      expectSameBits(ours[i].second.grad(), theirs[i].second.grad(),
                     name + ".grad");
      auto state = split.optimizer->state_of(theirs[i].second);
      for (auto &[key, value] : fused.optimizer->state_of(ours[i].second))
        expectSameBits(value, state.at(key), name + "." + key);
      EXPECT_EQ(fused.optimizer->step_count(ours[i].second), k + 1) << name;
    }
  }
  // One compile of the whole step, none of the separate update.
  EXPECT_EQ(fused.step->compiled_step().compile_count(), 1u);
  EXPECT_EQ(fused.optimizer->compile_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(DynamicNet, FusedStepTest,
                         ::testing::ValuesIn(fusedCases()), trainCaseName);

TEST(FusedStepTest, ANewLearningRateNeedsNoRecompile) {
  TrainCase c = caseNamed("sgd_momentum_decay");
  Trainer fused(c), split(c);
  for (int k = 0; k < 3; ++k) {
    auto [x, y] = batch(k);
    if (k == 2)
      for (Trainer *run : {&fused, &split})
        run->optimizer->param_groups()[0].options().set_lr(0.025);
    (*fused.step)(x, y);
    split.optimizer->zero_grad();
    split.step->forward_backward(x, y);
    split.optimizer->step();
  }
  EXPECT_EQ(fused.step->compiled_step().compile_count(), 1u);
  auto ours = fused.model->named_parameters();
  auto theirs = split.model->named_parameters();
  for (size_t i = 0; i < ours.size(); ++i)
    expectSameBits(ours[i].second, theirs[i].second, ours[i].first);
}

// A step writes its gradients into the last step's gradient tensors when
// nothing else holds them (no allocation per step), and never into one the
// caller still holds: that keeps the values it had, as with PyTorch's
// zero_grad(set_to_none=True).
TEST(FusedStepTest, AGradientStillHeldKeepsItsValues) {
  Trainer fused(caseNamed("sgd_momentum_decay"));
  auto [x0, y0] = batch(0);
  (*fused.step)(x0, y0);
  auto params = fused.model->named_parameters();
  ASSERT_GE(params.size(), 2u);
  Tensor held = params[0].second.grad();
  Tensor before = held.clone();
  const void *released = params[1].second.grad().raw_data();
  auto [x1, y1] = batch(1);
  (*fused.step)(x1, y1);
  expectSameBits(held, before, params[0].first + ".grad held");
  EXPECT_NE(params[0].second.grad().raw_data(), held.raw_data());
  EXPECT_EQ(params[1].second.grad().raw_data(), released);
}

TEST(FusedStepTest, AChangedUpdateRecompiles) {
  Trainer run(caseNamed("sgd_momentum_decay"));
  auto [x, y] = batch(0);
  (*run.step)(x, y);
  static_cast<optim::SGDOptions &>(run.optimizer->param_groups()[0].options())
      .nesterov(true);
  (*run.step)(x, y);
  EXPECT_EQ(run.step->compiled_step().compile_count(), 2u);
}

//===----------------------------------------------------------------------===//
// The step as a shared object, run by nn-run
//===----------------------------------------------------------------------===//

class TrainArtifactTest : public ::testing::TestWithParam<TrainCase> {
protected:
  void SetUp() override {
    // One folder per test (its name holds the case): ctest runs them in
    // parallel.
    std::string test =
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '_');
    dir = ::testing::TempDir() + "/nn_train_artifact_" + test;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }

  /// Runs nn-run with `args`; returns its output, failing the test unless
  /// it exits with zero (or, with `fails`, non-zero).
  std::string nnRun(const std::string &args, bool fails = false) {
    std::string log = dir + "/nn-run.log";
    std::string command = std::string(NN_BINARY_DIR) + "/bin/nn-run " + args +
                          " > " + log + " 2>&1";
    int rc = std::system(command.c_str());
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(rc != 0, fails) << command << "\n" << text.str();
    return text.str();
  }

  /// Batches first..last (from 0) as nn-run's data file.
  std::string data(int first, int last) {
    std::vector<Tensor> xs, ys;
    for (int k = first; k <= last; ++k) {
      auto [x, y] = batch(k);
      xs.push_back(x);
      ys.push_back(y);
    }
    StateDict file;
    file.insert("input.0", stack(xs));
    file.insert("input.1", stack(ys));
    std::string path = dir + "/data" + std::to_string(first) + "-" +
                       std::to_string(last) + ".safetensors";
    EXPECT_TRUE(save_safetensors(path, file).ok());
    return path;
  }

  static Tensor stack(const std::vector<Tensor> &parts) {
    Shape shape = parts[0].shape();
    shape.insert(shape.begin(), static_cast<int64_t>(parts.size()));
    Tensor all = Tensor::zeros(shape, parts[0].dtype());
    for (size_t i = 0; i < parts.size(); ++i)
      std::memcpy(static_cast<char *>(all.raw_data()) + i * parts[i].nbytes(),
                  parts[i].raw_data(), parts[i].nbytes());
    return all;
  }

  /// Compiles `run`'s step to dir/train.so and saves its model's weights,
  /// before any step, to dir/initial.safetensors: nn-run's start.
  void compileStep(Trainer &run, std::string &so, std::string &initial) {
    so = dir + "/train.so";
    run.step->compile_to_file(so);
    initial = dir + "/initial.safetensors";
    ASSERT_TRUE(save_safetensors(initial, run.model->state_dict()).ok());
  }

  std::string dir;
};

TEST_P(TrainArtifactTest, NnRunTrainsTenStepsAsTheInProcessStepDoes) {
  Trainer run(GetParam());
  std::string so, initial;
  ASSERT_NO_FATAL_FAILURE(compileStep(run, so, initial));

  // The description names the optimizer's state and hyper-parameters.
  auto artifact = Artifact::load(so);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  const ArtifactDescription &d = (*artifact)->description();
  int starting = 0, defaults = 0;
  for (const StateInfo &s : d.state)
    starting += s.starts_at_zero;
  for (const TensorInfo &input : d.inputs)
    if (input.default_value) {
      ++defaults;
      EXPECT_EQ(input.name.rfind("optimizer.param_groups.", 0), 0u)
          << input.name;
    }
  EXPECT_GT(starting, 0);
  EXPECT_GT(defaults, 0);
  EXPECT_EQ(d.inputs[0].name, "input.0");

  for (int k = 0; k < 10; ++k) {
    auto [x, y] = batch(k);
    (*run.step)(x, y);
  }
  std::string straight = dir + "/straight.safetensors";
  std::string out = nnRun(so + " " + initial + " " + data(0, 9) +
                          " --train-steps 10 --state-out " + straight);
  EXPECT_THAT(out, ::testing::HasSubstr("step 10 loss"));
  auto trained = load_safetensors(straight);
  ASSERT_TRUE(trained.ok()) << trained.status();
  for (auto &[name, p] : run.model->named_parameters()) {
    expectSameBits(trained->tensors.at(name), p, name);
    for (auto &[key, value] : run.optimizer->state_of(p))
      expectSameBits(trained->tensors.at("optimizer.state." + name + "." + key),
                     value, name + "." + key);
    EXPECT_EQ(trained->tensors.at("optimizer.state." + name + ".step")
                  .item_as_double(0),
              10.0)
        << name;
  }

  // Five steps, the state saved, five more from it: the same bits.
  std::string half = dir + "/half.safetensors",
              resumed = dir + "/resumed.safetensors";
  nnRun(so + " " + initial + " " + data(0, 4) +
        " --train-steps 5 --state-out " + half);
  nnRun(so + " " + half + " " + data(5, 9) + " --train-steps 5 --state-out " +
        resumed);
  auto again = load_safetensors(resumed);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->tensors.size(), trained->tensors.size());
  for (const auto &[name, tensor] : trained->tensors)
    expectSameBits(again->tensors.at(name), tensor, name);
}

TEST_P(TrainArtifactTest, InProcessAndNnRunResumeEachOther) {
  Trainer first(GetParam());
  std::string so, initial;
  ASSERT_NO_FATAL_FAILURE(compileStep(first, so, initial));
  std::string straight = dir + "/straight.safetensors";
  nnRun(so + " " + initial + " " + data(0, 9) +
        " --train-steps 10 --state-out " + straight);
  auto expected = load_safetensors(straight);
  ASSERT_TRUE(expected.ok()) << expected.status();

  // In process for five steps, then nn-run for five from its checkpoint.
  for (int k = 0; k < 5; ++k) {
    auto [x, y] = batch(k);
    (*first.step)(x, y);
  }
  std::string checkpoint = dir + "/in-process.safetensors";
  ASSERT_TRUE(save_safetensors(checkpoint, first.step->state_dict()).ok());
  std::string finished = dir + "/finished.safetensors";
  nnRun(so + " " + checkpoint + " " + data(5, 9) +
        " --train-steps 5 --state-out " + finished);
  auto ran = load_safetensors(finished);
  ASSERT_TRUE(ran.ok()) << ran.status();
  for (const auto &[name, tensor] : expected->tensors)
    expectSameBits(ran->tensors.at(name), tensor,
                   "nn-run after in-process: " + name);

  // nn-run for five steps, then in process for five from its state.
  std::string half = dir + "/half.safetensors";
  nnRun(so + " " + initial + " " + data(0, 4) +
        " --train-steps 5 --state-out " + half);
  auto saved = load_safetensors(half);
  ASSERT_TRUE(saved.ok()) << saved.status();
  Trainer second(GetParam());
  second.step->load_state_dict(saved->tensors);
  for (int k = 5; k < 10; ++k) {
    auto [x, y] = batch(k);
    (*second.step)(x, y);
  }
  StateDict after = second.step->state_dict();
  ASSERT_EQ(after.size(), expected->tensors.size());
  for (const auto &[name, tensor] : expected->tensors)
    expectSameBits(after.at(name), tensor, "in-process after nn-run: " + name);
}

TEST_P(TrainArtifactTest, AForeignCheckpointIsRefusedAndChangesNothing) {
  Trainer run(GetParam());
  auto [x, y] = batch(0);
  (*run.step)(x, y);
  StateDict good = run.step->state_dict();
  StateDict before;
  for (const auto &[name, tensor] : good)
    before.insert(name, tensor.clone());
  StateDict bad;
  for (const auto &[name, tensor] : good)
    bad.insert(name, tensor.clone());
  // New model values (which load first, then must be undone), and
  // optimizer state for a parameter the model lacks.
  Tensor &weight = bad.at("input_linear.weight");
  for (int64_t i = 0; i < weight.numel(); ++i)
    weight.data_ptr<float>()[i] += 1.0f;
  bad.insert("optimizer.state.nowhere.weight.step", Tensor::zeros({}));
  try {
    run.step->load_state_dict(bad);
    FAIL() << "a checkpoint with state for another parameter loaded";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("nowhere.weight"));
  }
  StateDict now = run.step->state_dict();
  for (const auto &[name, tensor] : before)
    expectSameBits(now.at(name), tensor, name);
}

TEST_P(TrainArtifactTest, NnRunRefusesDataItCannotStepWithByName) {
  Trainer run(GetParam());
  std::string so, initial;
  ASSERT_NO_FATAL_FAILURE(compileStep(run, so, initial));
  auto [x, y] = batch(0);

  StateDict noLabels;
  noLabels.insert("input.0", stack({x, x}));
  std::string path = dir + "/no-labels.safetensors";
  ASSERT_TRUE(save_safetensors(path, noLabels).ok());
  EXPECT_THAT(nnRun(so + " " + initial + " " + path + " --train-steps 1",
                    /*fails=*/true),
              ::testing::HasSubstr("the data file has no 'input.1'"));

  StateDict shortBatches;
  shortBatches.insert("input.0", stack({x, x}));
  Tensor four = Tensor::zeros({4}, DType::i64);
  shortBatches.insert("input.1", stack({four, four}));
  path = dir + "/short-batches.safetensors";
  ASSERT_TRUE(save_safetensors(path, shortBatches).ok());
  EXPECT_THAT(nnRun(so + " " + initial + " " + path + " --train-steps 1",
                    /*fails=*/true),
              ::testing::HasSubstr("it must be batches of 8 int64 along a "
                                   "first dimension"));
}

TEST(TrainStepTest, AMissingTargetIsNamed) {
  Trainer run(caseNamed("sgd_momentum_decay"));
  auto [x, y] = batch(0);
  try {
    (*run.step)(std::vector<Tensor>{x});
    FAIL() << "a step without its target ran";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "nn::TrainStep: 1 inputs and targets given, the "
                           "step takes 2 (input.1 is missing)");
  }
}

INSTANTIATE_TEST_SUITE_P(DynamicNet, TrainArtifactTest,
                         ::testing::Values(caseNamed("sgd_momentum_decay"),
                                           caseNamed("adam_amsgrad_decay")),
                         trainCaseName);

} // namespace
} // namespace nn::testing
