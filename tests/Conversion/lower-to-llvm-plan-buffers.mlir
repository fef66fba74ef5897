// The whole CPU pipeline with nn-plan-buffers in it: the intermediates of a
// matmul chain (kernel outputs) and of a softmax split over the thread pool
// live in the arena, so forward calls malloc and free for none of them, and
// the outlined parallel bodies read the arena's views from their context.
// RUN: nn-opt %s -nn-optimize -nn-lower-to-llvm | FileCheck %s

// CHECK-NOT: llvm.call @malloc
// CHECK-LABEL: llvm.func @forward
// CHECK: llvm.call @nn_rt_workspace_acquire
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.call @free
// CHECK: llvm.call @nn_rt_parallel_for
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.call @free
// CHECK: llvm.call @nn_rt_workspace_release
// CHECK-NEXT: llvm.return
func.func @forward(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %ab = nn.matmul %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %abb = nn.matmul %ab, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %s = nn.softmax %abb, dim = 1 : tensor<256x256xf32>
  %y = nn.matmul %s, %ab : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
