// RUN: nn-opt %s --nn-flatten-empty-arguments --allow-unregistered-dialect | FileCheck %s

// An entry point's argument with a zero past its first dimension becomes
// 1-D and is viewed with its shape again; others stay as they are.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[W:.*]]: memref<0xf32>, %[[B:.*]]: memref<3xf32>, %[[E:.*]]: memref<0x4xf32>, %[[O:.*]]: memref<2x3xf32>)
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[W]] to offset: [0], sizes: [3, 0], strides: [0, 1] : memref<0xf32> to memref<3x0xf32>
// CHECK: "test.use"(%[[V]], %[[B]], %[[E]], %[[O]])
func.func @forward(%w: memref<3x0xf32>, %b: memref<3xf32>, %e: memref<0x4xf32>, %o: memref<2x3xf32>) {
  "test.use"(%w, %b, %e, %o) : (memref<3x0xf32>, memref<3xf32>, memref<0x4xf32>, memref<2x3xf32>) -> ()
  return
}

// A function the module calls keeps its signature (its callers pass the
// original type).
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: memref<3x0xf32>)
func.func private @helper(%w: memref<3x0xf32>) {
  return
}
func.func @caller(%w: memref<3x0xf32>) {
  call @helper(%w) : (memref<3x0xf32>) -> ()
  return
}
