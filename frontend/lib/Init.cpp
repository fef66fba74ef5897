//===- Init.cpp - Parameter initialization --------------------------------===//
//
// A fully specified generator (xoshiro256** seeded through SplitMix64) so a
// seed gives the same values everywhere, and the torch.nn.init formulas on
// top of three primitives: uniform draws, Box–Muller normal draws, and a
// writer that stores doubles in any dtype.
//
//===----------------------------------------------------------------------===//

#include "nn/Init.h"

#include "nn/Runtime/Error.h"

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

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
namespace {

/// Stores value(i) into element i of `tensor`, i in flat order, converting
/// from double to the tensor's dtype.
template <typename Value> void fill(Tensor &tensor, Value &&value) {
  int64_t n = tensor.numel();
  if (tensor.dtype() == DType::f32) {
    float *data = tensor.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i)
      data[i] = static_cast<float>(value(i));
  } else if (tensor.dtype() == DType::f64) {
    double *data = tensor.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i)
      data[i] = value(i);
  } else {
    Tensor wide = Tensor::zeros(tensor.shape(), DType::f64);
    fill(wide, value);
    tensor.copy_(wide.to(tensor.dtype()));
  }
}

void requireFloatingPoint(const Tensor &tensor, const char *function) {
  if (!tensor.defined() || !is_floating_point(tensor.dtype()))
    throw Error(std::string(function) +
                ": expected a floating point tensor, got " +
                tensor.to_string());
}

/// Normal draws by Box–Muller, one pair of uniform draws per two values.
class NormalDraws {
public:
  explicit NormalDraws(Generator &generator) : generator_(generator) {}
  double next() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    double u1 = generator_.next_double(), u2 = generator_.next_double();
    double radius = std::sqrt(-2.0 * std::log(1.0 - u1));
    double angle = 2.0 * std::numbers::pi * u2;
    spare_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
  }

private:
  Generator &generator_;
  double spare_ = 0;
  bool hasSpare_ = false;
};

Tensor &fillUniform(Tensor &tensor, double a, double b, Generator &generator,
                    const char *function) {
  requireFloatingPoint(tensor, function);
  fill(tensor, [&](int64_t) { return a + (b - a) * generator.next_double(); });
  return tensor;
}

Tensor &fillNormal(Tensor &tensor, double mean, double std,
                   Generator &generator, const char *function) {
  requireFloatingPoint(tensor, function);
  NormalDraws draws(generator);
  fill(tensor, [&](int64_t) { return mean + std * draws.next(); });
  return tensor;
}

/// The inverse error function: Giles' single-precision approximation
/// refined by Newton steps on std::erf to double precision.
double erfinv(double y) {
  if (y <= -1.0)
    return -INFINITY;
  if (y >= 1.0)
    return INFINITY;
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  for (int i = 0; i < 2; ++i)
    x -= (std::erf(x) - y) /
         (2.0 / std::sqrt(std::numbers::pi) * std::exp(-x * x));
  return x;
}

int64_t fanOf(const Tensor &tensor, FanMode mode) {
  auto [fanIn, fanOut] = calculate_fan_in_and_fan_out(tensor);
  return mode == FanMode::fan_in ? fanIn : fanOut;
}

} // namespace

