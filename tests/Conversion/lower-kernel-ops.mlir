// RUN: nn-opt %s -nn-lower-kernel-ops -cse -split-input-file -verify-diagnostics | FileCheck %s

// nn-lower-kernel-ops: each nn_kernel op on memrefs becomes its nn_kernels
// call, operands passed as KernelABI.def types them.

// A GEMM with a transposed B: its row and column strides are passed
// swapped; the bias an addend of the epilogue struct (strides {0, 0, 1}),
// the relu its activation; ldc is the row-major result's N.
// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME: (%[[X:.+]]: memref<64x784xf32>, %[[W:.+]]: memref<256x784xf32>, %[[B:.+]]: memref<256xf32>, %[[OUT:.+]]: memref<64x256xf32>)
// CHECK: %[[SLOT:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(array<2 x struct<(ptr, i64, i64, i64)>>, i32, f32, f32, f32)>
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[XS:.+]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[XP:.+]] = llvm.inttoptr
// CHECK: %[[XS0:.+]] = arith.index_cast %[[XS]]#0
// CHECK: %[[XS1:.+]] = arith.index_cast %[[XS]]#1
// CHECK: memref.extract_strided_metadata %[[B]]
// CHECK: %[[BP:.+]] = llvm.inttoptr
// CHECK: llvm.insertvalue %[[BP]], %{{.+}}[0, 0, 0]
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[0, 0, 1]
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[0, 0, 2]
// CHECK: llvm.insertvalue %c1_i64, %{{.+}}[0, 0, 3]
// CHECK: llvm.insertvalue %c1_i32, %{{.+}}[1]
// CHECK: llvm.store %{{.+}}, %[[SLOT]]
// CHECK: memref.extract_strided_metadata %[[OUT]]
// CHECK: %[[OP:.+]] = llvm.inttoptr
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[WS:.+]]:2 = memref.extract_strided_metadata %[[W]]
// CHECK: %[[WP:.+]] = llvm.inttoptr
// CHECK: %[[WS0:.+]] = arith.index_cast %[[WS]]#0
// CHECK: %[[WS1:.+]] = arith.index_cast %[[WS]]#1
// CHECK: call @nn_rt_sgemm(%c64_i64, %c256_i64, %c784_i64, %[[XP]], %[[XS0]], %[[XS1]], %[[WP]], %[[WS1]], %[[WS0]], %[[OP]], %c256_i64, %c0_i32, %[[SLOT]])
// CHECK-NOT: nn_kernel
// CHECK: func.func private @nn_rt_sgemm(i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i32, !llvm.ptr)
func.func @linear_relu(%x: memref<64x784xf32>, %w: memref<256x784xf32>, %b: memref<256xf32>, %out: memref<64x256xf32>) {
  nn_kernel.gemm %x, %w addends(%b : memref<256xf32>) epilogue <add [0, 0, 1], relu> outs(%out : memref<64x256xf32>) transpose_b
      : memref<64x784xf32>, memref<256x784xf32>
  return
}

// -----

// A transposed A ([K, M]): K from its rows, its strides passed swapped.
// CHECK-LABEL: func.func @gemm_transposed_a
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[AS:.+]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[AS0:.+]] = arith.index_cast %[[AS]]#0
// CHECK: %[[AS1:.+]] = arith.index_cast %[[AS]]#1
// CHECK: call @nn_rt_sgemm(%c4_i64, %c5_i64, %c8_i64, %{{.+}}, %[[AS1]], %[[AS0]],
func.func @gemm_transposed_a(%dy: memref<8x4xf32>, %x: memref<8x5xf32>, %out: memref<4x5xf32>) {
  nn_kernel.gemm %dy, %x outs(%out : memref<4x5xf32>) transpose_a : memref<8x4xf32>, memref<8x5xf32>
  return
}

// -----

