// Zero-size tensors, as PyTorch computes them: a linear over zero features
// is its bias, a matmul over an empty inner dimension zeros, an op on an
// empty tensor an empty tensor.
nn.parameter @"fc.weight" : tensor<3x0xf32>
nn.parameter @"fc.bias" : tensor<3xf32>
func.func @forward(%x: tensor<2x0xf32>, %a: tensor<0x3xf32>, %e: tensor<0x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<0x4xf32>) {
  %w = nn.load @"fc.weight" : tensor<3x0xf32>
  %b = nn.load @"fc.bias" : tensor<3xf32>
  %y = nn.linear %x, %w, %b : (tensor<2x0xf32>, tensor<3x0xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %m = nn.matmul %x, %a : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  %r = nn.relu %e : tensor<0x4xf32>
  return %y, %m, %r : tensor<2x3xf32>, tensor<2x3xf32>, tensor<0x4xf32>
}
