// RUN: nn-opt %s -nn-hoist-state-computations=function=run | FileCheck %s

// The `function` option picks the function to split; others are left
// alone. A value forward reads that another hoisted op also reads crosses
// once, beside that op's own result.
// CHECK-LABEL: func.func @prepare() -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[N:.+]] = nn.neg
// CHECK: %[[M:.+]] = nn.mul %[[N]], %[[N]]
// CHECK: return %[[N]], %[[M]]
// CHECK-LABEL: func.func @run
// CHECK-SAME: (%[[PN:.+]]: tensor<4xf32> {nn.context_slot = 0 : i64}, %[[PM:.+]]: tensor<4xf32> {nn.context_slot = 1 : i64}, %[[X:.+]]: tensor<4xf32>)
// CHECK: %[[A:.+]] = nn.add %[[X]], %[[PN]]
// CHECK: nn.add %[[A]], %[[PM]]
// CHECK-LABEL: func.func @other
// CHECK: nn.load @p
// CHECK: nn.neg
nn.parameter @p : tensor<4xf32>
func.func @run(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = nn.load @p : tensor<4xf32>
  %n = nn.neg %p : tensor<4xf32>
  %m = nn.mul %n, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = nn.add %x, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = nn.add %a, %m : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = nn.load @p : tensor<4xf32>
  %n = nn.neg %p : tensor<4xf32>
  return %n : tensor<4xf32>
}
