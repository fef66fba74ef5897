//===- Bench.cpp - nn against libtorch, oneDNN and the roofline -----------===//
//
// The CPU benchmark suite of docs/benchmarks.md (run it with `make bench`).
// Every workload is built once, on first use, with seeded weights shared by
// all implementations; each implementation's output is checked against
// libtorch's before it is timed (a mismatch skips that benchmark with the
// largest difference in the message). Benchmarks are named
//   <workload>/<impl>/t<threads>      e.g. W5_matmul_1024/nn/t2
// and carry counters `flop` (or `bytes`) per iteration so that
// bench/report.py can put every time against the measured roofline.
//
//===----------------------------------------------------------------------===//

#include "Anchors.h"
#include "Roofline.h"

#include "DeterministicValues.h"
#include "models/ResNet.h"
#include "models/SimpleMLP.h"
#include "nn/Runtime/Kernels.h"
#include "nn/nn.h"
#include "zoo/MobileNetV2.h"
#include "zoo/ResNet.h"
#include "zoo/VisionTransformer.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <link.h>
#include <malloc.h>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace {

using bench::HostTensor;
using bench::NamedTensors;
using bench::Runner;

// --- Models -----------------------------------------------------------------

/// W2: Conv2d(64, 64, 3, padding 1) + BatchNorm2d + ReLU.
class ConvBnReluImpl : public nn::Module {
public:
  ConvBnReluImpl() : Module("ConvBnRelu") {
    conv = register_module("conv",
                           nn::Conv2d(nn::Conv2dOptions(64, 64, 3).padding(1)));
    bn = register_module("bn", nn::BatchNorm2d(64));
  }
  nn::Tensor forward(const nn::Tensor &x) { return nn::F::relu(bn(conv(x))); }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
};
NN_MODULE(ConvBnRelu);

/// W10: W2's layer in 3-D, as in a video network's first stage (torchvision's
/// r3d_18): conv3d 3x3x3 (no bias) + BatchNorm3d (eval) + ReLU.
class Conv3dBnReluImpl : public nn::Module {
public:
  Conv3dBnReluImpl() : Module("Conv3dBnRelu") {
    conv = register_module(
        "conv",
        nn::Conv3d(nn::Conv3dOptions(64, 64, 3).padding(1).bias(false)));
    bn = register_module("bn", nn::BatchNorm3d(64));
  }
  nn::Tensor forward(const nn::Tensor &x) { return nn::F::relu(bn(conv(x))); }
  nn::Conv3d conv{nullptr};
  nn::BatchNorm3d bn{nullptr};
};
NN_MODULE(Conv3dBnRelu);

