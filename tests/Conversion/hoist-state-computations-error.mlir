// RUN: nn-opt %s -nn-hoist-state-computations -split-input-file -verify-diagnostics

// The pass creates @prepare; a module that has one already is refused.
nn.parameter @p : tensor<4xf32>
// expected-error @+1 {{'func.func' op the module already has a @prepare; nn-hoist-state-computations creates it}}
func.func @prepare() {
  return
}
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = nn.load @p : tensor<4xf32>
  %n = nn.neg %p : tensor<4xf32>
  %y = nn.add %x, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// forward must be one block (nn's functions always are) to be split.
// expected-error @+1 {{'func.func' op must have a single block to split off @prepare}}
func.func @forward(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<4xf32>
^b:
  return %x : tensor<4xf32>
}
