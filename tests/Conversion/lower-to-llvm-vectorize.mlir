// The CPU pipeline vectorizes elementwise chains and runs big ones on the
// runtime's thread pool; small ones stay on the calling thread.
// RUN: nn-opt %s -nn-lower-to-llvm -split-input-file | FileCheck %s

// 65536 elements: 64 chunks of 1024 handed to nn_rt_parallel_for, each a
// loop over vector<32xf32> (four AVX2 registers per step).
// CHECK-LABEL: llvm.func internal @forward_parallel
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr -> vector<32xf32>
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} : vector<32xf32>, !llvm.ptr
// CHECK-LABEL: llvm.func @forward(
// CHECK: %[[N:.+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: %[[FN:.+]] = llvm.mlir.addressof @forward_parallel : !llvm.ptr
// CHECK: llvm.call @nn_rt_parallel_for(%[[N]], %[[FN]], %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr) -> ()
func.func @forward(%x: tensor<65536xf32>, %b: tensor<65536xf32>) -> tensor<65536xf32> {
  %y = nn.add %x, %b : (tensor<65536xf32>, tensor<65536xf32>) -> tensor<65536xf32>
  %z = nn.relu %y : tensor<65536xf32>
  return %z : tensor<65536xf32>
}

// -----

// 2x8 elements: vectors, but no thread pool round trip.
// CHECK-LABEL: llvm.func @small
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: nn_rt_parallel_for
func.func @small(%x: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = nn.add %x, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
