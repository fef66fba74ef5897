// RUN: nn-opt %s -nn-plan-buffers -split-input-file -verify-diagnostics

// The runtime's entry point declared with another signature: calling it
// would pass the wrong arguments.
// expected-error@+1 {{'nn_rt_workspace_acquire' is a function of nn_kernels, of type '(i64) -> !llvm.ptr', but this module declares it as '(i64) -> i64'}}
func.func private @nn_rt_workspace_acquire(i64) -> i64

func.func @f(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// expected-error@+1 {{'nn_rt_workspace_release' is a function of nn_kernels, of type '(!llvm.ptr) -> ()', but this module declares it as '(!llvm.ptr) -> i32'}}
func.func private @nn_rt_workspace_release(!llvm.ptr) -> i32

func.func @f(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  return
}
