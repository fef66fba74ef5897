module {
  nn.parameter @conv.weight : tensor<4x3x3x3xf32>
  func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x3x3xf32> {
    %w = nn.load @conv.weight : tensor<4x3x3x3xf32>
    %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %p = nn.max_pool %c kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
    return %p : tensor<1x4x3x3xf32>
  }
}
