// RUN: nn-opt %s -convert-nn-to-kernel -split-input-file | FileCheck %s

// A 2-D f32 nn.max_pool becomes nn_kernel.max_pool2d (the call's arguments:
// lower-kernel-ops.mlir), its padding [top, left, bottom, right]: ResNet's
// stem pooling, 3x3 stride 2 padding 1 on 112x112, ends its last window at
// row 2 * 55 + 3 = 113 = 112 + 1 + 0, so its high padding is 0.

// CHECK-LABEL: func.func @resnet_stem
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x4x56x56xf32>
// CHECK: nn_kernel.max_pool2d %arg0 outs(%[[INIT]] : tensor<2x4x56x56xf32>) kernel [3, 3] stride [2, 2] padding [1, 1, 0, 0] dilation [1, 1] : tensor<2x4x112x112xf32> -> tensor<2x4x56x56xf32>
// CHECK-NOT: nn.max_pool
func.func @resnet_stem(%x: tensor<2x4x112x112xf32>) -> tensor<2x4x56x56xf32> {
  %y = nn.max_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1]
      : (tensor<2x4x112x112xf32>) -> tensor<2x4x56x56xf32>
  return %y : tensor<2x4x56x56xf32>
}

// -----

// Ceil mode: 3 windows of 2 with stride 2 over 5 columns end at 6, one past
// the input: high padding 1. The rows' one window of 3 ends with the input.
// CHECK-LABEL: func.func @ceil_mode
// CHECK: nn_kernel.max_pool2d %arg0 outs(%{{.*}} : tensor<1x3x1x3xf32>) kernel [3, 2] stride [2, 2] padding [0, 0, 0, 1] dilation [1, 1] : tensor<1x3x3x5xf32> -> tensor<1x3x1x3xf32>
func.func @ceil_mode(%x: tensor<1x3x3x5xf32>) -> tensor<1x3x1x3xf32> {
  %y = nn.max_pool %x kernel [3, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode
      : (tensor<1x3x3x5xf32>) -> tensor<1x3x1x3xf32>
  return %y : tensor<1x3x1x3xf32>
}

// -----

// Dilation 2: a 3x3 window reaches 5 cells; the last of 3 windows ends at
// 2 + 5 = 7, one past the padded input's 5 + 1.
// CHECK-LABEL: func.func @dilated
// CHECK: nn_kernel.max_pool2d %arg0 outs(%{{.*}} : tensor<1x2x3x3xf32>) kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [2, 2]
func.func @dilated(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = nn.max_pool %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [2, 2]
      : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// What the kernel does not compute stays for convert-nn-to-linalg: 1-D and
// 3-D pooling, and f16.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: nn_kernel
// CHECK: nn.max_pool %arg0 kernel [2] stride [2]
// CHECK: nn.max_pool %arg1 kernel [2, 2, 2]
// CHECK: nn.max_pool %arg2 kernel [2, 2]
func.func @left_alone(%a: tensor<1x2x8xf32>, %b: tensor<1x2x4x4x4xf32>, %c: tensor<1x2x4x4xf16>)
    -> (tensor<1x2x4xf32>, tensor<1x2x2x2x2xf32>, tensor<1x2x2x2xf16>) {
  %0 = nn.max_pool %a kernel [2] stride [2] padding [0] dilation [1]
      : (tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
  %1 = nn.max_pool %b kernel [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] dilation [1, 1, 1]
      : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  %2 = nn.max_pool %c kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1]
      : (tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16>
  return %0, %1, %2 : tensor<1x2x4xf32>, tensor<1x2x2x2x2xf32>, tensor<1x2x2x2xf16>
}
