// RUN: nn-opt %s -canonicalize -split-input-file | FileCheck %s

// reshape of reshape is one reshape from the original input.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = nn.reshape %[[X]] [4, -1] : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = nn.reshape %x [-1] : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = nn.reshape %0 [4, -1] : (tensor<24xf32>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// A chain that comes back to the input's shape folds away entirely.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: nn.reshape
// CHECK: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.reshape %x [3, 2] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = nn.reshape %0 [2, 3] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A reshape to the input's own shape is its input.
// CHECK-LABEL: func.func @reshape_same_shape
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: nn.reshape
// CHECK: return %[[X]]
func.func @reshape_same_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.reshape %x [2, -1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The inner reshape has another user: it stays, the outer one still reads x.
// CHECK-LABEL: func.func @no_fold_reshape_shared
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[A:.+]] = nn.reshape %[[X]] [6]
// CHECK: %[[B:.+]] = nn.reshape %[[X]] [3, 2]
// CHECK: return %[[A]], %[[B]]
func.func @no_fold_reshape_shared(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %0 = nn.reshape %x [6] : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = nn.reshape %0 [3, 2] : (tensor<6xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<6xf32>, tensor<3x2xf32>
}

// -----

// transpose of the same transpose is the identity.
// CHECK-LABEL: func.func @transpose_twice
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: nn.transpose
// CHECK-NOT: nn.permute
// CHECK: return %[[X]]
func.func @transpose_twice(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.transpose %x 0, 2 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = nn.transpose %0 -1, 0 : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Two different transposes compose into one permute.
// CHECK-LABEL: func.func @transpose_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[P:.+]] = nn.permute %[[X]] [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[P]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = nn.transpose %x 0, 1 : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = nn.transpose %0 1, 2 : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// permute of transpose: one permute; permute then its inverse: nothing.
// CHECK-LABEL: func.func @permute_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[P:.+]] = nn.permute %[[X]] [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[P]], %[[X]]
func.func @permute_chain(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>) {
  %0 = nn.transpose %x 0, 1 : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = nn.permute %0 [2, 0, 1] : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
  %2 = nn.permute %x [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %3 = nn.permute %2 [1, 2, 0] : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %1, %3 : tensor<4x3x2xf32>, tensor<2x3x4xf32>
}

// -----

// Identity permutations, a transpose of one dim with itself, a single-input
// cat, a full slice and a pad by nothing are their input.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: nn.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.permute %x [0, -1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.transpose %x 1, -1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.cat %x dim 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.slice %x dim 1 [0 : 3 : 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.pad %x low [0, 0] high [0, 0] value 1.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A transpose of a non-permutation producer stays.
// CHECK-LABEL: func.func @no_fold_transpose
// CHECK: nn.reshape
// CHECK: nn.transpose
func.func @no_fold_transpose(%x: tensor<6xf32>) -> tensor<3x2xf32> {
  %0 = nn.reshape %x [2, 3] : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = nn.transpose %0 0, 1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Shape ops on constants fold at compile time: a reshaped constant keeps its
// elements in row-major order, a transposed or permuted splat stays a splat.
// CHECK-LABEL: func.func @constant_shapes
// CHECK-DAG: %[[R:.+]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: %[[T:.+]] = arith.constant dense<2.500000e-01> : tensor<4x2x3xf32>
// CHECK-NOT: nn.reshape
// CHECK-NOT: nn.transpose
// CHECK-NOT: nn.permute
// CHECK: return %[[R]], %[[T]], %[[T]]
func.func @constant_shapes() -> (tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %s = arith.constant dense<0.25> : tensor<3x2x4xf32>
  %r = nn.reshape %c [3, 2] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %t = nn.transpose %s 0, 2 : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  %p = nn.permute %s [2, 1, 0] : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %r, %t, %p : tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>
}

// -----

// A non-splat constant is not permuted at compile time (see ShapeOps.cpp).
// CHECK-LABEL: func.func @constant_permute_kept
// CHECK: nn.transpose
func.func @constant_permute_kept() -> tensor<3x2xf32> {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = nn.transpose %c 0, 1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
