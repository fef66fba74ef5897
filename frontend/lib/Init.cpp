//===- Init.cpp - Parameter initialization --------------------------------===//
//
// A fully specified generator (xoshiro256** seeded through SplitMix64) so a
// seed gives the same values everywhere, and the torch.nn.init formulas.
//
//===----------------------------------------------------------------------===//

#include "nn/Init.h"

#include "nn/Runtime/Error.h"

#include <cmath>

namespace nn {

void Generator::manual_seed(uint64_t seed) {
  for (uint64_t &word : state_) {
    seed += 0x9e3779b97f4a7c15ULL;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    word = z ^ (z >> 31);
  }
}

uint64_t Generator::next_u64() {
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  uint64_t result = rotl(state_[1] * 5, 7) * 9;
  uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

Generator &default_generator() {
  static Generator generator(0);
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

namespace init {

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor &tensor) {
  if (tensor.dim() < 2)
    throw Error("Fan in and fan out can not be computed for tensor with fewer "
                "than 2 dimensions (got " + shape_str(tensor.shape()) + ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d)
    receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor &uniform_(Tensor &tensor, double a, double b, Generator &generator) {
  int64_t n = tensor.numel();
  if (tensor.dtype() == DType::f32) {
    float *data = tensor.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i)
      data[i] = static_cast<float>(a + (b - a) * generator.next_double());
  } else if (tensor.dtype() == DType::f64) {
    double *data = tensor.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i)
      data[i] = a + (b - a) * generator.next_double();
  } else {
    throw Error("uniform_: expected a float32 or float64 tensor, got " +
                std::string(dtype_name(tensor.dtype())));
  }
  return tensor;
}

Tensor &kaiming_uniform_(Tensor &tensor, double a, Generator &generator) {
  int64_t fanIn = calculate_fan_in_and_fan_out(tensor).first;
  if (fanIn == 0)
    return tensor; // PyTorch warns and leaves a zero-element tensor alone
  double gain = std::sqrt(2.0 / (1.0 + a * a)); // leaky_relu
  double bound = std::sqrt(3.0) * gain / std::sqrt(static_cast<double>(fanIn));
  return uniform_(tensor, -bound, bound, generator);
}

} // namespace init
} // namespace nn
