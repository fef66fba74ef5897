// Ops whose lowerings call libm (erf, tanh, exp, log), in float32 and
// float64: linked into every compiled model.
func.func @forward(%x: tensor<4x8xf32>, %d: tensor<4x8xf64>) -> (tensor<4x8xf32>, tensor<4x8xf64>) {
  %0 = nn.gelu %x : tensor<4x8xf32>
  %1 = nn.tanh %0 : tensor<4x8xf32>
  %2 = nn.log_softmax %1, dim = 1 : tensor<4x8xf32>
  %3 = nn.gelu %d : tensor<4x8xf64>
  %4 = nn.tanh %3 : tensor<4x8xf64>
  %5 = nn.log_softmax %4, dim = 1 : tensor<4x8xf64>
  return %2, %5 : tensor<4x8xf32>, tensor<4x8xf64>
}
