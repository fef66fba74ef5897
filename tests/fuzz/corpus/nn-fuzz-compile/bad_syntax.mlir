func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = nn.relu %x tensor<2xf32>
  return %y : tensor<2xf32>
}
