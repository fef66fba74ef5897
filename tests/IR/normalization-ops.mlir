// RUN: nn-opt %s | FileCheck %s
// The textual form round-trips: printing what was parsed parses again to the
// same IR.
// RUN: nn-opt %s | nn-opt | FileCheck %s

nn.buffer @"bn.running_mean" : tensor<3xf32> persistent
nn.buffer @"bn.num_batches_tracked" : tensor<i64> persistent
nn.parameter @"bn.weight" : tensor<3xf32>

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<3x7xi64>) {
  // CHECK: nn.sum %{{.*}} dims [0, -1] keepdim : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %0 = nn.sum %x dims [0, -1] keepdim : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: nn.sum %{{.*}} dims [] : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = nn.sum %x dims [] : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: nn.sum %{{.*}} dims [1] : (tensor<3x7xi64>) -> tensor<3xi64>
  %2 = nn.sum %i dims [1] : (tensor<3x7xi64>) -> tensor<3xi64>
  // CHECK: nn.mean %{{.*}} dims [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %3 = nn.mean %x dims [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: nn.amax %{{.*}} dims [2] : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %4 = nn.amax %x dims [2] : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  // CHECK: nn.amin %{{.*}} dims [0] keepdim : (tensor<3x7xi64>) -> tensor<1x7xi64>
  %5 = nn.amin %i dims [0] keepdim : (tensor<3x7xi64>) -> tensor<1x7xi64>
  // CHECK: nn.var %{{.*}} dims [1] correction = 1 keepdim : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %6 = nn.var %x dims [1] correction = 1 keepdim : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: nn.argmax %{{.*}} dim = 1 : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  %7 = nn.argmax %x dim = 1 : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  // CHECK: nn.argmax %{{.*}} : (tensor<2x3x4xf32>) -> tensor<i64>
  %8 = nn.argmax %x : (tensor<2x3x4xf32>) -> tensor<i64>
  // CHECK: nn.argmin %{{.*}} dim = -1 keepdim : (tensor<3x7xi64>) -> tensor<3x1xi64>
  %9 = nn.argmin %i dim = -1 keepdim : (tensor<3x7xi64>) -> tensor<3x1xi64>
  return
}

// CHECK-LABEL: func.func @normalizations
func.func @normalizations(%x: tensor<4x3x5xf32>, %c: tensor<3xf32>, %l: tensor<5xf32>, %n: tensor<i64>) {
  // CHECK: nn.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} normalized_shape [5] eps 1.000000e-05 : (tensor<4x3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<4x3x5xf32>
  %0 = nn.layer_norm %x weight %l bias %l normalized_shape [5] eps 1.0e-05 : (tensor<4x3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<4x3x5xf32>
  // CHECK: nn.layer_norm %{{.*}} normalized_shape [3, 5] eps 1.000000e-03 : (tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %1 = nn.layer_norm %x normalized_shape [3, 5] eps 1.0e-03 : (tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  // CHECK: nn.group_norm %{{.*}} weight %{{.*}} bias %{{.*}} groups 3 eps 1.000000e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  %2 = nn.group_norm %x weight %c bias %c groups 3 eps 1.0e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  // CHECK: nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}} weight %{{.*}} bias %{{.*}} eps 1.000000e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  %3 = nn.batch_norm %x, %c, %c weight %c bias %c eps 1.0e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  // CHECK: nn.batch_norm_training %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05 momentum 1.000000e-01 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  %4:3 = nn.batch_norm_training %x, %c, %c eps 1.0e-05 momentum 0.1 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: nn.batch_norm_training %{{.*}}, %{{.*}}, %{{.*}} weight %{{.*}} num_batches_tracked %{{.*}} eps 1.000000e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  %5:4 = nn.batch_norm_training %x, %c, %c weight %c num_batches_tracked %n eps 1.0e-05 : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
  // CHECK: nn.store @bn.running_mean, %{{.*}} : tensor<3xf32>
  nn.store @"bn.running_mean", %5#1 : tensor<3xf32>
  // CHECK: nn.store @bn.num_batches_tracked, %{{.*}} : tensor<i64>
  nn.store @"bn.num_batches_tracked", %5#3 : tensor<i64>
  // An optimizer update writes a parameter.
  // CHECK: nn.store @bn.weight, %{{.*}} : tensor<3xf32>
  nn.store @"bn.weight", %c : tensor<3xf32>
  return
}
