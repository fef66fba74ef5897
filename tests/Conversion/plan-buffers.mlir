// RUN: nn-opt %s -nn-plan-buffers=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// Where each buffer goes is checked through the pass's remarks (byte offset
// and arena size); the IR checks cover the rewrite itself.

// A chain: %a dies when %c is made, so %c takes %a's bytes; %b is live
// beside both and gets the bytes after them. The arena is 2 x 256 bytes,
// acquired once at entry and released before the return; each buffer is a
// memref over arena + offset; the deallocs go.
// CHECK: func.func private @nn_rt_workspace_release(!llvm.ptr)
// CHECK: func.func private @nn_rt_workspace_acquire(i64) -> !llvm.ptr
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {nn.workspace_bytes = 512 : i64}
// CHECK: %[[SIZE:.+]] = arith.constant 512 : i64
// CHECK: %[[BLOCK:.+]] = call @nn_rt_workspace_acquire(%[[SIZE]]) : (i64) -> !llvm.ptr
// CHECK: llvm.insertvalue %[[BLOCK]], %{{.+}}[1]
// CHECK: %[[A:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<64xf32>
// CHECK: linalg.copy ins(%{{.+}} : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
// CHECK: %[[OB:.+]] = llvm.mlir.constant(256 : i64) : i64
// CHECK: %[[PB:.+]] = llvm.getelementptr %[[BLOCK]][%[[OB]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.insertvalue %[[PB]], %{{.+}}[1]
// CHECK: %[[B:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK: linalg.copy ins(%[[A]] : memref<64xf32>) outs(%[[B]] : memref<64xf32>)
// CHECK: llvm.insertvalue %[[BLOCK]], %{{.+}}[1]
// CHECK: %[[C:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK: linalg.add ins(%[[B]], %[[B]] : memref<64xf32>, memref<64xf32>) outs(%[[C]] : memref<64xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: call @nn_rt_workspace_release(%[[BLOCK]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: return
// expected-remark@+1 {{planned 3 buffer(s), 768 bytes in all, into a 512-byte arena}}
func.func @chain(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  // expected-remark@+1 {{placed at byte 256 of a 512-byte arena}}
  %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
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
// expected-remark@+1 {{planned 3 buffer(s), 4224 bytes in all, into a 4224-byte arena}}
func.func @all_live(%x: memref<1024xf32>, %y: memref<10xf32>, %out: memref<1024xf32>, %out2: memref<10xf32>) {
  // expected-remark@+1 {{placed at byte 4096 of a 4224-byte arena}}
  %s1 = memref.alloc() : memref<10xf32>
  // expected-remark@+1 {{placed at byte 0 of a 4224-byte arena}}
  %big = memref.alloc() : memref<1024xf32>
  // expected-remark@+1 {{placed at byte 4160 of a 4224-byte arena}}
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
// expected-remark@+1 {{planned 5 buffer(s), 4288 bytes in all, into a 4224-byte arena}}
func.func @best_fit(%x: memref<512xf32>, %y: memref<16xf32>, %out: memref<512xf32>, %out2: memref<16xf32>) {
  // expected-remark@+1 {{placed at byte 0 of a 4224-byte arena}}
  %a = memref.alloc() : memref<512xf32>
  // expected-remark@+1 {{placed at byte 2048 of a 4224-byte arena}}
  %b = memref.alloc() : memref<512xf32>
  // expected-remark@+1 {{placed at byte 4096 of a 4224-byte arena}}
  %c = memref.alloc() : memref<16xf32>
  // expected-remark@+1 {{placed at byte 4160 of a 4224-byte arena}}
  %d = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<512xf32>) outs(%a : memref<512xf32>)
  linalg.copy ins(%a : memref<512xf32>) outs(%b : memref<512xf32>)
  linalg.copy ins(%y : memref<16xf32>) outs(%c : memref<16xf32>)
  linalg.copy ins(%c : memref<16xf32>) outs(%d : memref<16xf32>)
  // expected-remark@+1 {{placed at byte 4096 of a 4224-byte arena}}
  %s = memref.alloc() : memref<16xf32>
  linalg.add ins(%d, %d : memref<16xf32>, memref<16xf32>) outs(%s : memref<16xf32>)
  linalg.copy ins(%b : memref<512xf32>) outs(%out : memref<512xf32>)
  linalg.add ins(%s, %d : memref<16xf32>, memref<16xf32>) outs(%out2 : memref<16xf32>)
  return
}

// -----

// Buffers captured by an scf.forall are planned (the loop captures their
// memrefs, which nn-outline-parallel-loops passes through its context) and
// are live for the whole loop: %w, made before the loop and written in it,
// never shares %t's bytes; %u, made after the loop, reuses them.
// CHECK-LABEL: func.func @captured_by_forall
// CHECK: %[[T:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK: %[[W:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK: scf.forall
// CHECK-DAG: memref.subview %[[T]]
// CHECK-DAG: memref.subview %[[W]]
// expected-remark@+1 {{planned 3 buffer(s), 768 bytes in all, into a 512-byte arena}}
func.func @captured_by_forall(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
  %t = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%t : memref<64xf32>)
  // expected-remark@+1 {{placed at byte 256 of a 512-byte arena}}
  %w = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  scf.forall (%i) = (0) to (64) step (16) {
    %st = memref.subview %t[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    %sw = memref.subview %w[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.copy ins(%st : memref<16xf32, strided<[1], offset: ?>>) outs(%sw : memref<16xf32, strided<[1], offset: ?>>)
  }
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
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
func.func private @kernel(!llvm.ptr, !llvm.ptr)
// expected-remark@+1 {{planned 2 buffer(s), 512 bytes in all, into a 512-byte arena}}
func.func @address_through_slot(%x: memref<64xf32>, %out: memref<64xf32>) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %slot = llvm.alloca %one x !llvm.ptr : (i64) -> !llvm.ptr
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
  %r = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%r : memref<64xf32>)
  %ri = memref.extract_aligned_pointer_as_index %r : memref<64xf32> -> index
  %rw = arith.index_cast %ri : index to i64
  %rp = llvm.inttoptr %rw : i64 to !llvm.ptr
  llvm.store %rp, %slot : !llvm.ptr, !llvm.ptr
  memref.dealloc %r : memref<64xf32>
  // expected-remark@+1 {{placed at byte 256 of a 512-byte arena}}
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
// CHECK: %[[A:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<4x16xf32>
// CHECK: memref.collapse_shape %[[A]]
// CHECK-NOT: memref.dealloc
// expected-remark@+1 {{planned 2 buffer(s), 512 bytes in all, into a 512-byte arena}}
func.func @through_views(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
  %a = memref.alloc() : memref<4x16xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%flat : memref<64xf32>)
  // expected-remark@+1 {{placed at byte 256 of a 512-byte arena}}
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%flat : memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %flat : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// memref.reshape views its source alone: the shape operand (a planned
// buffer too, here) is only read, so neither buffer counts as merged, and
// the shape's bytes are free once the reshape has read it (%b takes them).
// CHECK-LABEL: func.func @through_reshape
// CHECK: memref.reshape
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// expected-remark@+1 {{planned 3 buffer(s), 576 bytes in all, into a 512-byte arena}}
func.func @through_reshape(%x: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  // expected-remark@+1 {{placed at byte 256 of a 512-byte arena}}
  %shape = memref.alloc() : memref<2xi64>
  memref.store %c4, %shape[%c0] : memref<2xi64>
  memref.store %c16, %shape[%c1] : memref<2xi64>
  // expected-remark@+1 {{placed at byte 0 of a 512-byte arena}}
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %r = memref.reshape %a(%shape) : (memref<64xf32>, memref<2xi64>) -> memref<4x16xf32>
  // expected-remark@+1 {{placed at byte 256 of a 512-byte arena}}
  %b = memref.alloc() : memref<4x16xf32>
  linalg.copy ins(%r : memref<4x16xf32>) outs(%b : memref<4x16xf32>)
  %flat = memref.collapse_shape %b [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  linalg.copy ins(%flat : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %shape : memref<2xi64>
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<4x16xf32>
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

