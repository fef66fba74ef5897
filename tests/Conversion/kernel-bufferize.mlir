// RUN: nn-opt %s -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -split-input-file | FileCheck %s

// The nn_kernel ops bufferize as linalg's destination-passing ops do: the
// kernel writes into its init's buffer (a tensor.empty's: a new one) and
// reads its inputs where they are.

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.+]]: memref<8x16xf32>, %[[B:.+]]: memref<16x4xf32>) -> memref<8x4xf32>
// CHECK: %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
// CHECK: nn_kernel.gemm %[[A]], %[[B]] epilogue <relu> outs(%[[C]] : memref<8x4xf32>) : memref<8x16xf32>, memref<16x4xf32>
// CHECK: return %[[C]]
func.func @gemm(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %0 = nn_kernel.gemm %a, %b epilogue <relu> outs(%e : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// A GEMM reads its operands through strides: a slice is passed as the view
// it is, not copied.
// CHECK-LABEL: func.func @gemm_reads_a_view
// CHECK: %[[VIEW:.+]] = memref.subview %arg0[0, 8] [8, 16] [1, 1] : memref<8x32xf32> to memref<8x16xf32, strided<[32, 1], offset: 8>>
// CHECK-NOT: memref.copy
// CHECK: nn_kernel.gemm %[[VIEW]], %arg1 outs(%{{.+}} : memref<8x4xf32>) : memref<8x16xf32, strided<[32, 1], offset: 8>>, memref<16x4xf32>
func.func @gemm_reads_a_view(%a: tensor<8x32xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %s = tensor.extract_slice %a[0, 8] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %0 = nn_kernel.gemm %s, %b outs(%e : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// The direct convolution reads its input row-major: a slice of channels is
// copied into a row-major buffer first.
// CHECK-LABEL: func.func @conv_copies_a_view
// CHECK: %[[VIEW:.+]] = memref.subview %arg0[0, 2, 0, 0] [2, 3, 8, 8] [1, 1, 1, 1]
// CHECK: %[[COPY:.+]] = memref.alloc() {{.*}} : memref<2x3x8x8xf32>
// CHECK: memref.copy %[[VIEW]], %[[COPY]]
// CHECK: nn_kernel.conv2d %[[COPY]], %arg1 outs(%{{.+}} : memref<2x4x6x6xf32>)
func.func @conv_copies_a_view(%x: tensor<2x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32> {
  %s = tensor.extract_slice %x[0, 2, 0, 0] [2, 3, 8, 8] [1, 1, 1, 1] : tensor<2x6x8x8xf32> to tensor<2x3x8x8xf32>
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %0 = nn_kernel.conv2d %s, %w outs(%e : tensor<2x4x6x6xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

// Written into a slice of another tensor: the kernel writes a row-major
// scratch buffer, copied into the slice after it.
// CHECK-LABEL: func.func @gemm_into_a_slice
// CHECK: %[[VIEW:.+]] = memref.subview %arg2[0, 0] [8, 4] [1, 1] : memref<8x8xf32> to memref<8x4xf32, strided<[8, 1]>>
// CHECK: %[[SCRATCH:.+]] = memref.alloc() {{.*}} : memref<8x4xf32>
// CHECK: nn_kernel.gemm %arg0, %arg1 outs(%[[SCRATCH]] : memref<8x4xf32>)
// CHECK: memref.copy %[[SCRATCH]], %[[VIEW]]
func.func @gemm_into_a_slice(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %big: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %big[0, 0] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  %0 = nn_kernel.gemm %a, %b outs(%s : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %r = tensor.insert_slice %0 into %big[0, 0] [8, 4] [1, 1] : tensor<8x4xf32> into tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Attention reads the head-split views in place and writes its permuted
// result into a new buffer.
// CHECK-LABEL: func.func @attention
// CHECK: %[[Q:.+]] = memref.expand_shape
// CHECK: %[[O:.+]] = memref.alloc() {alignment = 64 : i64} : memref<6x2x4x2xf32>
// CHECK-NOT: memref.copy
// CHECK: nn_kernel.attention %[[Q]], %[[Q]], %[[Q]] outs(%[[O]] : memref<6x2x4x2xf32>) scale 5.000000e-01
func.func @attention(%qkv: tensor<6x2x24xf32>) -> tensor<6x2x4x2xf32> {
  %s = tensor.extract_slice %qkv[0, 0, 0] [6, 2, 8] [1, 1, 1] : tensor<6x2x24xf32> to tensor<6x2x8xf32>
  %q = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [6, 2, 4, 2] : tensor<6x2x8xf32> into tensor<6x2x4x2xf32>
  %e = tensor.empty() : tensor<6x2x4x2xf32>
  %0 = nn_kernel.attention %q, %q, %q outs(%e : tensor<6x2x4x2xf32>) scale 0.5 {key_perm = array<i64: 1, 2, 0, 3>, out_perm = array<i64: 2, 0, 1, 3>, query_perm = array<i64: 1, 2, 0, 3>, value_perm = array<i64: 1, 2, 0, 3>}
      : tensor<6x2x4x2xf32>, tensor<6x2x4x2xf32>, tensor<6x2x4x2xf32> -> tensor<6x2x4x2xf32>
  return %0 : tensor<6x2x4x2xf32>
}

// -----

// A packing reads its source's buffer and writes only the context.
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: (%[[W:.+]]: memref<4x3x3x3xf32>, %[[B:.+]]: memref<4x16xf32>, %[[CTX:.+]]: !nn_kernel.context)
// CHECK: nn_kernel.pack_conv2d_weight %[[W]] into %[[CTX]][0] {{.*}} : memref<4x3x3x3xf32>
// CHECK: nn_kernel.pack_gemm_b %[[B]] into %[[CTX]][1] transpose_b : memref<4x16xf32>
func.func @prepare(%w: tensor<4x3x3x3xf32>, %b: tensor<4x16xf32>, %ctx: !nn_kernel.context) {
  nn_kernel.pack_conv2d_weight %w into %ctx[0] input_size [3, 8, 8] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<4x3x3x3xf32>
  nn_kernel.pack_gemm_b %b into %ctx[1] transpose_b : tensor<4x16xf32>
  return
}

// -----

// A state write becomes a copy into the state argument's buffer. It reads
// the argument, so an op before it cannot take that buffer for its result
// (the generic below would otherwise be computed in place into %s).
// CHECK-LABEL: func.func @write_state
// CHECK-SAME: (%[[S:[^:]+]]: memref<3xf32>, %[[X:[^:]+]]: memref<3xf32>)
// CHECK: %[[NEW:.+]] = memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<3xf32>) outs(%[[NEW]] : memref<3xf32>)
// CHECK: memref.copy %[[NEW]], %[[S]]
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
func.func @write_state(%s: tensor<3xf32> {bufferization.writable = true}, %x: tensor<3xf32>) {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf32>) outs(%s : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.negf %in : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  nn_kernel.write_state %r into %s : tensor<3xf32>
  return
}
