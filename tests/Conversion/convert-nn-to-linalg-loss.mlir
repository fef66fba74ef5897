// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s

// mse_loss, mean: one reduction generic over every loop into a rank-0
// zero, then the division by the element count.
// CHECK-LABEL: func.func @mse_mean
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<3x5xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.constant 1.500000e+01 : f32
// CHECK: arith.divf
// CHECK-NOT: nn.
func.func @mse_mean(%x: tensor<3x5xf32>, %y: tensor<3x5xf32>) -> tensor<f32> {
  %l = nn.mse_loss %x, %y reduction <mean> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// l1_loss, none: one parallel generic.
// CHECK-LABEL: func.func @l1_none
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<3x5xf32>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: arith.subf
// CHECK: math.absf
// CHECK-NOT: arith.divf
func.func @l1_none(%x: tensor<3x5xf32>, %y: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %l = nn.l1_loss %x, %y reduction <none> : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %l : tensor<3x5xf32>
}

// -----

// nll_loss, mean with weights: one generic over the target's loops
// accumulating the loss and the weight, reading input[n, t, d] and
// weight[t] with tensor.extract; ignored targets select 0; then loss /
// weight.
// CHECK-LABEL: func.func @nll_weight_mean
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[T:.+]]: tensor<2x4xi64>, %[[W:.+]]: tensor<3xf32>)
// CHECK: %[[SUMS:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[T]] : tensor<2x4xi64>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: %[[N:.+]] = linalg.index 0
// CHECK: %[[D:.+]] = linalg.index 1
// CHECK: tensor.extract %[[X]][%[[N]], %{{.*}}, %[[D]]]
// CHECK: tensor.extract %[[W]]
// CHECK: arith.select
// CHECK: linalg.generic {{.*}} ins(%[[SUMS]]#0, %[[SUMS]]#1 : tensor<f32>, tensor<f32>)
// CHECK: arith.divf
// CHECK-NOT: scf.for
func.func @nll_weight_mean(%x: tensor<2x3x4xf32>, %t: tensor<2x4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %l = nn.nll_loss %x, %t weight %w reduction <mean> ignore_index -100
      : (tensor<2x3x4xf32>, tensor<2x4xi64>, tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// nll_loss, none: a parallel generic writing the per-element loss.
// CHECK-LABEL: func.func @nll_none
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<4xi64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.divf
func.func @nll_none(%x: tensor<4x5xf32>, %t: tensor<4xi64>) -> tensor<4xf32> {
  %l = nn.nll_loss %x, %t reduction <none> ignore_index -100
      : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %l : tensor<4xf32>
}

// -----

// From 65,536 terms on, a loss keeps a partial sum per iteration of its
// leading loops (at most 4,096 of them: here 8 x 64) and sums those after,
// as a float32 accumulator over all 1.6M terms would drift.
// CHECK-LABEL: func.func @mse_mean_large
// CHECK: %[[PARTIAL:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[PARTIAL]] : tensor<8x64xf32>) outs(%{{.*}} : tensor<f32>)
func.func @mse_mean_large(%x: tensor<8x64x56x56xf32>, %y: tensor<8x64x56x56xf32>) -> tensor<f32> {
  %l = nn.mse_loss %x, %y reduction <mean> : (tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
