// Training dropout is a pure function of its input, the generator state and
// its counter offset: CSE merges two draws of the same counters (the same
// mask) and keeps draws of different counters apart.
// RUN: nn-opt %s -cse -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @different_offsets
// CHECK-COUNT-2: nn.dropout
func.func @different_offsets(%x: tensor<4xf32>, %rng: tensor<2xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = nn.dropout %x rng %rng {p = 0.5 : f64, training} : tensor<4xf32>
  %z = nn.dropout %x rng %rng {p = 0.5 : f64, training, offset = 4 : i64} : tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @same_draw
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[Y:.+]] = nn.dropout %[[X]]
// CHECK-NOT: nn.dropout
// CHECK: return %[[Y]], %[[Y]]
func.func @same_draw(%x: tensor<4xf32>, %rng: tensor<2xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = nn.dropout %x rng %rng {p = 0.5 : f64, training, offset = 4 : i64} : tensor<4xf32>
  %z = nn.dropout %x rng %rng {p = 0.5 : f64, training, offset = 4 : i64} : tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}
