// RUN: nn-opt %s -nn-fold-batchnorm -split-input-file | FileCheck %s

// conv2d with bias: w' = w * reshape(gamma / sqrt(var + eps)),
// b' = (b - mean) * s + beta, one conv left and no batch_norm.
// CHECK-LABEL: func.func @conv2d_bias
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4x4xf32>, %[[W:.+]]: tensor<8x3x3x3xf32>, %[[B:.+]]: tensor<8xf32>, %[[M:.+]]: tensor<8xf32>, %[[V:.+]]: tensor<8xf32>, %[[G:.+]]: tensor<8xf32>, %[[BETA:.+]]: tensor<8xf32>)
// CHECK-DAG: %[[EPS:.+]] = arith.constant dense<{{.+}}> : tensor<f32>
// CHECK: %[[VE:.+]] = nn.add %[[V]], %[[EPS]]
// CHECK: %[[SD:.+]] = nn.sqrt %[[VE]]
// CHECK: %[[S:.+]] = nn.div %[[G]], %[[SD]]
// CHECK: %[[S4:.+]] = nn.reshape %[[S]] [8, 1, 1, 1] : (tensor<8xf32>) -> tensor<8x1x1x1xf32>
// CHECK: %[[W2:.+]] = nn.mul %[[W]], %[[S4]]
// CHECK: %[[BM:.+]] = nn.sub %[[B]], %[[M]]
// CHECK: %[[BS:.+]] = nn.mul %[[BM]], %[[S]]
// CHECK: %[[B2:.+]] = nn.add %[[BS]], %[[BETA]]
// CHECK: %[[Y:.+]] = nn.conv %[[X]], %[[W2]], %[[B2]] stride [2, 2] padding [1, 1] dilation [1, 1] groups 1
// CHECK-NOT: nn.batch_norm
// CHECK: return %[[Y]]
func.func @conv2d_bias(%x: tensor<1x3x4x4xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>, %g: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<1x8x2x2xf32> {
  %c = nn.conv %x, %w, %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x2x2xf32>
  %y = nn.batch_norm %c, %m, %v weight %g bias %beta eps 1.000000e-05 : (tensor<1x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x2x2xf32>
  return %y : tensor<1x8x2x2xf32>
}

// -----

// Depthwise conv1d without bias, batch norm without affine parameters:
// gamma counts as 1 (a rank-0 constant), b as 0 (-mean), no beta.
// CHECK-LABEL: func.func @conv1d_depthwise_nobias_noaffine
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[S:.+]] = nn.div %[[ONE]], %{{.+}} : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.reshape %[[S]] [4, 1, 1] : (tensor<4xf32>) -> tensor<4x1x1xf32>
// CHECK: %[[NM:.+]] = nn.neg
// CHECK: %[[B2:.+]] = nn.mul %[[NM]], %[[S]]
// CHECK-NOT: nn.add %[[B2]]
// CHECK: nn.conv %{{.+}}, %{{.+}}, %[[B2]] stride [1] padding [1] dilation [1] groups 4
// CHECK-NOT: nn.batch_norm
func.func @conv1d_depthwise_nobias_noaffine(%x: tensor<2x4x9xf32>, %w: tensor<4x1x3xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4x9xf32> {
  %c = nn.conv %x, %w stride [1] padding [1] dilation [1] groups 4 : (tensor<2x4x9xf32>, tensor<4x1x3xf32>) -> tensor<2x4x9xf32>
  %y = nn.batch_norm %c, %m, %v eps 1.000000e-03 : (tensor<2x4x9xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x9xf32>
  return %y : tensor<2x4x9xf32>
}

// -----

// linear [N, C] + BatchNorm1d: the scale is reshaped to [out, 1].
// CHECK-LABEL: func.func @linear
// CHECK: nn.reshape %{{.+}} [3, 1] : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: %[[W2:.+]] = nn.mul %{{.+}}, %{{.+}} : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
// CHECK: nn.linear %{{.+}}, %[[W2]], %{{.+}} : (tensor<2x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: nn.batch_norm
func.func @linear(%x: tensor<2x5xf32>, %w: tensor<3x5xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %g: tensor<3xf32>, %beta: tensor<3xf32>) -> tensor<2x3xf32> {
  %l = nn.linear %x, %w, %b : (tensor<2x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = nn.batch_norm %l, %m, %v weight %g bias %beta eps 1.000000e-05 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// The conv's result has a second user that needs it unnormalized.
// CHECK-LABEL: func.func @no_fold_second_user
// CHECK: %[[C:.+]] = nn.conv
// CHECK: nn.batch_norm %[[C]]
// CHECK: return %{{.+}}, %[[C]]
func.func @no_fold_second_user(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = nn.batch_norm %c, %m, %v eps 1.000000e-05 : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Training form: batch statistics and the running-stat update; never folded
// (the statistics depend on the conv's output, and the stores must happen).
// CHECK-LABEL: func.func @no_fold_training
// CHECK: nn.conv
// CHECK: nn.batch_norm_training
func.func @no_fold_training(%x: tensor<2x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<2x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<2x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<2x2x4x4xf32>
  %y, %rm, %rv = nn.batch_norm_training %c, %m, %v eps 1.000000e-05 momentum 1.000000e-01 : (tensor<2x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>)
  return %y, %rm, %rv : tensor<2x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// A linear whose result is [N, L, C]: BatchNorm1d normalizes dim 1 (L), not
// the linear's output features. A relu between a linear and the batch norm
// is applied before it. Neither folds.
// CHECK-LABEL: func.func @no_fold_linear
// CHECK-COUNT-2: nn.batch_norm
func.func @no_fold_linear(%x: tensor<2x3x5xf32>, %w: tensor<3x5xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %x2: tensor<2x5xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>) {
  %l = nn.linear %x, %w : (tensor<2x3x5xf32>, tensor<3x5xf32>) -> tensor<2x3x3xf32>
  %y = nn.batch_norm %l, %m, %v eps 1.000000e-05 : (tensor<2x3x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x3xf32>
  %l2a = nn.linear %x2, %w : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  %l2 = nn.relu %l2a : tensor<2x3xf32>
  %y2 = nn.batch_norm %l2, %m, %v eps 1.000000e-05 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y, %y2 : tensor<2x3x3xf32>, tensor<2x3xf32>
}

// -----

// Batch norm of something else (an unknown op, an already fused group) stays.
// CHECK-LABEL: func.func @no_fold_other_producers
// CHECK-COUNT-2: nn.batch_norm
func.func @no_fold_other_producers(%x: tensor<2x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = arith.addf %x, %x : tensor<2x3xf32>
  %y = nn.batch_norm %a, %m, %v eps 1.000000e-05 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %g = nn.fused (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%b: tensor<2x3xf32>):
    %0 = nn.relu %b : tensor<2x3xf32>
    nn.yield %0 : tensor<2x3xf32>
  }
  %y2 = nn.batch_norm %g, %m, %v eps 1.000000e-05 : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y, %y2 : tensor<2x3xf32>, tensor<2x3xf32>
}
