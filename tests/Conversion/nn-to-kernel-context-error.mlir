// RUN: nn-opt %s -convert-nn-to-kernel -split-input-file -verify-diagnostics

// The pass numbers the context's slots from the layout
// nn-hoist-state-computations leaves (one dense slot per result of @prepare,
// read by forward's nn.context_slot arguments); any other layout is refused
// before anything is lowered.

// @prepare gets the packings appended to its one block.
module attributes {nn.context_bytes = array<i64>, nn.context_slots = 0 : i64} {
  // expected-error @+1 {{@prepare has 2 blocks; packing appends to the one block nn-hoist-state-computations makes}}
  func.func @prepare() {
    cf.br ^next
  ^next:
    return
  }
}

// -----

// A declared @prepare has no block to pack into.
module attributes {nn.context_bytes = array<i64>, nn.context_slots = 0 : i64} {
  // expected-error @+1 {{@prepare has 0 blocks}}
  func.func private @prepare()
}

// -----

// A context with slots besides @prepare's results (packed by an earlier run
// of the pass) cannot be renumbered.
// expected-error @+1 {{nn.context_slots is 2 but @prepare has 1 results: the context has slots that are not @prepare's (packed already?)}}
module attributes {nn.context_bytes = array<i64: 32>, nn.context_slots = 2 : i64} {
  func.func @prepare() -> tensor<8xf32> {
    %b = arith.constant dense<1.0> : tensor<8xf32>
    return %b : tensor<8xf32>
  }
}

// -----

// Each dense slot has its size.
// expected-error @+1 {{nn.context_bytes has 0 sizes for the 1 results of @prepare}}
module attributes {nn.context_slots = 1 : i64} {
  func.func @prepare() -> tensor<8xf32> {
    %b = arith.constant dense<1.0> : tensor<8xf32>
    return %b : tensor<8xf32>
  }
}

// -----

// A slot argument names one of @prepare's results...
module attributes {nn.context_bytes = array<i64: 32>, nn.context_slots = 1 : i64} {
  func.func @prepare() -> tensor<8xf32> {
    %b = arith.constant dense<1.0> : tensor<8xf32>
    return %b : tensor<8xf32>
  }
  // expected-error @+1 {{argument 0 of @forward has nn.context_slot = 1 : i64, not the number of one of the 1 results of @prepare}}
  func.func @forward(%b: tensor<8xf32> {nn.context_slot = 1 : i64}) -> tensor<8xf32> {
    return %b : tensor<8xf32>
  }
}

// -----

// ...by its number (a slot that is not one is the dialect verifier's error,
// before the pass runs)...
module attributes {nn.context_bytes = array<i64: 32>, nn.context_slots = 1 : i64} {
  func.func @prepare() -> tensor<8xf32> {
    %b = arith.constant dense<1.0> : tensor<8xf32>
    return %b : tensor<8xf32>
  }
  // expected-error @+1 {{'nn.context_slot' of argument #0 must be an integer, not "b"}}
  func.func @forward(%b: tensor<8xf32> {nn.context_slot = "b"}) -> tensor<8xf32> {
    return %b : tensor<8xf32>
  }
}

// -----

// ...and has its type.
module attributes {nn.context_bytes = array<i64: 32>, nn.context_slots = 1 : i64} {
  func.func @prepare() -> tensor<8xf32> {
    %b = arith.constant dense<1.0> : tensor<8xf32>
    return %b : tensor<8xf32>
  }
  // expected-error @+1 {{argument 0 of @forward is 'tensor<2x4xf32>' but reads context slot 0, which @prepare returns as 'tensor<8xf32>'}}
  func.func @forward(%b: tensor<2x4xf32> {nn.context_slot = 0 : i64}) -> tensor<2x4xf32> {
    return %b : tensor<2x4xf32>
  }
}

// -----

// A declaration's reads could not be counted when a slot is dropped.
module attributes {nn.context_bytes = array<i64: 32>, nn.context_slots = 1 : i64} {
  func.func @prepare() -> tensor<8xf32> {
    %b = arith.constant dense<1.0> : tensor<8xf32>
    return %b : tensor<8xf32>
  }
  // expected-error @+1 {{@forward reads context slots but has no body}}
  func.func private @forward(tensor<8xf32> {nn.context_slot = 0 : i64}) -> tensor<8xf32>
}

// -----

// A symbol named as one of nn_kernels' functions but of another type: the
// calls would not match the kernel the artifact links.
// expected-error@+1 {{'nn_rt_sgemm' is a function of nn_kernels, of type '(i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i32, !llvm.ptr) -> ()', but this module declares it as '(i64) -> ()'}}
func.func private @nn_rt_sgemm(i64)

func.func @forward(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %y = nn.linear %x, %w : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// expected-error@+1 {{'nn_rt_attention' is a function of nn_kernels, of type '(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f32, i32) -> ()', but this module defines it as a 'memref.global'}}
memref.global "private" constant @nn_rt_attention : memref<1xf32> = dense<0.0>
