// RUN: nn-opt %s -nn-tile-and-vectorize -split-input-file | FileCheck %s
// RUN: nn-opt %s -nn-tile-and-vectorize=min-parallel-work=0 -split-input-file | FileCheck %s --check-prefix=SERIAL
// RUN: nn-opt %s -nn-tile-and-vectorize=reduction-lanes=0 -split-input-file | FileCheck %s --check-prefix=NOLANES
// RUN: nn-opt %s -nn-tile-and-vectorize=fuse-rows=0 -split-input-file | FileCheck %s --check-prefix=NOFUSE
// RUN: nn-opt %s -nn-tile-and-vectorize=polynomial-math=0 -split-input-file | FileCheck %s --check-prefix=LIBM

#id = affine_map<(d0) -> (d0)>

// A big 1-D elementwise op: 64 parallel tiles of 1024 (a multiple of the
// vector tile), each a loop over vector<32xf32>.
// CHECK-LABEL: func.func @affine_relu
// CHECK: scf.forall (%[[I:.+]]) = (0) to (65536) step (1024) shared_outs
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c32
// CHECK: vector.transfer_read {{.*}} : tensor<32xf32>, vector<32xf32>
// CHECK: arith.mulf {{.*}} : vector<32xf32>
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>, tensor<32xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
// Parallel tiling switched off: the same vector loop, no scf.forall.
// SERIAL-LABEL: func.func @affine_relu
// SERIAL-NOT: scf.forall
// SERIAL: scf.for
// SERIAL: arith.maximumf {{.*}} : vector<32xf32>
func.func @affine_relu(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %a = arith.constant 1.5 : f32
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %a : f32
    %y = arith.maximumf %m, %z : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  return %r : tensor<65536xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Too small for threads: one loop over the rows, each row one vector of
// 16; the broadcast bias is read whole.
// CHECK-LABEL: func.func @bias_add
// CHECK-NOT: scf.forall
// CHECK: scf.for %{{.+}} = %c0 to %c4 step %c1
// CHECK-DAG: vector.transfer_read %{{.+}} : tensor<1x16xf32>, vector<16xf32>
// CHECK-DAG: vector.transfer_read %{{.+}} : tensor<16xf32>, vector<16xf32>
// CHECK: arith.addf {{.*}} : vector<16xf32>
func.func @bias_add(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %y = arith.addf %in, %c : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A sum over the outer dimension: the parallel loop is the columns (12
// tiles of 32), the rows stay an ordered loop, each lane accumulates its own
// column: no reassociation.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.forall (%{{.+}}) = (0) to (384) step (32)
// CHECK: scf.for %{{.+}} = %c0 to %c512 step %c1
// CHECK: %[[X:.+]] = vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<32xf32>
// CHECK: %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<32xf32>, vector<32xf32>
// CHECK: arith.addf %[[ACC]], %[[X]] : vector<32xf32>
// CHECK-NOT: vector.reduction
func.func @column_sum(%x: tensor<512x384xf32>, %init: tensor<384xf32>) -> tensor<384xf32> {
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<512x384xf32>) outs(%init : tensor<384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<384xf32>
  return %r : tensor<384xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A sum along the innermost dimension: the rows go into the vector lanes,
// 8 at a time, and the row is walked in blocks of 8; a block is read as 8
// row vectors, transposed with 24 shuffles, and added column by column,
// in order, onto the accumulator: each lane adds its own row's elements one
// by one, as the scalar loop does (no reassociation).
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.forall (%{{.+}}) = (0) to (512) step (8)
// CHECK: scf.for %{{.+}} = %c0 to %c384 step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK-COUNT-8: vector.extract {{.*}} : vector<8xf32> from vector<8x8xf32>
// CHECK-COUNT-24: vector.shuffle
// CHECK: %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<8xf32>, vector<8xf32>
// CHECK: %[[S0:.+]] = arith.addf %{{.+}}, %[[ACC]] : vector<8xf32>
// CHECK: %[[S1:.+]] = arith.addf %{{.+}}, %[[S0]] : vector<8xf32>
// CHECK: %[[S2:.+]] = arith.addf %{{.+}}, %[[S1]] : vector<8xf32>
// CHECK: %[[S3:.+]] = arith.addf %{{.+}}, %[[S2]] : vector<8xf32>
// CHECK: %[[S4:.+]] = arith.addf %{{.+}}, %[[S3]] : vector<8xf32>
// CHECK: %[[S5:.+]] = arith.addf %{{.+}}, %[[S4]] : vector<8xf32>
// CHECK: %[[S6:.+]] = arith.addf %{{.+}}, %[[S5]] : vector<8xf32>
// CHECK: %[[S7:.+]] = arith.addf %{{.+}}, %[[S6]] : vector<8xf32>
// CHECK: vector.transfer_write %[[S7]]
// CHECK-NOT: vector.reduction
// CHECK-NOT: linalg.generic
// SERIAL-LABEL: func.func @row_sum
// SERIAL: scf.for %{{.+}} = %c0 to %c512 step %c8
// SERIAL: scf.for %{{.+}} = %c0 to %c384 step %c8
// SERIAL: arith.addf {{.*}} : vector<8xf32>
// Lane reductions switched off: threads only, the scalar loop stays.
// NOLANES-LABEL: func.func @row_sum
// NOLANES: scf.forall (%{{.+}}) = (0) to (512) step (8)
// NOLANES: linalg.generic
// NOLANES-SAME: iterator_types = ["parallel", "reduction"]
// NOLANES-SAME: tensor<8x384xf32>
func.func @row_sum(%x: tensor<512x384xf32>, %init: tensor<512xf32>) -> tensor<512xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x384xf32>) outs(%init : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<512xf32>
  return %r : tensor<512xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Dynamic shapes: left alone for the scalar loops.
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: linalg.generic
// CHECK-NOT: vector.
func.func @dynamic(%x: tensor<?xf32>, %e: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An innermost extent above the vector size with no power-of-two divisor
// (37): no vectors, the op stays whole.
// CHECK-LABEL: func.func @odd
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @odd(%x: tensor<4x37xf32>) -> tensor<4x37xf32> {
  %e = tensor.empty() : tensor<4x37xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x37xf32>) outs(%e : tensor<4x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.absf %in : f32
    linalg.yield %y : f32
  } -> tensor<4x37xf32>
  return %r : tensor<4x37xf32>
}

// -----

// Ops on buffers (already bufferized) are left alone.
// CHECK-LABEL: func.func @on_buffers
// CHECK-NEXT: linalg.copy
// CHECK-NOT: vector.
func.func @on_buffers(%x: memref<65536xf32>, %y: memref<65536xf32>) {
  linalg.copy ins(%x : memref<65536xf32>) outs(%y : memref<65536xf32>)
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row maximum (softmax's first step): the maximum is the same in any
// order, so the vectors run along the reduction, 32 lanes per step.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.forall (%{{.+}}) = (0) to (512) step (8)
// CHECK: scf.for %{{.+}} = %c0 to %c8 step %c1
// CHECK: scf.for %{{.+}} = %c0 to %c384 step %c32
// CHECK: vector.transfer_read {{.*}} vector<32xf32>
// CHECK: vector.reduction <maximumf>, %{{.+}}, %{{.+}} : vector<32xf32> into f32
func.func @row_max(%x: tensor<512x384xf32>, %init: tensor<512xf32>) -> tensor<512xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x384xf32>) outs(%init : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.maximumf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<512xf32>
  return %r : tensor<512xf32>
}

// -----

// A copy out of a strided slice stays a (scalar) linalg.copy: vectorized,
// its read/write pair would fold away and leave a strided memref.copy.
// CHECK-LABEL: func.func @strided_copy
// CHECK: linalg.copy
// CHECK-NOT: vector.
func.func @strided_copy(%x: tensor<17xf32>) -> tensor<6xf32> {
  %s = tensor.extract_slice %x[0] [6] [3] : tensor<17xf32> to tensor<6xf32>
  %e = tensor.empty() : tensor<6xf32>
  %c = linalg.copy ins(%s : tensor<6xf32>) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  return %c : tensor<6xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// softmax over rows of 128, dividing by the row sums in the per-element
// op (the form convert-nn-to-linalg gave before it computed 1 / sum per
// row; @softmax_reciprocal below): the division by the row sums is
// split over threads by 16 rows, and each tile computes its rows' maxima
// (horizontal: order-free), sums of exp (rows in lanes, exp as a
// polynomial, no libm) and quotients: one scf.forall, the 16 rows stream
// from memory once.
// CHECK-LABEL: func.func @softmax
// CHECK: scf.forall (%{{.+}}) = (0) to (1024) step (16)
// CHECK-NOT: scf.forall
// CHECK: vector.reduction <maximumf>, {{.*}} : vector<32xf32> into f32
// CHECK: scf.for %{{.+}} = %c0 to %c16 step %c8
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK-COUNT-24: vector.shuffle
// CHECK: math.fma {{.*}} : vector<8x8xf32>
// CHECK-COUNT-8: arith.addf {{.*}} : vector<8xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c32
// CHECK: math.fma {{.*}} : vector<32xf32>
// CHECK: arith.divf {{.*}} : vector<32xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return
// Without row fusion: one scf.forall per big op, three passes over x.
// NOFUSE-LABEL: func.func @softmax
// NOFUSE-COUNT-3: scf.forall (%
// With libm: the vectors keep math.exp (one libm call per lane later).
// LIBM-LABEL: func.func @softmax
// LIBM: math.exp {{.*}} : vector<8x8xf32>
// LIBM: math.exp {{.*}} : vector<32xf32>
// NOLANES-LABEL: func.func @softmax
// NOLANES: scf.forall (%{{.+}}) = (0) to (1024) step (16)
// NOLANES: linalg.generic
// NOLANES-SAME: iterator_types = ["parallel", "reduction"]
// NOLANES: math.exp
func.func @softmax(%arg0: tensor<1024x128xf32>) -> tensor<1024x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<1024xf32>
  %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<1024xf32>) -> tensor<1024xf32>
  %2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1024x128xf32>) outs(%1 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.maximumf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<1024xf32>
  %3 = tensor.empty() : tensor<1024xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1024xf32>) -> tensor<1024xf32>
  %5 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0, %2 : tensor<1024x128xf32>, tensor<1024xf32>) outs(%4 : tensor<1024xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    %10 = arith.addf %out, %9 : f32
    linalg.yield %10 : f32
  } -> tensor<1024xf32>
  %6 = tensor.empty() : tensor<1024x128xf32>
  %7 = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0, %2, %5 : tensor<1024x128xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%6 : tensor<1024x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    %10 = arith.divf %9, %in_2 : f32
    linalg.yield %10 : f32
  } -> tensor<1024x128xf32>
  return %7 : tensor<1024x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>

// softmax with 1 / sum as an op over the rows (and exp(x - max) in both
// the sum and the normalization, as convert-nn-to-linalg built it before
// @softmax_exp_once): 1 / sum is fused into the row tile too, where it is
// one vector of the tile's 16 rows; the elements are multiplied by it.
// CHECK-LABEL: func.func @softmax_reciprocal
// CHECK: scf.forall (%{{.+}}) = (0) to (1024) step (16)
// CHECK-NOT: scf.forall
// CHECK: vector.reduction <maximumf>
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c32
// CHECK-NOT: arith.divf
// CHECK: arith.mulf {{.*}} : vector<32xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @softmax_reciprocal(%arg0: tensor<1024x128xf32>) -> tensor<1024x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<1024xf32>
  %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<1024xf32>) -> tensor<1024xf32>
  %2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1024x128xf32>) outs(%1 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.maximumf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<1024xf32>
  %3 = tensor.empty() : tensor<1024xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1024xf32>) -> tensor<1024xf32>
  %5 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0, %2 : tensor<1024x128xf32>, tensor<1024xf32>) outs(%4 : tensor<1024xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    %10 = arith.addf %out, %9 : f32
    linalg.yield %10 : f32
  } -> tensor<1024xf32>
  %e = tensor.empty() : tensor<1024xf32>
  %inv = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%5 : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.divf %one, %in : f32
    linalg.yield %8 : f32
  } -> tensor<1024xf32>
  %6 = tensor.empty() : tensor<1024x128xf32>
  %7 = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0, %2, %inv : tensor<1024x128xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%6 : tensor<1024x128xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    %10 = arith.mulf %9, %in_2 : f32
    linalg.yield %10 : f32
  } -> tensor<1024x128xf32>
  return %7 : tensor<1024x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>

