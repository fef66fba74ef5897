// RUN: nn-opt %s -nn-use-nontemporal-stores=min-bytes=16384 -split-input-file | FileCheck %s
// RUN: nn-opt %s -nn-use-nontemporal-stores -split-input-file | FileCheck %s --check-prefix=DEFAULT

// A thread's tile of a 16 KiB output: each vector goes to memory directly
// when its address is 32-byte aligned, else it is written as before; one
// fence after the tile's loop.
// CHECK-LABEL: func.func @stream
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: %{{.+}}, %[[OFFSET:.+]], %{{.+}}, %[[STRIDE:.+]] = memref.extract_strided_metadata %[[OUT:.+]] :
// CHECK: %[[SCALED:.+]] = arith.muli %{{.+}}, %[[STRIDE]] : index
// CHECK: arith.addi %[[OFFSET]], %[[SCALED]] : index
// CHECK: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[ADDR:.+]] = arith.addi %[[BASE]], %{{.+}} : index
// CHECK: %[[LOW:.+]] = arith.andi %[[ADDR]], %c31 : index
// CHECK: %[[OK:.+]] = arith.cmpi eq, %[[LOW]], %c0{{.*}} : index
// CHECK: scf.if %[[OK]] {
// CHECK: %[[WORD:.+]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[PTR:.+]] = llvm.inttoptr %[[WORD]] : i64 to !llvm.ptr
// CHECK: llvm.store %{{.+}}, %[[PTR]] {alignment = 32 : i64, nontemporal} : vector<32xf32>, !llvm.ptr
// CHECK: } else {
// CHECK: vector.transfer_write %{{.+}}, %[[OUT]][%{{.+}}] {in_bounds = [true]}
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NOT: llvm.fence
// CHECK: return
// Below the default size (32 MiB): left alone.
// DEFAULT-LABEL: func.func @stream
// DEFAULT-NOT: llvm.store
// DEFAULT-NOT: llvm.fence
// DEFAULT: vector.transfer_write
func.func @stream(%x: memref<4096xf32>, %out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %f0 = arith.constant 0.0 : f32
  scf.forall (%i) = (0) to (4096) step (1024) {
    %sx = memref.subview %x[%i] [1024] [1] : memref<4096xf32> to memref<1024xf32, strided<[1], offset: ?>>
    %so = memref.subview %out[%i] [1024] [1] : memref<4096xf32> to memref<1024xf32, strided<[1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %sx[%j], %f0 {in_bounds = [true]} : memref<1024xf32, strided<[1], offset: ?>>, vector<32xf32>
      vector.transfer_write %v, %so[%j] {in_bounds = [true]} : vector<32xf32>, memref<1024xf32, strided<[1], offset: ?>>
    }
  }
  return
}

// -----

// Rows of a 2-D buffer: the address is offset + i * stride + j; without a
// parallel loop, the fence follows the outermost loop of the function.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata
// CHECK: arith.muli %{{.+}}, %[[STRIDES]]#0 : index
// CHECK: arith.muli %{{.+}}, %[[STRIDES]]#1 : index
// CHECK: llvm.store {{.*}} nontemporal
// CHECK: } else {
// CHECK-NEXT: vector.transfer_write{{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: return
func.func @rows(%v: vector<8xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c8 {
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<64x64xf32>
    }
  }
  return
}

// -----

// Left alone: a buffer below min-bytes, a masked write, a write that may
// run out of bounds, a strided destination, a vector of 16 bytes (below
// the alignment) and a transposed write.
// CHECK-LABEL: func.func @leave_alone
// CHECK-NOT: llvm.store
// CHECK-NOT: llvm.fence
// CHECK-COUNT-6: vector.transfer_write
// CHECK-NOT: llvm.store
// CHECK: return
func.func @leave_alone(%v: vector<32xf32>, %m: vector<32xi1>, %small: memref<1024xf32>,
                       %big: memref<8192xf32>, %v4: vector<4xf32>, %v2: vector<8x8xf32>,
                       %big2: memref<64x64xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  vector.transfer_write %v, %small[%c0] {in_bounds = [true]} : vector<32xf32>, memref<1024xf32>
  vector.transfer_write %v, %big[%i], %m {in_bounds = [true]} : vector<32xf32>, memref<8192xf32>
  vector.transfer_write %v, %big[%i] : vector<32xf32>, memref<8192xf32>
  %s = memref.subview %big[0] [4096] [2] : memref<8192xf32> to memref<4096xf32, strided<[2]>>
  vector.transfer_write %v, %s[%i] {in_bounds = [true]} : vector<32xf32>, memref<4096xf32, strided<[2]>>
  vector.transfer_write %v4, %big[%i] {in_bounds = [true]} : vector<4xf32>, memref<8192xf32>
  vector.transfer_write %v2, %big2[%i, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<8x8xf32>, memref<64x64xf32>
  return
}

// -----

// A dynamically shaped buffer has no size to compare: left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: llvm.store
// CHECK: vector.transfer_write
func.func @dynamic(%v: vector<32xf32>, %out: memref<?xf32>, %i: index) {
  vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<32xf32>, memref<?xf32>
  return
}
