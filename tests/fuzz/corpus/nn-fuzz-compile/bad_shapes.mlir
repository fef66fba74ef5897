func.func @forward(%x: tensor<2x3xf32>, %w: tensor<4x5xf32>) -> tensor<2x4xf32> {
  %y = nn.linear %x, %w : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