double calculate_gain(Nonlinearity nonlinearity, std::optional<double> param) {
  switch (nonlinearity) {
  case Nonlinearity::linear:
  case Nonlinearity::conv1d:
  case Nonlinearity::conv2d:
  case Nonlinearity::conv3d:
  case Nonlinearity::conv_transpose1d:
  case Nonlinearity::conv_transpose2d:
  case Nonlinearity::conv_transpose3d:
  case Nonlinearity::sigmoid:
    return 1.0;
  case Nonlinearity::tanh:
    return 5.0 / 3.0;
  case Nonlinearity::relu:
    return std::sqrt(2.0);
  case Nonlinearity::leaky_relu: {
    double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  case Nonlinearity::selu:
    return 3.0 / 4.0;
  }
  return 1.0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor &tensor) {
  if (tensor.dim() < 2)
    throw Error("Fan in and fan out can not be computed for tensor with fewer "
                "than 2 dimensions (got " +
                tensor.to_string() + ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d)
    receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor &uniform_(Tensor &tensor, double a, double b, Generator &generator) {
  if (!(a <= b))
    throw Error("uniform_ expects to return a [from, to) range, but found "
                "from=" +
                std::to_string(a) + " > to=" + std::to_string(b));
  return fillUniform(tensor, a, b, generator, "uniform_");
}

Tensor &normal_(Tensor &tensor, double mean, double std, Generator &generator) {
  if (!(std >= 0.0))
    throw Error("normal_ expects std >= 0.0, but found std " +
                std::to_string(std));
  return fillNormal(tensor, mean, std, generator, "normal_");
}

Tensor &trunc_normal_(Tensor &tensor, double mean, double std, double a,
                      double b, Generator &generator) {
  requireFloatingPoint(tensor, "trunc_normal_");
  if (!(std > 0.0) || !(a < b))
    throw Error("trunc_normal_ expects std > 0 and a < b, but found std " +
                std::to_string(std) + ", a " + std::to_string(a) + ", b " +
                std::to_string(b));
  auto cdf = [](double x) {
    return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0;
  };
  double low = 2.0 * cdf((a - mean) / std) - 1.0;
  double high = 2.0 * cdf((b - mean) / std) - 1.0;
  fill(tensor, [&](int64_t) {
    double u = low + (high - low) * generator.next_double();
    double x = mean + std * std::sqrt(2.0) * erfinv(u);
    return std::min(std::max(x, a), b);
  });
  return tensor;
}

Tensor &constant_(Tensor &tensor, double value) {
  fill(tensor, [&](int64_t) { return value; });
  return tensor;
}

Tensor &zeros_(Tensor &tensor) { return constant_(tensor, 0.0); }

Tensor &ones_(Tensor &tensor) { return constant_(tensor, 1.0); }

Tensor &eye_(Tensor &tensor) {
  if (tensor.dim() != 2)
    throw Error("eye_: only tensors with 2 dimensions are supported, got " +
                tensor.to_string());
  int64_t cols = tensor.size(1);
  fill(tensor, [&](int64_t i) { return i / cols == i % cols ? 1.0 : 0.0; });
  return tensor;
}

Tensor &xavier_uniform_(Tensor &tensor, double gain, Generator &generator) {
  auto [fanIn, fanOut] = calculate_fan_in_and_fan_out(tensor);
  double std = gain * std::sqrt(2.0 / static_cast<double>(fanIn + fanOut));
  double bound = std::sqrt(3.0) * std;
  return fillUniform(tensor, -bound, bound, generator, "xavier_uniform_");
}

Tensor &xavier_normal_(Tensor &tensor, double gain, Generator &generator) {
  auto [fanIn, fanOut] = calculate_fan_in_and_fan_out(tensor);
  double std = gain * std::sqrt(2.0 / static_cast<double>(fanIn + fanOut));
  return fillNormal(tensor, 0.0, std, generator, "xavier_normal_");
}

Tensor &kaiming_uniform_(Tensor &tensor, double a, FanMode mode,
                         Nonlinearity nonlinearity, Generator &generator) {
  if (tensor.numel() == 0)
    return tensor; // PyTorch warns and leaves a zero-element tensor alone
  double fan = static_cast<double>(fanOf(tensor, mode));
  double bound =
      std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(fan);
  return fillUniform(tensor, -bound, bound, generator, "kaiming_uniform_");
}

Tensor &kaiming_normal_(Tensor &tensor, double a, FanMode mode,
                        Nonlinearity nonlinearity, Generator &generator) {
  if (tensor.numel() == 0)
    return tensor;
  double fan = static_cast<double>(fanOf(tensor, mode));
  double std = calculate_gain(nonlinearity, a) / std::sqrt(fan);
  return fillNormal(tensor, 0.0, std, generator, "kaiming_normal_");
}

Tensor &orthogonal_(Tensor &tensor, double gain, Generator &generator) {
  if (tensor.dim() < 2)
    throw Error("orthogonal_: only tensors with 2 or more dimensions are "
                "supported, got " +
                tensor.to_string());
  requireFloatingPoint(tensor, "orthogonal_");
  if (tensor.numel() == 0)
    return tensor;
  int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  // A normal [rows, cols] matrix, drawn row-major as PyTorch's
  // new(rows, cols).normal_(0, 1); work on its tall orientation, stored
  // column by column: `tall` vectors of length `len`.
  std::vector<double> flat(rows * cols);
  NormalDraws draws(generator);
  for (double &x : flat)
    x = draws.next();
  bool transpose = rows < cols;
  int64_t len = transpose ? cols : rows, count = transpose ? rows : cols;
  std::vector<std::vector<double>> q(count, std::vector<double>(len));
  for (int64_t j = 0; j < count; ++j)
    for (int64_t i = 0; i < len; ++i)
      q[j][i] = transpose ? flat[j * cols + i] : flat[i * cols + j];
  // Gram–Schmidt with reorthogonalization: Q with R's diagonal positive,
  // which is torch's q * sign(diag(r)).
  for (int64_t j = 0; j < count; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (int64_t i = 0; i < len; ++i)
          dot += q[k][i] * q[j][i];
        for (int64_t i = 0; i < len; ++i)
          q[j][i] -= dot * q[k][i];
      }
    double norm = 0;
    for (double x : q[j])
      norm += x * x;
    norm = std::sqrt(norm);
    for (double &x : q[j])
      x /= norm;
  }
  fill(tensor, [&](int64_t flatIndex) {
    int64_t r = flatIndex / cols, c = flatIndex % cols;
    return gain * (transpose ? q[r][c] : q[c][r]);
  });
  return tensor;
}

} // namespace init
} // namespace nn
