// A training dropout as nn::trace emits it: the generator state is the last
// argument, marked with how many numbers a run draws.
func.func @forward(%x: tensor<16x16xf32>, %rng: tensor<2xi64> {nn.rng = 256 : i64}) -> tensor<16x16xf32> {
  %y = nn.dropout %x rng %rng {p = 0.5 : f64, training} : tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
