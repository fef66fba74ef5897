//===- Anchors.h - The baselines nn is measured against ---------*- C++ -*-===//
//
// Every anchor (libtorch eager, oneDNN, hand-written loops) sits behind the
// same small interface so that each lives in its own translation unit: the
// libtorch headers never meet nn's, and the heavy one compiles once.
//
// Weights and inputs cross as float32 host arrays made by the nn side, so
// every implementation of a workload computes on the same numbers.
//
//===----------------------------------------------------------------------===//
#ifndef NN_BENCH_ANCHORS_H
#define NN_BENCH_ANCHORS_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bench {

/// A view of a contiguous row-major float32 array.
struct HostTensor {
  std::vector<int64_t> shape;
  const float *data = nullptr;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// state_dict name -> tensor (names as PyTorch's, e.g. "bn.running_mean").
using NamedTensors = std::map<std::string, HostTensor>;

/// One implementation of one workload, set up and ready to run.
class Runner {
public:
  virtual ~Runner() = default;
  /// One forward; the result stays inside until the next run().
  virtual void run() = 0;
  /// The last result as a contiguous row-major NCHW / [rows, cols] array
  /// (converted from a blocked layout when the anchor uses one).
  virtual std::vector<float> output() = 0;
};

// --- libtorch eager (TorchAnchors.cpp) -------------------------------------
void setTorchThreads(int threads);
std::unique_ptr<Runner> torchMLP(const NamedTensors &w, HostTensor x);
std::unique_ptr<Runner> torchConvBnRelu(const NamedTensors &w, HostTensor x);
std::unique_ptr<Runner> torchConv3dBnRelu(const NamedTensors &w, HostTensor x);
/// ResidualBlocks applied in order, one per key prefix of `blocks` ("0.",
/// "1." for a Sequential of two; "" for a lone block).
std::unique_ptr<Runner> torchResidual(const NamedTensors &w, HostTensor x,
                                      const std::vector<std::string> &blocks);
/// torch::nn::TransformerEncoderLayer (eval, no dropout) with nn's weights
/// `w` (same state_dict keys) on x [seq, batch, d_model].
std::unique_ptr<Runner> torchTransformer(const NamedTensors &w, HostTensor x,
                                         int64_t heads, int64_t dFF);
std::unique_ptr<Runner> torchMatmul(HostTensor a, HostTensor b);
/// One training step of torchMLP's network per run(), as a libtorch user
/// writes it: zero_grad, cross_entropy(forward(x), classes), backward,
/// torch::optim::SGD(lr, momentum).step(). output(): the loss, then every
/// updated parameter (fc1.weight, fc1.bias, ... fc3.bias), flattened.
std::unique_ptr<Runner> torchMLPTrain(const NamedTensors &w, HostTensor x,
                                      const std::vector<int64_t> &classes,
                                      double lr, double momentum);
/// One training step of torchResidual's two blocks (train mode: batch
/// statistics, running statistics updated) per run(): mse_loss against
/// `target`, SGD(lr, momentum). output() as torchMLPTrain's, parameters in
/// nn's order (per block conv1.weight, bn1.weight, bn1.bias, conv2..., bn2...).
std::unique_ptr<Runner> torchResidualTrain(const NamedTensors &w, HostTensor x,
                                           HostTensor target, double lr,
                                           double momentum);
/// One training step of torchTransformer's layer (train mode, no dropout)
/// per run(): mse_loss against `target`, AdamW(lr, weight_decay).
std::unique_ptr<Runner> torchTransformerTrain(const NamedTensors &w,
                                              HostTensor x, HostTensor target,
                                              int64_t heads, int64_t dFF,
                                              double lr, double weightDecay);
std::unique_ptr<Runner> torchAffineRelu(HostTensor x, float a, float b);
/// softmax along the last dimension of x [rows, cols].
std::unique_ptr<Runner> torchSoftmax(HostTensor x);
/// layer_norm over the last dimension of x with w's "weight" and "bias".
std::unique_ptr<Runner> torchLayerNorm(const NamedTensors &w, HostTensor x);
/// The model traced into the TorchScript file `path`
/// (bench/zoo_torchscript.py) with `w` copied into its parameters and
/// buffers by name (the float names of both must be the same), on x. Not
/// `frozen`: run with graph optimization off, the aten calls of eager
/// PyTorch one by one. `frozen`: torch::jit::freeze +
/// optimize_for_inference (batch norm folded, oneDNN's prepacked
/// convolutions), as a PyTorch user deploys it.
std::unique_ptr<Runner> torchScript(const std::string &path,
                                    const NamedTensors &w, HostTensor x,
                                    bool frozen);
/// One training step per run() of the model traced in training mode into
/// `path` (bench/zoo_torchscript.py's resnet18_train.pt), `w` loaded as
/// torchScript's: cross_entropy against `classes`, backward,
/// SGD(lr, momentum), run op by op as eager PyTorch. output() as
/// torchMLPTrain's, the parameters in `order` (nn's parameters() names).
std::unique_ptr<Runner> torchScriptTrain(const std::string &path,
                                         const NamedTensors &w,
                                         const std::vector<std::string> &order,
                                         HostTensor x,
                                         const std::vector<int64_t> &classes,
                                         double lr, double momentum);

// --- oneDNN with its preferred (blocked) layouts (DnnlAnchors.cpp) ---------
void setDnnlThreads(int threads);
std::unique_ptr<Runner> dnnlConvBnRelu(const NamedTensors &w, HostTensor x);
std::unique_ptr<Runner> dnnlResidual(const NamedTensors &w, HostTensor x);
std::unique_ptr<Runner> dnnlMatmul(HostTensor a, HostTensor b);

// --- hand-written C++ (Roofline.cpp) ----------------------------------------
/// relu(x * a + b) in one pass, vectorized by the compiler, split over
/// `threads` std::threads.
std::unique_ptr<Runner> handAffineRelu(HostTensor x, float a, float b,
                                       int threads);
/// The same loop written with AVX intrinsics and non-temporal stores (as
/// nn-use-nontemporal-stores makes nn's W6 loop): the ceiling of a loop
/// that does not read its output lines before writing them.
std::unique_ptr<Runner> handAffineReluStreaming(HostTensor x, float a, float b,
                                                int threads);

} // namespace bench

#endif // NN_BENCH_ANCHORS_H
