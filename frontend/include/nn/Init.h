//===- Init.h - Parameter initialization (torch.nn.init) --------*- C++ -*-===//
//
// Initializers fill tensors in place from a Generator. The default generator
// is seeded with nn::manual_seed, as torch.manual_seed seeds PyTorch's; the
// same seed gives the same values on every machine (the generator and the
// conversion to floating point are fully specified: SplitMix64 seeding of
// xoshiro256**, 53-bit mantissas).
//
//===----------------------------------------------------------------------===//
#ifndef NN_INIT_H
#define NN_INIT_H

#include "nn/Runtime/Tensor.h"

#include <cstdint>
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

/// (fan_in, fan_out) as torch.nn.init._calculate_fan_in_and_fan_out.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor &tensor);
/// U(a, b), in place; f32 and f64 tensors.
Tensor &uniform_(Tensor &tensor, double a = 0.0, double b = 1.0,
                 Generator &generator = default_generator());
/// kaiming_uniform_ with fan_in mode and leaky_relu gain for slope `a`.
Tensor &kaiming_uniform_(Tensor &tensor, double a = 0.0,
                         Generator &generator = default_generator());

} // namespace init
} // namespace nn

#endif // NN_INIT_H