/// W3: ResNet's BasicBlock with 64 channels, stride 1, no downsampling.
/// Kept local to the bench (a seed model is being added elsewhere).
class ResidualBlockImpl : public nn::Cloneable<ResidualBlockImpl> {
public:
  explicit ResidualBlockImpl(int64_t channels = 64)
      : Cloneable("ResidualBlock") {
    auto conv = [&] {
      return nn::Conv2d(
          nn::Conv2dOptions(channels, channels, 3).padding(1).bias(false));
    };
    conv1 = register_module("conv1", conv());
    bn1 = register_module("bn1", nn::BatchNorm2d(channels));
    conv2 = register_module("conv2", conv());
    bn2 = register_module("bn2", nn::BatchNorm2d(channels));
  }
  nn::Tensor forward(const nn::Tensor &x) {
    nn::Tensor y = nn::F::relu(bn1(conv1(x)));
    y = bn2(conv2(y));
    return nn::F::relu(y + x);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
NN_MODULE(ResidualBlock);

class TwoResidualBlocksImpl : public nn::Cloneable<TwoResidualBlocksImpl> {
public:
  TwoResidualBlocksImpl() : Cloneable("TwoResidualBlocks") {
    b0 = register_module("0", ResidualBlock(64));
    b1 = register_module("1", ResidualBlock(64));
  }
  nn::Tensor forward(const nn::Tensor &x) { return b1(b0(x)); }
  ResidualBlock b0{nullptr}, b1{nullptr};
};
NN_MODULE(TwoResidualBlocks);

/// W5: the weights-free matmul of two inputs.
class MatmulImpl : public nn::Module {
public:
  MatmulImpl() : Module("Matmul") {}
  nn::Tensor forward(const nn::Tensor &a, const nn::Tensor &b) {
    return nn::F::matmul(a, b);
  }
};
NN_MODULE(Matmul);

/// W6: relu(x * a + b) with scalar a and b.
constexpr float kScale = 1.5f, kShift = -0.25f;
class AffineReluImpl : public nn::Module {
public:
  AffineReluImpl() : Module("AffineRelu") {}
  nn::Tensor forward(const nn::Tensor &x) {
    return nn::F::relu(x * double(kScale) + double(kShift));
  }
};
NN_MODULE(AffineRelu);

/// W8: softmax along the rows of a [rows, 128] input (attention-sized rows).
class SoftmaxRowsImpl : public nn::Module {
public:
  SoftmaxRowsImpl() : Module("SoftmaxRows") {}
  nn::Tensor forward(const nn::Tensor &x) { return nn::F::softmax(x, 1); }
};
NN_MODULE(SoftmaxRows);

// --- Data -------------------------------------------------------------------

/// Fills every float tensor of `model` from a seeded generator: weights
/// uniform(±1/sqrt(fan_in)), batch-norm scales and variances in [0.5, 1.5],
/// biases, shifts and means in [-0.1, 0.1].
void randomize(nn::Module &model, uint32_t seed) {
  std::mt19937 rng(seed);
  auto fill = [&](nn::Tensor t, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    float *p = t.data_ptr<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
      p[i] = dist(rng);
  };
  // Batch-norm and layer-norm scales near 1, as trained models have them.
  auto isBn = [](const std::string &name) {
    return name.find("bn") != std::string::npos ||
           name.find("norm") != std::string::npos;
  };
  for (auto &[name, t] : model.named_parameters()) {
    if (t.dim() >= 2) {
      float bound = 1.f / std::sqrt(float(t.numel() / t.shape()[0]));
      fill(t, -bound, bound);
    } else if (isBn(name) && name.ends_with("weight")) {
      fill(t, 0.5f, 1.5f);
    } else {
      fill(t, -0.1f, 0.1f);
    }
  }
  for (auto &[name, t] : model.named_buffers()) {
    if (t.dtype() != nn::DType::f32)
      continue;
    if (name.ends_with("running_var"))
      fill(t, 0.5f, 1.5f);
    else
      fill(t, -0.1f, 0.1f);
  }
}

nn::Tensor randomTensor(nn::Shape shape, uint32_t seed) {
  nn::Tensor t = nn::Tensor::zeros(std::move(shape));
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  float *p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = dist(rng);
  return t;
}

HostTensor host(const nn::Tensor &t) {
  return {std::vector<int64_t>(t.shape().begin(), t.shape().end()),
          t.data_ptr<float>()};
}

NamedTensors hostState(const nn::StateDict &state) {
  NamedTensors out;
  for (const auto &[name, t] : state)
    if (t.dtype() == nn::DType::f32)
      out[name] = host(t);
  return out;
}

/// A compiled nn model (JIT) with its inputs.
class NNRunner : public Runner {
public:
  /// The outputs are allocated once and written in place by every run, as
  /// a serving loop would (Artifact::run_into).
  NNRunner(std::shared_ptr<nn::Artifact> artifact, std::vector<nn::Tensor> in)
      : artifact_(std::move(artifact)), inputs_(std::move(in)) {
    for (const nn::TensorInfo &info : artifact_->description().outputs)
      outputs_.push_back(nn::Tensor::zeros(info.shape, info.dtype));
  }
  void run() override {
    if (absl::Status s = artifact_->run_into(inputs_, outputs_); !s.ok()) {
      std::cerr << "nn-bench: " << s.message() << "\n";
      std::exit(1);
    }
  }
  std::vector<float> output() override {
    const nn::Tensor &t = outputs_.at(0);
    const float *p = t.data_ptr<float>();
    return std::vector<float>(p, p + t.numel());
  }

private:
  std::shared_ptr<nn::Artifact> artifact_;
  std::vector<nn::Tensor> inputs_, outputs_;
};

std::vector<nn::TensorSpec> specsOf(const std::vector<nn::Tensor> &inputs) {
  std::vector<nn::TensorSpec> specs;
  for (const nn::Tensor &t : inputs)
    specs.emplace_back(t.shape(), t.dtype());
  return specs;
}

/// One training step per run, on the runner's own model so that every
/// runner starts from the same weights: nn::TrainStep's one compiled call
/// (forward, loss, backward and the optimizer's update), or with `split`
/// its two (forward_backward, then the optimizer's own compiled update).
/// output(): the loss, then every parameter after the update, flattened.
class NNTrainRunner : public Runner {
public:
  /// `args`: the model's `inputs` inputs, then the loss's targets.
  template <typename Loss>
  NNTrainRunner(std::shared_ptr<nn::Module> model,
                nn::TrainStep::Forward forward, Loss loss,
                std::unique_ptr<nn::optim::Optimizer> optimizer,
                std::vector<nn::Tensor> args, size_t inputs, bool split)
      : model_(model), optimizer_(std::move(optimizer)), args_(std::move(args)),
        step_(model, std::move(forward), std::move(loss),
              specsOf({args_.begin(), args_.begin() + inputs}),
              specsOf({args_.begin() + inputs, args_.end()}), optimizer_.get()),
        split_(split) {}
  void run() override {
    if (!split_) {
      loss_ = step_(args_);
      return;
    }
    optimizer_->zero_grad();
    loss_ = step_.forward_backward(args_);
    optimizer_->step();
  }
  std::vector<float> output() override {
    std::vector<float> out{float(loss_.item_as_double(0))};
    for (const nn::Tensor &p : model_->parameters())
      out.insert(out.end(), p.data_ptr<float>(),
                 p.data_ptr<float>() + p.numel());
    return out;
  }

private:
  std::shared_ptr<nn::Module> model_;
  std::unique_ptr<nn::optim::Optimizer> optimizer_;
  std::vector<nn::Tensor> args_;
  nn::TrainStep step_;
  bool split_;
  nn::Tensor loss_;
};

template <typename Holder>
std::unique_ptr<Runner> compileNN(Holder &model,
                                  const std::vector<nn::Tensor> &inputs,
                                  const nn::CompileOptions &options = {}) {
  auto traced = nn::trace(model, specsOf(inputs));
  return std::make_unique<NNRunner>(nn::compile(traced, options), inputs);
}

// --- Workloads --------------------------------------------------------------

/// nn_nofuse and nn_nofuse_nofold are nn with stages of nn-optimize
/// switched off (the pipeline ablation of W7).
enum class Impl {
  nn,
  nn_nofuse,
  nn_nofuse_nofold,
  nn_split,
  libtorch,
  libtorch_frozen,
  onednn,
  hand,
  hand_nt
};
const char *implName(Impl i) {
  switch (i) {
  case Impl::nn:
    return "nn";
  case Impl::nn_nofuse:
    return "nn_nofuse";
  case Impl::nn_nofuse_nofold:
    return "nn_nofuse_nofold";
  case Impl::nn_split:
    return "nn_split";
  case Impl::libtorch:
    return "libtorch";
  case Impl::libtorch_frozen:
    return "libtorch_frozen";
  case Impl::onednn:
    return "onednn";
  case Impl::hand:
    return "hand";
  case Impl::hand_nt:
    return "hand_nt";
  }
  return "?";
}

/// Whether `impl` is one of nn's (its kernels obey NN_MAX_ISA).
bool isNN(Impl impl) {
  return impl == Impl::nn || impl == Impl::nn_nofuse ||
         impl == Impl::nn_nofuse_nofold || impl == Impl::nn_split;
}

/// NN_MAX_ISA of this run, lower-case ("" when unset). Under a cap only
/// nn's rows run, named with the cap ("W2_conv_bn_relu/nn_avx2/t1"): the
/// anchors and the roofline do not read NN_MAX_ISA, so their rows are the
/// uncapped run's. `make bench` on an AVX-512 CPU runs its selection a
/// second time with NN_MAX_ISA=avx2, and report.py sets those rows beside
/// the native ones, which shows the AVX-512 kernels never slower than the
/// AVX2 ones on the same CPU.
const std::string &isaCap() {
  static const std::string cap = [] {
    const char *value = std::getenv("NN_MAX_ISA");
    std::string s = value ? value : "";
    for (char &c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }();
  return cap;
}

/// An implementation's name in the rows: implName, with the ISA cap for nn's.
std::string rowName(Impl impl) {
  std::string name = implName(impl);
  if (isNN(impl) && !isaCap().empty())
    name += "_" + isaCap();
  return name;
}

/// One workload: its data (kept alive here), a factory per implementation
/// and the cached, checked runners.
struct Workload {
  std::string name;
  double flop = 0, bytes = 0; // per forward, for the roofline
  std::string skipNN;         // non-empty: nn cannot run it (why)
  std::function<void(Workload &)> setup;
  std::map<Impl, std::function<std::unique_ptr<Runner>(int threads)>> make;

  // Filled by setup():
  std::shared_ptr<nn::Module> model;
  std::vector<nn::Tensor> inputs;
  nn::StateDict state;
  NamedTensors hostWeights;
  std::vector<float> reference; // libtorch's output

  bool ready = false;
  std::string setupError; // set-up or libtorch's reference run failed
  std::map<std::pair<Impl, int>, std::unique_ptr<Runner>> runners;
  std::map<std::pair<Impl, int>, std::string> errors;
};

/// Sets the thread count of the library `impl` runs on (the hand-written
/// loops take theirs as an argument). libtorch's only when it changes:
/// torch::set_num_threads recreates libtorch's pthreadpool on every call,
/// even with an unchanged count, and the new pool's worker spins for about
/// 30 ms. Set before every repetition of every workload, it ran beside nn's
/// threads: 2.5% of the samples of W5/nn/t2 under chrt -f 10, a new
/// spinning thread in each repetition.
void setThreads(Impl impl, int threads) {
  static int torchThreads = 0; // 0: not known
  switch (impl) {
  case Impl::libtorch:
  case Impl::libtorch_frozen:
    if (torchThreads != threads)
      bench::setTorchThreads(threads);
    torchThreads = threads;
    return;
  case Impl::onednn:
    bench::setDnnlThreads(threads);
    // The OpenMP count it sets is also libtorch's intra-op count.
    if (torchThreads != threads)
      torchThreads = 0;
    return;
  case Impl::nn:
  case Impl::nn_nofuse:
  case Impl::nn_nofuse_nofold:
  case Impl::nn_split:
    nn_rt_set_num_threads(threads);
    return;
  case Impl::hand:
  case Impl::hand_nt:
    return;
  }
}

/// max |got - want| over max(1, |want|)-scaled tolerance; empty when close.
std::string compare(const std::vector<float> &got,
                    const std::vector<float> &want) {
  if (got.size() != want.size())
    return "output has " + std::to_string(got.size()) + " elements, libtorch " +
           std::to_string(want.size());
  double worst = 0, scale = 0;
  size_t at = 0;
  for (float w : want)
    scale = std::max(scale, double(std::abs(w)));
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::abs(double(got[i]) - want[i]);
    if (!(d <= worst) || std::isnan(d)) {
      worst = std::isnan(d) ? INFINITY : d;
      at = i;
    }
  }
  // float32 with different summation orders: relative to the output's scale.
  if (worst <= 1e-4 * std::max(1.0, scale))
    return "";
  return "max |diff| = " + std::to_string(worst) + " at element " +
         std::to_string(at) + " (got " + std::to_string(got[at]) +
         ", libtorch " + std::to_string(want[at]) + "), output scale " +
         std::to_string(scale);
}

/// The runner for (impl, threads), created, checked and warmed up on first
/// use; nullptr with `error` set when it cannot be used.
Runner *prepare(Workload &w, Impl impl, int threads, std::string &error) {
  if (!w.ready) {
    w.ready = true;
    setThreads(Impl::libtorch, 1);
    try {
      w.setup(w);
      auto ref = w.make.at(Impl::libtorch)(1);
      ref->run();
      w.reference = ref->output();
    } catch (const std::exception &e) {
      w.setupError = w.name + ": set-up failed: " + e.what();
      std::cerr << "nn-bench: " << w.setupError << "\n";
    }
  }
  if (!w.setupError.empty()) {
    error = w.setupError;
    return nullptr;
  }
  auto key = std::make_pair(impl, threads);
  if (auto it = w.errors.find(key); it != w.errors.end()) {
    error = it->second;
    return nullptr;
  }
  if (auto it = w.runners.find(key); it != w.runners.end())
    return it->second.get();
  setThreads(impl, threads);
  std::unique_ptr<Runner> runner;
  try {
    runner = w.make.at(impl)(threads);
  } catch (const std::exception &e) {
    error = w.name + "/" + rowName(impl) + ": set-up failed: " + e.what();
  }
  if (runner) {
    runner->run(); // also the warm-up
    if (impl != Impl::libtorch || threads != 1)
      error = compare(runner->output(), w.reference);
    if (!error.empty())
      error = w.name + "/" + rowName(impl) + " differs from libtorch: " + error;
    else
      runner->run(); // second warm-up run
  }
  if (!error.empty()) {
    std::cerr << "nn-bench: " << error << "\n";
    w.errors[key] = error;
    return nullptr;
  }
  return (w.runners[key] = std::move(runner)).get();
}

/// Keeps `model` alive in the workload (eval, seeded weights) with its
/// inputs and state: the runner factories' shared pieces.
/// `model`, its weights set, in eval mode, and `inputs` as the workload's;
/// the anchors get copies of its state.
void keep(Workload &w, std::shared_ptr<nn::Module> model,
          std::vector<nn::Tensor> inputs) {
  w.model = std::move(model);
  w.model->eval();
  w.inputs = std::move(inputs);
  w.state = w.model->state_dict();
  w.hostWeights = hostState(w.state);
}

void adoptState(Workload &w, std::shared_ptr<nn::Module> model,
                std::vector<nn::Tensor> inputs, uint32_t seed) {
  randomize(*model, seed);
  keep(w, std::move(model), std::move(inputs));
}

/// adoptState, and nn's runner traces `holder`'s one-argument forward.
template <typename Holder>
void adopt(Workload &w, Holder holder, std::vector<nn::Tensor> inputs,
           uint32_t seed) {
  adoptState(w, holder.ptr(), std::move(inputs), seed);
  w.make[Impl::nn] = [&w, holder](int) { return compileNN(holder, w.inputs); };
}

/// The zoo model `holder` with the zoo tests' deterministic weights, on
/// deterministic 224x224 images.
template <typename Holder>
void adoptZoo(Workload &w, Holder holder, double gain, int64_t batch) {
  holder->load_state_dict(nn::testing::deterministicState(*holder, gain),
                          /*strict=*/true);
  keep(w, holder.ptr(),
       {nn::testing::deterministicImages({batch, 3, 224, 224})});
  w.make[Impl::nn] = [&w, holder](int) { return compileNN(holder, w.inputs); };
}

/// nn's two rows of a training workload (nn: the whole step as one compiled
/// call; nn_split: zero_grad, forward_backward, then the optimizer's step)
/// over a clone of w.model (`ModelImpl`), in training mode when `train`
/// (else eval: no dropout), its one-input forward traced. `optimizer`
/// makes the optimizer over the clone's parameters.
template <typename ModelImpl, typename Loss, typename MakeOptimizer>
void makeNNTrainRunners(Workload &w, bool train, Loss loss,
                        MakeOptimizer optimizer) {
  for (Impl impl : {Impl::nn, Impl::nn_split})
    w.make[impl] = [&w, train, loss, optimizer,
                    split = impl == Impl::nn_split](int) {
      auto model = std::static_pointer_cast<ModelImpl>(w.model->clone());
      model->train(train);
      auto forward = [model](const std::vector<nn::Tensor> &in) {
        return std::vector<nn::Tensor>{model->forward(in[0])};
      };
      return std::unique_ptr<Runner>(std::make_unique<NNTrainRunner>(
          model, forward, loss, optimizer(model->parameters()), w.inputs, 1,
          split));
    };
}

/// `count` class labels below `classes` drawn from `seed`, appended to the
/// workload's inputs (a classification loss's targets) and returned.
std::vector<int64_t> addLabels(Workload &w, int64_t count, int64_t classes,
                               uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> labels(count);
  for (int64_t &c : labels)
    c = int64_t(rng() % classes);
  w.inputs.push_back(nn::Tensor::from_vector<int64_t>(labels, {count}));
  return labels;
}

/// SGD(lr, momentum), as the libtorch anchors' sgd().
auto sgd(double lr, double momentum) {
  return [=](std::vector<nn::Tensor> params) {
    return std::unique_ptr<nn::optim::Optimizer>(new nn::optim::SGD(
        std::move(params), nn::optim::SGDOptions(lr).momentum(momentum)));
  };
}

/// Where bench/zoo_torchscript.py wrote the TorchScript files: the
/// NN_BENCH_ZOO_DIR environment variable, else bench-zoo/ in the build
/// tree (next to bin/, where `make bench` writes them).
std::string zooScriptDir() {
  if (const char *dir = std::getenv("NN_BENCH_ZOO_DIR"))
    return dir;
  return (std::filesystem::canonical("/proc/self/exe").parent_path() / ".." /
          "bench-zoo")
      .lexically_normal()
      .string();
}

std::vector<std::unique_ptr<Workload>> &workloads() {
  static std::vector<std::unique_ptr<Workload>> all;
  if (!all.empty())
    return all;
  auto add = [&](std::string name, double flop, double bytes,
                 std::function<void(Workload &)> setup) {
    auto w = std::make_unique<Workload>();
    w->name = std::move(name);
    w->flop = flop;
    w->bytes = bytes;
    w->setup = std::move(setup);
    all.push_back(std::move(w));
    return all.back().get();
  };

  add("W1_mlp_b64", 2.0 * 64 * (784 * 256 + 256 * 256 + 256 * 10), 0,
      [](Workload &w) {
        adopt(w, nn::models::SimpleMLP(), {randomTensor({64, 784}, 11)}, 1);
        w.make[Impl::libtorch] = [&w](int) {
          return bench::torchMLP(w.hostWeights, host(w.inputs[0]));
        };
      });

  // W1-train: one SGD-with-momentum step of the same MLP (eval mode: no
  // dropout, so every implementation takes the same step) on 64 seeded
  // class labels. flop: forward + the two backward matmuls per layer, 3x.
  add("W1_train_mlp_b64", 3 * 2.0 * 64 * (784 * 256 + 256 * 256 + 256 * 10), 0,
      [](Workload &w) {
        static constexpr double kLr = 0.01, kMomentum = 0.9;
        adoptState(w, nn::models::SimpleMLP().ptr(),
                   {randomTensor({64, 784}, 11)}, 1);
        std::vector<int64_t> classes = addLabels(w, 64, 10, 21);
        makeNNTrainRunners<nn::models::SimpleMLPImpl>(
            w, /*train=*/false, nn::CrossEntropyLoss(), sgd(kLr, kMomentum));
        w.make[Impl::libtorch] = [&w, classes](int) {
          return bench::torchMLPTrain(w.hostWeights, host(w.inputs[0]), classes,
                                      kLr, kMomentum);
        };
      });

  const double convFlop = 2.0 * 8 * 64 * 56 * 56 * 64 * 9;
  add("W2_conv_bn_relu", convFlop, 0, [](Workload &w) {
    adopt(w, ConvBnRelu(), {randomTensor({8, 64, 56, 56}, 12)}, 2);
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchConvBnRelu(w.hostWeights, host(w.inputs[0]));
    };
    w.make[Impl::onednn] = [&w](int) {
      return bench::dnnlConvBnRelu(w.hostWeights, host(w.inputs[0]));
    };
  });

  add("W3_2x_resblock", 4 * convFlop, 0, [](Workload &w) {
    adopt(w, TwoResidualBlocks(), {randomTensor({8, 64, 56, 56}, 13)}, 3);
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchResidual(w.hostWeights, host(w.inputs[0]),
                                  {"0.", "1."});
    };
    w.make[Impl::onednn] = [&w](int) {
      return bench::dnnlResidual(w.hostWeights, host(w.inputs[0]));
    };
  });

