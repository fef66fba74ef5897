// RUN: nn-opt %s -nn-tile-and-vectorize -split-input-file | FileCheck %s
// RUN: nn-opt %s -nn-tile-and-vectorize=min-parallel-work=0 -split-input-file | FileCheck %s --check-prefix=SERIAL

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

// A sum along the innermost dimension: vectorizing it would reassociate,
// so the rows are only split over threads and each stays a scalar loop.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.forall (%{{.+}}) = (0) to (512) step (8)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: tensor<8x384xf32>
// CHECK-NOT: vector.
// SERIAL-LABEL: func.func @row_sum
// SERIAL-NEXT: linalg.generic
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
