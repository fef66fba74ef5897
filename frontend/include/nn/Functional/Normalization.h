//===- Normalization.h - nn::functional: normalization and reductions -*- C++
//-*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows. Signatures mirror torch / torch.nn.functional; keyword arguments
// are libtorch-style option structs:
//
//   F::sum(x, {1, -1}, /*keepdim=*/true);
//   F::var(x, {0}, VarFuncOptions().correction(0));
//   F::layer_norm(x, LayerNormFuncOptions({16}).weight(w).bias(b));
//   F::batch_norm(x, running_mean, running_var,
//                 BatchNormFuncOptions().weight(w).bias(b).training(true));
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_NORMALIZATION_H
#define NN_FUNCTIONAL_NORMALIZATION_H

#include "nn/Frontend/Arg.h"
#include "nn/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace nn::functional {

//===-- Reductions (torch.sum, mean, amax, amin, max, min, var, argmax) --===//
// `dims` may be negative (from the end); empty reduces every dim.

Tensor sum(const Tensor &input, std::vector<int64_t> dims = {},
           bool keepdim = false);
Tensor mean(const Tensor &input, std::vector<int64_t> dims = {},
            bool keepdim = false);
Tensor amax(const Tensor &input, std::vector<int64_t> dims = {},
            bool keepdim = false);
Tensor amin(const Tensor &input, std::vector<int64_t> dims = {},
            bool keepdim = false);
/// torch.max(input): the maximum of all elements (a scalar).
Tensor max(const Tensor &input);
/// torch.max(input, dim, keepdim): (values, indices), indices the first
/// maximum's (i64).
std::tuple<Tensor, Tensor> max(const Tensor &input, int64_t dim,
                               bool keepdim = false);
Tensor min(const Tensor &input);
std::tuple<Tensor, Tensor> min(const Tensor &input, int64_t dim,
                               bool keepdim = false);
/// First index of the maximum along `dim`, or of the flattened input when
/// `dim` is nullopt (i64).
Tensor argmax(const Tensor &input, std::optional<int64_t> dim = std::nullopt,
              bool keepdim = false);
Tensor argmin(const Tensor &input, std::optional<int64_t> dim = std::nullopt,
              bool keepdim = false);

/// torch.var's keywords: correction (1 = unbiased, PyTorch's default;
/// unbiased(false) is correction 0) and keepdim.
struct VarFuncOptions {
  /// torch.var(unbiased=...): correction 1 or 0.
  VarFuncOptions &unbiased(bool on) {
    correction_ = on ? 1 : 0;
    return *this;
  }
  NN_ARG(int64_t, correction) = 1;
  NN_ARG(bool, keepdim) = false;
};
Tensor var(const Tensor &input, std::vector<int64_t> dims = {},
           const VarFuncOptions &options = {});

//===-- Normalization (torch.nn.functional) ------------------------------===//

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  NN_ARG(std::vector<int64_t>, normalized_shape);
  NN_ARG(Tensor, weight);
  NN_ARG(Tensor, bias);
  NN_ARG(double, eps) = 1e-5;
};
Tensor layer_norm(const Tensor &input, const LayerNormFuncOptions &options);

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  NN_ARG(int64_t, num_groups);
  NN_ARG(Tensor, weight);
  NN_ARG(Tensor, bias);
  NN_ARG(double, eps) = 1e-5;
};
Tensor group_norm(const Tensor &input, const GroupNormFuncOptions &options);

/// F.batch_norm's keywords. momentum nullopt is PyTorch's momentum=None (a
/// cumulative average over num_batches_tracked).
struct BatchNormFuncOptions {
  NN_ARG(Tensor, weight);
  NN_ARG(Tensor, bias);
  NN_ARG(bool, training) = false;
  NN_ARG(std::optional<double>, momentum) = 0.1;
  NN_ARG(double, eps) = 1e-5;
  /// The module's num_batches_tracked buffer (i64 scalar). When training
  /// with running statistics it is incremented in place, and with momentum
  /// nullopt it sets the averaging factor.
  NN_ARG(Tensor, num_batches_tracked);
};
/// torch.nn.functional.batch_norm. `running_mean` / `running_var` may be
/// undefined (Tensor()): then batch statistics are used even in eval, as in
/// PyTorch. Training with running statistics writes their update into those
/// buffers (nn.store), so they must be buffers of the traced model.
Tensor batch_norm(const Tensor &input, const Tensor &running_mean,
                  const Tensor &running_var,
                  const BatchNormFuncOptions &options = {});

//===-- Norms and distances (torch.nn.functional) -------------------------===//

/// F::normalize(x, NormalizeFuncOptions().p(1).dim(-1))
struct NormalizeFuncOptions {
  /// The norm's exponent: positive, or infinity (the largest |x|).
  NN_ARG(double, p) = 2.0;
  NN_ARG(int64_t, dim) = 1;
  NN_ARG(double, eps) = 1e-12;
};
/// input / max(||input||_p over `dim`, eps).
Tensor normalize(const Tensor &input, const NormalizeFuncOptions &options = {});

/// F::cosine_similarity(a, b, CosineSimilarityFuncOptions().dim(-1))
struct CosineSimilarityFuncOptions {
  NN_ARG(int64_t, dim) = 1;
  NN_ARG(double, eps) = 1e-8;
};
/// Σ (x1 / max(||x1||, eps)) · (x2 / max(||x2||, eps)) over `dim` (x1 and
/// x2 broadcast together), as PyTorch computes it.
Tensor cosine_similarity(const Tensor &x1, const Tensor &x2,
                         const CosineSimilarityFuncOptions &options = {});

/// F::pairwise_distance(a, b, PairwiseDistanceFuncOptions().p(1))
struct PairwiseDistanceFuncOptions {
  NN_ARG(double, p) = 2.0;
  NN_ARG(double, eps) = 1e-6;
  NN_ARG(bool, keepdim) = false;
};
/// ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance(const Tensor &x1, const Tensor &x2,
                         const PairwiseDistanceFuncOptions &options = {});

/// F.instance_norm's keywords.
struct InstanceNormFuncOptions {
  NN_ARG(Tensor, running_mean);
  NN_ARG(Tensor, running_var);
  NN_ARG(Tensor, weight);
  NN_ARG(Tensor, bias);
  /// Normalize with each instance's statistics (and update the running
  /// ones, when given); false normalizes with the running ones.
  NN_ARG(bool, use_input_stats) = true;
  NN_ARG(double, momentum) = 0.1;
  NN_ARG(double, eps) = 1e-5;
};
/// torch.nn.functional.instance_norm on [N, C, *]: each (n, c) normalized
/// over its own elements (group_norm with C groups). Given running
/// statistics and use_input_stats, they take the batch's average of the
/// instances' means and unbiased variances as PyTorch updates them; they
/// must then be buffers of the traced model.
Tensor instance_norm(const Tensor &input,
                     const InstanceNormFuncOptions &options = {});

/// Assigns `value` to the model buffer `buffer` while tracing (the traced
/// counterpart of PyTorch's in-place `buffer.copy_(value)`): the compiled
/// forward writes it back, and later reads in the same forward see `value`.
void assign_buffer(const Tensor &buffer, const Tensor &value);

} // namespace nn::functional

#endif // NN_FUNCTIONAL_NORMALIZATION_H
