//===- TrainTest.cpp - TrainStep and the optimizers against PyTorch -------===//
//
// The DynamicNet seed model (linears and relus, one layer used twice per
// forward) with PyTorch's weights, trained two steps with each optimizer
// case of tests/reference/generate_train_goldens.py: every loss, gradient,
// updated parameter and optimizer state is compared with PyTorch's
// (torch.testing's float32 tolerances). Frozen parameters get no gradient
// and stay the same bit for bit. Every seed model trains two SGD steps, and
// one step each of Adam, AdamW and grouped SGD with a frozen parameter, as
// PyTorch does; checkpoints resume bit for bit.
//
//===----------------------------------------------------------------------===//

#include "models/DynamicNet.h"
#include "models/SeedModels.h"

#include "E2ETestUtil.h"
#include "OpGolden.h"
#include "TrainCases.h"

#include "gmock/gmock.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace nn::testing {
namespace {

using optim::Optimizer;

const std::string kGoldens =
    std::string(NN_SOURCE_DIR) + "/tests/reference/goldens/";

class TrainTest : public ::testing::TestWithParam<TrainCase> {
protected:
  void SetUp() override {
    auto weights =
        load_safetensors(kGoldens + "modules/DynamicNet.safetensors");
    ASSERT_TRUE(weights.ok()) << weights.status();
    model->load_state_dict(weights->tensors);
    model->train();
    auto golden = load_safetensors(kGoldens + "train/DynamicNet/" +
                                   GetParam().name + ".safetensors");
    ASSERT_TRUE(golden.ok()) << golden.status();
    expected = golden->tensors;
  }

  const Tensor &at(int step, const std::string &what) {
    const Tensor *t = expected.find("step" + std::to_string(step) + "." + what);
    if (!t)
      throw Error("the golden has no step" + std::to_string(step) + "." + what);
    return *t;
  }

