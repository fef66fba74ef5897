// RUN: nn-opt %s -nn-hoist-state-computations -nn-lower-state-to-arguments -convert-nn-to-kernel -split-input-file | FileCheck %s --implicit-check-not=llvm --implicit-check-not=call --implicit-check-not=memref

// A linear weight forward never writes is packed once by @prepare into
// context slot 0; forward loads the slot and calls the packed GEMM. The
// weight read by two linears is packed once.
// CHECK: module attributes {{{.*}}nn.context_slots = 1 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: (%[[W:.+]]: tensor<3x4xf32> {nn.state = "w"}, %[[CTX:.+]]: !nn_kernel.context {nn.context})
// CHECK-NEXT: nn_kernel.pack_gemm_b %[[W]] into %[[CTX]][0] transpose_b : tensor<3x4xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%{{.+}}: tensor<3x4xf32> {nn.state = "w"}, %[[X:.+]]: tensor<2x4xf32>, %[[FCTX:.+]]: !nn_kernel.context {nn.context})
// CHECK: %[[PACKED:.+]] = nn_kernel.packed %[[FCTX]][0] : <3x4>
// CHECK: nn_kernel.gemm %[[X]], %[[PACKED]] outs(%{{.*}} : tensor<2x3xf32>) transpose_b : tensor<2x4xf32>, !nn_kernel.packed<3x4>
// CHECK: nn_kernel.gemm %[[X]], %{{.*}} transpose_b : tensor<2x4xf32>, !nn_kernel.packed<3x4>
nn.parameter @w : tensor<3x4xf32>
func.func @forward(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = nn.load @w : tensor<3x4xf32>
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %z = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A batch-norm-folded convolution weight: @prepare computes it and packs
// it; forward calls the packed convolution. Forward no longer reads the
// dense weight, so its context slot is dropped: @prepare keeps it only as a
// temporary for the packing (it returns nothing), and the packed weight
// moves down into slot 0, the only slot.
// CHECK: module attributes {nn.context_bytes = array<i64>, nn.context_slots = 1 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: ({{.+}}) {
// CHECK: %[[W2:.+]] = nn.mul
// CHECK: nn_kernel.pack_conv2d_weight %[[W2]] into %{{.+}}[0] input_size [3, 4, 4] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<8x3x3x3xf32>
// CHECK: return{{$}}
// CHECK-LABEL: func.func @forward
// CHECK-NOT: nn.context_slot
// CHECK-SAME: {
// CHECK: %[[PACKED:.+]] = nn_kernel.packed %{{.+}}[0] : <8x3x3x3>
// CHECK: nn_kernel.conv2d %{{.+}}, %[[PACKED]]
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

// Batch-norm folded into two convolutions with biases, and a scaled linear
// weight (nn-fold-scalar-mul's W * s): the three folded weights only feed
// packings and lose their slots; the folded biases stay dense (the kernels'
// epilogues read them), renumbered 0 and 1 in order, and the three packed
// weights follow in slots 2, 3 and 4 (the linear's, the second and the
// first convolution's, in the order the rewrite reaches them).
// CHECK: module attributes {nn.context_bytes = array<i64: 32, 32>, nn.context_slots = 5 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: -> (tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[B1:.+]] = nn.add
// CHECK: %[[B2:.+]] = nn.add
// CHECK: nn_kernel.pack_gemm_b %{{.+}} into %{{.+}}[2] transpose_b : tensor<8x8xf32>
// CHECK: nn_kernel.pack_conv2d_weight %{{.+}} into %{{.+}}[3] input_size [8, 4, 4]
// CHECK: nn_kernel.pack_conv2d_weight %{{.+}} into %{{.+}}[4] input_size [3, 4, 4]
// CHECK: return %[[B1]], %[[B2]] : tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[S0:[a-z0-9]+]]: tensor<8xf32> {nn.context_slot = 0 : i64}, %[[S1:[a-z0-9]+]]: tensor<8xf32> {nn.context_slot = 1 : i64}, %{{[a-z0-9]+}}: tensor<1x3x4x4xf32>, %{{[a-z0-9]+}}: tensor<2x8xf32>, %{{[a-z0-9]+}}: !nn_kernel.context {nn.context})
// CHECK: %[[P4:.+]] = nn_kernel.packed %{{.+}}[4] : <8x3x3x3>
// CHECK: nn_kernel.conv2d %{{.+}}, %[[P4]] addends(%[[S0]] : tensor<8xf32>)
// CHECK: %[[P3:.+]] = nn_kernel.packed %{{.+}}[3] : <8x8x3x3>
// CHECK: nn_kernel.conv2d %{{.+}}, %[[P3]] addends(%[[S1]] : tensor<8xf32>)
// CHECK: %[[P2:.+]] = nn_kernel.packed %{{.+}}[2] : <8x8>
// CHECK: nn_kernel.gemm %{{.+}}, %[[P2]]
nn.parameter @w1 : tensor<8x3x3x3xf32>
nn.parameter @w2 : tensor<8x8x3x3xf32>
nn.parameter @s : tensor<8x1x1x1xf32>
nn.parameter @b : tensor<8xf32>
nn.parameter @l : tensor<8x8xf32>
nn.parameter @k : tensor<f32>
func.func @forward(%x: tensor<1x3x4x4xf32>, %h: tensor<2x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<2x8xf32>) {
  %w1 = nn.load @w1 : tensor<8x3x3x3xf32>
  %w2 = nn.load @w2 : tensor<8x8x3x3xf32>
  %s = nn.load @s : tensor<8x1x1x1xf32>
  %b = nn.load @b : tensor<8xf32>
  %l = nn.load @l : tensor<8x8xf32>
  %k = nn.load @k : tensor<f32>
  %fw1 = nn.mul %w1, %s : (tensor<8x3x3x3xf32>, tensor<8x1x1x1xf32>) -> tensor<8x3x3x3xf32>
  %fb1 = nn.add %b, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %fw2 = nn.mul %w2, %s : (tensor<8x8x3x3xf32>, tensor<8x1x1x1xf32>) -> tensor<8x8x3x3xf32>
  %fb2 = nn.add %fb1, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %fl = nn.mul %l, %k : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32>
  %y1 = nn.conv %x, %fw1, %fb1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %y2 = nn.conv %y1, %fw2, %fb2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %z = nn.linear %h, %fl : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  return %y2, %z : tensor<1x8x4x4xf32>, tensor<2x8xf32>
}

// -----

// Leave alone: a folded weight forward still reads beside its packing (it
// is also returned) keeps its dense slot 0, and a folded depthwise weight,
// which its kernel reads unpacked, its dense slot 1; the packing takes
// slot 2.
// CHECK: module attributes {nn.context_bytes = array<i64: 864, 288>, nn.context_slots = 3 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: -> (tensor<8x3x3x3xf32>, tensor<8x1x3x3xf32>)
// CHECK: nn_kernel.pack_conv2d_weight %{{.+}} into %{{.+}}[2]
// CHECK-NOT: nn_kernel.pack_conv2d_weight
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<8x3x3x3xf32> {nn.context_slot = 0 : i64}, %[[D:[a-z0-9]+]]: tensor<8x1x3x3xf32> {nn.context_slot = 1 : i64}
// CHECK: %[[P:.+]] = nn_kernel.packed %{{.+}}[2] : <8x3x3x3>
// CHECK: nn_kernel.conv2d %{{.+}}, %[[P]]
// CHECK: nn_kernel.conv2d %{{.+}}, %[[D]] outs({{.*}}) {{.*}} depthwise
// CHECK: return %{{.+}}, %{{.+}}, %[[W]]
nn.parameter @w : tensor<8x3x3x3xf32>
nn.parameter @d : tensor<8x1x3x3xf32>
nn.parameter @s : tensor<8x1x1x1xf32>
func.func @forward(%x: tensor<1x3x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<8x3x3x3xf32>) {
  %w = nn.load @w : tensor<8x3x3x3xf32>
  %d = nn.load @d : tensor<8x1x3x3xf32>
  %s = nn.load @s : tensor<8x1x1x1xf32>
  %fw = nn.mul %w, %s : (tensor<8x3x3x3xf32>, tensor<8x1x1x1xf32>) -> tensor<8x3x3x3xf32>
  %fd = nn.mul %d, %s : (tensor<8x1x3x3xf32>, tensor<8x1x1x1xf32>) -> tensor<8x1x3x3xf32>
  %y = nn.conv %x, %fw stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  %z = nn.conv %y, %fd stride [1, 1] padding [1, 1] dilation [1, 1] groups 8 : (tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %y, %z, %fw : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<8x3x3x3xf32>
}

// -----

// One weight read by convolutions of two geometries gets a packing per
// geometry (the geometry picks the kernel, and so the layout); a second
// convolution of the first geometry reuses its slot.
// CHECK: module attributes {nn.context_bytes = array<i64>, nn.context_slots = 2 : i64}
// CHECK-LABEL: func.func @prepare
// CHECK: nn_kernel.pack_conv2d_weight %{{.+}} into %{{.+}}[0] input_size [3, 8, 8] stride [1, 1]
// CHECK: nn_kernel.pack_conv2d_weight %{{.+}} into %{{.+}}[1] input_size [3, 8, 8] stride [2, 2]
// CHECK-NOT: nn_kernel.pack_conv2d_weight
// CHECK-LABEL: func.func @forward
// CHECK: nn_kernel.packed %{{.+}}[0]
// CHECK: nn_kernel.conv2d {{.*}} stride [1, 1]
// CHECK: nn_kernel.packed %{{.+}}[1]
// CHECK: nn_kernel.conv2d {{.*}} stride [2, 2]
// CHECK: nn_kernel.packed %{{.+}}[0]
// CHECK: nn_kernel.conv2d {{.*}} stride [1, 1]
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
// CHECK-NOT: !nn_kernel.context {nn.context}
// CHECK-SAME: {
// CHECK-NOT: packed
// CHECK: nn_kernel.gemm %{{.+}}, %{{.+}} outs({{.*}}) : tensor<2x4xf32>, tensor<4x4xf32>
// CHECK: nn_kernel.gemm %{{.+}}, %{{.+}} outs({{.*}}) : tensor<2x4xf32>, tensor<4x4xf32>
// CHECK: nn_kernel.write_state
nn.buffer @m : tensor<4x4xf32> persistent
func.func @forward(%x: tensor<2x4xf32>, %r: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %y = nn.matmul %x, %r : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %m = nn.load @m : tensor<4x4xf32>
  %z = nn.matmul %x, %m : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  nn.store @m, %r : tensor<4x4xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x4xf32>
}
