// The nn-optimize pipeline: clean-up, fusion, clean-up.
// RUN: nn-opt %s -nn-optimize | FileCheck %s
// Fusion can be switched off.
// RUN: nn-opt %s -nn-optimize=fuse=false | FileCheck %s --check-prefix=NOFUSE

nn.parameter @fc1.weight : tensor<8x4xf32>
nn.parameter @fc1.bias : tensor<8xf32>
nn.parameter @fc2.weight : tensor<2x8xf32>
nn.parameter @unused : tensor<5xf32>

// CHECK-LABEL: func.func @forward
// CHECK-NOT: nn.dropout
// CHECK: nn.linear %{{.*}}, %{{.*}}, %{{.*}} activation<relu>
// CHECK-NOT: nn.relu
// CHECK: nn.linear
// CHECK-NOT: nn.load @unused
// NOFUSE-LABEL: func.func @forward
// NOFUSE: nn.relu
func.func @forward(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w1 = nn.load @fc1.weight : tensor<8x4xf32>
  %b1 = nn.load @fc1.bias : tensor<8xf32>
  %w2 = nn.load @fc2.weight : tensor<2x8xf32>
  %u = nn.load @unused : tensor<5xf32>
  %h = nn.linear %x, %w1, %b1 : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %r = nn.relu %h : tensor<3x8xf32>
  %d = nn.dropout %r {p = 0.1 : f64} : tensor<3x8xf32>
  %y = nn.linear %d, %w2 : (tensor<3x8xf32>, tensor<2x8xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