  models::DynamicNet model;
  StateDict expected;
};

TEST_P(TrainTest, MatchesPyTorch) {
  const TrainCase &c = GetParam();
  for (auto &[name, p] : model->named_parameters())
    if (std::find(c.frozen.begin(), c.frozen.end(), name) != c.frozen.end())
      p.set_requires_grad(false);
  std::map<std::string, Tensor> before;
  for (auto &[name, p] : model->named_parameters())
    before[name] = p.clone();

  std::unique_ptr<Optimizer> optimizer = c.optimizer(model);
  CrossEntropyLoss loss_fn;
  TrainStep step(model, loss_fn, {TensorSpec({8, 8})},
                 {TensorSpec({8}, DType::i64)}, *optimizer);
  // Gradient sums run in another order than PyTorch's kernels.
  const Tolerance close = {1e-5, 1e-5};
  for (int k = 1; k <= 2; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    optimizer->zero_grad();
    Tensor loss = step.forward_backward(at(k, "input"), at(k, "target"));
    expectClose(loss, at(k, "loss"), close, "loss");
    if (c.clip) {
      if (std::optional<double> total = c.clip(model)) {
        EXPECT_NEAR(*total, at(k, "total_norm").item_as_double(0),
                    1e-5 + 1.3e-6 * *total);
      }
    }
    for (auto &[name, p] : model->named_parameters()) {
      const Tensor *grad =
          expected.find("step" + std::to_string(k) + ".grad." + name);
      ASSERT_EQ(p.grad().defined(), grad != nullptr)
          << name
          << (grad ? " has no gradient" : " has a gradient PyTorch lacks");
      if (grad)
        expectClose(p.grad(), *grad, close, name + ".grad");
    }
    optimizer->step();
    for (auto &[name, p] : model->named_parameters()) {
      expectClose(p, at(k, "param." + name), close, name);
      for (auto &[key, value] : optimizer->state_of(p))
        expectClose(value, at(k, "state." + name + "." + key), close,
                    name + "." + key);
    }
  }
  for (auto &[name, p] : model->named_parameters()) {
    if (!p.requires_grad()) {
      EXPECT_EQ(std::memcmp(p.raw_data(), before[name].raw_data(), p.nbytes()),
                0)
          << name << " is frozen but changed";
    }
  }
  // Two steps, one compile of each: hyper-parameters are inputs.
  EXPECT_EQ(step.compiled().compile_count(), 1u);
  EXPECT_EQ(optimizer->compile_count(), 1u);
}

INSTANTIATE_TEST_SUITE_P(DynamicNet, TrainTest,
                         ::testing::ValuesIn(trainCases()), trainCaseName);

//===----------------------------------------------------------------------===//
// Every seed model (but SimpleMLP), two SGD steps on sum(model(x)[0] · R)
//===----------------------------------------------------------------------===//

std::vector<models::ModelCase> zooCases() {
  std::vector<models::ModelCase> cases;
  for (const models::ModelCase &c : models::seed_models())
    if (c.name != "SimpleMLP")
      cases.push_back(c);
  return cases;
}

std::string zooName(const ::testing::TestParamInfo<models::ModelCase> &info) {
  return info.param.name;
}

class ZooTrainTest : public ::testing::TestWithParam<models::ModelCase> {};

/// The seed model `c` with its module golden's weights, in training mode
/// where that is deterministic (BatchNorm), as the training goldens.
std::shared_ptr<Module> seedModelToTrain(const models::ModelCase &c) {
  auto weights =
      load_safetensors(kGoldens + "modules/" + c.name + ".safetensors");
  if (!weights.ok())
    throw Error(std::string(weights.status().message()));
  std::shared_ptr<Module> model = c.make(0);
  model->load_state_dict(weights->tensors);
  model->train(c.name == "ResNet" || c.name == "ConvNet");
  return model;
}

TEST_P(ZooTrainTest, SGDStepsMatchPyTorch) {
  const models::ModelCase &c = GetParam();
  auto golden =
      load_safetensors(kGoldens + "train/zoo/" + c.name + ".safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const StateDict &expected = golden->tensors;
  std::shared_ptr<Module> model = seedModelToTrain(c);

  std::vector<Tensor> params = model->parameters();
  std::unique_ptr<optim::SGD> optimizer;
  if (!params.empty())
    optimizer = std::make_unique<optim::SGD>(
        params, optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
  const Tensor &firstWeight = expected.at("step1.weight");
  auto weightedSum = [](const Tensor &out, const Tensor &r) {
    return F::sum(out * r);
  };
  TrainStep step(
      model,
      [&c, model](const std::vector<Tensor> &args) {
        return c.call(model, args);
      },
      weightedSum, c.inputs, {TensorSpec(firstWeight.shape())},
      optimizer.get());
  // Convolution, attention and the LSTM sum long products in another order
  // than PyTorch's kernels (as the zoo's forward tests say), and their
  // gradients more so.
  const Tolerance close = {1e-4, 1e-5};
  for (int k = 1; k <= 2; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    std::string at = "step" + std::to_string(k) + ".";
    if (optimizer)
      optimizer->zero_grad();
    Tensor loss = step.forward_backward(expected.at(at + "input"),
                                        expected.at(at + "weight"));
    expectClose(loss, expected.at(at + "loss"), {1e-4, 1e-4}, "loss");
    for (auto &[name, p] : model->named_parameters()) {
      const Tensor *grad = expected.find(at + "grad." + name);
      ASSERT_EQ(p.grad().defined(), grad != nullptr)
          << name
          << (grad ? " has no gradient" : " has a gradient PyTorch lacks");
      if (grad)
        expectClose(p.grad(), *grad, close, name + ".grad");
    }
    if (optimizer)
      optimizer->step();
    for (const auto &[name, tensor] : model->state_dict())
      expectClose(tensor, expected.at(at + "state." + name), close, name);
  }
}

INSTANTIATE_TEST_SUITE_P(SeedModels, ZooTrainTest,
                         ::testing::ValuesIn(zooCases()), zooName);

//===----------------------------------------------------------------------===//
// Every seed model with parameters, one step of Adam, of AdamW and of SGD
// with two parameter groups and a frozen parameter
//===----------------------------------------------------------------------===//

using ZooOptimizerCase = std::tuple<models::ModelCase, std::string>;

std::vector<models::ModelCase> zooCasesWithParameters() {
  std::vector<models::ModelCase> cases;
  for (const models::ModelCase &c : zooCases())
    if (!c.make(0)->parameters().empty())
      cases.push_back(c);
  return cases;
}

class ZooOptimizerTest : public ::testing::TestWithParam<ZooOptimizerCase> {};

/// The optimizer of the generator's ZOO_OPTIMIZERS case `name` over `params`.
std::unique_ptr<Optimizer> zooOptimizer(const std::string &name,
                                        const std::vector<Tensor> &params) {
  using namespace optim;
  if (name == "adam")
    return std::make_unique<Adam>(params, AdamOptions(1e-3));
  if (name == "adamw")
    return std::make_unique<AdamW>(params,
                                   AdamWOptions(1e-3).weight_decay(0.01));
  // Two groups: the first half with its own lr and momentum, the rest the
  // defaults.
  size_t half = params.size() / 2;
  std::vector<OptimizerParamGroup> groups;
  if (half)
    groups.emplace_back(
        std::vector<Tensor>(params.begin(), params.begin() + half),
        SGDOptions(0.02).momentum(0.9).clone());
  groups.emplace_back(std::vector<Tensor>(params.begin() + half, params.end()));
  return std::make_unique<SGD>(groups, SGDOptions(0.005).weight_decay(1e-4));
}

TEST_P(ZooOptimizerTest, OneStepMatchesPyTorch) {
  const auto &[c, optimizerName] = GetParam();
  auto golden = load_safetensors(kGoldens + "train/zoo/" + optimizerName + "/" +
                                 c.name + ".safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const StateDict &expected = golden->tensors;
  std::shared_ptr<Module> model = seedModelToTrain(c);
  std::map<std::string, Tensor> before;
  for (auto &[name, p] : model->named_parameters()) {
    if (expected.contains("frozen." + name))
      p.set_requires_grad(false);
    before[name] = p.clone();
  }
  std::unique_ptr<Optimizer> optimizer =
      zooOptimizer(optimizerName, model->parameters());

  // The first step of the SGD run: its batch and loss weight.
  auto sgd =
      load_safetensors(kGoldens + "train/zoo/" + c.name + ".safetensors");
  ASSERT_TRUE(sgd.ok()) << sgd.status();
  const Tensor &input = sgd->tensors.at("step1.input");
  const Tensor &weight = sgd->tensors.at("step1.weight");
  TrainStep step(
      model,
      [&c, model](const std::vector<Tensor> &args) {
        return c.call(model, args);
      },
      [](const Tensor &out, const Tensor &r) { return F::sum(out * r); },
      c.inputs, {TensorSpec(weight.shape())}, optimizer.get());
  // As ZooTrainTest: convolution, attention and the LSTM sum in another
  // order than PyTorch's kernels.
  const Tolerance close = {1e-4, 1e-5};
  Tensor loss = step(input, weight);
  expectClose(loss, expected.at("loss"), {1e-4, 1e-4}, "loss");
  for (auto &[name, p] : model->named_parameters()) {
    const Tensor *grad = expected.find("grad." + name);
    // The optimizer step leaves grad() as backward filled it.
    ASSERT_EQ(p.grad().defined(), grad != nullptr)
        << name
        << (grad ? " has no gradient" : " has a gradient PyTorch lacks");
    if (!p.requires_grad()) {
      EXPECT_EQ(std::memcmp(p.raw_data(), before[name].raw_data(), p.nbytes()),
                0)
          << name << " is frozen but changed";
      continue;
    }
    if (grad)
      expectClose(p.grad(), *grad, close, name + ".grad");
  }
  for (const auto &[name, tensor] : model->state_dict()) {
    const Tensor &theirs = expected.at("state." + name);
    const Tensor *grad = expected.find("grad." + name);
    if (optimizerName == "groups_frozen" || !grad) {
      expectClose(tensor, theirs, close, name);
      continue;
    }
    // Adam's and AdamW's first step moves each entry by lr·g/(|g|+eps),
    // about lr·sign(g): where |g| < 1e-6 the sign is within rounding of
    // the summation order, so those entries are left out.
    Tensor ours = tensor.clone(), pytorchs = theirs.clone();
    int64_t skipped = 0;
    for (int64_t i = 0; i < grad->numel(); ++i)
      if (std::abs(grad->item_as_double(i)) < 1e-6) {
        ++skipped;
        ours.data_ptr<float>()[i] = pytorchs.data_ptr<float>()[i] = 0.0f;
      }
    SCOPED_TRACE(name + ": " + std::to_string(skipped) +
                 " entries with |g| < 1e-6 left out");
    expectClose(ours, pytorchs, close, name);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SeedModels, ZooOptimizerTest,
    ::testing::Combine(::testing::ValuesIn(zooCasesWithParameters()),
                       ::testing::Values("adam", "adamw", "groups_frozen")),
    [](const ::testing::TestParamInfo<ZooOptimizerCase> &info) {
      return std::get<0>(info.param).name + "_" + std::get<1>(info.param);
    });

//===----------------------------------------------------------------------===//
// Checkpoints: train two steps, save the model and the optimizer, restore
// both into fresh objects and train two more; the same bits as never
// stopping, PyTorch's values, and PyTorch's own optimizer state resumes too
//===----------------------------------------------------------------------===//

class ResumeTest : public ::testing::TestWithParam<TrainCase> {
protected:
  void SetUp() override {
    std::string at = kGoldens + "train/DynamicNet/resume/" + GetParam().name;
    auto golden = load_safetensors(at + ".safetensors");
    ASSERT_TRUE(golden.ok()) << golden.status();
    expected = golden->tensors;
    auto theirs = load_safetensors(at + ".optimizer.safetensors");
    ASSERT_TRUE(theirs.ok()) << theirs.status();
    pytorchOptimizer = *theirs;
    dir = ::testing::TempDir() + "/nn_resume_" + GetParam().name;
    std::filesystem::create_directories(dir);
  }

  /// A model, its optimizer and its train step, from PyTorch's initial
  /// weights.
  struct Run {
    models::DynamicNet model;
    std::unique_ptr<Optimizer> optimizer;
    std::unique_ptr<TrainStep> step;
  };
  std::unique_ptr<Run> fresh() {
    auto run = std::make_unique<Run>();
    auto weights =
        load_safetensors(kGoldens + "modules/DynamicNet.safetensors");
    if (!weights.ok())
      throw Error(std::string(weights.status().message()));
    run->model->load_state_dict(weights->tensors);
    run->model->train();
    run->optimizer = GetParam().optimizer(run->model);
    run->step = std::make_unique<TrainStep>(
        run->model, loss_fn, std::vector<TensorSpec>{TensorSpec({8, 8})},
        std::vector<TensorSpec>{TensorSpec({8}, DType::i64)}, *run->optimizer);
    return run;
  }

  /// Trains steps first..last on the golden's batches.
  void train(Run &run, int first, int last) {
    for (int k = first; k <= last; ++k) {
      std::string at = "step" + std::to_string(k) + ".";
      run.optimizer->zero_grad();
      run.step->forward_backward(expected.at(at + "input"),
                                 expected.at(at + "target"));
      run.optimizer->step();
    }
  }

  /// Expects the parameters and optimizer state of `run` close to PyTorch's
  /// after step k.
  void expectPyTorchs(Run &run, int k) {
    SCOPED_TRACE("step " + std::to_string(k));
    std::string at = "step" + std::to_string(k) + ".";
    const Tolerance close = {1e-5, 1e-5}; // as TrainTest.MatchesPyTorch
    for (auto &[name, p] : run.model->named_parameters()) {
      expectClose(p, expected.at(at + "param." + name), close, name);
      for (auto &[key, value] : run.optimizer->state_of(p))
        expectClose(value, expected.at(at + "state." + name + "." + key), close,
                    name + "." + key);
      EXPECT_EQ(run.optimizer->step_count(p), k) << name;
    }
  }

  CrossEntropyLoss loss_fn;
  StateDict expected;
  SafetensorsContents pytorchOptimizer;
  std::string dir;
};

TEST_P(ResumeTest, StoppingAndRestoringChangesNoBit) {
  std::unique_ptr<Run> straight = fresh();
  train(*straight, 1, 4);
  expectPyTorchs(*straight, 4);

  std::unique_ptr<Run> first = fresh();
  train(*first, 1, 2);
  ASSERT_TRUE(
      save_safetensors(dir + "/model.safetensors", first->model->state_dict())
          .ok());
  SafetensorsContents saved = first->optimizer->state_dict(*first->model);
  ASSERT_TRUE(save_safetensors(dir + "/optimizer.safetensors", saved.tensors,
                               saved.metadata)
                  .ok());
  first.reset();

  // The checkpoint holds what PyTorch's optimizer holds after two steps.
  std::vector<std::string> ours, theirs;
  for (const auto &[key, tensor] : saved.tensors) {
    ours.push_back(key);
    if (const Tensor *t = pytorchOptimizer.tensors.find(key))
      expectClose(tensor, *t, {1e-5, 1e-5}, key);
  }
  for (const auto &[key, tensor] : pytorchOptimizer.tensors)
    theirs.push_back(key);
  std::sort(ours.begin(), ours.end());
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(ours, theirs);
  ASSERT_EQ(saved.metadata.size(), pytorchOptimizer.metadata.size());
  for (const auto &[key, value] : pytorchOptimizer.metadata) {
    ASSERT_TRUE(saved.metadata.count(key)) << key;
    if (key.ends_with(".params"))
      EXPECT_EQ(saved.metadata.at(key), value) << key;
    else
      EXPECT_EQ(std::strtod(saved.metadata.at(key).c_str(), nullptr),
                std::strtod(value.c_str(), nullptr))
          << key;
  }

  std::unique_ptr<Run> resumed = fresh();
  auto model = load_safetensors(dir + "/model.safetensors");
  ASSERT_TRUE(model.ok()) << model.status();
  resumed->model->load_state_dict(model->tensors);
  auto state = load_safetensors(dir + "/optimizer.safetensors");
  ASSERT_TRUE(state.ok()) << state.status();
  resumed->optimizer->load_state_dict(*state, *resumed->model);
  train(*resumed, 3, 4);
  std::vector<Module::NamedTensor> straightParams =
      straight->model->named_parameters();
  std::vector<Module::NamedTensor> resumedParams =
      resumed->model->named_parameters();
  ASSERT_EQ(resumedParams.size(), straightParams.size());
  for (size_t i = 0; i < resumedParams.size(); ++i) {
    auto &[name, p] = resumedParams[i];
    const Tensor &q = straightParams[i].second;
    expectSameBits(p, q, name);
    EXPECT_EQ(resumed->optimizer->step_count(p), 4) << name;
    std::map<std::string, Tensor> a = resumed->optimizer->state_of(p);
    std::map<std::string, Tensor> b = straight->optimizer->state_of(q);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (auto &[key, value] : a)
      expectSameBits(value, b.at(key), name + "." + key);
  }
}

TEST_P(ResumeTest, ResumesFromPyTorchsOptimizerState) {
  std::unique_ptr<Run> run = fresh();
  StateDict weights;
  for (auto &[name, p] : run->model->named_parameters())
    weights.insert(name, expected.at("step2.param." + name));
  run->model->load_state_dict(weights);
  run->optimizer->load_state_dict(pytorchOptimizer, *run->model);
  train(*run, 3, 4);
  expectPyTorchs(*run, 4);
}

std::vector<TrainCase> resumeCases() {
  std::vector<TrainCase> cases;
  for (const TrainCase &c : trainCases())
    if (c.name == "sgd_momentum_decay" || c.name == "adam_amsgrad_decay" ||
        c.name == "adamw")
      cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(DynamicNet, ResumeTest,
                         ::testing::ValuesIn(resumeCases()), trainCaseName);

class TrainStepErrorTest : public ::testing::Test {
protected:
  void SetUp() override { model->train(); }
  models::DynamicNet model;
  CrossEntropyLoss loss_fn;
};

TEST_F(TrainStepErrorTest, AnOptimizerOverOtherTensorsIsRefusedByName) {
  optim::SGD optimizer({model->parameters()[0], Tensor::zeros({3})},
                       optim::SGDOptions(0.1));
  try {
    TrainStep step(model, loss_fn, {TensorSpec({2, 8})},
                   {TensorSpec({2}, DType::i64)}, optimizer);
    FAIL() << "a stray tensor was accepted";
  } catch (const Error &e) {
    EXPECT_STREQ(
        e.what(),
        "nn::TrainStep: the optimizer holds tensors that are not "
        "parameters of DynamicNet: parameter 1 of group 0 (Tensor[float32, "
        "3])");
  }
}

TEST_F(TrainStepErrorTest, AParameterListedTwiceIsRefused) {
  Tensor w = model->parameters()[0];
  try {
    optim::SGD optimizer({w, w}, optim::SGDOptions(0.1));
    FAIL() << "a parameter listed twice was accepted";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(
                              "parameter 1 of group 0 (Tensor[float32, 16x8]) "
                              "appears more than once"));
  }
}

TEST_F(TrainStepErrorTest, BadTargetsAreNamedAndChangeNothing) {
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1));
  TrainStep step(model, loss_fn, {TensorSpec({2, 8})},
                 {TensorSpec({2}, DType::i64)}, optimizer);
  Tensor x = randomTensor({2, 8}, 3);
  Tensor before = model->parameters()[0].clone();
  auto expectRefused = [&](const std::vector<Tensor> &args,
                           const std::string &message) {
    try {
      step(args);
      FAIL() << "accepted: " << message;
    } catch (const Error &e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(message));
    }
    EXPECT_EQ(std::memcmp(model->parameters()[0].raw_data(), before.raw_data(),
                          before.nbytes()),
              0);
  };
  expectRefused({x, Tensor::zeros({3}, DType::i64)},
                "input 'input.1': expected 2 int64, got 3 int64");
  expectRefused({x, Tensor::zeros({2}, DType::f32)},
                "input 'input.1': expected 2 int64, got 2 float32");
  expectRefused({x, Tensor::from_vector<int64_t>({1, 7}, {2})},
                "input 'input.1' holds index 7 at [1], out of range [0, 4)");
}

// As PyTorch's load_state_dict: the groups' options come from the state,
// whatever the optimizer was built with.
TEST_F(TrainStepErrorTest, ACheckpointRestoresTheGroupsOptions) {
  auto adamw = load_safetensors(
      kGoldens + "train/DynamicNet/resume/adamw.optimizer.safetensors");
  ASSERT_TRUE(adamw.ok()) << adamw.status();
  optim::AdamW optimizer(
      model->parameters(),
      optim::AdamWOptions(0.5).weight_decay(0.3).amsgrad(true));
  optimizer.load_state_dict(*adamw, *model);
  const auto &options = static_cast<const optim::AdamWOptions &>(
      optimizer.param_groups()[0].options());
  EXPECT_EQ(options.lr(), 1e-3);
  EXPECT_EQ(options.weight_decay(), 0.01);
  EXPECT_FALSE(options.amsgrad());
  EXPECT_EQ(std::get<1>(options.betas()), 0.999);
  for (const Tensor &p : model->parameters()) {
    EXPECT_EQ(optimizer.step_count(p), 2);
    EXPECT_EQ(optimizer.state_of(p).size(), 2u); // exp_avg, exp_avg_sq
  }
}

TEST_F(TrainStepErrorTest,
       AMismatchedCheckpointIsRefusedByNameAndLoadsNothing) {
  auto adamw = load_safetensors(
      kGoldens + "train/DynamicNet/resume/adamw.optimizer.safetensors");
  ASSERT_TRUE(adamw.ok()) << adamw.status();
  auto expectRefused = [&](optim::Optimizer &optimizer,
                           const SafetensorsContents &state,
                           const std::vector<std::string> &messages) {
    try {
      optimizer.load_state_dict(state, *model);
      FAIL() << "accepted";
    } catch (const Error &e) {
      for (const std::string &message : messages)
        EXPECT_THAT(e.what(), ::testing::HasSubstr(message));
      EXPECT_THAT(e.what(), ::testing::EndsWith("nothing was loaded"));
    }
    EXPECT_EQ(optimizer.param_groups()[0].options().get_lr(), 0.1);
    for (const Tensor &p : model->parameters()) {
      EXPECT_EQ(optimizer.step_count(p), 0);
      EXPECT_TRUE(optimizer.state_of(p).empty());
    }
  };
  // AdamW's state into SGD with momentum.
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  expectRefused(sgd, *adamw,
                {"group 0 has no momentum",
                 "'state.input_linear.weight.exp_avg' is not kept by group 0's "
                 "update",
                 "input_linear.weight's state lacks momentum_buffer"});
  // Another grouping of the parameters.
  std::vector<Tensor> params = model->parameters();
  optim::AdamW some({params[0], params[1]}, optim::AdamWOptions(0.1));
  expectRefused(
      some, *adamw,
      {"group 0 holds input_linear.weight,input_linear.bias, the "
       "state's input_linear.weight,input_linear.bias,middle.0.weight",
       "'state.middle.0.weight.exp_avg' is the state of no parameter "
       "of this optimizer"});
  // A state tensor of the wrong shape, a missing step.
  optim::AdamW adamwOf(model->parameters(), optim::AdamWOptions(0.1));
  SafetensorsContents broken = *adamw;
  broken.tensors.insert_or_assign("state.input_linear.bias.exp_avg",
                                  Tensor::zeros({3}));
  StateDict without;
  for (const auto &[key, tensor] : broken.tensors)
    if (key != "state.output_linear.bias.step")
      without.insert(key, tensor);
  broken.tensors = without;
  expectRefused(adamwOf, broken,
                {"'state.input_linear.bias.exp_avg' is Tensor[float32, 3], its "
                 "parameter Tensor[float32, 16]",
                 "output_linear.bias's state lacks step"});
}

// Every scheduler sets PyTorch's learning rates, bit for bit, over an SGD of
// two groups (lr 0.1 and 0.03), from its construction on.
TEST(SchedulerTest, LearningRatesArePyTorchs) {
  auto golden = load_safetensors(kGoldens + "train/schedulers.safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  using namespace optim;
  const std::pair<const char *,
                  std::function<std::unique_ptr<LRScheduler>(Optimizer &)>>
      schedulers[] = {
          {"StepLR",
           [](Optimizer &o) { return std::make_unique<StepLR>(o, 7, 0.5); }},
          {"MultiStepLR",
           [](Optimizer &o) {
             return std::make_unique<MultiStepLR>(
                 o, std::vector<int64_t>{3, 8, 8, 20}, 0.3);
           }},
          {"ExponentialLR",
           [](Optimizer &o) {
             return std::make_unique<ExponentialLR>(o, 0.9);
           }},
          {"CosineAnnealingLR",
           [](Optimizer &o) {
             return std::make_unique<CosineAnnealingLR>(o, 10, 0.001);
           }},
          {"LinearLR",
           [](Optimizer &o) {
             return std::make_unique<LinearLR>(o, 0.25, 1.0, 6);
           }},
      };
  for (const auto &[name, make] : schedulers) {
    SCOPED_TRACE(name);
    std::vector<OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{Tensor::zeros({1})},
                        SGDOptions(0.1).clone());
    groups.emplace_back(std::vector<Tensor>{Tensor::zeros({1})},
                        SGDOptions(0.03).clone());
    SGD optimizer(std::move(groups), SGDOptions(0.1));
    std::unique_ptr<LRScheduler> scheduler = make(optimizer);
    const Tensor &expected = golden->tensors.at(name);
    for (int64_t epoch = 0; epoch < expected.size(0); ++epoch) {
      if (epoch > 0)
        scheduler->step();
      for (size_t g = 0; g < 2; ++g) {
        double want = expected.item_as_double(epoch * 2 + g);
        EXPECT_EQ(scheduler->get_last_lr()[g], want)
            << "epoch " << epoch << ", group " << g;
        EXPECT_EQ(optimizer.param_groups()[g].options().get_lr(), want);
      }
    }
  }
}

} // namespace
} // namespace nn::testing
