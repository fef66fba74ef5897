// RUN: nn-opt %s -nn-lower-to-kernel-calls -cse -split-input-file | FileCheck %s

// nn.fused groups led by a contraction become one kernel call whose
// epilogue (nn_rt_epilogue: addends {ptr, image, row, col} at fields 0-3 and
// 4-7, activation at 8, min 9, max 10, slope 11) holds what the store can
// apply; the rest stays a pointwise group over the kernel's result.

// CHECK-LABEL: func.func @fused_linear_relu
// CHECK: bufferization.to_memref %arg2 read_only : memref<256xf32>
// CHECK: %[[BIAS:.+]] = llvm.inttoptr
// CHECK-NEXT: llvm.insertvalue %[[BIAS]], %{{.*}}[0, 0, 0]
// CHECK: llvm.insertvalue %c0_i64, %{{.*}}[0, 0, 2]
// CHECK-NEXT: llvm.insertvalue %c1_i64, %{{.*}}[0, 0, 3]
// CHECK: llvm.insertvalue %c1_i32, %{{.*}}[1]
// CHECK: call @nn_rt_sgemm(
// CHECK-NOT: nn.fused
// CHECK-NOT: nn.relu
func.func @fused_linear_relu(%x: tensor<64x784xf32>, %w: tensor<256x784xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %0 = nn.fused (%x, %w, %b) : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32> {
  ^bb0(%a: tensor<64x784xf32>, %k: tensor<256x784xf32>, %c: tensor<256xf32>):
    %1 = nn.linear %a, %k, %c : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
    %2 = nn.relu %1 : tensor<64x256xf32>
    nn.yield %2 : tensor<64x256xf32>
  }
  return %0 : tensor<64x256xf32>
}

// -----

// conv + bias + residual + relu (a ResNet block's tail): the bias is a row
// addend (stride 1 per output channel), the residual a full one (image
// stride O*OH*OW = 256, row stride OH*OW = 64, column stride 1).
// CHECK-LABEL: func.func @fused_conv_bias_residual_relu
// CHECK: llvm.insertvalue %c1_i64, %{{.*}}[0, 0, 2]
// CHECK-NEXT: llvm.insertvalue %c0_i64, %{{.*}}[0, 0, 3]
// CHECK: bufferization.to_memref %arg3 read_only : memref<2x4x8x8xf32>
// CHECK: llvm.insertvalue %c256_i64, %{{.*}}[0, 1, 1]
// CHECK: llvm.insertvalue %c64_i64, %{{.*}}[0, 1, 2]
// CHECK-NEXT: llvm.insertvalue %c1_i64, %{{.*}}[0, 1, 3]
// CHECK: llvm.insertvalue %c1_i32, %{{.*}}[1]
// CHECK: call @nn_rt_conv2d_nchw(
// CHECK-NOT: nn.fused
// CHECK-NOT: nn.add
// CHECK: func.func private @nn_rt_conv2d_nchw(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr)
func.func @fused_conv_bias_residual_relu(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %r: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = nn.fused (%x, %w, %b, %r) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  ^bb0(%a: tensor<2x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>, %s: tensor<2x4x8x8xf32>):
    %1 = nn.conv %a, %k, %c stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
        : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    %2 = nn.add %s, %1 : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %3 = nn.relu %2 : tensor<2x4x8x8xf32>
    nn.yield %3 : tensor<2x4x8x8xf32>
  }
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// A per-channel tensor [1, O, 1, 1] broadcast over images and pixels (the
// first addend: the conv has no bias), then relu6 (clamp 0..6).
// CHECK-LABEL: func.func @fused_conv_channel_add_relu6
// CHECK: bufferization.to_memref %arg2 read_only : memref<1x4x1x1xf32>
// CHECK: llvm.insertvalue %c0_i64, %{{.*}}[0, 0, 1]
// CHECK-NEXT: llvm.insertvalue %c1_i64, %{{.*}}[0, 0, 2]
// CHECK-NEXT: llvm.insertvalue %c0_i64, %{{.*}}[0, 0, 3]
// CHECK: llvm.insertvalue %c2_i32, %{{.*}}[1]
// CHECK: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: llvm.insertvalue %[[SIX]], %{{.*}}[3]
// CHECK: call @nn_rt_conv2d_nchw(
// CHECK-NOT: nn.clamp
func.func @fused_conv_channel_add_relu6(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %v: tensor<1x4x1x1xf32>) -> tensor<2x4x6x6xf32> {
  %0 = nn.fused (%x, %w, %v) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<2x4x6x6xf32> {
  ^bb0(%a: tensor<2x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<1x4x1x1xf32>):
    %1 = nn.conv %a, %k stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
        : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
    %2 = nn.add %1, %c : (tensor<2x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<2x4x6x6xf32>
    %3 = nn.clamp %2 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x4x6x6xf32>
    nn.yield %3 : tensor<2x4x6x6xf32>
  }
  return %0 : tensor<2x4x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @fused_matmul_leaky_relu
// CHECK: llvm.insertvalue %c3_i32, %{{.*}}[1]
// CHECK: %[[SLOPE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: llvm.insertvalue %[[SLOPE]], %{{.*}}[4]
// CHECK: call @nn_rt_sgemm(
// CHECK-NOT: nn.leaky_relu
func.func @fused_matmul_leaky_relu(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = nn.fused (%a, %b) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<8x16xf32>, %y: tensor<16x4xf32>):
    %1 = nn.matmul %x, %y : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %2 = nn.leaky_relu %1, slope = 1.250000e-01 : tensor<8x4xf32>
    nn.yield %2 : tensor<8x4xf32>
  }
  return %0 : tensor<8x4xf32>
}

