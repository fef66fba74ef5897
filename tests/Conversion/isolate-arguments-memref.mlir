// RUN: nn-opt %s -split-input-file -nn-isolate-arguments -verify-diagnostics
// RUN: not nn-opt %s -split-input-file -nn-lower-to-llvm 2>&1 | FileCheck %s

// The lowering returns tensors (bufferization makes them out-parameters): a
// memref result is a located error, not a crash inside
// buffer-results-to-out-params (which a memref argument returned as it
// came in was). A memref argument that is not returned is left alone
// (isolate-arguments.mlir).

// CHECK: error: result 0 of @forward is 'memref<4xf32>': the CPU lowering returns tensors (bufferization makes them out-parameters)
// expected-error @+1 {{result 0 of @forward is 'memref<4xf32>': the CPU lowering returns tensors (bufferization makes them out-parameters)}}
func.func @forward(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// CHECK: error: result 1 of @make is 'memref<4xf32>'
// expected-error @+1 {{result 1 of @make is 'memref<4xf32>'}}
func.func @make(%x: tensor<4xf32>) -> (tensor<4xf32>, memref<4xf32>) {
  %m = memref.alloc() : memref<4xf32>
  return %x, %m : tensor<4xf32>, memref<4xf32>
}
