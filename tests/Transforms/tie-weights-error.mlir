// RUN: nn-opt %s -nn-tie-weights -split-input-file -verify-diagnostics

nn.parameter @a : tensor<4xf32>
// expected-error @+1 {{of type 'tensor<5xf32>' is tied to 'a' of type 'tensor<4xf32>': tied tensors share one storage and must have one type}}
nn.parameter @b : tensor<5xf32> tied_to @a

// -----

// expected-error @+1 {{is tied to 'missing', which is not an nn.parameter or nn.buffer of the module}}
nn.parameter @b : tensor<4xf32> tied_to @missing

// -----

nn.buffer @a : tensor<4xf32>
// expected-error @+1 {{is tied to 'a', which is a nn.buffer: a tie group is all parameters or all buffers}}
nn.parameter @b : tensor<4xf32> tied_to @a

// -----

// expected-error @+1 {{is tied to itself through 'a'}}
nn.parameter @a : tensor<4xf32> tied_to @b
nn.parameter @b : tensor<4xf32> tied_to @a
