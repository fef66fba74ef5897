// RUN: nn-opt %s -convert-nn-to-kernel -cse -split-input-file | FileCheck %s --implicit-check-not=memref --implicit-check-not=llvm --implicit-check-not=call

// nn.fused groups led by a contraction become one kernel op whose epilogue
// (addends, each with its {image, row, col} strides, then an activation)
// holds what the store can apply; the rest stays a pointwise group over the
// kernel's result.

// CHECK-LABEL: func.func @fused_linear_relu
// CHECK: nn_kernel.gemm %arg0, %arg1 addends(%arg2 : tensor<256xf32>) epilogue <add [0, 0, 1], relu> outs(%{{.*}} : tensor<64x256xf32>) transpose_b : tensor<64x784xf32>, tensor<256x784xf32> -> tensor<64x256xf32>
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
// CHECK: nn_kernel.conv2d %arg0, %arg1 addends(%arg2, %arg3 : tensor<4xf32>, tensor<2x4x8x8xf32>) epilogue <add [0, 1, 0], add [256, 64, 1], relu> outs(%{{.*}} : tensor<2x4x8x8xf32>) stride [1, 1] padding [1, 1] dilation [1, 1]
// CHECK-NOT: nn.fused
// CHECK-NOT: nn.add
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
// CHECK: nn_kernel.conv2d %arg0, %arg1 addends(%arg2 : tensor<1x4x1x1xf32>) epilogue <add [0, 1, 0], clamp(0.000000e+00, 6.000000e+00)> outs(%{{.*}} : tensor<2x4x6x6xf32>) stride [1, 1] padding [0, 0] dilation [1, 1]
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
// CHECK: nn_kernel.gemm %arg0, %arg1 epilogue <leaky_relu(1.250000e-01)> outs(%{{.*}} : tensor<8x4xf32>)
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
// CHECK: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
// CHECK: %[[G:.+]] = nn_kernel.gemm %[[X]], %arg1 addends(%arg2 : tensor<2x3x8xf32>) epilogue <add [0, 8, 1]> outs(%{{.*}} : tensor<6x8xf32>) transpose_b
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[G]] {{\[}}[0, 1], [2]] output_shape [2, 3, 8]
// CHECK: nn.fused(%[[Y]]) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT: ^bb0(%[[V:.+]]: tensor<2x3x8xf32>):
// CHECK-NEXT: %[[GELU:.+]] = nn.gelu %[[V]]
// CHECK-NEXT: nn.yield %[[GELU]]
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
// CHECK: nn_kernel.gemm %{{.*}}, %arg1 outs(%{{.*}} : tensor<6x8xf32>) transpose_b :
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
// CHECK: nn_kernel.gemm %arg0, %arg1 epilogue <relu> outs(%{{.*}} : tensor<8x4xf32>) :
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
// CHECK: nn_kernel.conv2d {{.*}} epilogue <add [0, 1, 0], add [0, 64, 1]> outs(
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
// CHECK: nn_kernel.gemm %arg0, %arg1 outs(%{{.*}} : tensor<8x4xf32>) :
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
// CHECK: nn_kernel.gemm %arg0, %arg1 addends(%arg2 : tensor<4xf32>) epilogue <add [0, 0, 1], relu> outs(%{{.*}} : tensor<8x4xf32>)
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
// CHECK-NOT: nn_kernel
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
// CHECK: %[[X:.+]] = tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
// CHECK: %[[G:.+]] = nn_kernel.gemm %[[X]], %arg1 epilogue <relu> outs(%{{.*}} : tensor<1x8xf32>) transpose_b
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
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

// -----

// A group led by [..., K] x [K, N] (a linear's input gradient in a training
// step, with the residual's gradient added) is one GEMM over the folded
// rows, the add in its store.
// CHECK-LABEL: func.func @fused_rank3_matmul_add
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<4x3x16xf32> into tensor<12x16xf32>
// CHECK: %[[C:.+]] = nn_kernel.gemm %[[ROWS]], %arg1 addends(%arg2 : tensor<4x3x8xf32>) epilogue <add [0, 8, 1]> outs(%{{.*}} : tensor<12x8xf32>) : tensor<12x16xf32>, tensor<16x8xf32> -> tensor<12x8xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [4, 3, 8] : tensor<12x8xf32> into tensor<4x3x8xf32>
// CHECK-NOT: nn.fused
func.func @fused_rank3_matmul_add(%a: tensor<4x3x16xf32>, %b: tensor<16x8xf32>, %r: tensor<4x3x8xf32>) -> tensor<4x3x8xf32> {
  %0 = nn.fused (%a, %b, %r) : (tensor<4x3x16xf32>, tensor<16x8xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32> {
  ^bb0(%x: tensor<4x3x16xf32>, %y: tensor<16x8xf32>, %z: tensor<4x3x8xf32>):
    %1 = nn.matmul %x, %y : (tensor<4x3x16xf32>, tensor<16x8xf32>) -> tensor<4x3x8xf32>
    %2 = nn.add %z, %1 : (tensor<4x3x8xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
    nn.yield %2 : tensor<4x3x8xf32>
  }
  return %0 : tensor<4x3x8xf32>
}

// -----

// A group led by a batched matmul (attention's backward: q·kᵀ then the
// scale) is a batched kernel call reading the transposed key in place; the
// scale, which the store cannot apply, stays a pointwise group after it.
// CHECK-LABEL: func.func @fused_batched_matmul_scale
// CHECK: %[[S:.+]] = nn_kernel.batch_matmul %arg0, %arg1 outs(%{{.*}} : tensor<2x4x5x6xf32>) {b_perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x3xf32>, tensor<2x4x6x3xf32> -> tensor<2x4x5x6xf32>
// CHECK: nn.fused(%[[S]], %arg2)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.mul
// CHECK-NEXT: nn.yield
// CHECK-NOT: nn.matmul
func.func @fused_batched_matmul_scale(%q: tensor<2x4x5x3xf32>, %k: tensor<2x4x6x3xf32>, %c: tensor<f32>) -> tensor<2x4x5x6xf32> {
  %kt = nn.transpose %k -2, -1 : (tensor<2x4x6x3xf32>) -> tensor<2x4x3x6xf32>
  %0 = nn.fused (%q, %kt, %c) : (tensor<2x4x5x3xf32>, tensor<2x4x3x6xf32>, tensor<f32>) -> tensor<2x4x5x6xf32> {
  ^bb0(%x: tensor<2x4x5x3xf32>, %y: tensor<2x4x3x6xf32>, %s: tensor<f32>):
    %1 = nn.matmul %x, %y : (tensor<2x4x5x3xf32>, tensor<2x4x3x6xf32>) -> tensor<2x4x5x6xf32>
    %2 = nn.mul %1, %s : (tensor<2x4x5x6xf32>, tensor<f32>) -> tensor<2x4x5x6xf32>
    nn.yield %2 : tensor<2x4x5x6xf32>
  }
  return %0 : tensor<2x4x5x6xf32>
}
