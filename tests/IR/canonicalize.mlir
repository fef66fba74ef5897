// RUN: nn-opt %s -canonicalize -split-input-file | FileCheck %s

// Dropout in evaluation is the identity and folds away.
// CHECK-LABEL: func.func @dropout_eval
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: nn.dropout
// CHECK: return %[[X]]
func.func @dropout_eval(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.dropout %x {p = 0.5 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// p = 0 is the identity even in training.
// CHECK-LABEL: func.func @dropout_p0
// CHECK-NOT: nn.dropout
func.func @dropout_p0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.dropout %x {p = 0.0 : f64, training} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Training dropout draws random numbers: never folded.
// CHECK-LABEL: func.func @dropout_train
// CHECK-COUNT-2: nn.dropout
func.func @dropout_train(%x: tensor<4xf32>, %rng: tensor<2xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = nn.dropout %x rng %rng {p = 0.5 : f64, training} : tensor<4xf32>
  %z = nn.dropout %x rng %rng {p = 0.5 : f64, training, offset = 4 : i64} : tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}

// -----

// x + 0 → x.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: nn.add
// CHECK: return %[[X]]
func.func @add_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %y = nn.add %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A zero that broadcasts x to a larger shape is not the identity.
// CHECK-LABEL: func.func @add_zero_broadcast
// CHECK: nn.add
func.func @add_zero_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %y = nn.add %x, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Unused loads are dead.
nn.parameter @w : tensor<3xf32>
// CHECK-LABEL: func.func @dead_load
// CHECK-NOT: nn.load
func.func @dead_load(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = nn.load @w : tensor<3xf32>
  return %x : tensor<3xf32>
}

// -----

// x * 1 → x, whichever side the one is on.
// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: nn.mul
// CHECK: return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %a = nn.mul %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %b = nn.mul %one, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A one that broadcasts x up, or a factor that is not one everywhere, is not
// the identity.
// CHECK-LABEL: func.func @mul_not_identity
// CHECK-COUNT-2: nn.mul
func.func @mul_not_identity(%x: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %one = arith.constant dense<1.0> : tensor<2x3xf32>
  %ramp = arith.constant dense<[1.0, 2.0, 1.0]> : tensor<3xf32>
  %a = nn.mul %x, %one : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = nn.mul %x, %ramp : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Integer x * 1 and x + 0 fold too.
// CHECK-LABEL: func.func @integer_identities
// CHECK-NOT: nn.mul
// CHECK-NOT: nn.add
// CHECK: return %arg0
func.func @integer_identities(%x: tensor<4xi64>) -> tensor<4xi64> {
  %one = arith.constant dense<1> : tensor<i64>
  %zero = arith.constant dense<0> : tensor<4xi64>
  %a = nn.mul %x, %one : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  %b = nn.add %zero, %a : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %b : tensor<4xi64>
}

// -----

// Forward, a gradient hook is the identity: a forward-only compile of a
// model with backward hooks folds it away.
// CHECK-LABEL: func.func @gradient_hook
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[I:.+]]: tensor<4xi64>)
// CHECK-NOT: nn.gradient_hook
// CHECK: return %[[X]], %[[I]]
func.func @gradient_hook(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %h:2 = nn.gradient_hook %x, %i site 3 : tensor<4xf32>, tensor<4xi64>
  return %h#0, %h#1 : tensor<4xf32>, tensor<4xi64>
}
