// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s

// conv + residual add + relu: the conv's linalg op, then ONE generic that
// reads the conv's result and the residual and applies add and relu per
// element.
// CHECK-LABEL: func.func @conv_residual_relu
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x6x6xf32>, %[[W:.+]]: tensor<8x8x3x3xf32>, %[[R:.+]]: tensor<1x8x6x6xf32>)
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw
// CHECK: %[[Y:.+]] = linalg.generic
// CHECK-SAME: ins(%[[C]], %[[R]] : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[A]], %[[B]]
// CHECK: %[[M:.+]] = arith.maximumf %[[S]]
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @conv_residual_relu(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %res: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %g = nn.fused (%x, %w, %res) : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a: tensor<1x8x6x6xf32>, %k: tensor<8x8x3x3xf32>, %r: tensor<1x8x6x6xf32>):
    %0 = nn.conv %a, %k stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
    %1 = nn.add %0, %r : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %2 = nn.relu %1 : tensor<1x8x6x6xf32>
    nn.yield %2 : tensor<1x8x6x6xf32>
  }
  return %g : tensor<1x8x6x6xf32>
}

// -----

// A chain without contraction is one generic; the per-channel operand is
// read through a broadcasting map.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  %g = nn.fused (%x, %s) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<3xf32>):
    %0 = nn.exp %a : tensor<2x3xf32>
    %1 = nn.mul %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = nn.tanh %1 : tensor<2x3xf32>
    nn.yield %2 : tensor<2x3xf32>
  }
  return %g : tensor<2x3xf32>
}

// -----

// linear + gelu: the linear's own lowering (bias init, matmul), then one
// epilogue generic with erf.
// CHECK-LABEL: func.func @linear_gelu
// CHECK: linalg.matmul_transpose_b
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK-NOT: linalg.generic
func.func @linear_gelu(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %g = nn.fused (%x, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x4xf32>, %c: tensor<3x4xf32>, %d: tensor<3xf32>):
    %0 = nn.linear %a, %c, %d : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = nn.gelu %0 : tensor<2x3xf32>
    nn.yield %1 : tensor<2x3xf32>
  }
  return %g : tensor<2x3xf32>
}
