// RUN: nn-translate --nn-to-cuda %s -split-input-file -verify-diagnostics

// Kernels are emitted for static shapes only.
func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-error @below {{'memref.copy' op reads or writes 'memref<?xf32>', which has a dynamic shape or layout: CUDA kernels are emitted for static ones}}
  memref.copy %x, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

// A payload op without a C form is named.
#id = affine_map<(d0) -> (d0)>
func.func @payload(%x: memref<4xi32>, %y: memref<4xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<4xi32>) outs(%y : memref<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    // expected-error @below {{'math.ctlz' op has no CUDA C++ form (in a kernel's payload)}}
    %0 = math.ctlz %a : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

// Arithmetic on bf16 is refused: kernels compute it in f32.
#id = affine_map<(d0) -> (d0)>
func.func @bf16(%x: memref<4xbf16>, %y: memref<4xbf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<4xbf16>) outs(%y : memref<4xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    // expected-error @below {{'arith.addf' op computes in 'bf16': CUDA kernels compute f16 and bf16 in f32 (extend first)}}
    %0 = arith.addf %a, %a : bf16
    linalg.yield %0 : bf16
  }
  return
}

// -----

// What is neither an allocation, a view nor a kernel has no place in a plan.
func.func private @helper(memref<4xf32>)
func.func @host(%x: memref<4xf32>) {
  // expected-error @below {{'func.call' op has no CUDA lowering (a CUDA function is allocations, views and kernels)}}
  func.call @helper(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// Still on tensors: not yet bufferized.
// expected-error @below {{'func.func' op takes 'tensor<4xf32>': CUDA functions take memrefs only}}
func.func @tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Buffers of a type kernels do not take are refused where they are made.
func.func @complex(%x: memref<4xf32>) {
  // expected-error @below {{'memref.alloc' op allocates 'memref<4xcomplex<f32>>', whose elements CUDA kernels do not take}}
  %0 = memref.alloc() : memref<4xcomplex<f32>>
  return
}

// -----

// A buffer read and written at different elements would race between
// threads: refused.
func.func @race(%x: memref<4xf32>) {
  // expected-error @below {{'linalg.generic' op reads and writes the same buffer through different indexing maps: its threads would race}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (3 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%x : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// An unranked copy has no layout to bake in.
func.func @unranked(%x: memref<4xf32>, %y: memref<4xf32>) {
  %a = memref.cast %x : memref<4xf32> to memref<*xf32>
  %b = memref.cast %y : memref<4xf32> to memref<*xf32>
  // expected-error @below {{'memref.copy' op reads or writes 'memref<*xf32>': CUDA kernels take ranked memrefs}}
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}
