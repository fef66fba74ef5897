// A linear with in_features = 0 (PyTorch: the bias, broadcast).
nn.parameter @"fc.weight" : tensor<3x0xf32>
nn.parameter @"fc.bias" : tensor<3xf32>
func.func @forward(%x: tensor<2x0xf32>) -> tensor<2x3xf32> {
  %w = nn.load @"fc.weight" : tensor<3x0xf32>
  %b = nn.load @"fc.bias" : tensor<3xf32>
  %y = nn.linear %x, %w, %b : (tensor<2x0xf32>, tensor<3x0xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
