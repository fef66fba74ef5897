module {
  nn.parameter @fc.weight : tensor<3x4xf32>
  nn.parameter @fc.bias : tensor<3xf32>
  func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = nn.load @fc.weight : tensor<3x4xf32>
    %b = nn.load @fc.bias : tensor<3xf32>
    %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = nn.relu %y : tensor<2x3xf32>
    %s = nn.softmax %r, dim = 1 : tensor<2x3xf32>
    return %s : tensor<2x3xf32>
  }
}
