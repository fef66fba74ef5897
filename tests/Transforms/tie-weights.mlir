// RUN: nn-opt %s -nn-tie-weights -split-input-file | FileCheck %s

// The tied declaration goes; its loads read the root, which lists its name.
// CHECK: nn.parameter @encoder.weight : tensor<16x16xf32> aliases ["decoder.weight"]
// CHECK-NOT: nn.parameter @decoder.weight
// CHECK-LABEL: func.func @forward
// CHECK-COUNT-2: nn.load @encoder.weight
// CHECK-NOT: nn.load @decoder.weight
nn.parameter @encoder.weight : tensor<16x16xf32>
nn.parameter @encoder.bias : tensor<16xf32>
nn.parameter @decoder.weight : tensor<16x16xf32> tied_to @encoder.weight
func.func @forward(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %w = nn.load @encoder.weight : tensor<16x16xf32>
  %b = nn.load @encoder.bias : tensor<16xf32>
  %h = nn.linear %x, %w, %b : (tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %w2 = nn.load @decoder.weight : tensor<16x16xf32>
  %y = nn.linear %h, %w2 : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// Three names, one chained through another; a tied buffer; flags of the
// root are kept. Untied state is left alone.
// CHECK: nn.parameter @a : tensor<4xf32> frozen aliases ["b", "c"]
// CHECK-NEXT: nn.parameter @other : tensor<4xf32>{{$}}
// CHECK-NEXT: nn.buffer @m : tensor<2xf32> persistent aliases ["n"]
// CHECK-NOT: nn.parameter @b
// CHECK-NOT: nn.parameter @c
// CHECK-LABEL: func.func @store
// CHECK: nn.store @m
nn.parameter @a : tensor<4xf32> frozen
nn.parameter @b : tensor<4xf32> tied_to @a
nn.parameter @other : tensor<4xf32>
nn.parameter @c : tensor<4xf32> tied_to @b
nn.buffer @m : tensor<2xf32> persistent
nn.buffer @n : tensor<2xf32> persistent tied_to @m
func.func @store(%x: tensor<2xf32>) {
  nn.store @n, %x : tensor<2xf32>
  return
}

// -----

// Nothing tied: state, other symbols and ops are left as they are.
// CHECK: nn.parameter @w : tensor<2xf32>{{$}}
// CHECK: nn.buffer @m : tensor<2xf32>{{$}}
// CHECK-LABEL: func.func private @external
// CHECK-LABEL: func.func @untouched
// CHECK: nn.load @w
// CHECK: arith.addf
// CHECK: call @external
nn.parameter @w : tensor<2xf32>
nn.buffer @m : tensor<2xf32>
func.func private @external(tensor<2xf32>)
func.func @untouched() {
  %w = nn.load @w : tensor<2xf32>
  %s = arith.addf %w, %w : tensor<2xf32>
  func.call @external(%s) : (tensor<2xf32>) -> ()
  return
}
