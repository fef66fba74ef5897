module {
  nn.parameter @fc1.weight : tensor<256x784xf32>
  nn.parameter @fc1.bias : tensor<256xf32>
  nn.parameter @fc2.weight : tensor<256x256xf32>
  nn.parameter @fc2.bias : tensor<256xf32>
  nn.parameter @fc3.weight : tensor<10x256xf32>
  nn.parameter @fc3.bias : tensor<10xf32>
  func.func @forward(%arg0: tensor<64x784xf32>) -> tensor<64x10xf32> {
    %0 = nn.load @fc1.weight : tensor<256x784xf32>
    %1 = nn.load @fc1.bias : tensor<256xf32>
    %2 = nn.load @fc2.weight : tensor<256x256xf32>
    %3 = nn.load @fc2.bias : tensor<256xf32>
    %4 = nn.load @fc3.weight : tensor<10x256xf32>
    %5 = nn.load @fc3.bias : tensor<10xf32>
    %6 = nn.linear %arg0, %0, %1 : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
    %7 = nn.relu %6 : tensor<64x256xf32>
    %8 = nn.dropout %7 {p = 1.000000e-01 : f64} : tensor<64x256xf32>
    %9 = nn.linear %8, %2, %3 : (tensor<64x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
    %10 = nn.relu %9 : tensor<64x256xf32>
    %11 = nn.dropout %10 {p = 1.000000e-01 : f64} : tensor<64x256xf32>
    %12 = nn.linear %11, %4, %5 : (tensor<64x256xf32>, tensor<10x256xf32>, tensor<10xf32>) -> tensor<64x10xf32>
    return %12 : tensor<64x10xf32>
  }
}