// B in row windows: the windows' first rows an i64 array in a stack slot,
// passed with their count to nn_rt_sgemm_b_windows; N is the windows'.
// CHECK-LABEL: func.func @gemm_row_windows
// CHECK: %[[ROWS:.+]] = llvm.alloca %{{.+}} x !llvm.array<3 x i64>
// CHECK: %[[A0:.+]] = llvm.insertvalue %c0_i64, %{{.+}}[0] : !llvm.array<3 x i64>
// CHECK: %[[A1:.+]] = llvm.insertvalue %c1_i64, %[[A0]][1]
// CHECK: %[[A2:.+]] = llvm.insertvalue %c4_i64, %[[A1]][2]
// CHECK: llvm.store %[[A2]], %[[ROWS]]
// CHECK: call @nn_rt_sgemm_b_windows(%c3_i64, %c6_i64, %c8_i64, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %c3_i64, %[[ROWS]], %{{.+}}, %c6_i64, %c0_i32, %{{.+}}) : (i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr) -> ()
func.func @gemm_row_windows(%a: memref<3x8xf32>, %x: memref<12x2xf32>, %out: memref<3x6xf32>) {
  nn_kernel.gemm %a, %x row_windows [0, 1, 4] outs(%out : memref<3x6xf32>) : memref<3x8xf32>, memref<12x2xf32>
  return
}

// -----

// A view is passed as it is: its offset is added to the aligned base
// pointer, its strides passed. Clamp's bounds reach the struct.
// CHECK-LABEL: func.func @gemm_view
// CHECK: %{{.+}}, %[[OFF:.+]], %{{.+}}, %{{.+}} = memref.extract_strided_metadata %arg0 : memref<8x16xf32, strided<[32, 1], offset: 8>>
// CHECK: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[BYTES:.+]] = arith.muli %[[OFF]], %c4
// CHECK: arith.addi %[[BASE]], %[[BYTES]]
// CHECK: llvm.insertvalue %c2_i32, %{{.+}}[1]
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: llvm.insertvalue %[[ZERO]], %{{.+}}[2]
// CHECK: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK: llvm.insertvalue %[[SIX]], %{{.+}}[3]
// CHECK: call @nn_rt_sgemm(%c8_i64, %c4_i64, %c16_i64,
func.func @gemm_view(%a: memref<8x16xf32, strided<[32, 1], offset: 8>>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  nn_kernel.gemm %a, %b epilogue <clamp(0.0, 6.0)> outs(%c : memref<8x4xf32>) : memref<8x16xf32, strided<[32, 1], offset: 8>>, memref<16x4xf32>
  return
}

// -----