  // W3-train: one SGD-with-momentum step of W3's blocks in training mode
  // (batch statistics; running statistics updated) on mse_loss against a
  // seeded target. flop: forward, then the input- and weight-gradient
  // convolutions, 3x.
  add("W3_train_2x_resblock", 3 * 4 * convFlop, 0, [](Workload &w) {
    static constexpr double kLr = 0.01, kMomentum = 0.9;
    adoptState(w, TwoResidualBlocks().ptr(),
               {randomTensor({8, 64, 56, 56}, 13)}, 3);
    w.inputs.push_back(randomTensor({8, 64, 56, 56}, 23));
    makeNNTrainRunners<TwoResidualBlocksImpl>(w, /*train=*/true, nn::MSELoss(),
                                              sgd(kLr, kMomentum));
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchResidualTrain(w.hostWeights, host(w.inputs[0]),
                                       host(w.inputs[1]), kLr, kMomentum);
    };
  });

  // Per token: QKV + output projections and the two FF matmuls; plus QK^T
  // and PV per sequence.
  const double tokens = 8 * 128;
  add("W4_transformer_layer",
      2.0 * tokens * (4 * 256 * 256 + 2 * 256 * 1024) +
          2.0 * 8 * 2 * 128 * 128 * 256,
      0, [](Workload &w) {
        // Sequence-first [seq, batch, d_model], as libtorch 1.13's C++ layer.
        nn::TransformerEncoderLayer layer(
            nn::TransformerEncoderLayerOptions(256, 4)
                .dim_feedforward(1024)
                .dropout(0.0));
        adoptState(w, layer.ptr(), {randomTensor({128, 8, 256}, 14)}, 4);
        // forward has optional mask arguments: trace the one-input call.
        w.make[Impl::nn] = [&w, layer](int) -> std::unique_ptr<Runner> {
          auto traced =
              nn::trace(*layer, specsOf(w.inputs), [&](const auto &in) {
                return std::vector<nn::Tensor>{layer->forward(in[0])};
              });
          return std::make_unique<NNRunner>(nn::compile(traced), w.inputs);
        };
        w.make[Impl::libtorch] = [&w](int) {
          return bench::torchTransformer(w.hostWeights, host(w.inputs[0]), 4,
                                         1024);
        };
      });

  // W4-train: one AdamW step of W4's layer (training mode, no dropout) on
  // mse_loss against a seeded target; flop 3x the forward's.
  add("W4_train_transformer_layer",
      3 * (2.0 * tokens * (4 * 256 * 256 + 2 * 256 * 1024) +
           2.0 * 8 * 2 * 128 * 128 * 256),
      0, [](Workload &w) {
        static constexpr double kLr = 1e-3, kWeightDecay = 0.01;
        nn::TransformerEncoderLayer layer(
            nn::TransformerEncoderLayerOptions(256, 4)
                .dim_feedforward(1024)
                .dropout(0.0));
        adoptState(w, layer.ptr(), {randomTensor({128, 8, 256}, 14)}, 4);
        w.inputs.push_back(randomTensor({128, 8, 256}, 24));
        makeNNTrainRunners<nn::TransformerEncoderLayerImpl>(
            w, /*train=*/true, nn::MSELoss(),
            [](std::vector<nn::Tensor> params) {
              return std::unique_ptr<nn::optim::Optimizer>(new nn::optim::AdamW(
                  std::move(params),
                  nn::optim::AdamWOptions(kLr).weight_decay(kWeightDecay)));
            });
        w.make[Impl::libtorch] = [&w](int) {
          return bench::torchTransformerTrain(w.hostWeights, host(w.inputs[0]),
                                              host(w.inputs[1]), 4, 1024, kLr,
                                              kWeightDecay);
        };
      });

  add("W5_matmul_1024", 2.0 * 1024 * 1024 * 1024, 0, [](Workload &w) {
    adopt(w, Matmul(),
          {randomTensor({1024, 1024}, 15), randomTensor({1024, 1024}, 16)}, 5);
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchMatmul(host(w.inputs[0]), host(w.inputs[1]));
    };
    w.make[Impl::onednn] = [&w](int) {
      return bench::dnnlMatmul(host(w.inputs[0]), host(w.inputs[1]));
    };
  });

  const int64_t n6 = int64_t(16) << 20;
  add("W6_affine_relu_16M", 3.0 * n6, 2.0 * n6 * sizeof(float),
      [n6](Workload &w) {
        adopt(w, AffineRelu(), {randomTensor({n6}, 17)}, 6);
        w.make[Impl::libtorch] = [&w](int) {
          return bench::torchAffineRelu(host(w.inputs[0]), kScale, kShift);
        };
        w.make[Impl::hand] = [&w](int threads) {
          return bench::handAffineRelu(host(w.inputs[0]), kScale, kShift,
                                       threads);
        };
        w.make[Impl::hand_nt] = [&w](int threads) {
          return bench::handAffineReluStreaming(host(w.inputs[0]), kScale,
                                                kShift, threads);
        };
      });
  // W8/W9: the row reductions of W4 on their own (generated code, no
  // GEMM): softmax over [1024, 128] and layer_norm over [1024, 256]. Both
  // fit in L2/L3, so no bandwidth roofline; the flop counts are nominal.
  add("W8_softmax_1024x128", 5.0 * 1024 * 128, 0, [](Workload &w) {
    adopt(w, SoftmaxRows(), {randomTensor({1024, 128}, 18)}, 8);
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchSoftmax(host(w.inputs[0]));
    };
  });
  add("W9_layer_norm_1024x256", 8.0 * 1024 * 256, 0, [](Workload &w) {
    adopt(w, nn::LayerNorm(nn::LayerNormOptions({256})),
          {randomTensor({1024, 256}, 19)}, 9);
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchLayerNorm(w.hostWeights, host(w.inputs[0]));
    };
  });
  // W10: a 3x3x3 convolution over 8 frames of 28x28, 64 channels.
  add("W10_conv3d_bn_relu", 2.0 * 64 * 64 * 27 * 8 * 28 * 28, 0,
      [](Workload &w) {
        adopt(w, Conv3dBnRelu(), {randomTensor({1, 64, 8, 28, 28}, 20)}, 10);
        w.make[Impl::libtorch] = [&w](int) {
          return bench::torchConv3dBnRelu(w.hostWeights, host(w.inputs[0]));
        };
      });
  // W7: what nn-optimize's fusion (and batch-norm folding) buys on the
  // ResNet-style block of the seed models, in one run: the same model
  // compiled with the full pipeline, without nn-fuse, and without nn-fuse
  // and nn-fold-batchnorm. Every variant is checked against libtorch (and so
  // against each other) before it is timed; report.py prints the ratios.
  add("W7_resblock_fusion", 2 * convFlop, 0, [](Workload &w) {
    adopt(w, nn::models::ResidualBlock(64), {randomTensor({8, 64, 56, 56}, 14)},
          7);
    auto variant = [&w](bool fuse, bool fold) {
      return [&w, fuse, fold](int) {
        nn::CompileOptions options;
        options.optimize_options.fuse = fuse;
        options.optimize_options.fold_batchnorm = fold;
        auto holder =
            std::static_pointer_cast<nn::models::ResidualBlockImpl>(w.model);
        nn::models::ResidualBlock model(holder);
        return compileNN(model, w.inputs, options);
      };
    };
    w.make[Impl::nn_nofuse] = variant(false, true);
    w.make[Impl::nn_nofuse_nofold] = variant(false, false);
    w.make[Impl::libtorch] = [&w](int) {
      return bench::torchResidual(w.hostWeights, host(w.inputs[0]), {""});
    };
  });

  // Z1-Z3: whole torchvision models (examples/zoo, full size, 224x224) at
  // batch 1 and 8 against the same model traced by PyTorch
  // (bench/zoo_torchscript.py), run op by op (libtorch) and frozen
  // (libtorch_frozen). The weights are the zoo tests' deterministic ones
  // (tests/E2E/DeterministicValues.h, with ZooTest's gains), whose
  // activations keep their scale through the depth of the network. flop:
  // 2 x torchvision's multiply-adds per image.
  struct ZooModel {
    const char *name;
    std::function<void(Workload &, int64_t batch)> adopt;
    double flopPerImage;
  };
  const ZooModel zooModels[] = {
      {"Z1_resnet18",
       [](Workload &w, int64_t b) { adoptZoo(w, nn::zoo::resnet18(), 3.0, b); },
       2 * 1.81e9},
      {"Z2_mobilenet_v2",
       [](Workload &w, int64_t b) {
         adoptZoo(w, nn::zoo::mobilenet_v2(), 6.0, b);
       },
       2 * 0.30e9},
      {"Z3_vit_b_16",
       [](Workload &w, int64_t b) { adoptZoo(w, nn::zoo::vit_b_16(), 3.0, b); },
       2 * 17.56e9}};
  for (const ZooModel &model : zooModels)
    for (int64_t batch : {1, 8})
      add(std::string(model.name) + "_b" + std::to_string(batch),
          batch * model.flopPerImage, 0, [model, batch](Workload &w) {
            model.adopt(w, batch);
            std::string path = zooScriptDir() + "/" +
                               std::string(model.name).substr(3) + ".pt";
            for (Impl impl : {Impl::libtorch, Impl::libtorch_frozen})
              w.make[impl] = [&w, path, impl](int) {
                return bench::torchScript(path, w.hostWeights,
                                          host(w.inputs[0]),
                                          impl == Impl::libtorch_frozen);
              };
          });

  // Z1-train: one SGD-with-momentum step of ResNet-18 in training mode
  // (batch statistics, running statistics updated) on cross_entropy
  // against seeded labels, batch 8, 224x224, the Z rows' weights: against
  // resnet18 traced in training mode (resnet18_train.pt) run op by op under
  // libtorch's autograd, as an eager PyTorch training loop runs it. flop:
  // 3x the forward's.
  add("Z1_train_resnet18_b8", 3 * 8 * zooModels[0].flopPerImage, 0,
      [](Workload &w) {
        static constexpr double kLr = 0.01, kMomentum = 0.9;
        adoptZoo(w, nn::zoo::resnet18(), 3.0, 8);
        std::vector<int64_t> classes = addLabels(w, 8, 1000, 25);
        makeNNTrainRunners<nn::zoo::ResNetImpl>(
            w, /*train=*/true, nn::CrossEntropyLoss(), sgd(kLr, kMomentum));
        std::vector<std::string> order;
        for (const auto &[name, p] : w.model->named_parameters())
          order.push_back(name);
        w.make[Impl::libtorch] = [&w, classes, order](int) {
          return bench::torchScriptTrain(
              zooScriptDir() + "/resnet18_train.pt", w.hostWeights, order,
              host(w.inputs[0]), classes, kLr, kMomentum);
        };
      });
  return all;
}

