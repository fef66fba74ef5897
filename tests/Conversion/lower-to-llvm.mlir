// The whole CPU pipeline: nn in, LLVM dialect out, every tensor a bare
// pointer in the order state, inputs, outputs. @prepare packs the weight
// into context slot 0, which forward reads through its context argument.
// RUN: nn-opt %s -nn-optimize -nn-lower-to-llvm | FileCheck %s

// CHECK: module attributes {nn.context_bytes = array<i64>, nn.context_slots = 1 : i64}
// CHECK-NOT: = nn.
// CHECK-LABEL: llvm.func @prepare
// CHECK-SAME: (%{{.*}}: !llvm.ptr {nn.state = "fc.weight"}, %{{.*}}: !llvm.ptr {nn.state = "fc.bias"}, %{{.*}}: !llvm.ptr {nn.context})
// CHECK: llvm.call @nn_rt_sgemm_pack_b(
// CHECK-LABEL: llvm.func @forward
// CHECK-SAME: (%{{.*}}: !llvm.ptr {nn.state = "fc.weight"}, %{{.*}}: !llvm.ptr {nn.state = "fc.bias"}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {nn.context}, %{{.*}}: !llvm.ptr)
// CHECK-NOT: = nn.
// CHECK: llvm.call @nn_rt_sgemm_packed_b(
// CHECK-NOT: llvm.return %
nn.parameter @fc.weight : tensor<3x4xf32>
nn.parameter @fc.bias : tensor<3xf32>
func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = nn.load @fc.weight : tensor<3x4xf32>
  %b = nn.load @fc.bias : tensor<3xf32>
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = nn.relu %y : tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}
