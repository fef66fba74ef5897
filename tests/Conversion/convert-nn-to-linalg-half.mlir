// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s

// f16/bf16 contractions: the named op reads the storage type and accumulates
// into an f32 init (its body widens with arith.extf); the result is rounded
// once with arith.truncf, together with the bias. A relu after it widens,
// computes in f32 and rounds again (exactly: relu of a rounded value is
// representable).

// CHECK-LABEL: func.func @linear_bf16
// CHECK: %[[BIAS:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xbf16>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[MM:.+]] = linalg.matmul_transpose_b ins(%{{.*}}, %{{.*}} : tensor<2x4xbf16>, tensor<3x4xbf16>) outs(%[[BIAS]] : tensor<2x3xf32>)
// CHECK: %[[ROUNDED:.+]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic {{.*}} ins(%[[ROUNDED]] : tensor<2x3xbf16>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[RELU:.+]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %[[RELU]] : f32 to bf16
func.func @linear_bf16(%x: tensor<2x4xbf16>, %w: tensor<3x4xbf16>, %b: tensor<3xbf16>) -> tensor<2x3xbf16> {
  %l = nn.linear %x, %w, %b : (tensor<2x4xbf16>, tensor<3x4xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
  %y = nn.relu %l : tensor<2x3xbf16>
  return %y : tensor<2x3xbf16>
}

// -----

// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf16>, tensor<4x5xf16>) outs(%[[ZERO]] : tensor<3x5xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<3x5xf32>) outs(%{{.*}} : tensor<3x5xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  %y = nn.matmul %a, %b : (tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf16>
  return %y : tensor<3x5xf16>
}

// -----

// Broadcasting batch dims: the generic's body widens both operands itself.
// CHECK-LABEL: func.func @matmul_broadcast_bf16
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x1x3x4xbf16>, tensor<5x4x6xbf16>) outs(%{{.*}} : tensor<2x5x3x6xf32>)
// CHECK: %[[A:.+]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[B:.+]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf %[[A]], %[[B]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @matmul_broadcast_bf16(%a: tensor<2x1x3x4xbf16>, %b: tensor<5x4x6xbf16>) -> tensor<2x5x3x6xbf16> {
  %y = nn.matmul %a, %b : (tensor<2x1x3x4xbf16>, tensor<5x4x6xbf16>) -> tensor<2x5x3x6xbf16>
  return %y : tensor<2x5x3x6xbf16>
}

// -----

// CHECK-LABEL: func.func @conv2d_bf16
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x9x9xbf16>, tensor<4x3x3x3xbf16>) outs(%{{.*}} : tensor<1x4x7x7xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x4x7x7xf32>) outs(%{{.*}} : tensor<1x4x7x7xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @conv2d_bf16(%x: tensor<1x3x7x7xbf16>, %w: tensor<4x3x3x3xbf16>, %b: tensor<4xbf16>) -> tensor<1x4x7x7xbf16> {
  %y = nn.conv %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x7x7xbf16>, tensor<4x3x3x3xbf16>, tensor<4xbf16>) -> tensor<1x4x7x7xbf16>
  return %y : tensor<1x4x7x7xbf16>
}

// -----

// Pointwise ops compute in f32 and round once.
// CHECK-LABEL: func.func @add_f16
// CHECK: linalg.generic
// CHECK: %[[A:.+]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[B:.+]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[SUM:.+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
func.func @add_f16(%a: tensor<3xf16>, %b: tensor<3xf16>) -> tensor<3xf16> {
  %y = nn.add %a, %b : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  return %y : tensor<3xf16>
}

// -----

// f32 stays as it is: no conversions.
// CHECK-LABEL: func.func @linear_f32
// CHECK: linalg.matmul_transpose_b ins(%{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<3x4xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @linear_f32(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = nn.relu %y : tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// softmax: widened once, max/sum/normalization in f32, rounded once.
// CHECK-LABEL: func.func @softmax_bf16
// CHECK: %[[WIDE:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x17xbf16>) outs(%{{.*}} : tensor<3x17xf32>)
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}} ins(%[[WIDE]] : tensor<3x17xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: math.exp %{{.*}} : f32
// CHECK: %[[NORM:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x17xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[NORM]] : tensor<3x17xf32>) outs(%{{.*}} : tensor<3x17xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @softmax_bf16(%x: tensor<3x17xbf16>) -> tensor<3x17xbf16> {
  %y = nn.softmax %x, dim = 1 : tensor<3x17xbf16>
  return %y : tensor<3x17xbf16>
}

// -----

// sum/mean: widened, reduced in f32, rounded once.
// CHECK-LABEL: func.func @sum_bf16
// CHECK: %[[WIDE:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<7x17xbf16>) outs(%{{.*}} : tensor<7x17xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<7x17xf32>) outs(%{{.*}} : tensor<7xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<7xf32>) outs(%{{.*}} : tensor<7xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @sum_bf16(%x: tensor<7x17xbf16>) -> tensor<7xbf16> {
  %y = nn.sum %x dims [1] : (tensor<7x17xbf16>) -> tensor<7xbf16>
  return %y : tensor<7xbf16>
}
