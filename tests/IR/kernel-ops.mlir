// RUN: nn-opt %s | FileCheck %s
// RUN: nn-opt %s | nn-opt | FileCheck %s
// RUN: nn-opt %s -mlir-print-op-generic | nn-opt | FileCheck %s

// Every nn_kernel op, on tensors and on memrefs, prints and parses back.

// CHECK-LABEL: func.func @gemm
// CHECK: nn_kernel.gemm %arg0, %arg1 addends(%arg2, %arg3 : tensor<4xf32>, tensor<8x4xf32>) epilogue <add [0, 0, 1], add [0, 4, 1], clamp(0.000000e+00, 6.000000e+00)> outs(%arg4 : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
// CHECK: nn_kernel.gemm %arg0, %arg5 epilogue <leaky_relu(1.250000e-01)> outs(%arg4 : tensor<8x4xf32>) transpose_b : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
// CHECK: nn_kernel.gemm %arg0, %arg1 outs(%arg4 : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
func.func @gemm(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %bias: tensor<4xf32>, %r: tensor<8x4xf32>, %init: tensor<8x4xf32>, %bt: tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = nn_kernel.gemm %a, %b addends(%bias, %r : tensor<4xf32>, tensor<8x4xf32>)
      epilogue #nn_kernel.epilogue<add [0, 0, 1], add [0, 4, 1], clamp(0.0, 6.0)> outs(%init : tensor<8x4xf32>)
      : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = nn_kernel.gemm %a, %bt epilogue <leaky_relu(0.125)> outs(%init : tensor<8x4xf32>) transpose_b
      : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
  %2 = nn_kernel.gemm %a, %b outs(%init : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// B as two windows of rows of a [20, 2] matrix: rows [0, 16) and [4, 20).
// CHECK-LABEL: func.func @gemm_row_windows
// CHECK: nn_kernel.gemm %arg0, %arg1 row_windows [0, 4] outs(%arg2 : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<20x2xf32> -> tensor<8x4xf32>
func.func @gemm_row_windows(%a: tensor<8x16xf32>, %b: tensor<20x2xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = nn_kernel.gemm %a, %b row_windows [0, 4] outs(%init : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<20x2xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// A transposed B through strides, on memrefs: no result.
// CHECK-LABEL: func.func @gemm_memref
// CHECK: nn_kernel.gemm %arg0, %arg1 epilogue <relu> outs(%arg2 : memref<8x4xf32>) : memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x4xf32, strided<[1, 16]>>
// CHECK-NOT: ->
func.func @gemm_memref(%a: memref<8x16xf32, strided<[?, ?], offset: ?>>, %b: memref<16x4xf32, strided<[1, 16]>>, %c: memref<8x4xf32>) {
  nn_kernel.gemm %a, %b epilogue <relu> outs(%c : memref<8x4xf32>)
      : memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x4xf32, strided<[1, 16]>>
  return
}

// CHECK-LABEL: func.func @conv2d
// CHECK: nn_kernel.conv2d %arg0, %arg1 addends(%arg2 : tensor<4xf32>) epilogue <add [0, 1, 0], relu> outs(%arg3 : tensor<2x4x4x4xf32>) stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x4x4xf32>
// CHECK: nn_kernel.conv2d %arg4, %arg5 outs(%arg6 : tensor<1x8x8x8xf32>) stride [1, 1] padding [2, 2] dilation [2, 2] depthwise : tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x8x8xf32>
func.func @conv2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %init: tensor<2x4x4x4xf32>,
                  %dx: tensor<1x8x8x8xf32>, %dw: tensor<8x1x3x3xf32>, %dinit: tensor<1x8x8x8xf32>) -> (tensor<2x4x4x4xf32>, tensor<1x8x8x8xf32>) {
  %0 = nn_kernel.conv2d %x, %w addends(%b : tensor<4xf32>) epilogue <add [0, 1, 0], relu>
      outs(%init : tensor<2x4x4x4xf32>) stride [2, 2] padding [1, 1] dilation [1, 1]
      : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x4x4xf32>
  %1 = nn_kernel.conv2d %dx, %dw outs(%dinit : tensor<1x8x8x8xf32>) stride [1, 1] padding [2, 2] dilation [2, 2] depthwise
      : tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x8x8xf32>
  return %0, %1 : tensor<2x4x4x4xf32>, tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @max_pool2d
// CHECK: nn_kernel.max_pool2d %arg0 outs(%arg1 : tensor<2x3x4x4xf32>) kernel [3, 3] stride [2, 2] padding [1, 1, 0, 0] dilation [1, 1] : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
// CHECK: nn_kernel.max_pool2d %arg2 outs(%arg3 : memref<1x2x3x3xf32>) kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [2, 2] : memref<1x2x5x5xf32>
func.func @max_pool2d(%x: tensor<2x3x8x8xf32>, %init: tensor<2x3x4x4xf32>, %mx: memref<1x2x5x5xf32>, %my: memref<1x2x3x3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = nn_kernel.max_pool2d %x outs(%init : tensor<2x3x4x4xf32>) kernel [3, 3] stride [2, 2] padding [1, 1, 0, 0] dilation [1, 1]
      : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  nn_kernel.max_pool2d %mx outs(%my : memref<1x2x3x3xf32>) kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1] dilation [2, 2]
      : memref<1x2x5x5xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// CHECK-LABEL: func.func @batched
// CHECK: nn_kernel.batch_matmul %arg0, %arg1 outs(%arg2 : tensor<3x2x5x6xf32>) {b_perm = array<i64: 0, 2, 1>, out_perm = array<i64: 1, 0, 2, 3>} : tensor<2x3x5x4xf32>, tensor<3x6x4xf32> -> tensor<3x2x5x6xf32>
// CHECK: nn_kernel.attention %arg3, %arg3, %arg3 mask(%arg4 : tensor<5x5xf32>) outs(%arg5 : tensor<2x5x4xf32>) scale 5.000000e-01 : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
// CHECK: nn_kernel.attention %arg3, %arg3, %arg3 outs(%arg5 : tensor<2x5x4xf32>) scale 5.000000e-01 causal : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
func.func @batched(%a: tensor<2x3x5x4xf32>, %b: tensor<3x6x4xf32>, %init: tensor<3x2x5x6xf32>,
                   %q: tensor<2x5x4xf32>, %m: tensor<5x5xf32>, %o: tensor<2x5x4xf32>) -> (tensor<3x2x5x6xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>) {
  %0 = nn_kernel.batch_matmul %a, %b outs(%init : tensor<3x2x5x6xf32>) {b_perm = array<i64: 0, 2, 1>, out_perm = array<i64: 1, 0, 2, 3>}
      : tensor<2x3x5x4xf32>, tensor<3x6x4xf32> -> tensor<3x2x5x6xf32>
  %1 = nn_kernel.attention %q, %q, %q mask(%m : tensor<5x5xf32>) outs(%o : tensor<2x5x4xf32>) scale 0.5
      : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  %2 = nn_kernel.attention %q, %q, %q outs(%o : tensor<2x5x4xf32>) scale 0.5 causal
      : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %0, %1, %2 : tensor<3x2x5x6xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>
}

// CHECK-LABEL: func.func @prepare
// CHECK-SAME: %[[CTX:[a-z0-9]+]]: !nn_kernel.context
// CHECK: nn_kernel.pack_gemm_b %arg0 into %[[CTX]][3] transpose_b : tensor<4x16xf32>
// CHECK: nn_kernel.pack_conv2d_weight %arg1 into %[[CTX]][4] input_size [3, 8, 8] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<4x3x3x3xf32>
func.func @prepare(%w: tensor<4x16xf32>, %cw: tensor<4x3x3x3xf32>, %ctx: !nn_kernel.context) {
  nn_kernel.pack_gemm_b %w into %ctx[3] transpose_b : tensor<4x16xf32>
  nn_kernel.pack_conv2d_weight %cw into %ctx[4] input_size [3, 8, 8] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<4x3x3x3xf32>
  return
}

// CHECK-LABEL: func.func @forward
// CHECK: %[[W:.+]] = nn_kernel.packed %arg1[3] : <4x16>
// CHECK: nn_kernel.gemm %arg0, %[[W]] outs(%arg2 : tensor<8x4xf32>) transpose_b : tensor<8x16xf32>, !nn_kernel.packed<4x16> -> tensor<8x4xf32>
func.func @forward(%a: tensor<8x16xf32>, %ctx: !nn_kernel.context, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %w = nn_kernel.packed %ctx[3] : !nn_kernel.packed<4x16>
  %0 = nn_kernel.gemm %a, %w outs(%init : tensor<8x4xf32>) transpose_b : tensor<8x16xf32>, !nn_kernel.packed<4x16> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @write_state
// CHECK: nn_kernel.write_state %arg1 into %arg0 : tensor<3xf32>
func.func @write_state(%state: tensor<3xf32>, %value: tensor<3xf32>) {
  nn_kernel.write_state %value into %state : tensor<3xf32>
  return
}
