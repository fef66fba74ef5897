// RUN: nn-opt %s -convert-nn-to-kernel -split-input-file | FileCheck %s --implicit-check-not=call

// Depthwise nn.conv (groups = input channels = output channels, weight
// [C, 1, KH, KW]) becomes nn_kernel.conv2d ... depthwise (the call's
// arguments: lower-kernel-ops.mlir). The bias is a row addend, as for a
// convolution of groups 1.

// CHECK-LABEL: func.func @depthwise_bias_relu
// CHECK: nn_kernel.conv2d %arg0, %arg1 addends(%arg2 : tensor<8xf32>) epilogue <add [0, 1, 0], relu> outs(%{{.*}} : tensor<2x8x5x6xf32>) stride [2, 2] padding [1, 1] dilation [1, 1] depthwise : tensor<2x8x9x11xf32>, tensor<8x1x3x3xf32> -> tensor<2x8x5x6xf32>
// CHECK-NOT: nn.conv
// CHECK-NOT: nn.relu
func.func @depthwise_bias_relu(%x: tensor<2x8x9x11xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x5x6xf32> {
  %y = nn.conv %x, %w, %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 8
      : (tensor<2x8x9x11xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<2x8x5x6xf32>
  %z = nn.relu %y : tensor<2x8x5x6xf32>
  return %z : tensor<2x8x5x6xf32>
}

// -----

// Leading an nn.fused group, with a residual add and relu6 in the store
// (image stride C*OH*OW = 256, row stride OH*OW = 64, column stride 1);
// dilation 2, 5x5, no bias.
// CHECK-LABEL: func.func @fused_depthwise_residual_relu6
// CHECK: nn_kernel.conv2d %arg0, %arg1 addends(%arg2 : tensor<2x4x8x8xf32>) epilogue <add [256, 64, 1], clamp(0.000000e+00, 6.000000e+00)> outs(%{{.*}} : tensor<2x4x8x8xf32>) stride [1, 1] padding [4, 4] dilation [2, 2] depthwise
// CHECK-NOT: nn.fused
// CHECK-NOT: nn.add
func.func @fused_depthwise_residual_relu6(%x: tensor<2x4x8x8xf32>, %w: tensor<4x1x5x5xf32>, %r: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = nn.fused (%x, %w, %r) : (tensor<2x4x8x8xf32>, tensor<4x1x5x5xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  ^bb0(%a: tensor<2x4x8x8xf32>, %k: tensor<4x1x5x5xf32>, %s: tensor<2x4x8x8xf32>):
    %1 = nn.conv %a, %k stride [1, 1] padding [4, 4] dilation [2, 2] groups 4
        : (tensor<2x4x8x8xf32>, tensor<4x1x5x5xf32>) -> tensor<2x4x8x8xf32>
    %2 = nn.add %1, %s : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %3 = nn.clamp %2 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x4x8x8xf32>
    nn.yield %3 : tensor<2x4x8x8xf32>
  }
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Not depthwise, left to convert-nn-to-linalg: a channel multiplier of 2
// (groups = C but O = 2C), two groups of two channels, a depthwise f64
// convolution.
// CHECK-LABEL: func.func @no_kernel_grouped
// CHECK: nn.conv {{.*}} groups 3
// CHECK: nn.conv {{.*}} groups 2
// CHECK: nn.conv {{.*}} groups 3
// CHECK-NOT: nn_kernel
func.func @no_kernel_grouped(%x: tensor<1x3x6x6xf32>, %m: tensor<6x1x3x3xf32>, %y: tensor<1x4x6x6xf32>, %g: tensor<4x2x3x3xf32>, %d: tensor<1x3x6x6xf64>, %dw: tensor<3x1x3x3xf64>) -> (tensor<1x6x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x3x4x4xf64>) {
  %0 = nn.conv %x, %m stride [1, 1] padding [0, 0] dilation [1, 1] groups 3
      : (tensor<1x3x6x6xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x4xf32>
  %1 = nn.conv %y, %g stride [1, 1] padding [0, 0] dilation [1, 1] groups 2
      : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %2 = nn.conv %d, %dw stride [1, 1] padding [0, 0] dilation [1, 1] groups 3
      : (tensor<1x3x6x6xf64>, tensor<3x1x3x3xf64>) -> tensor<1x3x4x4xf64>
  return %0, %1, %2 : tensor<1x6x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x3x4x4xf64>
}
