//===- Embedding.cpp - Embedding layer ------------------------------------===//

#include "nn/Modules/Embedding.h"

#include "nn/Functional.h"
#include "nn/Init.h"

#include <cmath>
#include <numbers>

namespace nn {
namespace {

/// N(mean, std) in place by the Box–Muller transform on `generator`'s
/// uniforms (two uniforms per pair of values). Local until nn/Init.h has a
/// normal_; f32 and f64 tensors.
void normal(Tensor &tensor, double mean, double std, Generator &generator) {
  int64_t n = tensor.numel();
  auto draw = [&](int64_t i, double value) {
    value = mean + std * value;
    if (tensor.dtype() == DType::f32)
      tensor.data_ptr<float>()[i] = static_cast<float>(value);
    else
      tensor.data_ptr<double>()[i] = value;
  };
  if (tensor.dtype() != DType::f32 && tensor.dtype() != DType::f64)
    throw Error("normal_: expected a float32 or float64 tensor, got " +
                std::string(dtype_name(tensor.dtype())));
  for (int64_t i = 0; i < n; i += 2) {
    double u1 = 1.0 - generator.next_double(); // (0, 1]: log is finite
    double u2 = generator.next_double();
    double radius = std::sqrt(-2.0 * std::log(u1));
    draw(i, radius * std::cos(2.0 * std::numbers::pi * u2));
    if (i + 1 < n)
      draw(i + 1, radius * std::sin(2.0 * std::numbers::pi * u2));
  }
}

} // namespace

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions &options_)
    : Cloneable("Embedding"), options(options_) {
  int64_t rows = options.num_embeddings();
  if (auto p = options.padding_idx()) {
    if (*p >= rows || *p < -rows)
      throw Error("Embedding: padding_idx " + std::to_string(*p) +
                  " must be within num_embeddings " + std::to_string(rows));
    if (*p < 0)
      options.padding_idx(*p + rows);
  }
  weight = Tensor::zeros({rows, options.embedding_dim()});
  register_parameter("weight", &weight);
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  normal(weight, 0.0, 1.0, default_generator());
  if (auto p = options.padding_idx()) {
    int64_t dim = options.embedding_dim();
    for (int64_t j = 0; j < dim; ++j)
      weight.data_ptr<float>()[*p * dim + j] = 0.0f;
  }
}

Tensor EmbeddingImpl::forward(const Tensor &input) {
  return F::embedding(
      input, weight,
      F::EmbeddingFuncOptions().padding_idx(options.padding_idx()));
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = std::to_string(options.num_embeddings()) + ", " +
                  std::to_string(options.embedding_dim());
  if (options.padding_idx())
    s += ", padding_idx=" + std::to_string(*options.padding_idx());
  return s;
}

} // namespace nn