// -----

// A rank-3 linear: the leading dims are the GEMM's rows, so a residual of
// the result's shape has row stride 8 (first addend: no bias); gelu has no kernel form and stays a
// pointwise group over the kernel's result.
// CHECK-LABEL: func.func @fused_linear_residual_gelu
// CHECK: llvm.insertvalue %c8_i64, %{{.*}}[0, 0, 2]
// CHECK: call @nn_rt_sgemm(
// CHECK: %[[Y:.+]] = tensor.expand_shape
// CHECK: nn.fused(%[[Y]]) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT: ^bb0(%[[V:.+]]: tensor<2x3x8xf32>):
// CHECK-NEXT: %[[G:.+]] = nn.gelu %[[V]]
// CHECK-NEXT: nn.yield %[[G]]
// CHECK-NOT: nn.linear
// CHECK-NOT: nn.add
func.func @fused_linear_residual_gelu(%x: tensor<2x3x5xf32>, %w: tensor<8x5xf32>, %r: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = nn.fused (%x, %w, %r) : (tensor<2x3x5xf32>, tensor<8x5xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  ^bb0(%a: tensor<2x3x5xf32>, %k: tensor<8x5xf32>, %s: tensor<2x3x8xf32>):
    %1 = nn.linear %a, %k : (tensor<2x3x5xf32>, tensor<8x5xf32>) -> tensor<2x3x8xf32>
    %2 = nn.add %1, %s : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    %3 = nn.gelu %2 : tensor<2x3x8xf32>
    nn.yield %3 : tensor<2x3x8xf32>
  }
  return %0 : tensor<2x3x8xf32>
}

// -----

// A tensor broadcast along one of two flattened row dims has no single row
// stride: the add stays in the pointwise group, the relu after it too.
// CHECK-LABEL: func.func @partial_broadcast_add_stays
// CHECK: call @nn_rt_sgemm(
// CHECK: nn.fused
// CHECK: nn.add
// CHECK: nn.relu
// CHECK-NOT: nn.linear
func.func @partial_broadcast_add_stays(%x: tensor<2x3x5xf32>, %w: tensor<8x5xf32>, %r: tensor<2x1x8xf32>) -> tensor<2x3x8xf32> {
  %0 = nn.fused (%x, %w, %r) : (tensor<2x3x5xf32>, tensor<8x5xf32>, tensor<2x1x8xf32>) -> tensor<2x3x8xf32> {
  ^bb0(%a: tensor<2x3x5xf32>, %k: tensor<8x5xf32>, %s: tensor<2x1x8xf32>):
    %1 = nn.linear %a, %k : (tensor<2x3x5xf32>, tensor<8x5xf32>) -> tensor<2x3x8xf32>
    %2 = nn.add %1, %s : (tensor<2x3x8xf32>, tensor<2x1x8xf32>) -> tensor<2x3x8xf32>
    %3 = nn.relu %2 : tensor<2x3x8xf32>
    nn.yield %3 : tensor<2x3x8xf32>
  }
  return %0 : tensor<2x3x8xf32>
}

// -----

