// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// sum: a reduction generic into a zero-filled tensor of the kept dims;
// keepdim is an expand_shape afterwards. A float32 sum accumulates in
// float64 and is rounded once.
// CHECK-LABEL: func.func @sum_keepdim
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<3xf64>)
// CHECK: %[[WIDE:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[ZERO]] : tensor<3xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %{{.*}} : f64
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<3xf64>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.expand_shape %[[SUM]] {{\[\[}}0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK-NOT: nn.
func.func @sum_keepdim(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %y = nn.sum %x dims [0, -1] keepdim : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return %y : tensor<1x3x1xf32>
}

// -----

// Except a short sum along the innermost dim alone (a layer norm's rows),
// which the vector lanes split into partial sums: it stays float32.
// CHECK-LABEL: func.func @sum_rows
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x256xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.extf
// CHECK: return
func.func @sum_rows(%x: tensor<4x256xf32>) -> tensor<4xf32> {
  %y = nn.sum %x dims [1] : (tensor<4x256xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// mean: the sum divided by the count in float64, the quotient rounded in
// the same loop.
// CHECK-LABEL: func.func @mean_all
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<7x3xf32>) outs(%{{.*}} : tensor<f64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<f64>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.constant 2.100000e+01 : f64
// CHECK-NEXT: arith.divf
// CHECK-NEXT: arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
func.func @mean_all(%x: tensor<7x3xf32>) -> tensor<f32> {
  %y = nn.mean %x dims [] : (tensor<7x3xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// amax starts from -inf and keeps NaN (maximumf); integer amin from INT_MAX.
// CHECK-LABEL: func.func @amax_amin
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: arith.constant 9223372036854775807 : i64
// CHECK: arith.minsi
func.func @amax_amin(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>) -> (tensor<2xf32>, tensor<3xi64>) {
  %a = nn.amax %x dims [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %b = nn.amin %i dims [0] : (tensor<2x3xi64>) -> tensor<3xi64>
  return %a, %b : tensor<2xf32>, tensor<3xi64>
}

// -----

// var: mean, then the sum of squared deviations, divided by N - correction.
// CHECK-LABEL: func.func @var
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x7xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x7xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.constant 6.000000e+00 : f32
// CHECK: arith.divf
func.func @var(%x: tensor<2x7xf32>) -> tensor<2xf32> {
  %y = nn.var %x dims [1] correction = 1 : (tensor<2x7xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// argmax: one reduction generic with two outputs (value, index); strict
// comparison keeps the first index, NaN wins.
// CHECK-LABEL: func.func @argmax
// CHECK: %{{.*}}:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: linalg.index 1
// CHECK: arith.select
func.func @argmax(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %y = nn.argmax %x dim = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

// Without dim the input is scanned flattened.
// CHECK-LABEL: func.func @argmin_flat
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK: arith.cmpi slt
func.func @argmin_flat(%x: tensor<2x3xi64>) -> tensor<i64> {
  %y = nn.argmin %x : (tensor<2x3xi64>) -> tensor<i64>
  return %y : tensor<i64>
}

// -----

// layer_norm: mean and squared deviations over the trailing dims, invstd,
// then one elementwise generic reading the statistics and weight/bias
// through projected maps.
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #[[ROW]], #[[COL]], #[[COL]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK-NOT: nn.
func.func @layer_norm(%x: tensor<3x17xf32>, %w: tensor<17xf32>, %b: tensor<17xf32>) -> tensor<3x17xf32> {
  %y = nn.layer_norm %x weight %w bias %b normalized_shape [17] eps 1.0e-05 : (tensor<3x17xf32>, tensor<17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  return %y : tensor<3x17xf32>
}

// -----

// group_norm: the input expanded to [N, G, C/G, *], normalized per (N, G),
// collapsed back.
// CHECK-LABEL: func.func @group_norm
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] output_shape [2, 3, 2, 7] : tensor<2x6x7xf32> into tensor<2x3x2x7xf32>
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<2x3x2x7xf32> into tensor<2x6x7xf32>
func.func @group_norm(%x: tensor<2x6x7xf32>, %w: tensor<6xf32>) -> tensor<2x6x7xf32> {
  %y = nn.group_norm %x weight %w groups 3 eps 1.0e-05 : (tensor<2x6x7xf32>, tensor<6xf32>) -> tensor<2x6x7xf32>
  return %y : tensor<2x6x7xf32>
}

// -----

// batch_norm (given statistics): invstd per channel, then one elementwise
// generic indexing the per-channel operands with the channel loop.
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CH]], #[[CH]], #[[CH]], #[[CH]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-NOT: linalg.generic
func.func @batch_norm(%x: tensor<4x3x5xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<4x3x5xf32> {
  %y = nn.batch_norm %x, %m, %v weight %w bias %b eps 1.0e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  return %y : tensor<4x3x5xf32>
}

// -----

// batch_norm_training: batch statistics over all dims but 1, summed in
// float64, the mean rounded to float32 before the deviations from it are
// squared (as PyTorch's CPU kernel); invstd computed in float64 and rounded
// once; the count incremented, the factor 1 / (count + 1) without momentum,
// the unbiased variance (divided by N - 1 = 19, in float64) into
// running_var.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.*}} : tensor<4x3x5xf32>) outs(%{{.*}} : tensor<3xf64>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf64>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[SQUARES:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.*}}, %[[MEAN]] : tensor<4x3x5xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<3xf64>)
// CHECK: arith.subf %{{.*}} : f32
// CHECK: arith.extf
// CHECK: arith.mulf %{{.*}} : f64
// CHECK: linalg.generic {{.*}} ins(%[[SQUARES]] : tensor<3xf64>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf
// CHECK: arith.addi
// CHECK: tensor.extract
// CHECK: arith.sitofp
// CHECK: arith.constant 1.900000e+01 : f64
// CHECK: return
func.func @batch_norm_training(%x: tensor<4x3x5xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %n: tensor<i64>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) {
  %y:4 = nn.batch_norm_training %x, %m, %v num_batches_tracked %n eps 1.0e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  return %y#0, %y#1, %y#2, %y#3 : tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>
}

// -----

// A float sum of everything over 4,096 terms or more sums partials over
// its leading loops first (here 8 x 64 of them), as losses do.
// CHECK-LABEL: func.func @sum_all_large
// CHECK: %[[PARTIAL:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<8x64x56x56xf32>) outs(%{{.*}} : tensor<8x64xf64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[PARTIAL]] : tensor<8x64xf64>) outs(%{{.*}} : tensor<f64>)
// CHECK: arith.truncf
func.func @sum_all_large(%x: tensor<8x64x56x56xf32>) -> tensor<f32> {
  %s = nn.sum %x dims [] : (tensor<8x64x56x56xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Any long float sum does: a batch norm's statistics over N, H and W (2 x
// 112 x 112 terms per channel) sum each row first (the trailing reduced
// dim), then the N x H row sums; the squared deviations likewise.
// CHECK-LABEL: func.func @batch_norm_statistics
// CHECK: %[[ROWS:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x112x112xf32>) outs(%{{.*}} : tensor<2x3x112xf64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[ROWS]] : tensor<2x3x112xf64>) outs(%{{.*}} : tensor<3xf64>)
// CHECK: %[[SQUARES:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x3x112x112xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3x112xf64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[SQUARES]] : tensor<2x3x112xf64>) outs(%{{.*}} : tensor<3xf64>)
func.func @batch_norm_statistics(%x: tensor<2x3x112x112xf32>) -> tensor<3xf32> {
  %v = nn.var %x dims [0, 2, 3] correction = 0 : (tensor<2x3x112x112xf32>) -> tensor<3xf32>
  return %v : tensor<3xf32>
}

// -----

// A short one (below 4,096 terms) stays one pass, then is rounded.
// CHECK-LABEL: func.func @short_sum
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x3x40x40xf32>) outs(%{{.*}} : tensor<3xf64>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf64>) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @short_sum(%x: tensor<2x3x40x40xf32>) -> tensor<3xf32> {
  %s = nn.sum %x dims [0, 2, 3] : (tensor<2x3x40x40xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}