/// Which implementations each workload has (known before set-up).
std::vector<Impl> implsOf(const std::string &name) {
  if (name.find("_train") != std::string::npos)
    return {Impl::nn, Impl::nn_split, Impl::libtorch};
  if (name.starts_with("W2") || name.starts_with("W3") ||
      name.starts_with("W5"))
    return {Impl::nn, Impl::libtorch, Impl::onednn};
  if (name.starts_with("W6"))
    return {Impl::nn, Impl::libtorch, Impl::hand, Impl::hand_nt};
  if (name.starts_with("W7"))
    return {Impl::nn, Impl::nn_nofuse, Impl::nn_nofuse_nofold, Impl::libtorch};
  if (name.starts_with("Z"))
    return {Impl::nn, Impl::libtorch, Impl::libtorch_frozen};
  return {Impl::nn, Impl::libtorch};
}

void runWorkload(benchmark::State &state, Workload *w, Impl impl, int threads) {
  // The benchmarks run workload after workload: drop the previous one's
  // runners (a full ViT-B/16 holds its weights once per runner).
  static Workload *current = nullptr;
  if (current && current != w)
    current->runners.clear();
  current = w;
  std::string error;
  if (impl == Impl::nn && !w->skipNN.empty()) {
    state.SkipWithError(("skipped: " + w->skipNN).c_str());
    for (auto _ : state) {
    }
    return;
  }
  Runner *runner = prepare(*w, impl, threads, error);
  if (!runner) {
    state.SkipWithError(error.c_str());
    for (auto _ : state) {
    }
    return;
  }
  setThreads(impl, threads);
  for (auto _ : state)
    runner->run();
  state.counters["flop"] = w->flop;
  state.counters["bytes"] = w->bytes;
  state.counters["threads"] = threads;
}

