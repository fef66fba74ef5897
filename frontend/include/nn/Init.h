//===- Init.h - Parameter initialization (torch.nn.init) --------*- C++ -*-===//
//
// Initializers fill tensors in place from a Generator, with torch.nn.init's
// names, defaults and formulas. The default generator is seeded with
// nn::manual_seed, as torch.manual_seed seeds PyTorch's; it is the one piece
// of global state nn has, and every initializer also takes a Generator to
// use instead.
//
// The same seed gives the same values on every run and machine: the
// generator (xoshiro256** seeded through SplitMix64) and its conversion to
// doubles (53-bit mantissas) are fully specified, uniform values are
// a + (b - a) * u, and normal values come from Box–Muller on pairs of
// draws (u1, u2): sqrt(-2 ln(1 - u1)) * {cos, sin}(2π u2), the cosine for
// element 2k and the sine for element 2k + 1. Only the last step relies on
// the C library's log/cos/sin, which agree to the float32 result on the
// platforms nn targets. (The values are not PyTorch's: its generator is a
// different one. Load PyTorch's weights to get its values.)
//
// Values are computed in double and stored in the tensor's dtype (float16 and
// bfloat16 round through float32, as Tensor::to does). Random initializers
// need a floating-point tensor; constant_, zeros_, ones_ and eye_ fill any.
//
//===----------------------------------------------------------------------===//
#ifndef NN_INIT_H
#define NN_INIT_H

#include "nn/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace nn {

class Generator {
public:
  explicit Generator(uint64_t seed = 0) { manual_seed(seed); }
  void manual_seed(uint64_t seed);
  uint64_t next_u64();
  /// Uniform in [0, 1).
  double next_double() { return (next_u64() >> 11) * 0x1.0p-53; }

private:
  uint64_t state_[4];
};

/// The generator initializers use when none is given.
Generator &default_generator();
void manual_seed(uint64_t seed);

namespace init {

/// torch.nn.init's `mode` argument.
enum class FanMode { fan_in, fan_out };

/// torch.nn.init's `nonlinearity` argument.
enum class Nonlinearity {
  linear,
  conv1d,
  conv2d,
  conv3d,
  conv_transpose1d,
  conv_transpose2d,
  conv_transpose3d,
  sigmoid,
  tanh,
  relu,
  leaky_relu,
  selu,
};

/// The recommended gain for `nonlinearity`, as torch.nn.init.calculate_gain:
/// 1 for linear, conv* and sigmoid; 5/3 for tanh; √2 for relu;
/// √(2 / (1 + slope²)) for leaky_relu (`param` is the negative slope, 0.01
/// when absent); 3/4 for selu.
double calculate_gain(Nonlinearity nonlinearity,
                      std::optional<double> param = std::nullopt);

/// (fan_in, fan_out) as torch.nn.init._calculate_fan_in_and_fan_out: for a
/// [out, in, k...] tensor, in·∏k and out·∏k. Needs at least 2 dimensions.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor &tensor);

/// U(a, b).
Tensor &uniform_(Tensor &tensor, double a = 0.0, double b = 1.0,
                 Generator &generator = default_generator());
/// N(mean, std²).
Tensor &normal_(Tensor &tensor, double mean = 0.0, double std = 1.0,
                Generator &generator = default_generator());
/// N(mean, std²) truncated to [a, b], by PyTorch's method: uniform in
/// [2Φ(α) - 1, 2Φ(β) - 1], erfinv, scale, shift, clamp.
Tensor &trunc_normal_(Tensor &tensor, double mean = 0.0, double std = 1.0,
                      double a = -2.0, double b = 2.0,
                      Generator &generator = default_generator());
/// Every element `value`.
Tensor &constant_(Tensor &tensor, double value);
Tensor &zeros_(Tensor &tensor);
Tensor &ones_(Tensor &tensor);
/// The identity matrix (ones on the diagonal of a 2-D tensor).
Tensor &eye_(Tensor &tensor);
/// U(-a, a) with a = gain·√(6 / (fan_in + fan_out)) (Glorot & Bengio).
Tensor &xavier_uniform_(Tensor &tensor, double gain = 1.0,
                        Generator &generator = default_generator());
/// N(0, std²) with std = gain·√(2 / (fan_in + fan_out)).
Tensor &xavier_normal_(Tensor &tensor, double gain = 1.0,
                       Generator &generator = default_generator());
/// U(-bound, bound) with bound = gain·√(3 / fan) (He et al.), gain =
/// calculate_gain(nonlinearity, a), fan by `mode`. A tensor with no
/// elements is left alone (PyTorch warns and does the same).
Tensor &kaiming_uniform_(Tensor &tensor, double a = 0.0,
                         FanMode mode = FanMode::fan_in,
                         Nonlinearity nonlinearity = Nonlinearity::leaky_relu,
                         Generator &generator = default_generator());
/// N(0, std²) with std = gain / √fan.
Tensor &kaiming_normal_(Tensor &tensor, double a = 0.0,
                        FanMode mode = FanMode::fan_in,
                        Nonlinearity nonlinearity = Nonlinearity::leaky_relu,
                        Generator &generator = default_generator());
/// A (semi-)orthogonal matrix times `gain` (Saxe et al.): the tensor seen as
/// [size(0), numel / size(0)] has orthonormal rows or columns, whichever
/// are fewer. Q of the QR decomposition of a normal matrix, with R's
/// diagonal made positive, as torch.nn.init.orthogonal_.
Tensor &orthogonal_(Tensor &tensor, double gain = 1.0,
                    Generator &generator = default_generator());

} // namespace init
} // namespace nn

#endif // NN_INIT_H
