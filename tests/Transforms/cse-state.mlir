// nn.load reads the state resource and nn.store writes it: CSE merges loads
// of a name with no store between them, never across a store.
// RUN: nn-opt %s -cse -split-input-file | FileCheck %s
// Dead loads are erased by canonicalization (DCE), stores are kept.
// RUN: nn-opt %s -canonicalize -split-input-file | FileCheck %s --check-prefix=DCE

nn.buffer @bn.running_mean : tensor<3xf32> persistent

// CHECK-LABEL: func.func @merge_loads
// CHECK-COUNT-1: nn.load
// CHECK-NOT: nn.load
func.func @merge_loads() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = nn.load @bn.running_mean : tensor<3xf32>
  %b = nn.load @bn.running_mean : tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @not_across_store
// CHECK: %[[A:.+]] = nn.load @bn.running_mean
// CHECK: nn.store @bn.running_mean
// CHECK: %[[B:.+]] = nn.load @bn.running_mean
// CHECK: return %[[A]], %[[B]]
// DCE-LABEL: func.func @not_across_store
// DCE: nn.store
// DCE-LABEL: func.func @dead_load
// DCE-NOT: nn.load
func.func @not_across_store(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = nn.load @bn.running_mean : tensor<3xf32>
  nn.store @bn.running_mean, %x : tensor<3xf32>
  %b = nn.load @bn.running_mean : tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}

func.func @dead_load() {
  %a = nn.load @bn.running_mean : tensor<3xf32>
  return
}