/// The path of the loaded shared library whose name contains `part`.
std::string loadedLibrary(const char *part) {
  std::pair<const char *, std::string> query{part, "(none)"};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *q = static_cast<std::pair<const char *, std::string> *>(data);
        if (info->dlpi_name && std::strstr(info->dlpi_name, q->first)) {
          char resolved[4096];
          q->second =
              realpath(info->dlpi_name, resolved) ? resolved : info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &query);
  return query.second;
}

double minOf(const std::vector<double> &v) {
  return *std::min_element(v.begin(), v.end());
}

void registerAll() {
  // The roofline first: measured before the workloads heat the machine.
  for (int threads : {1, 2}) {
    if (!isaCap().empty())
      break;
    std::string isa = bench::hasAvx512() ? "avx512" : "avx2";
    benchmark::RegisterBenchmark(
        ("Roofline/fma_peak_" + isa + "/t" + std::to_string(threads)).c_str(),
        [threads](benchmark::State &s) {
          double flop = 0;
          for (auto _ : s)
            flop = bench::fmaPeak(threads, int64_t(1) << 24);
          s.counters["flop"] = flop;
          s.counters["threads"] = threads;
        })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->ComputeStatistics("min", minOf);
    for (bool streaming : {false, true})
      benchmark::RegisterBenchmark(
          ("Roofline/stream_triad" + std::string(streaming ? "_nt" : "") +
           "/t" + std::to_string(threads))
              .c_str(),
          [threads, streaming](benchmark::State &s) {
            static bench::Triad triad(int64_t(32) << 20); // 3 x 128 MiB
            double bytes = 0;
            triad.run(threads); // first touch
            for (auto _ : s)
              bytes = triad.run(threads, streaming);
            s.counters["bytes"] = bytes;
            s.counters["threads"] = threads;
          })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->ComputeStatistics("min", minOf);
  }
  for (auto &w : workloads()) {
    for (Impl impl : implsOf(w->name)) {
      if (!isaCap().empty() && !isNN(impl))
        continue;
      for (int threads : {1, 2}) {
        std::string name =
            w->name + "/" + rowName(impl) + "/t" + std::to_string(threads);
        auto *b = benchmark::RegisterBenchmark(
            name.c_str(), [w = w.get(), impl, threads](benchmark::State &s) {
              runWorkload(s, w, impl, threads);
            });
        b->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->ComputeStatistics("min", minOf);
      }
    }
  }
}

} // namespace

