// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @gemm_shapes(%a: tensor<8x16xf32>, %b: tensor<15x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'nn_kernel.gemm' op computes [8, 4] from a [8, 16] and b [15, 4]: the shapes do not agree}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<15x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @gemm_row_windows_width(%a: tensor<8x16xf32>, %b: tensor<20x3xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{computes [8, 4] from a [8, 16] and 2 windows of b [20, 3]: the shapes do not agree}}
  %0 = nn_kernel.gemm %a, %b row_windows [0, 4] outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<20x3xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @gemm_row_window_outside(%a: tensor<8x16xf32>, %b: tensor<20x2xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{row window [5, 21) is not inside b [20, 2]}}
  %0 = nn_kernel.gemm %a, %b row_windows [0, 5] outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<20x2xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @gemm_row_windows_transposed(%a: tensor<8x16xf32>, %b: tensor<2x20xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{reads row windows of a plain b, not a transposed or packed one}}
  %0 = nn_kernel.gemm %a, %b row_windows [0, 4] outs(%c : tensor<8x4xf32>) transpose_b : tensor<8x16xf32>, tensor<2x20xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @gemm_transposed_shapes(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{computes [8, 4] from a [8, 16] and transposed b [16, 4]: the shapes do not agree}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) transpose_b : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @gemm_transposed_a_shapes(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{computes [8, 4] from transposed a [8, 16] and b [16, 4]: the shapes do not agree}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) transpose_a : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @gemm_rank(%a: tensor<2x8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{multiplies matrices: a, b and the init have rank 2, not 3, 2 and 2}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) : tensor<2x8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @addends_without_epilogue(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %r: tensor<4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{has 1 addends but its epilogue adds 0}}
  %0 = nn_kernel.gemm %a, %b addends(%r : tensor<4xf32>) epilogue <relu> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// A per-row addend strided as a full residual would be read out of bounds.
func.func @addend_too_small(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %r: tensor<4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{addend 0 has 4 elements, but its strides [0, 4, 1] reach element 31}}
  %0 = nn_kernel.gemm %a, %b addends(%r : tensor<4xf32>) epilogue <add [0, 4, 1]> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Strides that would overflow reach past every buffer (saturated, not
// wrapped around to a small offset).
func.func @addend_stride_overflow(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %r: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{addend 0 has 32 elements, but its strides [0, 4611686018427387904, 1] reach element 18446744073709551615}}
  %0 = nn_kernel.gemm %a, %b addends(%r : tensor<8x4xf32>) epilogue <add [0, 4611686018427387904, 1]> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @tensors_and_memrefs(%a: tensor<8x16xf32>, %b: memref<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{takes tensors or memrefs, not both}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, memref<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{takes statically shaped tensors, not 'tensor<?x16xf32>'}}
  %0 = nn_kernel.gemm %a, %b outs(%c : tensor<8x4xf32>) : tensor<?x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// The result is written row-major: a strided destination buffer is refused
// (bufferization copies through a row-major one).
func.func @strided_init(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{needs operand 2 row-major (an identity layout), not 'memref<8x4xf32, strided<[8, 1]>>'}}
  nn_kernel.gemm %a, %b outs(%c : memref<8x4xf32, strided<[8, 1]>>) : memref<8x16xf32>, memref<16x4xf32>
  return
}

// -----

