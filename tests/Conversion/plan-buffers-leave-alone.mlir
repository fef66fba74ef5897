// RUN: nn-opt %s -nn-plan-buffers=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// What nn-plan-buffers cannot place stays a malloc/free pair, and the
// remark says why; the rest of the function is still planned.

// CHECK-LABEL: func.func @dynamic_size
// CHECK-NOT: nn.workspace_bytes
// CHECK: memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: memref.dealloc
func.func @dynamic_size(%n: index, %x: memref<?xf32>) {
  // expected-remark@+1 {{stays a heap allocation: its size is dynamic}}
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A returned buffer outlives the call; the temporary beside it is planned.
// CHECK-LABEL: func.func @returned
// CHECK-SAME: nn.workspace_bytes = 256 : i64
// CHECK: builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK: %[[R:.+]] = memref.alloc() : memref<64xf32>
// CHECK: return %[[R]]
// expected-remark@+1 {{planned 1 buffer(s), 256 bytes in all, into a 256-byte arena}}
func.func @returned(%x: memref<64xf32>) -> memref<64xf32> {
  // expected-remark@+1 {{placed at byte 0 of a 256-byte arena}}
  %t = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%t : memref<64xf32>)
  // expected-remark@+1 {{stays a heap allocation: it is returned}}
  %r = memref.alloc() : memref<64xf32>
  linalg.add ins(%t, %t : memref<64xf32>, memref<64xf32>) outs(%r : memref<64xf32>)
  memref.dealloc %t : memref<64xf32>
  return %r : memref<64xf32>
}

// -----

// Returned through a view, still returned.
func.func @returned_view(%x: memref<64xf32>) -> memref<4x16xf32> {
  // expected-remark@+1 {{stays a heap allocation: it is returned}}
  %r = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%r : memref<64xf32>)
  %e = memref.expand_shape %r [[0, 1]] output_shape [4, 16] : memref<64xf32> into memref<4x16xf32>
  return %e : memref<4x16xf32>
}

// -----

// Each iteration of an scf.forall body runs on its own thread: its buffer
// cannot be one slot of the caller's arena.
// CHECK-LABEL: func.func @inside_forall
// CHECK: scf.forall
// CHECK: memref.alloc() : memref<16xf32>
func.func @inside_forall(%x: memref<64xf32>, %out: memref<64xf32>) {
  scf.forall (%i) = (0) to (64) step (16) {
    // expected-remark@+1 {{stays a heap allocation: it is allocated inside 'scf.forall' (a buffer per iteration)}}
    %t = memref.alloc() : memref<16xf32>
    %sx = memref.subview %x[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    %so = memref.subview %out[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.copy ins(%sx : memref<16xf32, strided<[1], offset: ?>>) outs(%t : memref<16xf32>)
    linalg.copy ins(%t : memref<16xf32>) outs(%so : memref<16xf32, strided<[1], offset: ?>>)
    memref.dealloc %t : memref<16xf32>
  }
  return
}

// -----

// Merged with another buffer, its deallocs may free either.
func.func @merged(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{stays a heap allocation: it is merged with another buffer by 'arith.select'}}
  %a = memref.alloc() : memref<64xf32>
  // expected-remark@+1 {{stays a heap allocation: it is merged with another buffer by 'arith.select'}}
  %b = memref.alloc() : memref<64xf32>
  %s = arith.select %c, %a, %b : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%s : memref<64xf32>)
  linalg.copy ins(%s : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// Carried through a loop as an iteration argument.
func.func @loop_carried(%x: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{stays a heap allocation: it enters the regions of 'scf.for' as an operand}}
  %a = memref.alloc() : memref<64xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (memref<64xf32>) {
    linalg.add ins(%acc, %x : memref<64xf32>, memref<64xf32>) outs(%acc : memref<64xf32>)
    scf.yield %acc : memref<64xf32>
  }
  linalg.copy ins(%r : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// More than the arena's alignment.
func.func @over_aligned(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{stays a heap allocation: it asks for an alignment above 64 bytes}}
  %a = memref.alloc() {alignment = 128 : i64} : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// Live ranges are positions in one block; control flow across blocks is
// not analysed.
func.func @two_blocks(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{stays a heap allocation: its function has more than one block}}
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  cf.br ^bb2
^bb2:
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// A function of the module may free what it is given (as the deallocation
// pipeline's helper does); an external one (a runtime kernel) may not.
// CHECK-LABEL: func.func @passed_to_module_function
// CHECK-SAME: nn.workspace_bytes = 256 : i64
// CHECK: builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK: memref.alloc() : memref<64xf32>
func.func private @external(memref<64xf32>)
func.func private @helper(%m: memref<64xf32>) {
  memref.dealloc %m : memref<64xf32>
  return
}
// expected-remark@+1 {{planned 1 buffer(s), 256 bytes in all, into a 256-byte arena}}
func.func @passed_to_module_function(%x: memref<64xf32>) {
  // expected-remark@+1 {{placed at byte 0 of a 256-byte arena}}
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  call @external(%a) : (memref<64xf32>) -> ()
  // expected-remark@+1 {{stays a heap allocation: it is passed to '@helper', which may free it}}
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
  call @helper(%b) : (memref<64xf32>) -> ()
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// The artifact's @prepare runs once per binding: its temporaries (a folded
// weight before it is packed) stay heap allocations freed before it
// returns, not an arena cached in the binding thread's workspace.
// CHECK-LABEL: func.func @prepare
// CHECK-NOT: nn.workspace_bytes
// CHECK-NOT: nn_rt_workspace_acquire
// CHECK: memref.alloc() : memref<64xf32>
// CHECK: memref.dealloc
func.func @prepare(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark@+1 {{stays a heap allocation: @prepare runs once per binding; its temporaries are freed when it returns}}
  %t = memref.alloc() : memref<64xf32>
  linalg.add ins(%x, %x : memref<64xf32>, memref<64xf32>) outs(%t : memref<64xf32>)
  linalg.copy ins(%t : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %t : memref<64xf32>
  return
}