// The activation is the last stage of the store: an add after the relu
// stays in the pointwise group.
// CHECK-LABEL: func.func @add_after_relu_stays
// CHECK: llvm.insertvalue %c1_i32, %{{.*}}[1]
// CHECK: call @nn_rt_sgemm(
// CHECK: nn.fused
// CHECK-NOT: nn.relu
// CHECK: nn.add
func.func @add_after_relu_stays(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %r: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = nn.fused (%a, %b, %r) : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<8x16xf32>, %y: tensor<16x4xf32>, %s: tensor<8x4xf32>):
    %1 = nn.matmul %x, %y : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %2 = nn.relu %1 : tensor<8x4xf32>
    %3 = nn.add %2, %s : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    nn.yield %3 : tensor<8x4xf32>
  }
  return %0 : tensor<8x4xf32>
}

// -----

// Two addend slots: the conv's bias and the first add fill them; the second
// add and the relu stay in the pointwise group.
// CHECK-LABEL: func.func @third_addend_stays
// CHECK: call @nn_rt_conv2d_nchw(
// CHECK: nn.fused
// CHECK: nn.add
// CHECK-NEXT: nn.relu
func.func @third_addend_stays(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %r: tensor<1x4x8x8xf32>, %q: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = nn.fused (%x, %w, %b, %r, %q) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>, %s: tensor<1x4x8x8xf32>, %t: tensor<1x4x8x8xf32>):
    %1 = nn.conv %a, %k, %c stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %2 = nn.add %1, %s : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %3 = nn.add %2, %t : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %4 = nn.relu %3 : tensor<1x4x8x8xf32>
    nn.yield %4 : tensor<1x4x8x8xf32>
  }
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// The epilogue reads the contraction's result twice (x * sigmoid(x) as
// ops): nothing can join the store, the whole epilogue stays a group.
// CHECK-LABEL: func.func @second_use_stays
// CHECK: call @nn_rt_sgemm({{.*}}, %{{.*}}) : ({{.*}}, !llvm.ptr) -> ()
// CHECK: nn.fused
// CHECK-NEXT: ^bb0(%[[V:.+]]: tensor<8x4xf32>):
// CHECK-NEXT: %[[S:.+]] = nn.sigmoid %[[V]]
// CHECK-NEXT: nn.mul %[[V]], %[[S]]
func.func @second_use_stays(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = nn.fused (%a, %b) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<8x16xf32>, %y: tensor<16x4xf32>):
    %1 = nn.matmul %x, %y : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %2 = nn.sigmoid %1 : tensor<8x4xf32>
    %3 = nn.mul %1, %2 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    nn.yield %3 : tensor<8x4xf32>
  }
  return %0 : tensor<8x4xf32>
}

// -----

// Outside groups the same matcher applies: add + relu written as ops.
// CHECK-LABEL: func.func @unfused_matmul_add_relu
// CHECK: call @nn_rt_sgemm(
// CHECK-NOT: nn.add
// CHECK-NOT: nn.relu
func.func @unfused_matmul_add_relu(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %r: tensor<4xf32>) -> tensor<8x4xf32> {
  %0 = nn.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = nn.add %0, %r : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %2 = nn.relu %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

// A group led by what no kernel computes is left to convert-nn-to-linalg.
// CHECK-LABEL: func.func @no_kernel_grouped_conv
// CHECK: nn.fused
// CHECK: nn.conv {{.*}} groups 2
// CHECK: nn.relu
// CHECK-NOT: call
func.func @no_kernel_grouped_conv(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = nn.fused (%x, %w) : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>, %k: tensor<4x2x3x3xf32>):
    %1 = nn.conv %a, %k stride [1, 1] padding [0, 0] dilation [1, 1] groups 2
        : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
    %2 = nn.relu %1 : tensor<1x4x6x6xf32>
    nn.yield %2 : tensor<1x4x6x6xf32>
  }
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A rank-1 linear is one GEMM row: [K] -> [1, K] in, [1, N] -> [N] out.
// CHECK-LABEL: func.func @fused_linear_rank1_relu
// CHECK: tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
// CHECK: call @nn_rt_sgemm(
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK-NOT: nn.fused
func.func @fused_linear_rank1_relu(%x: tensor<5xf32>, %w: tensor<8x5xf32>) -> tensor<8xf32> {
  %0 = nn.fused (%x, %w) : (tensor<5xf32>, tensor<8x5xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<5xf32>, %k: tensor<8x5xf32>):
    %1 = nn.linear %a, %k : (tensor<5xf32>, tensor<8x5xf32>) -> tensor<8xf32>
    %2 = nn.relu %1 : tensor<8xf32>
    nn.yield %2 : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}