func.func @packed_shape(%a: tensor<8x16xf32>, %ctx: !nn_kernel.context, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %w = nn_kernel.packed %ctx[0] : !nn_kernel.packed<16x5>
  // expected-error @+1 {{computes [8, 4] from a [8, 16] and b [16, 5]: the shapes do not agree}}
  %0 = nn_kernel.gemm %a, %w outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, !nn_kernel.packed<16x5> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @epilogue_threes(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{an addend has 3 strides [image, row, col], not 2}}
  %0 = nn_kernel.gemm %a, %b epilogue <add [0, 1]> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @epilogue_order(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'add' after the activation, which comes last}}
  %0 = nn_kernel.gemm %a, %b epilogue <relu, add [0, 0, 1]> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @epilogue_keyword(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{expected 'add', 'relu', 'clamp' or 'leaky_relu', not 'gelu'}}
  %0 = nn_kernel.gemm %a, %b epilogue <gelu> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @epilogue_clamp(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{clamp's bounds are not an interval}}
  %0 = nn_kernel.gemm %a, %b epilogue <clamp(6.0, 0.0)> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @epilogue_three_addends(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{an epilogue applies at most 2 addends, not 3}}
  %0 = nn_kernel.gemm %a, %b epilogue <add [0, 0, 1], add [0, 0, 1], add [0, 0, 1]> outs(%c : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @conv_output(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %y: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{computes [1, 4, 6, 6] from an input [1, 3, 8, 8] and a weight [4, 3, 3, 3], not [1, 4, 8, 8]}}
  %0 = nn_kernel.conv2d %x, %w outs(%y : tensor<1x4x8x8xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %y: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{has an input of 3 channels but a weight [4, 2, 3, 3] for 2}}
  %0 = nn_kernel.conv2d %x, %w outs(%y : tensor<1x4x6x6xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %y: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{stride [0, 1] is below 1}}
  %0 = nn_kernel.conv2d %x, %w outs(%y : tensor<1x4x6x6xf32>) stride [0, 1] padding [0, 0] dilation [1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @depthwise_weight(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>, %y: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{is depthwise over 4 channels: its weight is [4, 1, KH, KW], not [4, 2, 3, 3]}}
  %0 = nn_kernel.conv2d %x, %w outs(%y : tensor<1x4x6x6xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] depthwise : tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @depthwise_packed(%x: tensor<1x4x8x8xf32>, %ctx: !nn_kernel.context, %y: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = nn_kernel.packed %ctx[0] : !nn_kernel.packed<4x1x3x3>
  // expected-error @+1 {{is depthwise and reads its weight as it is, not packed}}
  %0 = nn_kernel.conv2d %x, %w outs(%y : tensor<1x4x6x6xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] depthwise : tensor<1x4x8x8xf32>, !nn_kernel.packed<4x1x3x3> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// The direct convolution reads its input row-major.
func.func @conv_strided_input(%x: memref<1x3x8x8xf32, strided<[384, 64, 8, 1]>>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{needs operand 0 row-major (an identity layout)}}
  nn_kernel.conv2d %x, %w outs(%y : memref<1x4x6x6xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] : memref<1x3x8x8xf32, strided<[384, 64, 8, 1]>>, memref<4x3x3x3xf32>
  return
}

// -----

func.func @batched_out_perm(%a: tensor<2x5x4xf32>, %b: tensor<2x4x6xf32>, %c: tensor<2x6x5xf32>) -> tensor<2x6x5xf32> {
  // expected-error @+1 {{writes rows contiguous: out_perm keeps the last dimension last}}
  %0 = nn_kernel.batch_matmul %a, %b outs(%c : tensor<2x6x5xf32>) {out_perm = array<i64: 0, 2, 1>} : tensor<2x5x4xf32>, tensor<2x4x6xf32> -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

func.func @batched_perm(%a: tensor<2x5x4xf32>, %b: tensor<2x4x6xf32>, %c: tensor<2x5x6xf32>) -> tensor<2x5x6xf32> {
  // expected-error @+1 {{a_perm [0, 0, 1] is not a permutation of 3 dimensions}}
  %0 = nn_kernel.batch_matmul %a, %b outs(%c : tensor<2x5x6xf32>) {a_perm = array<i64: 0, 0, 1>} : tensor<2x5x4xf32>, tensor<2x4x6xf32> -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

func.func @batched_broadcast(%a: tensor<3x5x4xf32>, %b: tensor<2x4x6xf32>, %c: tensor<2x5x6xf32>) -> tensor<2x5x6xf32> {
  // expected-error @+1 {{a is [3, 5, 4], which does not broadcast to the batch [2]}}
  %0 = nn_kernel.batch_matmul %a, %b outs(%c : tensor<2x5x6xf32>) : tensor<3x5x4xf32>, tensor<2x4x6xf32> -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

func.func @batched_inner(%a: tensor<2x5x4xf32>, %b: tensor<2x3x6xf32>, %c: tensor<2x5x6xf32>) -> tensor<2x5x6xf32> {
  // expected-error @+1 {{b is [2, 3, 6], but the kernel reads 4x6 matrices from it}}
  %0 = nn_kernel.batch_matmul %a, %b outs(%c : tensor<2x5x6xf32>) : tensor<2x5x4xf32>, tensor<2x3x6xf32> -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

func.func @batched_rank(%a: tensor<1x1x1x1x2x5x4xf32>, %b: tensor<4x6xf32>, %c: tensor<1x1x1x1x2x5x6xf32>) -> tensor<1x1x1x1x2x5x6xf32> {
  // expected-error @+1 {{has 1 to 4 batch dimensions, not 5}}
  %0 = nn_kernel.batch_matmul %a, %b outs(%c : tensor<1x1x1x1x2x5x6xf32>) : tensor<1x1x1x1x2x5x4xf32>, tensor<4x6xf32> -> tensor<1x1x1x1x2x5x6xf32>
  return %0 : tensor<1x1x1x1x2x5x6xf32>
}

// -----

func.func @attention_mask_and_causal(%q: tensor<2x5x4xf32>, %m: tensor<5x5xf32>, %o: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  // expected-error @+1 {{is causal or masked, not both}}
  %0 = nn_kernel.attention %q, %q, %q mask(%m : tensor<5x5xf32>) outs(%o : tensor<2x5x4xf32>) scale 0.5 causal : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

func.func @attention_mask_shape(%q: tensor<2x5x4xf32>, %m: tensor<5x4xf32>, %o: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  // expected-error @+1 {{mask is [5, 4], but the kernel reads 5x5 matrices from it}}
  %0 = nn_kernel.attention %q, %q, %q mask(%m : tensor<5x4xf32>) outs(%o : tensor<2x5x4xf32>) scale 0.5 : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

func.func @attention_mask_perm(%q: tensor<2x5x4xf32>, %o: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  // expected-error @+1 {{has a mask_perm but no mask}}
  %0 = nn_kernel.attention %q, %q, %q outs(%o : tensor<2x5x4xf32>) scale 0.5 {mask_perm = array<i64: 1, 0>} : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

func.func @pack_slot(%w: tensor<4x16xf32>, %ctx: !nn_kernel.context) {
  // expected-error @+1 {{names context slot -1; slots count from 0 to 2^31 - 1}}
  nn_kernel.pack_gemm_b %w into %ctx[-1] : tensor<4x16xf32>
  return
}

// -----

func.func @pack_conv_input(%w: tensor<4x3x3x3xf32>, %ctx: !nn_kernel.context) {
  // expected-error @+1 {{packs a weight [4, 3, 3, 3] for inputs [C, H, W] of C = 3, not [2, 8, 8]}}
  nn_kernel.pack_conv2d_weight %w into %ctx[0] input_size [2, 8, 8] stride [1, 1] padding [0, 0] dilation [1, 1] : tensor<4x3x3x3xf32>
  return
}

// -----

func.func @write_state_into_value(%x: tensor<3xf32>) {
  %e = tensor.empty() : tensor<3xf32>
  // expected-error @+1 {{'nn_kernel.write_state' op writes into an argument of the enclosing function (the caller's storage of the state), not a value computed in it}}
  nn_kernel.write_state %x into %e : tensor<3xf32>
  return
}

// -----

func.func @write_state_types(%s: tensor<3xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'nn_kernel.write_state' op failed to verify that all of {value, state} have same type}}
  "nn_kernel.write_state"(%x, %s) : (tensor<4xf32>, tensor<3xf32>) -> ()
  return
}

// -----

func.func @max_pool_rank(%x: tensor<1x3x8xf32>, %y: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+1 {{pools NCHW into NCHW: ranks 4, not 3 and 3}}
  %0 = nn_kernel.max_pool2d %x outs(%y : tensor<1x3x4xf32>) kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] dilation [1, 1] : tensor<1x3x8xf32> -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

func.func @max_pool_kernel(%x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{kernel is 2 sizes (H, W) of at least 1, not [2, 0]}}
  %0 = nn_kernel.max_pool2d %x outs(%y : tensor<1x3x4x4xf32>) kernel [2, 0] stride [2, 2] padding [0, 0, 0, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool_padding(%x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{padding has 4 values (top, left, bottom, right), not 2}}
  %0 = nn_kernel.max_pool2d %x outs(%y : tensor<1x3x4x4xf32>) kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool_stride(%x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{stride [2, 0] is below 1}}
  %0 = nn_kernel.max_pool2d %x outs(%y : tensor<1x3x4x4xf32>) kernel [2, 2] stride [2, 0] padding [0, 0, 0, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool_output(%x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32> {
  // expected-error @+1 {{computes [1, 3, 4, 4] from an input [1, 3, 8, 8], not [1, 3, 4, 5]}}
  %0 = nn_kernel.max_pool2d %x outs(%y : tensor<1x3x4x5xf32>) kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x5xf32>
  return %0 : tensor<1x3x4x5xf32>
}

// -----

func.func @max_pool_channels(%x: tensor<1x3x8x8xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{computes [1, 3, 4, 4] from an input [1, 3, 8, 8], not [1, 2, 4, 4]}}
  %0 = nn_kernel.max_pool2d %x outs(%y : tensor<1x2x4x4xf32>) kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}
