// RUN: nn-opt %s -nn-fuse-elementwise-ops -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>

// layer_norm's 1 / sqrt(var + eps) is computed once per row: the
// normalization broadcasts it along the rows, so it is not inlined there.
// CHECK-LABEL: func.func @per_row_statistic
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<16xf32>)
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[INV]] : tensor<16x256xf32>, tensor<16xf32>)
// CHECK-NOT: math.sqrt
// CHECK-NOT: arith.divf
// CHECK: arith.mulf
// CHECK: return
func.func @per_row_statistic(%x: tensor<16x256xf32>, %var: tensor<16xf32>) -> tensor<16x256xf32> {
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %inv = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%var : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %eps : f32
    %r = math.sqrt %s : f32
    %i = arith.divf %one, %r : f32
    linalg.yield %i : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv : tensor<16x256xf32>, tensor<16xf32>) outs(%e2 : tensor<16x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Same iteration space: an elementwise chain becomes one generic.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %a = arith.constant 1.5 : f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.mulf %in, %a : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %z : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>

// The map leaves out a loop of one iteration: nothing is read twice, so
// the producer is inlined.
// CHECK-LABEL: func.func @unit_broadcast
// CHECK: linalg.generic
// CHECK: math.sqrt
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @unit_broadcast(%x: tensor<16x1xf32>, %v: tensor<16xf32>) -> tensor<16x1xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.sqrt %in : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<16x1xf32>, tensor<16xf32>) outs(%e2 : tensor<16x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<16x1xf32>
  return %y : tensor<16x1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>

// A producer that only copies computes nothing: inlined into the broadcast.
// CHECK-LABEL: func.func @copy_into_broadcast
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<16x256xf32>, tensor<16xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @copy_into_broadcast(%x: tensor<16x256xf32>, %v: tensor<16xf32>) -> tensor<16x256xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<16x256xf32>, tensor<16xf32>) outs(%e2 : tensor<16x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A producer with two users stays (as upstream): it is not computed twice.
// CHECK-LABEL: func.func @two_users
// CHECK: %[[P:.+]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<16x256xf32>)
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<16x256xf32>)
// CHECK-NOT: math.exp
// CHECK: return
func.func @two_users(%x: tensor<16x256xf32>) -> (tensor<16x256xf32>, tensor<16x256xf32>) {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16x256xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<16x256xf32>
  return %r, %s : tensor<16x256xf32>, tensor<16x256xf32>
}
