// RUN: nn-opt %s -nn-merge-linears -split-input-file | FileCheck %s

// q/k/v projections of one input: one linear on the concatenated weights and
// biases, cut back into three results along the last dimension.
// CHECK-LABEL: func.func @qkv
// CHECK-SAME: (%[[X:.+]]: tensor<4x16x32xf32>, %[[WQ:.+]]: tensor<32x32xf32>, %[[WK:.+]]: tensor<32x32xf32>, %[[WV:.+]]: tensor<8x32xf32>, %[[BQ:.+]]: tensor<32xf32>, %[[BK:.+]]: tensor<32xf32>, %[[BV:.+]]: tensor<8xf32>)
// CHECK-NEXT: %[[W:.+]] = nn.cat %[[WQ]], %[[WK]], %[[WV]] dim 0 : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<8x32xf32>) -> tensor<72x32xf32>
// CHECK-NEXT: %[[B:.+]] = nn.cat %[[BQ]], %[[BK]], %[[BV]] dim 0 : (tensor<32xf32>, tensor<32xf32>, tensor<8xf32>) -> tensor<72xf32>
// CHECK-NEXT: %[[Y:.+]] = nn.linear %[[X]], %[[W]], %[[B]] : (tensor<4x16x32xf32>, tensor<72x32xf32>, tensor<72xf32>) -> tensor<4x16x72xf32>
// CHECK-NEXT: %[[Q:.+]] = nn.slice %[[Y]] dim 2 [0 : 32 : 1] : (tensor<4x16x72xf32>) -> tensor<4x16x32xf32>
// CHECK-NEXT: %[[K:.+]] = nn.slice %[[Y]] dim 2 [32 : 64 : 1] : (tensor<4x16x72xf32>) -> tensor<4x16x32xf32>
// CHECK-NEXT: %[[V:.+]] = nn.slice %[[Y]] dim 2 [64 : 72 : 1] : (tensor<4x16x72xf32>) -> tensor<4x16x8xf32>
// CHECK-NEXT: return %[[Q]], %[[K]], %[[V]]
func.func @qkv(%x: tensor<4x16x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<8x32xf32>,
               %bq: tensor<32xf32>, %bk: tensor<32xf32>, %bv: tensor<8xf32>)
    -> (tensor<4x16x32xf32>, tensor<4x16x32xf32>, tensor<4x16x8xf32>) {
  %q = nn.linear %x, %wq, %bq : (tensor<4x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<4x16x32xf32>
  %k = nn.linear %x, %wk, %bk : (tensor<4x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<4x16x32xf32>
  %v = nn.linear %x, %wv, %bv : (tensor<4x16x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x16x8xf32>
  return %q, %k, %v : tensor<4x16x32xf32>, tensor<4x16x32xf32>, tensor<4x16x8xf32>
}

// -----

// Weights loaded from parameters (as traced) work the same; the users of
// every result read their slice. (Each result is also returned: a linear
// whose only user is pointwise is left to nn-fuse, see @leave_alone.)
nn.parameter @q.weight : tensor<16x16xf32>
nn.parameter @k.weight : tensor<16x16xf32>
// CHECK-LABEL: func.func @loaded
// CHECK: %[[W:.+]] = nn.cat
// CHECK-NEXT: %[[Y:.+]] = nn.linear %arg0, %[[W]] :
// CHECK-NEXT: %[[Q:.+]] = nn.slice %[[Y]] dim 1 [0 : 16 : 1]
// CHECK-NEXT: %[[K:.+]] = nn.slice %[[Y]] dim 1 [16 : 32 : 1]
// CHECK-NEXT: %[[S:.+]] = nn.add %[[Q]], %[[K]]
// CHECK-NEXT: return %[[S]], %[[Q]], %[[K]]
func.func @loaded(%x: tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
  %wq = nn.load @q.weight : tensor<16x16xf32>
  %wk = nn.load @k.weight : tensor<16x16xf32>
  %q = nn.linear %x, %wq : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %k = nn.linear %x, %wk : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %s = nn.add %q, %k : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  return %s, %q, %k : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// Only the compatible ones merge: the bias-less linear keeps its own op, and
// a linear of another input is not involved.
// CHECK-LABEL: func.func @compatible_only
// CHECK: nn.cat %arg2, %arg3 dim 0
// CHECK: nn.linear %arg0, %{{.+}}, %{{.+}} : (tensor<64x16xf32>, tensor<32x16xf32>, tensor<32xf32>)
// CHECK: nn.linear %arg0, %arg3 :
// CHECK: nn.linear %arg1, %arg2, %arg4 :
func.func @compatible_only(%x: tensor<64x16xf32>, %other: tensor<64x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %b1: tensor<16xf32>, %b2: tensor<16xf32>)
    -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
  %a = nn.linear %x, %w1, %b1 : (tensor<64x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %b = nn.linear %x, %w2, %b2 : (tensor<64x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %d = nn.linear %x, %w2 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %e = nn.linear %other, %w1, %b1 : (tensor<64x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  return %a, %b, %d, %e : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// Left alone:
// - the cost rule: 2 rows cannot pay for copying 32 weight rows per call;
// - a lone linear;
// - a weight computed after the first linear (moving it is not this pass's
//   business);
// - linears inside nn.fused groups;
// - a linear whose only user is pointwise (nn-fuse's epilogue); the other
//   two linears of that input still merge.
// CHECK-LABEL: func.func @leave_alone
// CHECK-NOT: nn.cat
// CHECK-NOT: nn.slice
// CHECK-COUNT-2: nn.linear %arg0
// CHECK: nn.linear %arg1
// CHECK: nn.linear %arg2
// CHECK: nn.neg
// CHECK: nn.linear %arg2
// CHECK: nn.fused
// CHECK: nn.cat %arg3, %arg4 dim 0
// CHECK-NEXT: nn.linear %arg5, %{{.+}} : (tensor<64x16xf32>, tensor<32x16xf32>)
// CHECK-COUNT-2: nn.slice
// CHECK-NEXT: %[[E:.+]] = nn.linear %arg5, %arg3 :
// CHECK-NEXT: nn.relu %[[E]]
// CHECK: return
func.func @leave_alone(%small: tensor<2x16xf32>, %lone: tensor<64x16xf32>, %x: tensor<64x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %y: tensor<64x16xf32>)
    -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
  %a = nn.linear %small, %w1 : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  %b = nn.linear %small, %w2 : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  %c = nn.linear %lone, %w1 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %d = nn.linear %x, %w1 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %late = nn.neg %w2 : tensor<16x16xf32>
  %e = nn.linear %x, %late : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %f = nn.fused (%x, %w1) : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32> {
  ^bb0(%i: tensor<64x16xf32>, %j: tensor<16x16xf32>):
    %0 = nn.linear %i, %j : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    %1 = nn.relu %0 : tensor<64x16xf32>
    nn.yield %1 : tensor<64x16xf32>
  }
  %g = nn.linear %y, %w1 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %h = nn.linear %y, %w2 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %k = nn.linear %y, %w1 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %r = nn.relu %k : tensor<64x16xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h, %r : tensor<2x16xf32>, tensor<2x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>
}