// Packing in @prepare: the size, a context buffer for the slot, the
// packing into it (B's strides swapped for a transposed weight; the
// convolution's geometry: C, H, W, O, KH, KW, strides, pads, dilations,
// OH, OW). Forward loads the slot from the context, now an !llvm.ptr.
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: %[[CTX:[a-z0-9]+]]: !llvm.ptr)
// CHECK: %[[SIZE:.+]] = call @nn_rt_sgemm_pack_b_size(%c784_i64, %c256_i64)
// CHECK: %[[BUF:.+]] = call @nn_rt_context_buffer(%[[CTX]], %c1_i64, %[[SIZE]])
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[S:.+]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[P:.+]] = llvm.inttoptr
// CHECK: %[[S0:.+]] = arith.index_cast %[[S]]#0
// CHECK: %[[S1:.+]] = arith.index_cast %[[S]]#1
// CHECK: call @nn_rt_sgemm_pack_b(%c784_i64, %c256_i64, %[[P]], %[[S1]], %[[S0]], %[[BUF]])
// CHECK: %[[CSIZE:.+]] = call @nn_rt_conv2d_pack_weight_size(%c3_i64, %c9_i64, %c11_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c6_i64)
// CHECK: %[[CBUF:.+]] = call @nn_rt_context_buffer(%[[CTX]], %c2_i64, %[[CSIZE]])
// CHECK: call @nn_rt_conv2d_pack_weight(%c3_i64, %c9_i64, %c11_i64, %c4_i64, %c3_i64, %c3_i64, %{{.+}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c6_i64, %[[CBUF]])
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[FCTX:[a-z0-9]+]]: !llvm.ptr, %{{.+}}: memref<64x256xf32>
// CHECK: %[[GEP:.+]] = llvm.getelementptr %[[FCTX]][1]
// CHECK: %[[PACKED:.+]] = llvm.load %[[GEP]] : !llvm.ptr -> !llvm.ptr
// CHECK: call @nn_rt_sgemm_packed_b(%c64_i64, %c256_i64, %c784_i64, %{{.+}}, %{{.+}}, %{{.+}}, %[[PACKED]], %{{.+}}, %c256_i64, %c0_i32, %{{.+}})
// CHECK: %[[CGEP:.+]] = llvm.getelementptr %[[FCTX]][2]
// CHECK: %[[CPACKED:.+]] = llvm.load %[[CGEP]]
// CHECK: call @nn_rt_conv2d_nchw_packed(%c2_i64, %c3_i64, %c9_i64, %c11_i64, %{{.+}}, %c4_i64, %c3_i64, %c3_i64, %[[CPACKED]],
// CHECK-NOT: nn_kernel
func.func @prepare(%w: memref<256x784xf32>, %cw: memref<4x3x3x3xf32>, %ctx: !nn_kernel.context) {
  nn_kernel.pack_gemm_b %w into %ctx[1] transpose_b : memref<256x784xf32>
  nn_kernel.pack_conv2d_weight %cw into %ctx[2] input_size [3, 9, 11] stride [2, 2] padding [1, 1] dilation [1, 1] : memref<4x3x3x3xf32>
  return
}
func.func @forward(%x: memref<64x784xf32>, %in: memref<2x3x9x11xf32>, %ctx: !nn_kernel.context, %out: memref<64x256xf32>, %y: memref<2x4x5x6xf32>) {
  %w = nn_kernel.packed %ctx[1] : !nn_kernel.packed<256x784>
  nn_kernel.gemm %x, %w outs(%out : memref<64x256xf32>) transpose_b : memref<64x784xf32>, !nn_kernel.packed<256x784>
  %cw = nn_kernel.packed %ctx[2] : !nn_kernel.packed<4x3x3x3>
  nn_kernel.conv2d %in, %cw outs(%y : memref<2x4x5x6xf32>) stride [2, 2] padding [1, 1] dilation [1, 1] : memref<2x3x9x11xf32>, !nn_kernel.packed<4x3x3x3>
  return
}

// -----

// nn_rt_conv2d_nchw(N, C, H, W, input, O, KH, KW, weight, strides, pads
// {top, left}, dilations, OH, OW, output, epilogue): the bias per row
// (strides {0, 1, 0}), the leaky relu's slope. The depthwise kernel takes
// no O and no epilogue here (a null pointer).
// CHECK-LABEL: func.func @conv
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[0, 0, 1]
// CHECK: llvm.insertvalue %c1_i64, %{{.+}}[0, 0, 2]
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[0, 0, 3]
// CHECK: llvm.insertvalue %c3_i32, %{{.+}}[1]
// CHECK: %[[SLOPE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK: llvm.insertvalue %[[SLOPE]], %{{.+}}[4]
// CHECK: call @nn_rt_conv2d_nchw(%c2_i64, %c3_i64, %c9_i64, %c11_i64, %{{.+}}, %c4_i64, %c3_i64, %c3_i64, %{{.+}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c6_i64, %{{.+}}, %{{.+}})
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @nn_rt_conv2d_depthwise_nchw(%c2_i64, %c8_i64, %c9_i64, %c11_i64, %{{.+}}, %c3_i64, %c3_i64, %{{.+}}, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c6_i64, %{{.+}}, %[[NULL]])
func.func @conv(%x: memref<2x3x9x11xf32>, %w: memref<4x3x3x3xf32>, %b: memref<4xf32>, %y: memref<2x4x5x6xf32>,
                %dx: memref<2x8x9x11xf32>, %dw: memref<8x1x3x3xf32>, %dy: memref<2x8x5x6xf32>) {
  nn_kernel.conv2d %x, %w addends(%b : memref<4xf32>) epilogue <add [0, 1, 0], leaky_relu(0.125)> outs(%y : memref<2x4x5x6xf32>) stride [2, 2] padding [1, 1] dilation [1, 1]
      : memref<2x3x9x11xf32>, memref<4x3x3x3xf32>
  nn_kernel.conv2d %dx, %dw outs(%dy : memref<2x8x5x6xf32>) stride [2, 2] padding [1, 1] dilation [1, 1] depthwise
      : memref<2x8x9x11xf32>, memref<8x1x3x3xf32>
  return
}

