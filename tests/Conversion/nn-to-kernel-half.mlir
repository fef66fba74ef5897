// RUN: nn-opt %s -convert-nn-to-kernel -split-input-file | FileCheck %s

// The micro-kernels are f32 only: f16/bf16 contractions are left to
// convert-nn-to-linalg, which accumulates them in f32.

// CHECK-LABEL: func.func @no_kernel_linear_bf16
// CHECK-NOT: nn_kernel
// CHECK: nn.linear
func.func @no_kernel_linear_bf16(%x: tensor<64x784xbf16>, %w: tensor<256x784xbf16>, %b: tensor<256xbf16>) -> tensor<64x256xbf16> {
  %y = nn.linear %x, %w, %b : (tensor<64x784xbf16>, tensor<256x784xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

// -----

// CHECK-LABEL: func.func @no_kernel_matmul_f16
// CHECK-NOT: nn_kernel
// CHECK: nn.matmul
func.func @no_kernel_matmul_f16(%a: tensor<8x16xf16>, %b: tensor<16x4xf16>) -> tensor<8x4xf16> {
  %y = nn.matmul %a, %b : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
  return %y : tensor<8x4xf16>
}

// -----

// CHECK-LABEL: func.func @no_kernel_conv_bf16
// CHECK-NOT: nn_kernel
// CHECK: nn.conv
func.func @no_kernel_conv_bf16(%x: tensor<1x3x7x7xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<1x4x5x5xbf16> {
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xbf16>, tensor<4x3x3x3xbf16>) -> tensor<1x4x5x5xbf16>
  return %y : tensor<1x4x5x5xbf16>
}
