// RUN: nn-opt %s -split-input-file -nn-isolate-arguments | FileCheck %s
// RUN: nn-opt %s -split-input-file -nn-isolate-arguments \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s --check-prefix=BUF

// A returned argument, and a value returned twice, get a tensor of their
// own: each result is a separate caller-owned output buffer. The arguments
// become read-only.
// CHECK-LABEL: func.func @return_argument
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32> {bufferization.writable = false})
// CHECK: %[[R:.+]] = linalg.generic
// CHECK: %[[C1:.+]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: %[[C2:.+]] = bufferization.alloc_tensor() copy(%[[R]])
// CHECK: return %[[C1]], %[[R]], %[[C2]]
#id = affine_map<(d0) -> (d0)>
func.func @return_argument(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.negf %in : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  return %x, %r, %r : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// An op whose destination is an argument: bufferized, the sum accumulates
// into a copy of %init, and the caller's %init is only read.
// CHECK-LABEL: func.func @accumulate_into_argument
// CHECK-SAME: %{{.+}}: tensor<16xf32> {bufferization.writable = false}
// BUF-LABEL: func.func @accumulate_into_argument
// BUF-SAME: (%[[X:.+]]: memref<8x16xf32>, %[[INIT:.+]]: memref<16xf32>)
// BUF: %[[ACC:.+]] = memref.alloc()
// BUF: memref.copy %[[INIT]], %[[ACC]]
// BUF: linalg.generic {{.*}} ins(%[[X]] : memref<8x16xf32>) outs(%[[ACC]] : memref<16xf32>)
// BUF: return %[[ACC]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @accumulate_into_argument(%x: tensor<8x16xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Leave alone: state forward writes keeps `writable = true`, a memref
// argument has no tensor semantics to protect, a fresh result is returned
// as it is.
// CHECK-LABEL: func.func @leave_alone
// CHECK-SAME: (%{{.+}}: tensor<4xf32> {bufferization.writable = true, nn.state = "running_mean"},
// CHECK-SAME: %{{.+}}: memref<4xf32>,
// CHECK-SAME: %{{.+}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-NOT: alloc_tensor
// CHECK: return %{{.+}} : tensor<4xf32>
func.func @leave_alone(%s: tensor<4xf32> {bufferization.writable = true, nn.state = "running_mean"},
                       %m: memref<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%s, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A declaration has no body to change, and its arguments keep no attribute.
// CHECK-LABEL: func.func private @external
// CHECK-NOT: writable
// CHECK-SAME: (tensor<4xf32>)
func.func private @external(tensor<4xf32>)

// -----

// A returned state argument is copied before the state writes that end the
// block: the caller gets the value the state had at the call.
// CHECK-LABEL: func.func @return_written_state
// CHECK-SAME: (%[[S:[^:]+]]: tensor<3xf32> {bufferization.writable = true}, %[[X:[^:]+]]: tensor<3xf32> {bufferization.writable = false})
// CHECK: %[[OLD:.+]] = bufferization.alloc_tensor() copy(%[[S]])
// CHECK-NEXT: nn_kernel.write_state %[[X]] into %[[S]]
// CHECK-NEXT: return %[[OLD]]
// BUF-LABEL: func.func @return_written_state
// BUF-SAME: (%[[S:[^:]+]]: memref<3xf32>, %[[X:[^:]+]]: memref<3xf32>)
// BUF: %[[OLD:.+]] = memref.alloc
// BUF: memref.copy %[[S]], %[[OLD]]
// BUF-NEXT: memref.copy %[[X]], %[[S]]
// BUF-NEXT: return %[[OLD]]
func.func @return_written_state(%s: tensor<3xf32> {bufferization.writable = true},
                                %x: tensor<3xf32>) -> tensor<3xf32> {
  nn_kernel.write_state %x into %s : tensor<3xf32>
  return %s : tensor<3xf32>
}