// -----

// nn_rt_max_pool2d_nchw(N, C, H, W, input, KH, KW, strides, pads {top,
// left}, dilations, OH, OW, output): the high padding is the output's size.
// CHECK-LABEL: func.func @max_pool
// CHECK: call @nn_rt_max_pool2d_nchw(%c2_i64, %c8_i64, %c9_i64, %c11_i64, %{{.+}}, %c3_i64, %c2_i64, %c2_i64, %c3_i64, %c1_i64, %c0_i64, %c1_i64, %c2_i64, %c5_i64, %c3_i64, %{{.+}}) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
func.func @max_pool(%x: memref<2x8x9x11xf32>, %y: memref<2x8x5x3xf32>) {
  nn_kernel.max_pool2d %x outs(%y : memref<2x8x5x3xf32>) kernel [3, 2] stride [2, 3] padding [1, 0, 1, 0] dilation [1, 2]
      : memref<2x8x9x11xf32>
  return
}

// -----

// A batched matmul against a shared transposed weight: the weight's
// matrix has batch strides 0 and its strides swapped by b_perm; the
// result's {batch 96, 32; row 4; col 1}; the batch sizes padded with 1s.
// CHECK-LABEL: func.func @batched
// CHECK: %[[SIZES:.+]] = llvm.alloca %{{.+}} x !llvm.array<4 x i64>
// CHECK: %[[C:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(ptr, array<4 x i64>, i64, i64)>
// CHECK: %[[E:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(array<2 x struct<(ptr, i64, i64, i64)>>, i32, f32, f32, f32)>
// CHECK: %[[B:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(ptr, array<4 x i64>, i64, i64)>
// CHECK: %[[A:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(ptr, array<4 x i64>, i64, i64)>
// CHECK: llvm.store %{{.+}}, %[[A]]
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %[[BS:.+]]:2 = memref.extract_strided_metadata %arg1
// CHECK: %[[BS0:.+]] = arith.index_cast %[[BS]]#0
// CHECK: %[[BS1:.+]] = arith.index_cast %[[BS]]#1
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[1, 2]
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[1, 3]
// CHECK: llvm.insertvalue %[[BS1]], %{{.+}}[2]
// CHECK: llvm.insertvalue %[[BS0]], %{{.+}}[3]
// CHECK: llvm.store %{{.+}}, %[[B]]
// CHECK: llvm.insertvalue %c32_i64, %{{.+}}[0, 0, 1]
// CHECK: llvm.store %{{.+}}, %[[E]]
// CHECK: llvm.insertvalue %c96_i64, %{{.+}}[1, 2]
// CHECK: llvm.insertvalue %c32_i64, %{{.+}}[1, 3]
// CHECK: llvm.insertvalue %c4_i64, %{{.+}}[2]
// CHECK: llvm.insertvalue %c1_i64, %{{.+}}[3]
// CHECK: llvm.store %{{.+}}, %[[C]]
// CHECK: llvm.insertvalue %c1_i64, %{{.+}}[0] : !llvm.array<4 x i64>
// CHECK: llvm.insertvalue %c1_i64, %{{.+}}[1] : !llvm.array<4 x i64>
// CHECK: llvm.insertvalue %c2_i64, %{{.+}}[2] : !llvm.array<4 x i64>
// CHECK: llvm.insertvalue %c3_i64, %{{.+}}[3] : !llvm.array<4 x i64>
// CHECK: call @nn_rt_sgemm_batched(%[[SIZES]], %c8_i64, %c4_i64, %c16_i64, %[[A]], %[[B]], %[[C]], %c0_i32, %[[E]])
func.func @batched(%a: memref<2x3x8x16xf32>, %b: memref<4x16xf32>, %r: memref<2x3x8x4xf32>, %c: memref<2x3x8x4xf32>) {
  nn_kernel.batch_matmul %a, %b addends(%r : memref<2x3x8x4xf32>) epilogue <add [32, 4, 1], relu> outs(%c : memref<2x3x8x4xf32>) {b_perm = array<i64: 1, 0>}
      : memref<2x3x8x16xf32>, memref<4x16xf32>
  return
}

