// RUN: nn-opt %s -nn-hoist-state-computations -nn-lower-state-to-arguments -nn-lower-to-kernel-calls -split-input-file | FileCheck %s

// A linear weight forward never writes is packed once by @prepare into
// context slot 0; forward loads the slot and calls the packed GEMM. The
// weight read by two linears is packed once.
// CHECK: module attributes {{{.*}}nn.context_slots = 1 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: (%[[W:.+]]: tensor<3x4xf32> {nn.state = "w"}, %[[CTX:.+]]: !llvm.ptr {nn.context})
// CHECK: %[[SIZE:.+]] = call @nn_rt_sgemm_pack_b_size(%{{.+}}, %{{.+}}) : (i64, i64) -> i64
// CHECK: %[[BUF:.+]] = call @nn_rt_context_buffer(%[[CTX]], %{{.+}}, %[[SIZE]])
// CHECK: bufferization.to_memref %[[W]]
// CHECK: call @nn_rt_sgemm_pack_b(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BUF]])
// CHECK-NOT: nn_rt_sgemm_pack_b
// CHECK: return
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%{{.+}}: tensor<3x4xf32> {nn.state = "w"}, %[[X:.+]]: tensor<2x4xf32>, %[[FCTX:.+]]: !llvm.ptr {nn.context})
// CHECK: %[[SLOT:.+]] = llvm.getelementptr %[[FCTX]][0]
// CHECK: %[[PACKED:.+]] = llvm.load %[[SLOT]]
// CHECK: call @nn_rt_sgemm_packed_b(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[PACKED]],
// CHECK: call @nn_rt_sgemm_packed_b
// CHECK-NOT: call @nn_rt_sgemm(
nn.parameter @w : tensor<3x4xf32>
func.func @forward(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = nn.load @w : tensor<3x4xf32>
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %z = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A batch-norm-folded convolution weight: @prepare computes it (dense slot
// 0) and packs it (slot 1) from the value it returns; forward calls the
// packed convolution.
// CHECK: module attributes {nn.context_bytes = array<i64: 864>, nn.context_slots = 2 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK: %[[W2:.+]] = nn.mul
// CHECK: call @nn_rt_conv2d_pack_weight_size
// CHECK: %[[BUF:.+]] = call @nn_rt_context_buffer(%{{.+}}, %[[ONE:.+]], %{{.+}})
// CHECK: bufferization.to_memref %[[W2]]
// CHECK: call @nn_rt_conv2d_pack_weight({{.+}}, %[[BUF]])
// CHECK: return %[[W2]]
// CHECK-LABEL: func.func @forward
// CHECK-SAME: {nn.context_slot = 0 : i64}
// CHECK: llvm.getelementptr %{{.+}}[1]
// CHECK: call @nn_rt_conv2d_nchw_packed
nn.parameter @w : tensor<8x3x3x3xf32>
nn.parameter @s : tensor<8x1x1x1xf32>
func.func @forward(%x: tensor<1x3x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = nn.load @w : tensor<8x3x3x3xf32>
  %s = nn.load @s : tensor<8x1x1x1xf32>
  %w2 = nn.mul %w, %s : (tensor<8x3x3x3xf32>, tensor<8x1x1x1xf32>) -> tensor<8x3x3x3xf32>
  %y = nn.conv %x, %w2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// One weight read by convolutions of two geometries gets a packing per
// geometry (the geometry picks the kernel, and so the layout); a second
// convolution of the first geometry reuses its slot.
// CHECK: module attributes {nn.context_bytes = array<i64>, nn.context_slots = 2 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-COUNT-2: call @nn_rt_conv2d_pack_weight(
// CHECK-NOT: call @nn_rt_conv2d_pack_weight(
// CHECK-LABEL: func.func @forward
// CHECK: llvm.getelementptr %{{.+}}[0]
// CHECK: call @nn_rt_conv2d_nchw_packed
// CHECK: llvm.getelementptr %{{.+}}[1]
// CHECK: call @nn_rt_conv2d_nchw_packed
// CHECK: llvm.getelementptr %{{.+}}[0]
// CHECK: call @nn_rt_conv2d_nchw_packed
nn.parameter @w : tensor<8x3x3x3xf32>
func.func @forward(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>) {
  %w = nn.load @w : tensor<8x3x3x3xf32>
  %a = nn.conv %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %b = nn.conv %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  %c = nn.conv %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %a, %b, %c : tensor<1x8x8x8xf32>, tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>
}

// -----

// Leave alone: a right operand that is an input, and a buffer forward
// writes, are packed per call by nn_rt_sgemm; forward keeps no context
// argument when it reads no slot.
// CHECK: module attributes {{{.*}}nn.context_slots = 0 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-NOT: pack
// CHECK-LABEL: func.func @forward
// CHECK-NOT: !llvm.ptr {nn.context}
// CHECK-SAME: {
// CHECK-NOT: packed
// CHECK: call @nn_rt_sgemm(
// CHECK: call @nn_rt_sgemm(
nn.buffer @m : tensor<4x4xf32> persistent
func.func @forward(%x: tensor<2x4xf32>, %r: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %y = nn.matmul %x, %r : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %m = nn.load @m : tensor<4x4xf32>
  %z = nn.matmul %x, %m : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  nn.store @m, %r : tensor<4x4xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x4xf32>
}
