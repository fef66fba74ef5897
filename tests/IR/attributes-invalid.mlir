// RUN: nn-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The nn.* attributes passes exchange are declared by the dialect: each is
// checked for its type and for where it appears, and no other nn.* name is
// accepted.

// CHECK-LABEL: func.func @declared
// CHECK-SAME: nn.state = "fc.weight"
// CHECK-SAME: nn.rng = 6 : i64
// CHECK-SAME: nn.name = "loss"
module attributes {nn.context_slots = 2 : i64, nn.context_bytes = array<i64: 64>} {
  nn.buffer @"optimizer.state.w.exp_avg" : tensor<2xf32> {nn.starts_at_zero}
  func.func @declared(%w: tensor<2xf32> {nn.state = "fc.weight"}, %ctx: !llvm.ptr {nn.context},
                      %rng: tensor<2xi64> {nn.rng = 6 : i64}, %lr: tensor<f32> {nn.default = 1.0e-3 : f64})
      -> (tensor<2xf32> {nn.name = "loss"}) attributes {nn.workspace_bytes = 128 : i64} {
    return %w : tensor<2xf32>
  }
}

// -----

// expected-error @+1 {{'nn.state' of argument #0 must be a string, not 3 : i64}}
func.func @state_not_a_string(%w: tensor<2xf32> {nn.state = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'nn.rng' is not an attribute of result #0}}
func.func @rng_on_a_result(%w: tensor<2xi64>) -> (tensor<2xi64> {nn.rng = 4 : i64}) {
  return %w : tensor<2xi64>
}

// -----

// expected-error @+1 {{'nn.state' is not an attribute of result #0}}
func.func @state_on_a_result(%w: tensor<2xf32>) -> (tensor<2xf32> {nn.state = "w"}) {
  return %w : tensor<2xf32>
}

// -----

// expected-error @+1 {{'nn.context_slots' of an op must be an integer, not "two"}}
module attributes {nn.context_slots = "two"} {
}

// -----

// expected-error @+1 {{'nn.typo' is not an attribute the nn dialect declares}}
func.func @unknown(%w: tensor<2xf32> {nn.typo}) {
  return
}