// softmax as convert-nn-to-linalg and nn-fuse-elementwise-ops leave it:
// exp(x - max) is an op of its own with two users, the row sums and the
// normalization. Both are in the row tile, so it is fused once and its 16
// rows stay in a tile-sized buffer between the two reads: one exp
// polynomial per element (along the rows, 32 lanes), none in the sums,
// which add the buffered rows with rows in lanes.
// CHECK-LABEL: func.func @softmax_exp_once
// CHECK: scf.forall (%{{.+}}) = (0) to (1024) step (16)
// CHECK-NOT: scf.forall
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c32
// CHECK: math.fma {{.*}} : vector<32xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK-NOT: math.fma
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK-NOT: math.fma
// CHECK: arith.mulf {{.*}} : vector<32xf32>
// CHECK-NOT: math.fma
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
// With libm: one math.exp, on the rows' vectors.
// LIBM-LABEL: func.func @softmax_exp_once
// LIBM: math.exp {{.*}} : vector<32xf32>
// LIBM-NOT: math.exp
// LIBM: return
func.func @softmax_exp_once(%arg0: tensor<1024x128xf32>) -> tensor<1024x128xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<1024xf32>
  %1 = linalg.fill ins(%ninf : f32) outs(%0 : tensor<1024xf32>) -> tensor<1024xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1024x128xf32>) outs(%1 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.maximumf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  %2 = tensor.empty() : tensor<1024x128xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0, %max : tensor<1024x128xf32>, tensor<1024xf32>) outs(%2 : tensor<1024x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<1024x128xf32>
  %3 = tensor.empty() : tensor<1024xf32>
  %4 = linalg.fill ins(%zero : f32) outs(%3 : tensor<1024xf32>) -> tensor<1024xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<1024x128xf32>) outs(%4 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %out, %in : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  %5 = tensor.empty() : tensor<1024xf32>
  %inv = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%sum : tensor<1024xf32>) outs(%5 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.divf %one, %in : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  %6 = tensor.empty() : tensor<1024x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%exp, %inv : tensor<1024x128xf32>, tensor<1024xf32>) outs(%6 : tensor<1024x128xf32>) {
  ^bb0(%e: f32, %i: f32, %out: f32):
    %y = arith.mulf %e, %i : f32
    linalg.yield %y : f32
  } -> tensor<1024x128xf32>
  return %r : tensor<1024x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// layer_norm over rows of 256: the mean, the squared deviations and the
