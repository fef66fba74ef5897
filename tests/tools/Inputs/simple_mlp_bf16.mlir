module {
  nn.parameter @fc1.weight : tensor<256x784xbf16>
  nn.parameter @fc1.bias : tensor<256xbf16>
  nn.parameter @fc2.weight : tensor<256x256xbf16>
  nn.parameter @fc2.bias : tensor<256xbf16>
  nn.parameter @fc3.weight : tensor<10x256xbf16>
  nn.parameter @fc3.bias : tensor<10xbf16>
  func.func @forward(%arg0: tensor<64x784xbf16>) -> tensor<64x10xbf16> {
    %0 = nn.load @fc1.weight : tensor<256x784xbf16>
    %1 = nn.load @fc1.bias : tensor<256xbf16>
    %2 = nn.load @fc2.weight : tensor<256x256xbf16>
    %3 = nn.load @fc2.bias : tensor<256xbf16>
    %4 = nn.load @fc3.weight : tensor<10x256xbf16>
    %5 = nn.load @fc3.bias : tensor<10xbf16>
    %6 = nn.linear %arg0, %0, %1 : (tensor<64x784xbf16>, tensor<256x784xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
    %7 = nn.relu %6 : tensor<64x256xbf16>
    %8 = nn.dropout %7 {p = 1.000000e-01 : f64} : tensor<64x256xbf16>
    %9 = nn.linear %8, %2, %3 : (tensor<64x256xbf16>, tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
    %10 = nn.relu %9 : tensor<64x256xbf16>
    %11 = nn.dropout %10 {p = 1.000000e-01 : f64} : tensor<64x256xbf16>
    %12 = nn.linear %11, %4, %5 : (tensor<64x256xbf16>, tensor<10x256xbf16>, tensor<10xbf16>) -> tensor<64x10xbf16>
    return %12 : tensor<64x10xbf16>
  }
}
