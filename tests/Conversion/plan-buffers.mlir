// RUN: nn-opt %s -nn-plan-buffers -split-input-file | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// A chain: %a dies when %c is made, so %c takes %a's bytes; %b is live
// beside both and gets the bytes after them. The arena is 2 x 256 bytes,
// acquired once at entry, released before the return; the deallocs go.
// CHECK: func.func private @nn_rt_workspace_release(!llvm.ptr)
// CHECK: func.func private @nn_rt_workspace_acquire(i64) -> !llvm.ptr
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {nn.workspace_bytes = 512 : i64}
// CHECK: %[[SIZE:.+]] = arith.constant 512 : i64
// CHECK: %[[BLOCK:.+]] = call @nn_rt_workspace_acquire(%[[SIZE]]) : (i64) -> !llvm.ptr
// CHECK: %[[ARENA:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<512xi8>
// CHECK: %[[OA:.+]] = arith.constant 0 : index
// CHECK: %[[A:.+]] = memref.view %[[ARENA]][%[[OA]]][] : memref<512xi8> to memref<64xf32>
// CHECK: %[[OB:.+]] = arith.constant 256 : index
// CHECK: %[[B:.+]] = memref.view %[[ARENA]][%[[OB]]][] : memref<512xi8> to memref<64xf32>
// CHECK: %[[OC:.+]] = arith.constant 0 : index
// CHECK: %[[C:.+]] = memref.view %[[ARENA]][%[[OC]]][] : memref<512xi8> to memref<64xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: call @nn_rt_workspace_release(%[[BLOCK]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: return
func.func @chain(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  %c = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.add ins(%b, %b : memref<64xf32>, memref<64xf32>) outs(%c : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  linalg.add ins(%b, %c : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// Live together, the three buffers never share a byte: largest first at 0,
// then the others after it, sizes rounded up to 64 bytes (10 x f32 = 40).
// CHECK-LABEL: func.func @all_live
// CHECK-SAME: nn.workspace_bytes = 4224 : i64
// CHECK-DAG: %[[BIG:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : memref<4224xi8> to memref<1024xf32>
// CHECK-DAG: %[[S1:.+]] = memref.view %{{.+}}[%c4096{{.*}}][] : memref<4224xi8> to memref<10xf32>
// CHECK-DAG: %[[S2:.+]] = memref.view %{{.+}}[%c4160{{.*}}][] : memref<4224xi8> to memref<10xf32>
func.func @all_live(%x: memref<1024xf32>, %y: memref<10xf32>, %out: memref<1024xf32>, %out2: memref<10xf32>) {
  %s1 = memref.alloc() : memref<10xf32>
  %big = memref.alloc() : memref<1024xf32>
  %s2 = memref.alloc() : memref<10xf32>
  linalg.copy ins(%y : memref<10xf32>) outs(%s1 : memref<10xf32>)
  linalg.copy ins(%y : memref<10xf32>) outs(%s2 : memref<10xf32>)
  linalg.copy ins(%x : memref<1024xf32>) outs(%big : memref<1024xf32>)
  linalg.add ins(%s1, %s2 : memref<10xf32>, memref<10xf32>) outs(%out2 : memref<10xf32>)
  linalg.copy ins(%big : memref<1024xf32>) outs(%out : memref<1024xf32>)
  memref.dealloc %s1 : memref<10xf32>
  memref.dealloc %s2 : memref<10xf32>
  memref.dealloc %big : memref<1024xf32>
  return
}

// -----

// Best fit: %s is made when %a and %c are dead, so two gaps are free
// between the live %b (2048..4096) and %d (4160..4224): 2 KiB at 0 and %c's
// 64 bytes at 4096. It takes the smallest that fits (first fit would take
// byte 0).
// CHECK-LABEL: func.func @best_fit
// CHECK-SAME: nn.workspace_bytes = 4224 : i64
// CHECK: memref.view %{{.+}}[%c0{{.*}}][] : memref<4224xi8> to memref<512xf32>
// CHECK: memref.view %{{.+}}[%c2048{{.*}}][] : memref<4224xi8> to memref<512xf32>
// CHECK: memref.view %{{.+}}[%c4096{{.*}}][] : memref<4224xi8> to memref<16xf32>
// CHECK: memref.view %{{.+}}[%c4160{{.*}}][] : memref<4224xi8> to memref<16xf32>
// CHECK: memref.view %{{.+}}[%c4096{{.*}}][] : memref<4224xi8> to memref<16xf32>
func.func @best_fit(%x: memref<512xf32>, %y: memref<16xf32>, %out: memref<512xf32>, %out2: memref<16xf32>) {
  %a = memref.alloc() : memref<512xf32>
  %b = memref.alloc() : memref<512xf32>
  %c = memref.alloc() : memref<16xf32>
  %d = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<512xf32>) outs(%a : memref<512xf32>)
  linalg.copy ins(%a : memref<512xf32>) outs(%b : memref<512xf32>)
  linalg.copy ins(%y : memref<16xf32>) outs(%c : memref<16xf32>)
  linalg.copy ins(%c : memref<16xf32>) outs(%d : memref<16xf32>)
  %s = memref.alloc() : memref<16xf32>
  linalg.add ins(%d, %d : memref<16xf32>, memref<16xf32>) outs(%s : memref<16xf32>)
  linalg.copy ins(%b : memref<512xf32>) outs(%out : memref<512xf32>)
  linalg.add ins(%s, %d : memref<16xf32>, memref<16xf32>) outs(%out2 : memref<16xf32>)
  return
}

// -----

// Buffers captured by an scf.forall are planned (the loop captures their
// views, which nn-outline-parallel-loops passes through its context) and are
// live for the whole loop: %w, made before the loop and written in it, never
// shares %t's bytes; %u, made after the loop, reuses them.
// CHECK-LABEL: func.func @captured_by_forall
// CHECK-SAME: nn.workspace_bytes = 512 : i64
// CHECK: %[[T:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: %[[W:.+]] = memref.view %{{.+}}[%c256{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: scf.forall
// CHECK-DAG: memref.subview %[[T]]
// CHECK-DAG: memref.subview %[[W]]
// CHECK: %[[U:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : memref<512xi8> to memref<64xf32>
func.func @captured_by_forall(%x: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%t : memref<64xf32>)
  %w = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  scf.forall (%i) = (0) to (64) step (16) {
    %st = memref.subview %t[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    %sw = memref.subview %w[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.copy ins(%st : memref<16xf32, strided<[1], offset: ?>>) outs(%sw : memref<16xf32, strided<[1], offset: ?>>)
  }
  %u = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.add ins(%w, %x : memref<64xf32>, memref<64xf32>) outs(%u : memref<64xf32>)
  linalg.copy ins(%u : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %t : memref<64xf32>
  memref.dealloc %w : memref<64xf32>
  memref.dealloc %u : memref<64xf32>
  return
}

// -----

// The address a kernel call takes keeps the buffer live until the call that
// reads it, through the epilogue slot it is stored in: %r (the addend) must
// not share bytes with %o, made before that call.
// CHECK-LABEL: func.func @address_through_slot
// CHECK-SAME: nn.workspace_bytes = 512 : i64
func.func private @kernel(!llvm.ptr, !llvm.ptr)
func.func @address_through_slot(%x: memref<64xf32>, %out: memref<64xf32>) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr
  %r = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%r : memref<64xf32>)
  %ri = memref.extract_aligned_pointer_as_index %r : memref<64xf32> -> index
  %rw = arith.index_cast %ri : index to i64
  %rp = llvm.inttoptr %rw : i64 to !llvm.ptr
  llvm.store %rp, %slot : !llvm.ptr, !llvm.ptr
  memref.dealloc %r : memref<64xf32>
  %o = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %oi = memref.extract_aligned_pointer_as_index %o : memref<64xf32> -> index
  %ow = arith.index_cast %oi : index to i64
  %op = llvm.inttoptr %ow : i64 to !llvm.ptr
  call @kernel(%op, %slot) : (!llvm.ptr, !llvm.ptr) -> ()
  linalg.copy ins(%o : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %o : memref<64xf32>
  return
}

// -----

// Views and reshapes of a buffer are the buffer: the dealloc of the collapsed
// view goes too, and the live range runs to the view's last use.
// CHECK-LABEL: func.func @through_views
// CHECK-SAME: nn.workspace_bytes = 512 : i64
// CHECK: %[[V:.+]] = memref.view %{{.+}} : memref<512xi8> to memref<4x16xf32>
// CHECK: memref.collapse_shape %[[V]]
// CHECK-NOT: memref.dealloc
func.func @through_views(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<4x16xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%flat : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%flat : memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %flat : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// Nothing to plan: no acquire, no attribute, no declaration.
// CHECK-LABEL: func.func @nothing
// CHECK-NOT: nn.workspace_bytes
// CHECK-NOT: nn_rt_workspace
func.func @nothing(%x: memref<64xf32>, %out: memref<64xf32>) {
  linalg.copy ins(%x : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}
