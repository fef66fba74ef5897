// RUN: nn-opt %s -nn-hoist-state-computations -split-input-file | FileCheck %s

// Eval-mode batch-norm folded into a convolution (what nn-fold-batchnorm
// leaves): W' and b' depend on parameters and unwritten buffers only, so
// @prepare computes them and forward reads them from context slots 0, 1.
// CHECK: module attributes {nn.context_bytes = array<i64: 864, 32>, nn.context_slots = 2 : i64}
// CHECK-LABEL: func.func @prepare() -> (tensor<8x3x3x3xf32>, tensor<8xf32>)
// CHECK-DAG: %[[W:.+]] = nn.load @w
// CHECK-DAG: %[[V:.+]] = nn.load @v
// CHECK: %[[SD:.+]] = nn.sqrt
// CHECK: %[[S:.+]] = nn.div %{{.+}}, %[[SD]]
// CHECK: %[[S4:.+]] = nn.reshape %[[S]]
// CHECK: %[[W2:.+]] = nn.mul %[[W]], %[[S4]]
// CHECK: %[[B2:.+]] = nn.add
// CHECK: return %[[W2]], %[[B2]]
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[PW:.+]]: tensor<8x3x3x3xf32> {nn.context_slot = 0 : i64}, %[[PB:.+]]: tensor<8xf32> {nn.context_slot = 1 : i64}, %[[X:.+]]: tensor<1x3x4x4xf32>)
// CHECK-NOT: nn.load
// CHECK-NOT: nn.mul
// CHECK: %[[Y:.+]] = nn.conv %[[X]], %[[PW]], %[[PB]]
// CHECK-NEXT: return %[[Y]]
nn.parameter @w : tensor<8x3x3x3xf32>
nn.parameter @b : tensor<8xf32>
nn.buffer @m : tensor<8xf32> persistent
nn.buffer @v : tensor<8xf32> persistent
func.func @forward(%x: tensor<1x3x4x4xf32>) -> tensor<1x8x2x2xf32> {
  %w = nn.load @w : tensor<8x3x3x3xf32>
  %b = nn.load @b : tensor<8xf32>
  %m = nn.load @m : tensor<8xf32>
  %v = nn.load @v : tensor<8xf32>
  %eps = arith.constant dense<1.000000e-05> : tensor<f32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %ve = nn.add %v, %eps : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %sd = nn.sqrt %ve : tensor<8xf32>
  %s = nn.div %one, %sd : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %s4 = nn.reshape %s [8, 1, 1, 1] : (tensor<8xf32>) -> tensor<8x1x1x1xf32>
  %w2 = nn.mul %w, %s4 : (tensor<8x3x3x3xf32>, tensor<8x1x1x1xf32>) -> tensor<8x3x3x3xf32>
  %bm = nn.sub %b, %m : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b2 = nn.mul %bm, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b3 = nn.add %b2, %eps : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y = nn.conv %x, %w2, %b3 stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x2x2xf32>
  return %y : tensor<1x8x2x2xf32>
}

// -----

// Train-mode batch-norm writes its running statistics: nothing computed
// from them moves, and the buffers are still read in forward. The weight
// scaled by a parameter-only factor (nn-fold-scalar-mul's W * s) moves.
// CHECK: module attributes {nn.context_bytes = array<i64: 60>, nn.context_slots = 1 : i64}
// CHECK-LABEL: func.func @prepare() -> tensor<3x5xf32>
// CHECK: nn.load @w
// CHECK: nn.mul
// CHECK-NOT: nn.load @rm
// CHECK: return
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[WS:.+]]: tensor<3x5xf32> {nn.context_slot = 0 : i64}, %[[X:.+]]: tensor<2x5xf32>)
// CHECK: %[[L:.+]] = nn.linear %[[X]], %[[WS]]
// CHECK: %[[RM:.+]] = nn.load @rm
// CHECK: %[[SCALED:.+]] = nn.mul %[[RM]], %{{.+}}
// CHECK: %[[NEW:.+]] = nn.add %[[SCALED]]
// CHECK: nn.store @rm, %[[NEW]]
nn.parameter @w : tensor<3x5xf32>
nn.buffer @rm : tensor<3xf32> persistent
func.func @forward(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  %w = nn.load @w : tensor<3x5xf32>
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %ws = nn.mul %w, %half : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %l = nn.linear %x, %ws : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  %rm = nn.load @rm : tensor<3xf32>
  %scaled = nn.mul %rm, %half : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %mean = nn.mean %l dims [0] : (tensor<2x3xf32>) -> tensor<3xf32>
  %new = nn.add %scaled, %mean : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  nn.store @rm, %new : tensor<3xf32>
  %y = nn.add %l, %scaled : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Leave alone: what reads an input stays, a plain load stays a load, and an
// expand that would materialize a bias per row stays in forward (its
// parameter-only operand is no precomputed value either), and a load that
// was dead before stays. @prepare exists, empty, so every artifact has one.
// CHECK: module attributes {nn.context_bytes = array<i64>, nn.context_slots = 0 : i64}
// CHECK-LABEL: func.func @prepare() {
// CHECK-NEXT: return
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: nn.load @unused
// CHECK: %[[W:.+]] = nn.load @w
// CHECK: %[[XW:.+]] = nn.mul %[[X]], %[[W]]
// CHECK: %[[B:.+]] = nn.load @b
// CHECK: %[[E:.+]] = nn.expand %[[B]]
// CHECK: nn.add %[[XW]], %[[E]]
nn.parameter @w : tensor<2x3xf32>
nn.parameter @b : tensor<3xf32>
nn.buffer @unused : tensor<7x7xf32>
func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // Dead already: kept, so its buffer stays an argument as the artifact
  // description (made before lowering) says.
  %u = nn.load @unused : tensor<7x7xf32>
  %w = nn.load @w : tensor<2x3xf32>
  %xw = nn.mul %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = nn.load @b : tensor<3xf32>
  %e = nn.expand %b [2, 3] : (tensor<3xf32>) -> tensor<2x3xf32>
  %y = nn.add %xw, %e : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