// -----

// Attention over head-split views: the result written in the merged
// order (out_perm: batch strides 8 and 2, row 16, col 1); no mask is a
// null pointer, a shared [L, S] mask has batch strides 0.
// CHECK-LABEL: func.func @attention
// CHECK: %[[NOMASK:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.insertvalue %c8_i64, %{{.+}}[1, 2]
// CHECK: llvm.insertvalue %c2_i64, %{{.+}}[1, 3]
// CHECK: llvm.insertvalue %c16_i64, %{{.+}}[2]
// CHECK: llvm.insertvalue %c1_i64, %{{.+}}[3]
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: call @nn_rt_attention(%{{.+}}, %c6_i64, %c6_i64, %c2_i64, %c2_i64, %{{.+}}, %{{.+}}, %{{.+}}, %[[NOMASK]], %{{.+}}, %[[HALF]], %c0_i32)
// CHECK: memref.extract_strided_metadata %arg1
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[1, 2]
// CHECK: llvm.insertvalue %c0_i64, %{{.+}}[1, 3]
// CHECK: %[[QUARTER:.+]] = arith.constant 2.500000e-01 : f32
// CHECK: call @nn_rt_attention({{.*}}, %[[QUARTER]], %c0_i32)
func.func @attention(%qkv: memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>, %m: memref<6x6xf32>, %o: memref<6x2x4x2xf32>, %o2: memref<2x4x6x2xf32>) {
  nn_kernel.attention %qkv, %qkv, %qkv outs(%o : memref<6x2x4x2xf32>) scale 0.5 {key_perm = array<i64: 1, 2, 0, 3>, out_perm = array<i64: 2, 0, 1, 3>, query_perm = array<i64: 1, 2, 0, 3>, value_perm = array<i64: 1, 2, 0, 3>}
      : memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>, memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>, memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>
  nn_kernel.attention %qkv, %qkv, %qkv mask(%m : memref<6x6xf32>) outs(%o2 : memref<2x4x6x2xf32>) scale 0.25 {key_perm = array<i64: 1, 2, 0, 3>, query_perm = array<i64: 1, 2, 0, 3>, value_perm = array<i64: 1, 2, 0, 3>}
      : memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>, memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>, memref<6x2x4x2xf32, strided<[48, 24, 2, 1]>>
  return
}

// -----

// An op still on tensors is refused at the op.
func.func @still_tensors(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'nn_kernel.gemm' op is still on tensors: nn-lower-kernel-ops runs after bufferization}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// The kernels are declared as KernelABI.def types them: a symbol of one of
// their names with another type is refused before anything is lowered.
// expected-error@+1 {{'nn_rt_sgemm' is a function of nn_kernels, of type '(i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i32, !llvm.ptr) -> ()', but this module declares it as '(i64) -> ()'}}
func.func private @nn_rt_sgemm(i64)

func.func @gemm(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  nn_kernel.gemm %a, %b outs(%c : memref<8x4xf32>) : memref<8x16xf32>, memref<16x4xf32>
  return
}