// normalization of 16 rows in one tile; the row sums with rows in lanes.
// CHECK-LABEL: func.func @layer_norm
// CHECK: scf.forall (%{{.+}}) = (0) to (1024) step (16)
// CHECK-NOT: scf.forall
// CHECK: scf.for %{{.+}} = %c0 to %c256 step %c8
// CHECK-COUNT-8: arith.addf {{.*}} : vector<8xf32>
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c256 step %c8
// CHECK: arith.subf {{.*}} : vector<8x8xf32>
// CHECK: arith.mulf {{.*}} : vector<8x8xf32>
// CHECK-COUNT-8: arith.addf {{.*}} : vector<8xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c256 step %c32
// CHECK: math.sqrt {{.*}} : vector<32xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
// NOFUSE-LABEL: func.func @layer_norm
// NOFUSE-COUNT-3: scf.forall (%
func.func @layer_norm(%arg0: tensor<1024x256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256xf32>) -> tensor<1024x256xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 9.99999974E-6 : f32
  %cst_1 = arith.constant 2.560000e+02 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1024xf32>
  %1 = linalg.fill ins(%cst_2 : f32) outs(%0 : tensor<1024xf32>) -> tensor<1024xf32>
  %2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1024x256xf32>) outs(%1 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.addf %out, %in : f32
    linalg.yield %10 : f32
  } -> tensor<1024xf32>
  %3 = tensor.empty() : tensor<1024xf32>
  %4 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%2 : tensor<1024xf32>) outs(%3 : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.divf %in, %cst_1 : f32
    linalg.yield %10 : f32
  } -> tensor<1024xf32>
  %5 = tensor.empty() : tensor<1024xf32>
  %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<1024xf32>) -> tensor<1024xf32>
  %7 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%arg0, %4 : tensor<1024x256xf32>, tensor<1024xf32>) outs(%6 : tensor<1024xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.subf %in, %in_3 : f32
    %11 = arith.mulf %10, %10 : f32
    %12 = arith.addf %out, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<1024xf32>
  %8 = tensor.empty() : tensor<1024x256xf32>
  %9 = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0, %4, %7, %arg1, %arg2 : tensor<1024x256xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<256xf32>) outs(%8 : tensor<1024x256xf32>) {
  ^bb0(%in: f32, %in_3: f32, %in_4: f32, %in_5: f32, %in_6: f32, %out: f32):
    %10 = arith.divf %in_4, %cst_1 : f32
    %11 = arith.addf %10, %cst_0 : f32
    %12 = math.sqrt %11 : f32
    %13 = arith.divf %cst, %12 : f32
    %14 = arith.subf %in, %in_3 : f32
    %15 = arith.mulf %14, %13 : f32
    %16 = arith.mulf %15, %in_5 : f32
    %17 = arith.addf %16, %in_6 : f32
    linalg.yield %17 : f32
  } -> tensor<1024x256xf32>
  return %9 : tensor<1024x256xf32>
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>

