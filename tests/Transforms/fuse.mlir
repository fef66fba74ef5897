// RUN: nn-opt %s -nn-fuse -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME: (%[[X:.+]]: tensor<2x4xf32>, %[[W:.+]]: tensor<3x4xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[Y:.+]] = nn.linear %[[X]], %[[W]], %[[B]] activation<relu>
// CHECK-NOT: nn.relu
// CHECK: return %[[Y]]
func.func @linear_relu(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = nn.relu %y : tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// Without bias, and on a batched input.
// CHECK-LABEL: func.func @linear_nobias_relu
// CHECK: nn.linear %{{.*}}, %{{.*}} activation<relu> : (tensor<5x2x4xf32>, tensor<3x4xf32>) -> tensor<5x2x3xf32>
// CHECK-NOT: nn.relu
func.func @linear_nobias_relu(%x: tensor<5x2x4xf32>, %w: tensor<3x4xf32>) -> tensor<5x2x3xf32> {
  %y = nn.linear %x, %w : (tensor<5x2x4xf32>, tensor<3x4xf32>) -> tensor<5x2x3xf32>
  %z = nn.relu %y : tensor<5x2x3xf32>
  return %z : tensor<5x2x3xf32>
}

// -----

// A chain: every linear→relu pair fuses.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-2: activation<relu>
// CHECK-NOT: nn.relu
func.func @chain(%x: tensor<2x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %a = nn.linear %x, %w1 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %b = nn.relu %a : tensor<2x4xf32>
  %c = nn.linear %b, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %d = nn.relu %c : tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// The linear's result has a second user, which needs it before the relu.
// CHECK-LABEL: func.func @no_fuse_second_user
// CHECK: %[[Y:.+]] = nn.linear
// CHECK-NOT: activation<relu>
// CHECK: %[[Z:.+]] = nn.relu %[[Y]]
// CHECK: return %[[Z]], %[[Y]]
func.func @no_fuse_second_user(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %z = nn.relu %y : tensor<2x3xf32>
  return %z, %y : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// relu of something that is not a linear stays.
// CHECK-LABEL: func.func @no_fuse_add
// CHECK: nn.add
// CHECK: nn.relu
func.func @no_fuse_add(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %s = nn.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = nn.relu %s : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// An already fused linear takes no second activation: relu∘relu stays a relu
// on top (a canonicalization could remove it; fusion must not stack).
// CHECK-LABEL: func.func @no_fuse_already_fused
// CHECK: nn.linear {{.*}} activation<relu>
// CHECK: nn.relu
func.func @no_fuse_already_fused(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %y = nn.linear %x, %w activation<relu> : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %z = nn.relu %y : tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// Ops the pass does not know are left alone.
// CHECK-LABEL: func.func @unknown_ops
// CHECK: arith.addf
// CHECK: nn.relu
func.func @unknown_ops(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = arith.addf %x, %x : tensor<3xf32>
  %r = nn.relu %s : tensor<3xf32>
  return %r : tensor<3xf32>
}
