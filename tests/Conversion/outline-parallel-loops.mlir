// RUN: nn-opt %s -nn-outline-parallel-loops -split-input-file | FileCheck %s

// The body moves into @scale_parallel(ctx, begin, end); the two buffers
// travel as descriptors (aligned pointer, offset, size, stride), the float
// as its bits, the constants are cloned. 4096 / 256 = 16 iterations.
// CHECK-LABEL: func.func private @scale_parallel
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %[[BEGIN:.+]]: i64, %[[END:.+]]: i64)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: %[[P0:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i64
// CHECK: llvm.inttoptr %[[P0]]
// CHECK: %[[X:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4096xf32>
// CHECK: %[[Y:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<4096xf32>
// CHECK: %[[AI:.+]] = llvm.getelementptr %[[CTX]][8]
// CHECK: %[[AW:.+]] = llvm.load %[[AI]]
// CHECK: %[[AT:.+]] = arith.trunci %[[AW]] : i64 to i32
// CHECK: %[[A:.+]] = arith.bitcast %[[AT]] : i32 to f32
// CHECK: %[[B:.+]] = arith.index_cast %[[BEGIN]] : i64 to index
// CHECK: %[[E:.+]] = arith.index_cast %[[END]] : i64 to index
// CHECK: scf.for %[[K:.+]] = %[[B]] to %[[E]] step %c1
// CHECK: %[[I:.+]] = arith.muli %[[K]], %[[C256]]
// CHECK: memref.subview %[[X]][%[[I]]] [256] [1]
// CHECK: memref.subview %[[Y]][%[[I]]] [256] [1]
// CHECK: arith.mulf %{{.+}}, %[[A]] : f32
// CHECK-NOT: scf.forall

// CHECK-LABEL: func.func @scale
// CHECK: %[[BUF:.+]] = memref.alloca() : memref<9xi64>
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[BITS:.+]] = arith.bitcast %arg2 : f32 to i32
// CHECK: %[[WORD:.+]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: memref.store %[[WORD]], %[[BUF]][%c8]
// CHECK: %[[FN:.+]] = constant @scale_parallel : (!llvm.ptr, i64, i64) -> ()
// CHECK: call @nn_rt_parallel_for(%{{.+}}, %[[FN]], %{{.+}}) : (i64, (!llvm.ptr, i64, i64) -> (), !llvm.ptr) -> ()
// CHECK-NOT: scf.forall
// CHECK: func.func private @nn_rt_parallel_for(i64, (!llvm.ptr, i64, i64) -> (), !llvm.ptr)
func.func @scale(%x: memref<4096xf32>, %y: memref<4096xf32>, %a: f32) {
  scf.forall (%i) = (0) to (4096) step (256) {
    %sx = memref.subview %x[%i] [256] [1] : memref<4096xf32> to memref<256xf32, strided<[1], offset: ?>>
    %sy = memref.subview %y[%i] [256] [1] : memref<4096xf32> to memref<256xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%sx : memref<256xf32, strided<[1], offset: ?>>) outs(%sy : memref<256xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %a : f32
      linalg.yield %m : f32
    }
  }
  return
}

// -----

