//===- DeterministicValues.h - Values recomputed from a name ----*- C++ -*-===//
//
// The C++ twin of tests/reference/deterministic_values.py: the weights and
// inputs of the real-architecture goldens, computed bit for bit as PyTorch's
// side computes them, so that no weights file is committed. See the Python
// file for the rules.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_E2E_DETERMINISTICVALUES_H
#define NN_TESTS_E2E_DETERMINISTICVALUES_H

#include "nn/nn.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace nn::testing {

inline uint64_t fnv1a64(const std::string &name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char byte : name)
    h = (h ^ byte) * 0x100000001B3ull;
  return h;
}

/// Element i's 24 random bits, a function of `name` and i.
inline uint64_t deterministicBits(uint64_t seed, int64_t i) {
  uint64_t z = seed + static_cast<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z >> 40;
}

/// A float32 tensor of `shape` in [-1, 1), a function of `name` alone.
inline Tensor deterministicUniform(const std::string &name, Shape shape) {
  Tensor t = Tensor::zeros(shape);
  float *data = t.data_ptr<float>();
  uint64_t seed = fnv1a64(name);
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    data[i] = static_cast<float>(deterministicBits(seed, i)) * 0x1p-23f - 1.0f;
  return t;
}

/// int64 token ids of `shape` in [0, vocab_size).
inline Tensor deterministicTokenIds(Shape shape, int64_t vocab_size) {
  Tensor t = Tensor::zeros(shape, DType::i64);
  int64_t *data = t.data_ptr<int64_t>();
  uint64_t seed = fnv1a64("input");
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    data[i] = static_cast<int64_t>(deterministicBits(seed, i) %
                                   static_cast<uint64_t>(vocab_size));
  return t;
}

/// Inputs for `specs`: int64 ones as token ids in [0, 32), the others
/// uniform, "input.<i>" naming each.
inline std::vector<Tensor>
deterministicInputs(const std::vector<TensorSpec> &specs) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < specs.size(); ++i)
    inputs.push_back(specs[i].dtype == DType::i64
                         ? deterministicTokenIds(specs[i].shape, 32)
                         : deterministicUniform("input." + std::to_string(i),
                                                specs[i].shape));
  return inputs;
}

/// The value of state_dict entry `key` shaped and typed as `like`.
inline Tensor deterministicValue(const std::string &key, const Tensor &like,
                                 double gain) {
  if (like.dtype() != DType::f32)
    return Tensor::zeros(like.shape(), like.dtype());
  Tensor t = deterministicUniform(key, like.shape());
  std::string leaf = key.substr(key.rfind('.') + 1);
  auto endsWith = [&](const std::string &suffix) {
    return leaf.size() >= suffix.size() &&
           leaf.compare(leaf.size() - suffix.size(), suffix.size(), suffix) ==
               0;
  };
  float scale, offset = 0.0f;
  if (leaf == "running_var") {
    scale = 0.25f;
    offset = 0.75f;
  } else if (endsWith("bias") || leaf == "running_mean") {
    scale = 0.1f;
  } else if (endsWith("weight") && like.dim() >= 2) {
    int64_t fanIn = like.numel() / like.size(0);
    scale = static_cast<float>(std::sqrt(gain / static_cast<double>(fanIn)));
  } else if (endsWith("weight")) {
    scale = 0.25f;
    offset = 1.0f;
  } else {
    scale = 0.5f;
  }
  // One float32 product, then one float32 sum, as PyTorch computes them
  // (the products by 0.25 are exact, so a fused multiply-add rounds alike).
  float *data = t.data_ptr<float>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    float product = data[i] * scale;
    data[i] = offset == 0.0f ? product : offset + product;
  }
  return t;
}

/// Every entry of `model`'s state_dict, deterministically valued; tied
/// entries (one tensor under several keys) all get the first key's value.
inline StateDict deterministicState(const Module &model, double gain) {
  StateDict state;
  StateDict modelState = model.state_dict();
  for (size_t i = 0; i < modelState.size(); ++i) {
    const auto &[key, tensor] = modelState.items()[i];
    Tensor value;
    for (size_t j = 0; j < i && !value.defined(); ++j)
      if (modelState.items()[j].second.shares_storage(tensor))
        value = state.at(modelState.items()[j].first);
    state.insert(key, value.defined() ? value
                                      : deterministicValue(key, tensor, gain));
  }
  return state;
}

/// An image batch of `shape`: 0.5 * uniform("input") plus
/// uniform("input.mean") per image and channel.
inline Tensor deterministicImages(const Shape &shape) {
  Tensor images = deterministicUniform("input", shape);
  Shape meanShape(shape.size(), 1);
  meanShape[0] = shape[0];
  meanShape[1] = shape[1];
  Tensor mean = deterministicUniform("input.mean", meanShape);
  float *data = images.data_ptr<float>();
  const float *m = mean.data_ptr<float>();
  int64_t plane = images.numel() / (shape[0] * shape[1]);
  for (int64_t i = 0, n = images.numel(); i < n; ++i)
    data[i] = data[i] * 0.5f + m[i / plane];
  return images;
}

} // namespace nn::testing

#endif // NN_TESTS_E2E_DETERMINISTICVALUES_H
