// The whole CPU pipeline on eval-mode batch-norm after a convolution:
// @prepare folds it into the weight and bias, packs the weight into context
// slot 1 and returns only the folded bias (dense slot 0, 32 bytes), which
// forward's epilogue reads. The folded weight itself is a heap temporary of
// @prepare (not an arena of the binding thread's workspace), freed after
// the packing has read it, so the context holds the weight once, packed.
// RUN: nn-opt %s -nn-optimize -nn-lower-to-llvm | FileCheck %s

// CHECK: module attributes {nn.context_bytes = array<i64: 32>, nn.context_slots = 2 : i64}
// CHECK-LABEL: llvm.func @prepare
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr {nn.context}, %{{[a-z0-9]+}}: !llvm.ptr)
// CHECK-NOT: nn_rt_workspace_acquire
// CHECK: %[[W:.+]] = llvm.call @malloc(
// CHECK-NOT: llvm.call @free
// CHECK: llvm.call @nn_rt_conv2d_pack_weight(
// CHECK-NOT: nn_rt_workspace_release
// CHECK: llvm.call @free(
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @forward
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr {nn.context_slot = 0 : i64}, %{{[a-z0-9]+}}: !llvm.ptr, %[[CTX:[a-z0-9]+]]: !llvm.ptr {nn.context}
// CHECK: llvm.getelementptr %[[CTX]][1]
// CHECK: llvm.call @nn_rt_conv2d_nchw_packed(
nn.parameter @conv.weight : tensor<8x3x3x3xf32>
nn.parameter @bn.weight : tensor<8xf32>
nn.parameter @bn.bias : tensor<8xf32>
nn.buffer @bn.running_mean : tensor<8xf32> persistent
nn.buffer @bn.running_var : tensor<8xf32> persistent
func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = nn.load @conv.weight : tensor<8x3x3x3xf32>
  %g = nn.load @bn.weight : tensor<8xf32>
  %b = nn.load @bn.bias : tensor<8xf32>
  %m = nn.load @bn.running_mean : tensor<8xf32>
  %v = nn.load @bn.running_var : tensor<8xf32>
  %c = nn.conv %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %y = nn.batch_norm %c, %m, %v weight %g bias %b eps 1.000000e-05 : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = nn.relu %y : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