// A sum over a middle dimension: the lanes run along the output's (and
// the input's) innermost dimension, the summed rows are an ordered loop.
// CHECK-LABEL: func.func @sum_middle
// CHECK: scf.for %{{.+}} = %c0 to %c4 step %c1
// CHECK: scf.for %{{.+}} = %c0 to %c64 step %c1
// CHECK: %[[X:.+]] = vector.transfer_read {{.*}} : tensor<1x1x32xf32>, vector<32xf32>
// CHECK: %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<32xf32>
// CHECK: arith.addf %[[ACC]], %[[X]] : vector<32xf32>
// CHECK-NOT: vector.reduction
// CHECK-NOT: vector.shuffle
func.func @sum_middle(%x: tensor<4x64x32xf32>, %init: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<4x64x32xf32>) outs(%init : tensor<4x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %o, %in : f32
    linalg.yield %y : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// A sum over the last dimension of a 3-D tensor whose kept inner extent
// (3) is below the lane count: 3 lanes, blocks of 8 (the 3x8 transpose is
// left to the generic lowering).
// CHECK-LABEL: func.func @sum_last_narrow
// CHECK: scf.for %{{.+}} = %c0 to %c16 step %c1
// CHECK: scf.for %{{.+}} = %c0 to %c64 step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<1x3x8xf32>, vector<3x8xf32>
// CHECK: vector.transpose {{.*}} [1, 0] : vector<3x8xf32> to vector<8x3xf32>
// CHECK-COUNT-8: arith.addf {{.*}} : vector<3xf32>
func.func @sum_last_narrow(%x: tensor<16x3x64xf32>, %init: tensor<16x3xf32>) -> tensor<16x3xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<16x3x64xf32>) outs(%init : tensor<16x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %o, %in : f32
    linalg.yield %y : f32
  } -> tensor<16x3xf32>
  return %r : tensor<16x3xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An integer row sum does not depend on the order: it stays vectorized
