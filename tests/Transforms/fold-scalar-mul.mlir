// RUN: nn-opt %s -nn-fold-scalar-mul -split-input-file | FileCheck %s

// (x·Wᵀ + b)·s → x·(W·s)ᵀ + b·s: the scaled weights are computed right
// before the linear, the multiply of the 64x16 result is gone.
// CHECK-LABEL: func.func @scale_of_linear
// CHECK-SAME: (%[[X:.+]]: tensor<64x32xf32>, %[[W:.+]]: tensor<16x32xf32>, %[[B:.+]]: tensor<16xf32>)
// CHECK: %[[S:.+]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[W2:.+]] = nn.mul %[[W]], %[[S]] : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
// CHECK: %[[B2:.+]] = nn.mul %[[B]], %{{.+}} : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
// CHECK: %[[Y:.+]] = nn.linear %[[X]], %[[W2]], %[[B2]]
// CHECK-NOT: nn.mul
// CHECK: return %[[Y]]
func.func @scale_of_linear(%x: tensor<64x32xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> tensor<64x16xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %y = nn.linear %x, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %z = nn.mul %s, %y : (tensor<f32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  return %z : tensor<64x16xf32>
}

// -----

// A division by a constant divides the weights (no reciprocal is formed).
// CHECK-LABEL: func.func @div_of_linear
// CHECK: %[[W2:.+]] = nn.div %arg1, %{{.+}} : (tensor<16x32xf32>, tensor<f32>)
// CHECK: %[[Y:.+]] = nn.linear %arg0, %[[W2]] :
// CHECK-NOT: nn.div
// CHECK: return %[[Y]]
func.func @div_of_linear(%x: tensor<64x32xf32>, %w: tensor<16x32xf32>) -> tensor<64x16xf32> {
  %s = arith.constant dense<4.0> : tensor<f32>
  %y = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %z = nn.div %y, %s : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
  return %z : tensor<64x16xf32>
}

// -----

// (x·s)·Wᵀ + b → x·(W·s)ᵀ + b: the bias is not scaled.
// CHECK-LABEL: func.func @scaled_input
// CHECK-SAME: (%[[X:.+]]: tensor<64x32xf32>, %[[W:.+]]: tensor<16x32xf32>, %[[B:.+]]: tensor<16xf32>)
// CHECK: %[[W2:.+]] = nn.mul %[[W]], %{{.+}} : (tensor<16x32xf32>, tensor<f32>)
// CHECK-NEXT: %[[Y:.+]] = nn.linear %[[X]], %[[W2]], %[[B]]
// CHECK-NEXT: return %[[Y]]
func.func @scaled_input(%x: tensor<64x32xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> tensor<64x16xf32> {
  %s = arith.constant dense<3.0> : tensor<f32>
  %xs = nn.mul %x, %s : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %y = nn.linear %xs, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// -----

// A scaled query or key becomes part of the attention's scale (default
// 1/√8 here): q·0.5 then k/2 → scale 1/√8 · 0.5 · 0.5.
// CHECK-LABEL: func.func @attention_scale
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x8xf32>, %[[K:.+]]: tensor<2x4x8xf32>, %[[V:.+]]: tensor<2x4x8xf32>)
// CHECK-NOT: nn.mul
// CHECK-NOT: nn.div
// CHECK: nn.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] scale 0.088388347648318
func.func @attention_scale(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %qs = nn.mul %q, %s : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %ks = nn.div %k, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %o = nn.scaled_dot_product_attention %qs, %ks, %v : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A linear's scaled result feeding an attention's query: the attention takes
// the scale (free) rather than the weights (a pass over W per call).
// CHECK-LABEL: func.func @attention_over_weights
// CHECK: %[[Y:.+]] = nn.linear %arg0, %arg1 :
// CHECK-NOT: nn.mul
// CHECK: nn.scaled_dot_product_attention %[[Y]], %arg0, %arg0 scale 1.250000e-01
func.func @attention_over_weights(%x: tensor<64x8xf32>, %w: tensor<8x8xf32>) -> tensor<64x8xf32> {
  %s = arith.constant dense<0.25> : tensor<f32>
  %y = nn.linear %x, %w : (tensor<64x8xf32>, tensor<8x8xf32>) -> tensor<64x8xf32>
  %q = nn.mul %y, %s : (tensor<64x8xf32>, tensor<f32>) -> tensor<64x8xf32>
  %o = nn.scaled_dot_product_attention %q, %x, %x scale 0.5 : (tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<64x8xf32>
  return %o : tensor<64x8xf32>
}

// -----

// Left alone, each for its reason:
// - the cost rule: scaling a 16x32 weight to save scaling a 2x16 result;
// - the linear's result has another user, which needs it unscaled;
// - a relu comes between the linear and the scale (relu(z)·s ≠ relu(z·s)
//   for s < 0);
// - the factor is not one value for every element;
// - the factor is not a constant;
// - the "scalar" broadcasts the result to a larger shape;
// - the factor is zero (moving it would change which elements are NaN).
// CHECK-LABEL: func.func @leave_alone
// CHECK-COUNT-7: nn.mul %{{.+}}, %{{.+}} : (tensor<{{2|64}}x16xf32>,
// CHECK-NOT: nn.mul
func.func @leave_alone(%small: tensor<2x32xf32>, %x: tensor<64x32xf32>, %w: tensor<16x32xf32>, %f: tensor<f32>)
    -> (tensor<2x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<3x64x16xf32>, tensor<64x16xf32>) {
  %s = arith.constant dense<0.5> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ramp = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<16xf32>
  %wide = arith.constant dense<0.5> : tensor<3x1x1xf32>
  %a = nn.linear %small, %w : (tensor<2x32xf32>, tensor<16x32xf32>) -> tensor<2x16xf32>
  %a2 = nn.mul %a, %s : (tensor<2x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %b = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %b2 = nn.mul %b, %s : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
  %c1 = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %c = nn.relu %c1 : tensor<64x16xf32>
  %c2 = nn.mul %c, %s : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
  %d = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %d2 = nn.mul %d, %ramp : (tensor<64x16xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %e = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %e2 = nn.mul %e, %f : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
  %g = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %g2 = nn.mul %g, %wide : (tensor<64x16xf32>, tensor<3x1x1xf32>) -> tensor<3x64x16xf32>
  %h = nn.linear %x, %w : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  %h2 = nn.mul %h, %zero : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
  return %a2, %b, %b2, %c2, %d2, %e2, %g2, %h2 : tensor<2x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<3x64x16xf32>, tensor<64x16xf32>
}

// -----

// Inside an nn.fused group nothing is touched (the group is codegen's unit;
// its scale arrives as an input, not a constant).
// CHECK-LABEL: func.func @inside_group
// CHECK: nn.fused
// CHECK: nn.linear
// CHECK-NEXT: nn.mul
// CHECK-NEXT: nn.yield
func.func @inside_group(%x: tensor<64x32xf32>, %w: tensor<16x32xf32>) -> tensor<64x16xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %g = nn.fused (%x, %w, %s) : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<f32>) -> tensor<64x16xf32> {
  ^bb0(%a: tensor<64x32xf32>, %b: tensor<16x32xf32>, %c: tensor<f32>):
    %y = nn.linear %a, %b : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
    %z = nn.mul %y, %c : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
    nn.yield %z : tensor<64x16xf32>
  }
  return %g : tensor<64x16xf32>
}
