//===- TorchAnchors.cpp - libtorch eager baselines -----------------------===//
//
// Each workload written the way a libtorch user would (functional calls in
// eval mode, no_grad; autograd and torch::optim for the training steps), on
// copies of the nn side's weights and inputs.
// Debian's libtorch runs matmul through libblas.so.3 (OpenBLAS once
// scripts/bootstrap-bench.sh ran) and convolution through its bundled
// oneDNN; both take their thread count from torch::set_num_threads.
//
//===----------------------------------------------------------------------===//

#include "Anchors.h"

#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <map>
#include <set>
#include <stdexcept>

namespace bench {
namespace {

torch::Tensor toTorch(const HostTensor &t) {
  return torch::from_blob(const_cast<float *>(t.data), t.shape, torch::kFloat32)
      .clone();
}

torch::Tensor at(const NamedTensors &w, const std::string &name) {
  return toTorch(w.at(name));
}

std::vector<float> toVector(const torch::Tensor &t) {
  torch::Tensor c = t.contiguous();
  const float *p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

/// A Runner around a closure producing the output tensor.
class TorchRunner : public Runner {
public:
  explicit TorchRunner(std::function<torch::Tensor()> fn)
      : fn_(std::move(fn)) {}
  void run() override {
    torch::NoGradGuard noGrad;
    out_ = fn_();
  }
  std::vector<float> output() override { return toVector(out_); }

private:
  std::function<torch::Tensor()> fn_;
  torch::Tensor out_;
};

torch::Tensor batchNorm(const NamedTensors &w, const std::string &p,
                        const torch::Tensor &x) {
  return torch::batch_norm(x, at(w, p + ".weight"), at(w, p + ".bias"),
                           at(w, p + ".running_mean"),
                           at(w, p + ".running_var"), /*training=*/false,
                           /*momentum=*/0.1, /*eps=*/1e-5,
                           /*cudnn_enabled=*/false);
}

} // namespace

void setTorchThreads(int threads) { torch::set_num_threads(threads); }

namespace {

/// SimpleMLP's parameters, fc1.weight, fc1.bias, ... fc3.bias.
std::vector<torch::Tensor> mlpParams(const NamedTensors &w) {
  std::vector<torch::Tensor> params;
  for (const char *name : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                           "fc3.weight", "fc3.bias"})
    params.push_back(at(w, name));
  return params;
}

/// SimpleMLP's forward (eval: no dropout) with mlpParams' parameters.
torch::Tensor mlp(const torch::Tensor &x, const std::vector<torch::Tensor> &p) {
  auto h = torch::relu(torch::linear(x, p[0], p[1]));
  h = torch::relu(torch::linear(h, p[2], p[3]));
  return torch::linear(h, p[4], p[5]);
}

/// One training step per run(), as a libtorch user writes it: zero_grad,
/// the loss, backward, the optimizer's step. output(): the loss, then every
/// parameter after the step, flattened.
class TorchTrainRunner : public Runner {
public:
  TorchTrainRunner(std::vector<torch::Tensor> params,
                   std::function<torch::Tensor()> loss,
                   std::function<std::unique_ptr<torch::optim::Optimizer>(
                       std::vector<torch::Tensor>)>
                       optimizer)
      : params_(std::move(params)), lossFn_(std::move(loss)) {
    for (torch::Tensor &p : params_)
      p.requires_grad_(true);
    optimizer_ = optimizer(params_);
  }
  void run() override {
    optimizer_->zero_grad();
    loss_ = lossFn_();
    loss_.backward();
    optimizer_->step();
  }
  std::vector<float> output() override {
    std::vector<float> out = toVector(loss_.detach().reshape({1}));
    for (const torch::Tensor &p : params_) {
      std::vector<float> values = toVector(p.detach());
      out.insert(out.end(), values.begin(), values.end());
    }
    return out;
  }

private:
  std::vector<torch::Tensor> params_;
  std::function<torch::Tensor()> lossFn_;
  torch::Tensor loss_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

/// SGD(lr, momentum) over the parameters it is given.
auto sgd(double lr, double momentum) {
  return [=](std::vector<torch::Tensor> params) {
    return std::unique_ptr<torch::optim::Optimizer>(new torch::optim::SGD(
        params, torch::optim::SGDOptions(lr).momentum(momentum)));
  };
}

} // namespace

std::unique_ptr<Runner> torchMLP(const NamedTensors &w, HostTensor x) {
  auto in = toTorch(x);
  auto params = mlpParams(w);
  return std::make_unique<TorchRunner>([=] { return mlp(in, params); });
}

std::unique_ptr<Runner> torchMLPTrain(const NamedTensors &w, HostTensor x,
                                      const std::vector<int64_t> &classes,
                                      double lr, double momentum) {
  std::vector<torch::Tensor> params = mlpParams(w);
  auto in = toTorch(x);
  auto labels = torch::tensor(classes, torch::kInt64);
  return std::make_unique<TorchTrainRunner>(
      params,
      [=] { return torch::cross_entropy_loss(mlp(in, params), labels); },
      sgd(lr, momentum));
}

std::unique_ptr<Runner> torchResidualTrain(const NamedTensors &w, HostTensor x,
                                           HostTensor target, double lr,
                                           double momentum) {
  auto in = toTorch(x), want = toTorch(target);
  // nn's parameters() order: per block conv1, bn1, conv2, bn2.
  std::vector<torch::Tensor> params, stats;
  for (const std::string &p : {"0.", "1."}) {
    for (const char *name : {"conv1.weight", "bn1.weight", "bn1.bias",
                             "conv2.weight", "bn2.weight", "bn2.bias"})
      params.push_back(at(w, p + name));
    for (const char *name : {"bn1.running_mean", "bn1.running_var",
                             "bn2.running_mean", "bn2.running_var"})
      stats.push_back(at(w, p + name));
  }
  auto forward = [=] {
    torch::Tensor h = in;
    for (size_t b = 0; b < 2; ++b) {
      const torch::Tensor *p = &params[6 * b], *s = &stats[4 * b];
      auto y = torch::conv2d(h, p[0], {}, 1, 1);
      y = torch::relu(
          torch::batch_norm(y, p[1], p[2], s[0], s[1], true, 0.1, 1e-5, false));
      y = torch::conv2d(y, p[3], {}, 1, 1);
      y = torch::batch_norm(y, p[4], p[5], s[2], s[3], true, 0.1, 1e-5, false);
      h = torch::relu(y + h);
    }
    return torch::mse_loss(h, want);
  };
  return std::make_unique<TorchTrainRunner>(params, forward, sgd(lr, momentum));
}

std::unique_ptr<Runner> torchConvBnRelu(const NamedTensors &w, HostTensor x) {
  auto in = toTorch(x);
  auto cw = at(w, "conv.weight"), cb = at(w, "conv.bias");
  // Tensors are copied into the closure once, not per call.
  auto g = at(w, "bn.weight"), beta = at(w, "bn.bias");
  auto mean = at(w, "bn.running_mean"), var = at(w, "bn.running_var");
  return std::make_unique<TorchRunner>([=] {
    auto y = torch::conv2d(in, cw, cb, 1, 1);
    y = torch::batch_norm(y, g, beta, mean, var, false, 0.1, 1e-5, false);
    return torch::relu(y);
  });
}

std::unique_ptr<Runner> torchConv3dBnRelu(const NamedTensors &w, HostTensor x) {
  auto in = toTorch(x);
  auto cw = at(w, "conv.weight");
  auto g = at(w, "bn.weight"), beta = at(w, "bn.bias");
  auto mean = at(w, "bn.running_mean"), var = at(w, "bn.running_var");
  return std::make_unique<TorchRunner>([=] {
    auto y = torch::conv3d(in, cw, {}, 1, 1);
    y = torch::batch_norm(y, g, beta, mean, var, false, 0.1, 1e-5, false);
    return torch::relu(y);
  });
}

std::unique_ptr<Runner> torchResidual(const NamedTensors &w, HostTensor x,
                                      const std::vector<std::string> &blocks) {
  auto in = toTorch(x);
  struct Block {
    torch::Tensor c1, c2, g1, b1, m1, v1, g2, b2, m2, v2;
  };
  std::vector<Block> weights;
  for (const std::string &p : blocks)
    weights.push_back({at(w, p + "conv1.weight"), at(w, p + "conv2.weight"),
                       at(w, p + "bn1.weight"), at(w, p + "bn1.bias"),
                       at(w, p + "bn1.running_mean"),
                       at(w, p + "bn1.running_var"), at(w, p + "bn2.weight"),
                       at(w, p + "bn2.bias"), at(w, p + "bn2.running_mean"),
                       at(w, p + "bn2.running_var")});
  return std::make_unique<TorchRunner>([=] {
    torch::Tensor h = in;
    for (const Block &b : weights) {
      auto y = torch::conv2d(h, b.c1, {}, 1, 1);
      y = torch::relu(torch::batch_norm(y, b.g1, b.b1, b.m1, b.v1, false, 0.1,
                                        1e-5, false));
      y = torch::conv2d(y, b.c2, {}, 1, 1);
      y = torch::batch_norm(y, b.g2, b.b2, b.m2, b.v2, false, 0.1, 1e-5, false);
      h = torch::relu(y + h);
    }
    return h;
  });
}

namespace {
/// torch::nn::TransformerEncoderLayer (no dropout) of width d_model with
/// nn's weights `w`, in training mode or not.
torch::nn::TransformerEncoderLayer transformerLayer(const NamedTensors &w,
                                                    int64_t dModel,
                                                    int64_t heads, int64_t dFF,
                                                    bool training) {
  torch::nn::TransformerEncoderLayer layer(
      torch::nn::TransformerEncoderLayerOptions(dModel, heads)
          .dim_feedforward(dFF)
          .dropout(0.0));
  layer->train(training);
  torch::NoGradGuard noGrad;
  for (auto &item : layer->named_parameters())
    item.value().copy_(at(w, item.key()));
  return layer;
}
} // namespace

std::unique_ptr<Runner> torchTransformer(const NamedTensors &w, HostTensor x,
                                         int64_t heads, int64_t dFF) {
  auto in = toTorch(x);
  auto layer = transformerLayer(w, in.size(2), heads, dFF, false);
  return std::make_unique<TorchRunner>([=]() mutable { return layer(in); });
}

std::unique_ptr<Runner> torchTransformerTrain(const NamedTensors &w,
                                              HostTensor x, HostTensor target,
                                              int64_t heads, int64_t dFF,
                                              double lr, double weightDecay) {
  auto in = toTorch(x), want = toTorch(target);
  auto layer = transformerLayer(w, in.size(2), heads, dFF, true);
  return std::make_unique<TorchTrainRunner>(
      layer->parameters(),
      [=]() mutable { return torch::mse_loss(layer(in), want); },
      [=](std::vector<torch::Tensor> params) {
        return std::unique_ptr<torch::optim::Optimizer>(new torch::optim::AdamW(
            params, torch::optim::AdamWOptions(lr).weight_decay(weightDecay)));
      });
}

std::unique_ptr<Runner> torchMatmul(HostTensor a, HostTensor b) {
  auto ta = toTorch(a), tb = toTorch(b);
  return std::make_unique<TorchRunner>([=] { return torch::mm(ta, tb); });
}

std::unique_ptr<Runner> torchAffineRelu(HostTensor x, float a, float b) {
  auto in = toTorch(x);
  return std::make_unique<TorchRunner>([=] { return torch::relu(in * a + b); });
}

std::unique_ptr<Runner> torchSoftmax(HostTensor x) {
  auto in = toTorch(x);
  return std::make_unique<TorchRunner>([=] { return torch::softmax(in, -1); });
}

std::unique_ptr<Runner> torchLayerNorm(const NamedTensors &w, HostTensor x) {
  auto in = toTorch(x);
  auto weight = at(w, "weight"), bias = at(w, "bias");
  int64_t cols = x.shape.back();
  return std::make_unique<TorchRunner>(
      [=] { return torch::layer_norm(in, {cols}, weight, bias, 1e-5); });
}

namespace {

/// Copies `w` into the module's parameters and buffers by state_dict name;
/// the two sets of float names must be the same.
void loadWeights(torch::jit::Module &module, const NamedTensors &w,
                 const std::string &path) {
  std::set<std::string> unused;
  for (const auto &entry : w)
    unused.insert(entry.first);
  torch::NoGradGuard noGrad;
  auto load = [&](const std::string &name, torch::Tensor t) {
    if (t.scalar_type() != torch::kFloat32)
      return; // num_batches_tracked
    auto it = w.find(name);
    if (it == w.end())
      throw std::runtime_error(path + " has '" + name + "', nn's model not");
    torch::Tensor value = toTorch(it->second);
    if (value.sizes() != t.sizes())
      throw std::runtime_error(path + ": '" + name + "' has a different shape");
    t.copy_(value);
    unused.erase(name);
  };
  for (const auto &p : module.named_parameters())
    load(p.name, p.value);
  for (const auto &b : module.named_buffers())
    load(b.name, b.value);
  if (!unused.empty())
    throw std::runtime_error("nn's model has '" + *unused.begin() + "', " +
                             path + " not");
}

/// A traced TorchScript module run op by op, or frozen.
class ScriptRunner : public Runner {
public:
  ScriptRunner(torch::jit::Module module, torch::Tensor x, bool frozen)
      : module_(std::move(module)), x_(std::move(x)), frozen_(frozen) {}
  void run() override {
    torch::NoGradGuard noGrad;
    // Unfrozen: no graph optimization, so the interpreter makes the aten
    // calls of the traced forward one by one, as eager PyTorch makes them.
    torch::jit::GraphOptimizerEnabledGuard optimize(frozen_);
    out_ = module_.forward({x_}).toTensor();
  }
  std::vector<float> output() override { return toVector(out_); }

private:
  torch::jit::Module module_;
  torch::Tensor x_;
  bool frozen_;
  torch::Tensor out_;
};

/// A TorchScript module's train step: the interpreter makes the aten calls
/// of the traced forward one by one (as eager PyTorch), autograd records
/// them, cross_entropy, backward and the optimizer as torchMLPTrain's.
class ScriptTrainRunner : public TorchTrainRunner {
public:
  using TorchTrainRunner::TorchTrainRunner;
  void run() override {
    torch::jit::GraphOptimizerEnabledGuard eager(false);
    TorchTrainRunner::run();
  }
};

} // namespace

std::unique_ptr<Runner> torchScriptTrain(const std::string &path,
                                         const NamedTensors &w,
                                         const std::vector<std::string> &order,
                                         HostTensor x,
                                         const std::vector<int64_t> &classes,
                                         double lr, double momentum) {
  torch::jit::Module module = torch::jit::load(path);
  loadWeights(module, w, path);
  std::map<std::string, torch::Tensor> byName;
  for (const auto &p : module.named_parameters())
    byName[p.name] = p.value;
  std::vector<torch::Tensor> params;
  for (const std::string &name : order) {
    auto it = byName.find(name);
    if (it == byName.end())
      throw std::runtime_error(path + " has no parameter '" + name + "'");
    params.push_back(it->second);
  }
  auto in = toTorch(x);
  auto labels = torch::tensor(classes, torch::kInt64);
  return std::make_unique<ScriptTrainRunner>(
      params,
      [=]() mutable {
        return torch::cross_entropy_loss(module.forward({in}).toTensor(),
                                         labels);
      },
      sgd(lr, momentum));
}

std::unique_ptr<Runner> torchScript(const std::string &path,
                                    const NamedTensors &w, HostTensor x,
                                    bool frozen) {
  torch::jit::Module module = torch::jit::load(path);
  module.eval();
  loadWeights(module, w, path);
  if (frozen) {
    module = torch::jit::freeze(module);
    module = torch::jit::optimize_for_inference(module);
  }
  return std::make_unique<ScriptRunner>(std::move(module), toTorch(x), frozen);
}

} // namespace bench
