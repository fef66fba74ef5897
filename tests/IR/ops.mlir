// RUN: nn-opt %s | FileCheck %s
// The textual form round-trips: printing what was parsed parses again to the
// same IR.
// RUN: nn-opt %s | nn-opt | FileCheck %s

// CHECK: nn.parameter @fc.weight : tensor<3x4xf32>
nn.parameter @"fc.weight" : tensor<3x4xf32>
// CHECK: nn.parameter @fc.bias : tensor<3xf32> frozen
nn.parameter @"fc.bias" : tensor<3xf32> frozen
// CHECK: nn.buffer @bn.running_mean : tensor<3xf32> persistent
nn.buffer @"bn.running_mean" : tensor<3xf32> persistent
// CHECK: nn.buffer @mask : tensor<2x3xi1>{{$}}
nn.buffer @mask : tensor<2x3xi1>
// CHECK: nn.buffer @causal : tensor<2x2xi1> = dense<{{\[\[}}true, false], [true, true]]> : tensor<2x2xi1>{{$}}
nn.buffer @causal : tensor<2x2xi1> = dense<[[true, false], [true, true]]> : tensor<2x2xi1>
// CHECK: nn.parameter @scale : tensor<2xf32> frozen = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>{{$}}
nn.parameter @scale : tensor<2xf32> frozen = dense<[1.0, 2.0]> : tensor<2xf32>

// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<2x4xf32>, %m: tensor<5x4x6xf32>, %n: tensor<6x7xf32>, %rng: tensor<2xi64> {nn.rng = 6 : i64}) -> (tensor<2x3xf32>, tensor<5x4x7xf32>) {
  // CHECK: %[[W:.+]] = nn.load @fc.weight : tensor<3x4xf32>
  %w = nn.load @"fc.weight" : tensor<3x4xf32>
  %b = nn.load @"fc.bias" : tensor<3xf32>
  %rm = nn.load @"bn.running_mean" : tensor<3xf32>
  // CHECK: nn.linear %{{.*}}, %[[W]], %{{.*}} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s = nn.add %y, %rm : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s2 = nn.add %s, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.relu %{{.*}} : tensor<2x3xf32>
  %r = nn.relu %s2 : tensor<2x3xf32>
  // CHECK: nn.dropout %{{.*}} rng %{{.*}} {offset = 6 : i64, p = 5.000000e-01 : f64, training} : tensor<2x3xf32>
  %d = nn.dropout %r rng %rng {p = 0.5 : f64, training, offset = 6 : i64} : tensor<2x3xf32>
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<5x4x6xf32>, tensor<6x7xf32>) -> tensor<5x4x7xf32>
  %mm = nn.matmul %m, %n : (tensor<5x4x6xf32>, tensor<6x7xf32>) -> tensor<5x4x7xf32>
  return %d, %mm : tensor<2x3xf32>, tensor<5x4x7xf32>
}

// CHECK-LABEL: func.func @gradient_hook
func.func @gradient_hook(%x: tensor<8x16xf32>, %i: tensor<8xi64>) -> (tensor<8x16xf32>, tensor<8xi64>) {
  // CHECK: %{{.*}}:2 = nn.gradient_hook %{{.*}}, %{{.*}} site 2 : tensor<8x16xf32>, tensor<8xi64>
  %h:2 = nn.gradient_hook %x, %i site 2 : tensor<8x16xf32>, tensor<8xi64>
  return %h#0, %h#1 : tensor<8x16xf32>, tensor<8xi64>
}