// Dynamic bounds travel through the context too; n = ceil((ub - lb) / 4).
// CHECK-LABEL: func.func private @dynamic_bounds_parallel
// CHECK: %[[LB:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: scf.for %[[K:.+]] =
// CHECK: %[[M:.+]] = arith.muli %[[K]], %c4
// CHECK: %[[I:.+]] = arith.addi %[[M]], %[[LB]]
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[I]]]
// CHECK-LABEL: func.func @dynamic_bounds
// CHECK: %[[D:.+]] = arith.subi %arg2, %arg1
// CHECK: %[[N:.+]] = arith.ceildivsi %[[D]], %c4
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: call @nn_rt_parallel_for(%[[N64]]
func.func @dynamic_bounds(%x: memref<?xf32>, %lb: index, %ub: index) {
  %z = arith.constant 0.0 : f32
  scf.forall (%i) = (%lb) to (%ub) step (4) {
    memref.store %z, %x[%i] : memref<?xf32>
  }
  return
}

// -----

// A row tile's scratch buffer (allocated and freed in each iteration) is
// allocated once per call on the outlined function's stack, before the
// loop: no malloc per iteration, and no stack growth with the iteration
// count. Its alignment is kept.
// CHECK-LABEL: func.func private @row_sums_parallel
// CHECK: %[[TMP:.+]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloc(
// CHECK-NOT: memref.dealloc
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[TMP]] : memref<16xf32>)
// CHECK: memref.copy %[[TMP]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @row_sums(%y: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) = (0) to (1024) step (16) {
    %tmp = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
    linalg.fill ins(%zero : f32) outs(%tmp : memref<16xf32>)
    %sy = memref.subview %y[%i] [16] [1] : memref<1024xf32> to memref<16xf32, strided<[1], offset: ?>>
    memref.copy %tmp, %sy : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
    memref.dealloc %tmp : memref<16xf32>
  }
  return
}

// -----

// Left alone, each still allocated per iteration: a buffer larger than
// 64 KiB (it would not fit a pool thread's stack comfortably), one with a
// dynamic size, one the iteration does not free, and one that fits alone
// but not after the 48 KiB one hoisted before it (64 KiB per loop in all).
// CHECK-LABEL: func.func private @not_scratch_parallel
// CHECK: memref.alloca() : memref<12288xf32>
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: memref.alloc() : memref<16385xf32>
// CHECK: memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: memref.alloc() : memref<4097xf32>
// CHECK: memref.dealloc %{{.+}} : memref<16385xf32>
// CHECK: memref.dealloc %{{.+}} : memref<?xf32>
// CHECK: memref.dealloc %{{.+}} : memref<4097xf32>
// CHECK-NOT: memref.dealloc
func.func @not_scratch(%y: memref<1024xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) = (0) to (1024) step (16) {
    %big = memref.alloc() : memref<16385xf32>
    %dyn = memref.alloc(%n) : memref<?xf32>
    %kept = memref.alloc() : memref<16xf32>
    %first = memref.alloc() : memref<12288xf32>
    %over = memref.alloc() : memref<4097xf32>
    linalg.fill ins(%zero : f32) outs(%first : memref<12288xf32>)
    linalg.fill ins(%zero : f32) outs(%over : memref<4097xf32>)
    linalg.fill ins(%zero : f32) outs(%big : memref<16385xf32>)
    linalg.fill ins(%zero : f32) outs(%dyn : memref<?xf32>)
    linalg.fill ins(%zero : f32) outs(%kept : memref<16xf32>)
    memref.dealloc %big : memref<16385xf32>
    memref.dealloc %dyn : memref<?xf32>
    memref.dealloc %first : memref<12288xf32>
    memref.dealloc %over : memref<4097xf32>
  }
  return
}

// -----

// Left alone: two dimensions, a mapping, a value of a type the context
// cannot carry.
// CHECK-LABEL: func.func @two_dims
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (4, 4)
// CHECK-LABEL: func.func @mapped
// CHECK: scf.forall
// CHECK: mapping = [#gpu.thread<x>]
// CHECK-LABEL: func.func @vector_value
// CHECK: scf.forall
// CHECK-NOT: nn_rt_parallel_for
func.func @two_dims(%x: memref<4x4xf32>) {
  %z = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (4, 4) {
    memref.store %z, %x[%i, %j] : memref<4x4xf32>
  }
  return
}
func.func @mapped(%x: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    memref.store %z, %x[%i] : memref<4xf32>
  } {mapping = [#gpu.thread<x>]}
  return
}
func.func @vector_value(%x: memref<64xf32>, %v: vector<4xf32>) {
  scf.forall (%i) = (0) to (64) step (4) {
    vector.store %v, %x[%i] : memref<64xf32>, vector<4xf32>
  }
  return
}