/// A field of /proc/self/status in MiB ("VmRSS", "VmHWM").
double statusMiB(const char *field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with(field) && line[std::strlen(field)] == ':')
      return std::stod(line.substr(std::strlen(field) + 1)) / 1024.0;
  return -1.0;
}

/// nn-bench --peak_rss=WORKLOAD:IMPL[:THREADS]: the memory one
/// implementation's step needs, in a process that runs nothing else (so
/// one implementation's heap cannot serve another's). Prints, in MiB above
/// the process after the workload's set-up (model, inputs, weights):
///   held: resident after two warm-up runs, the freed heap trimmed
///         (compiled code, weights and optimizer state, workspaces), and
///         of that the heap (RssAnon: without the pages of libraries, such
///         as LLVM's, that a JIT compile touched);
///   step peak heap: the heap held plus the high-water mark over three
///         more runs above the resident memory before them (Linux's VmHWM,
///         reset through /proc/self/clear_refs), so compile-time memory is
///         not counted, only what a step holds and allocates.
/// The output is not compared with libtorch's here; the timed benchmarks do
/// that.
int peakRss(const std::string &spec) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) {
    std::cerr << "nn-bench: --peak_rss expects WORKLOAD:IMPL[:THREADS], got '"
              << spec << "'\n";
    return 2;
  }
  int threads = parts.size() == 3 ? std::stoi(parts[2]) : 1;
  Workload *w = nullptr;
  for (auto &candidate : workloads())
    if (candidate->name == parts[0])
      w = candidate.get();
  if (!w) {
    std::cerr << "nn-bench: no workload '" << parts[0] << "'\n";
    return 2;
  }
  std::optional<Impl> impl;
  for (Impl i : {Impl::nn, Impl::nn_nofuse, Impl::nn_nofuse_nofold,
                 Impl::nn_split, Impl::libtorch, Impl::libtorch_frozen,
                 Impl::onednn, Impl::hand, Impl::hand_nt})
    if (parts[1] == implName(i))
      impl = i;
  if (impl)
    w->setup(*w);
  if (!impl || !w->make.count(*impl)) {
    std::cerr << "nn-bench: workload '" << parts[0] << "' has no '" << parts[1]
              << "' implementation\n";
    return 2;
  }
  malloc_trim(0);
  double base = statusMiB("VmRSS"), baseAnon = statusMiB("RssAnon");
  setThreads(*impl, threads);
  std::unique_ptr<Runner> runner = w->make.at(*impl)(threads);
  runner->run();
  runner->run();
  malloc_trim(0);
  double held = statusMiB("VmRSS") - base,
         heldAnon = statusMiB("RssAnon") - baseAnon;
  double before = statusMiB("VmRSS");
  std::ofstream("/proc/self/clear_refs") << "5";
  for (int i = 0; i < 3; ++i)
    runner->run();
  // Library pages are all touched by now: what the steps add is heap.
  double peakHeap = heldAnon + (statusMiB("VmHWM") - before);
  std::printf("%s/%s/threads:%d held %.1f MiB, heap %.1f MiB, step peak "
              "heap %.1f MiB (above a base of %.1f MiB)\n",
              w->name.c_str(), implName(*impl), threads, held, heldAnon,
              peakHeap, base);
  return 0;
}

