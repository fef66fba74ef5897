// RUN: nn-opt %s -nn-fuse -split-input-file | FileCheck %s

// linear + relu: one group, the linear first.
// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME: (%[[X:.+]]: tensor<2x4xf32>, %[[W:.+]]: tensor<3x4xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[G:.+]] = nn.fused(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: ^bb0(%[[A0:.+]]: tensor<2x4xf32>, %[[A1:.+]]: tensor<3x4xf32>, %[[A2:.+]]: tensor<3xf32>):
// CHECK-NEXT: %[[L:.+]] = nn.linear %[[A0]], %[[A1]], %[[A2]] :
// CHECK-NEXT: %[[R:.+]] = nn.relu %[[L]]
// CHECK-NEXT: nn.yield %[[R]]
// CHECK: return %[[G]]
func.func @linear_relu(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = nn.relu %y : tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// A chain: each linear → relu pair is a group of its own (the second
// linear reads the first group's result as an input).
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-2: nn.linear
// CHECK-NOT: nn.relu %arg
func.func @chain(%x: tensor<2x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %a = nn.linear %x, %w1 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %b = nn.relu %a : tensor<2x4xf32>
  %c = nn.linear %b, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %d = nn.relu %c : tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// conv + bias (separate add, broadcast per channel) + every activation kind:
// the whole chain is one group, the conv first.
// CHECK-LABEL: func.func @conv_bias_activations
// CHECK: nn.fused
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.conv
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.clamp
// CHECK-NEXT: nn.gelu
// CHECK-NEXT: nn.silu
// CHECK-NEXT: nn.sigmoid
// CHECK-NEXT: nn.tanh
// CHECK-NEXT: nn.leaky_relu
// CHECK-NEXT: nn.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @conv_bias_activations(%x: tensor<1x3x6x6xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  %0 = nn.add %c, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = nn.clamp %0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<1x8x4x4xf32>
  %2 = nn.gelu %1 : tensor<1x8x4x4xf32>
  %3 = nn.silu %2 : tensor<1x8x4x4xf32>
  %4 = nn.sigmoid %3 : tensor<1x8x4x4xf32>
  %5 = nn.tanh %4 : tensor<1x8x4x4xf32>
  %6 = nn.leaky_relu %5, slope = 1.000000e-02 : tensor<1x8x4x4xf32>
  return %6 : tensor<1x8x4x4xf32>
}

// -----

// conv + residual add + relu (a ResNet block's tail): the residual becomes
// an input of the group.
// CHECK-LABEL: func.func @conv_residual_relu
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x6x6xf32>, %[[W:.+]]: tensor<8x8x3x3xf32>, %[[B:.+]]: tensor<8xf32>, %[[RES:.+]]: tensor<1x8x6x6xf32>)
// CHECK: nn.fused(%[[X]], %[[W]], %[[B]], %[[RES]])
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<1x8x6x6xf32>, %{{.+}}: tensor<8x8x3x3xf32>, %{{.+}}: tensor<8xf32>, %[[R:.+]]: tensor<1x8x6x6xf32>):
// CHECK-NEXT: %[[C:.+]] = nn.conv
// CHECK-NEXT: %[[S:.+]] = nn.add %[[C]], %[[R]]
// CHECK-NEXT: %[[Y:.+]] = nn.relu %[[S]]
// CHECK-NEXT: nn.yield %[[Y]]
func.func @conv_residual_relu(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>, %res: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %c = nn.conv %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %s = nn.add %c, %res : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = nn.relu %s : tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// When both operands of the add come from fusable producers, the conv's
// side is absorbed (the contraction gets the epilogue); the relu stays an
// input.
// CHECK-LABEL: func.func @prefer_contraction
// CHECK: %[[R:.+]] = nn.relu
// CHECK: nn.fused(%{{.+}}, %{{.+}}, %[[R]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.conv
// CHECK-NEXT: nn.add
func.func @prefer_contraction(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x1x1xf32>, %y: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %r = nn.relu %y : tensor<1x8x6x6xf32>
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %s = nn.add %r, %c : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %s : tensor<1x8x6x6xf32>
}

// -----

// matmul + scale + tanh; and a chain of elementwise ops without contraction.
// CHECK-LABEL: func.func @matmul_and_chain
// CHECK: nn.fused
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.matmul
// CHECK-NEXT: nn.mul
// CHECK-NEXT: nn.tanh
// CHECK-NEXT: nn.yield
// CHECK: nn.fused
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.exp
// CHECK-NEXT: nn.sub
// CHECK-NEXT: nn.abs
// CHECK-NEXT: nn.yield
func.func @matmul_and_chain(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %s: tensor<f32>, %v: tensor<7xf32>) -> (tensor<4x6xf32>, tensor<7xf32>) {
  %m = nn.matmul %a, %b : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  %0 = nn.mul %m, %s : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  %1 = nn.tanh %0 : tensor<4x6xf32>
  %2 = nn.exp %v : tensor<7xf32>
  %3 = nn.sub %2, %v : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  %4 = nn.abs %3 : tensor<7xf32>
  return %1, %4 : tensor<4x6xf32>, tensor<7xf32>
}

// -----

// The conv's result has a second user, which needs it in memory: no group.
// CHECK-LABEL: func.func @no_fuse_second_user
// CHECK-NOT: nn.fused
// CHECK: %[[C:.+]] = nn.conv
// CHECK: %[[R:.+]] = nn.relu %[[C]]
// CHECK: return %[[R]], %[[C]]
func.func @no_fuse_second_user(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = nn.relu %c : tensor<1x2x4x4xf32>
  return %r, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The consumer broadcasts the producer's value up (3 → 2x3): it runs over a
// larger space than the linear, so they stay apart.
// CHECK-LABEL: func.func @no_fuse_broadcast_up
// CHECK-NOT: nn.fused
// CHECK: nn.linear
// CHECK: nn.add
func.func @no_fuse_broadcast_up(%x: tensor<4xf32>, %w: tensor<3x4xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %l = nn.linear %x, %w : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3xf32>
  %s = nn.add %l, %y : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// Reductions and normalizations are never fused, neither as producers nor
// as consumers.
// CHECK-LABEL: func.func @no_fuse_reductions
// CHECK-NOT: nn.fused
// CHECK: nn.softmax
// CHECK: nn.relu
// CHECK: nn.layer_norm
func.func @no_fuse_reductions(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %s = nn.softmax %x, dim = -1 : tensor<2x8xf32>
  %r = nn.relu %s : tensor<2x8xf32>
  %n = nn.layer_norm %y normalized_shape [8] eps 1.000000e-05 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r, %n : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// An existing group is left as it is (running the pass twice changes
// nothing), and ops inside it are not regrouped.
// CHECK-LABEL: func.func @already_grouped
// CHECK: nn.fused
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.exp
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK-NOT: nn.fused
func.func @already_grouped(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = nn.fused(%x) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %0 = nn.exp %a : tensor<3xf32>
    %1 = nn.relu %0 : tensor<3xf32>
    nn.yield %1 : tensor<3xf32>
  }
  return %g : tensor<3xf32>
}

// -----

// Ops the pass does not know are left alone.
// CHECK-LABEL: func.func @unknown_ops
// CHECK-NOT: nn.fused
// CHECK: arith.addf
// CHECK: nn.relu
func.func @unknown_ops(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = arith.addf %x, %x : tensor<3xf32>
  %r = nn.relu %s : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A group grows in place: the chain relu → relu → add becomes one group
// that moves down past the softmax its add reads (a value defined after
// the group began), which becomes its last input.
// CHECK-LABEL: func.func @group_grows_past_a_later_value
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>, %[[Y:.+]]: tensor<2x8xf32>)
// CHECK: %[[S:.+]] = nn.softmax %[[Y]]
// CHECK-NEXT: %[[G:.+]] = nn.fused(%[[X]], %[[S]])
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<2x8xf32>, %[[B:.+]]: tensor<2x8xf32>):
// CHECK-NEXT: %[[R0:.+]] = nn.relu %[[A]]
// CHECK-NEXT: %[[R1:.+]] = nn.relu %[[R0]]
// CHECK-NEXT: %[[SUM:.+]] = nn.add %[[R1]], %[[B]]
// CHECK-NEXT: nn.yield %[[SUM]]
// CHECK: return %[[G]]
func.func @group_grows_past_a_later_value(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r0 = nn.relu %x : tensor<2x8xf32>
  %r1 = nn.relu %r0 : tensor<2x8xf32>
  %s = nn.softmax %y, dim = -1 : tensor<2x8xf32>
  %z = nn.add %r1, %s : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %z : tensor<2x8xf32>
}

// -----

// A group absorbs a producer of one of its inputs in place: the producer's
// operands come first among the inputs (an operand the group already had
// moves to the front), its op first in the body.
// CHECK-LABEL: func.func @group_absorbs_a_side_producer
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>, %[[Y:.+]]: tensor<2x8xf32>)
// CHECK: %[[G:.+]] = nn.fused(%[[Y]], %[[X]])
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<2x8xf32>, %[[B:.+]]: tensor<2x8xf32>):
// CHECK-NEXT: %[[P:.+]] = nn.mul %[[A]], %[[B]]
// CHECK-NEXT: %[[R:.+]] = nn.relu %[[B]]
// CHECK-NEXT: %[[SUM:.+]] = nn.add %[[R]], %[[P]]
// CHECK-NEXT: nn.yield %[[SUM]]
// CHECK: return %[[G]]
func.func @group_absorbs_a_side_producer(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %p = nn.mul %y, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = nn.relu %x : tensor<2x8xf32>
  %z = nn.add %r, %p : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %z : tensor<2x8xf32>
}
