// RUN: nn-opt %s -nn-lower-to-kernel-calls -cse -split-input-file | FileCheck %s

// Depthwise nn.conv (groups = input channels = output channels, weight
// [C, 1, KH, KW]) becomes nn_rt_conv2d_depthwise_nchw: N, C, H, W, input,
// KH, KW, weight, strides, pads {top, left}, dilations, OH, OW, output,
// epilogue. The bias is a row addend, as for nn_rt_conv2d_nchw.

// CHECK-LABEL: func.func @depthwise_bias_relu
// CHECK: bufferization.to_memref %arg2 read_only : memref<8xf32>
// CHECK: llvm.insertvalue %c1_i64, %{{.*}}[0, 0, 2]
// CHECK-NEXT: llvm.insertvalue %c0_i64, %{{.*}}[0, 0, 3]
// CHECK: llvm.insertvalue %c1_i32, %{{.*}}[1]
// CHECK: call @nn_rt_conv2d_depthwise_nchw(%c2_i64, %c8_i64, %c9_i64, %c11_i64, %{{.*}}, %c3_i64, %c3_i64, %{{.*}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c6_i64, %{{.*}}, %{{.*}})
// CHECK-NOT: nn.conv
// CHECK-NOT: nn.relu
// CHECK: func.func private @nn_rt_conv2d_depthwise_nchw(i64, i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr)
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
// CHECK: bufferization.to_memref %arg2 read_only : memref<2x4x8x8xf32>
// CHECK: llvm.insertvalue %c256_i64, %{{.*}}[0, 0, 1]
// CHECK: llvm.insertvalue %c64_i64, %{{.*}}[0, 0, 2]
// CHECK-NEXT: llvm.insertvalue %c1_i64, %{{.*}}[0, 0, 3]
// CHECK: llvm.insertvalue %c2_i32, %{{.*}}[1]
// CHECK: call @nn_rt_conv2d_depthwise_nchw(%c2_i64, %c4_i64, %c8_i64, %c8_i64, %{{.*}}, %c5_i64, %c5_i64, %{{.*}}, %c1_i64, %c1_i64, %c4_i64, %c4_i64, %c2_i64, %c2_i64, %c8_i64, %c8_i64,
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
// CHECK-NOT: call
func.func @no_kernel_grouped(%x: tensor<1x3x6x6xf32>, %m: tensor<6x1x3x3xf32>, %y: tensor<1x4x6x6xf32>, %g: tensor<4x2x3x3xf32>, %d: tensor<1x3x6x6xf64>, %dw: tensor<3x1x3x3xf64>) -> (tensor<1x6x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x3x4x4xf64>) {
  %0 = nn.conv %x, %m stride [1, 1] padding [0, 0] dilation [1, 1] groups 3
      : (tensor<1x3x6x6xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x4xf32>
  %1 = nn.conv %y, %g stride [1, 1] padding [0, 0] dilation [1, 1] groups 2
      : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %2 = nn.conv %d, %dw stride [1, 1] padding [0, 0] dilation [1, 1] groups 3
      : (tensor<1x3x6x6xf64>, tensor<3x1x3x3xf64>) -> tensor<1x3x4x4xf64>
  return %0, %1, %2 : tensor<1x6x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x3x4x4xf64>
}