int main(int argc, char **argv) {
  // libtorch, OpenBLAS and oneDNN share libgomp: idle workers must sleep so
  // that they do not steal the core from nn's threads (and vice versa).
  // libtorch must find OpenBLAS, which scripts/bootstrap-bench.sh installs
  // without making it the system's libblas.so.3. Both are read when the
  // libraries load, before main: re-execute with them set.
  bool reexec = false;
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    reexec = true;
  }
  const std::string openblas = "/usr/lib/x86_64-linux-gnu/openblas-openmp";
  const char *ldPath = std::getenv("LD_LIBRARY_PATH");
  std::string paths = ldPath ? ldPath : "";
  if (access(openblas.c_str(), F_OK) == 0 &&
      paths.find(openblas) == std::string::npos) {
    setenv("LD_LIBRARY_PATH",
           (openblas + (paths.empty() ? "" : ":" + paths)).c_str(), 1);
    reexec = true;
  }
  if (reexec) {
    execv("/proc/self/exe", argv);
    std::perror("nn-bench: re-executing with OMP_WAIT_POLICY and OpenBLAS");
    return 1;
  }
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).starts_with("--peak_rss=")) {
      int rc = peakRss(std::string(argv[i]).substr(std::strlen("--peak_rss=")));
      std::fflush(nullptr);
      std::_Exit(rc); // as below: no static destruction across the libraries
    }
  benchmark::AddCustomContext("blas", loadedLibrary("libblas"));
  benchmark::Initialize(&argc, argv);
  registerAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // The cached workloads hold JIT engines, libtorch tensors and oneDNN
  // primitives whose static-destruction order across those libraries is
  // not ours to fix; the results are written, leave without running it.
  std::fflush(nullptr);
  std::_Exit(0);
}