// along the row (32 lanes, one horizontal reduction per step), not
// across rows.
// CHECK-LABEL: func.func @int_row_sum
// CHECK: scf.for %{{.+}} = %c0 to %c64 step %c32
// CHECK: vector.reduction <add>, {{.*}} : vector<32xi32> into i32
// CHECK-NOT: vector.shuffle
func.func @int_row_sum(%x: tensor<16x64xi32>, %init: tensor<16xi32>) -> tensor<16xi32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xi32>) outs(%init : tensor<16xi32>) {
  ^bb0(%in: i32, %o: i32):
    %y = arith.addi %o, %in : i32
    linalg.yield %y : i32
  } -> tensor<16xi32>
  return %r : tensor<16xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#all = affine_map<(d0, d1) -> ()>

// Float row sums left scalar: a row of 37 (no block of 8 divides it); a
// sum of everything into a scalar (no output dimension for the lanes); a
// sum over two dimensions whose input is innermost along the outer one
// (blocks of it would interleave with the inner reduction loop and change
// the order).
// CHECK-LABEL: func.func @row_sum_odd
// CHECK: linalg.generic
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @sum_all
// CHECK: linalg.generic
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @sum_two_dims_transposed
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @row_sum_odd(%x: tensor<16x37xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x37xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %o, %in : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
func.func @sum_all(%x: tensor<16x64xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %o, %in : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#o3 = affine_map<(d0, d1, d2) -> (d0)>
func.func @sum_two_dims_transposed(%x: tensor<16x4x64xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#t3, #o3], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<16x4x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %o, %in : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Only f32 vector math is approximated: f16 keeps math.exp (computed in
// f32 through libm later), and so does scalar math (the 37 elements have
// no vector tile).
// CHECK-LABEL: func.func @exp_f16
// CHECK: math.exp {{.*}} : vector<32xf16>
// CHECK-LABEL: func.func @exp_scalar
// CHECK: linalg.generic
// CHECK: math.exp {{.*}} : f32
func.func @exp_f16(%x: tensor<64xf16>) -> tensor<64xf16> {
  %e = tensor.empty() : tensor<64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf16>) outs(%e : tensor<64xf16>) {
  ^bb0(%in: f16, %o: f16):
    %y = math.exp %in : f16
    linalg.yield %y : f16
  } -> tensor<64xf16>
  return %r : tensor<64xf16>
}
func.func @exp_scalar(%x: tensor<37xf32>) -> tensor<37xf32> {
  %e = tensor.empty() : tensor<37xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<37xf32>) outs(%e : tensor<37xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<37xf32>
  return %r : tensor<37xf32>
}

// -----

// Ops already lowered to kernel calls are not linalg: nothing to do.
// CHECK-LABEL: func.func @kernel_call
// CHECK-NEXT: call @nn_rt_sgemm
// CHECK-NEXT: return
func.func private @nn_rt_sgemm(memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>)
func.func @kernel_call(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  call @nn_rt_sgemm(%a, %b, %c) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  return
}
