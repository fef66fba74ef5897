// The graph passes leave what they do not understand alone and never crash:
// unregistered ops, calls, arith ops between nn ops and nn.fused groups made
// earlier go through every pass (and the whole pipeline) unchanged.
// RUN: nn-opt %s -allow-unregistered-dialect -nn-fuse -split-input-file | FileCheck %s
// RUN: nn-opt %s -allow-unregistered-dialect -nn-fold-batchnorm -split-input-file | FileCheck %s
// RUN: nn-opt %s -allow-unregistered-dialect -nn-fold-scalar-mul -split-input-file | FileCheck %s
// RUN: nn-opt %s -allow-unregistered-dialect -nn-merge-linears -split-input-file | FileCheck %s
// RUN: nn-opt %s -allow-unregistered-dialect -nn-tie-weights -split-input-file | FileCheck %s
// RUN: nn-opt %s -allow-unregistered-dialect -nn-optimize -split-input-file | FileCheck %s
// Running the pipeline twice changes nothing the second time.
// RUN: nn-opt %s -allow-unregistered-dialect -nn-optimize -split-input-file \
// RUN:   | nn-opt -allow-unregistered-dialect -nn-optimize -split-input-file | FileCheck %s

// An unregistered op between a conv and its relu, and consuming a linear
// before a scale: no fusion, folding or scaling through it.
// CHECK-LABEL: func.func @unregistered
// CHECK: nn.conv
// CHECK-NEXT: "mystery.op"
// CHECK-NEXT: nn.relu
// CHECK: nn.linear
// CHECK-NEXT: "mystery.scale"
// CHECK-NOT: nn.fused
func.func @unregistered(%x: tensor<1x3x4x4xf32>, %w: tensor<3x3x1x1xf32>, %y: tensor<64x8xf32>, %v: tensor<8x8xf32>)
    -> (tensor<1x3x4x4xf32>, tensor<64x8xf32>) {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
      : (tensor<1x3x4x4xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %m = "mystery.op"(%c) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %r = nn.relu %m : tensor<1x3x4x4xf32>
  %l = nn.linear %y, %v : (tensor<64x8xf32>, tensor<8x8xf32>) -> tensor<64x8xf32>
  %s = "mystery.scale"(%l) : (tensor<64x8xf32>) -> tensor<64x8xf32>
  return %r, %s : tensor<1x3x4x4xf32>, tensor<64x8xf32>
}

// -----

// An unregistered op producing an nn op's operand, and an unregistered
// terminator-free op with regions, are not producers the passes know.
// CHECK-LABEL: func.func @unregistered_producer
// CHECK: "mystery.source"
// CHECK-NEXT: nn.relu
// CHECK: "mystery.region"
// CHECK: nn.relu
func.func @unregistered_producer() -> (tensor<4xf32>, tensor<4xf32>) {
  %a = "mystery.source"() : () -> tensor<4xf32>
  %b = nn.relu %a : tensor<4xf32>
  %c = "mystery.region"(%b) ({
  ^bb0(%i: tensor<4xf32>):
    %d = nn.relu %i : tensor<4xf32>
    "mystery.yield"(%d) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// Calls and arith ops: a call's result feeds a linear, an arith op sits
// between two pointwise nn ops.
func.func private @external(tensor<64x8xf32>) -> tensor<64x8xf32>
// CHECK-LABEL: func.func @calls_and_arith
// CHECK: call @external
// CHECK: arith.addf
// CHECK: return
func.func @calls_and_arith(%x: tensor<64x8xf32>, %w: tensor<8x8xf32>) -> (tensor<64x8xf32>, tensor<64x8xf32>) {
  %e = func.call @external(%x) : (tensor<64x8xf32>) -> tensor<64x8xf32>
  %l = nn.linear %e, %w : (tensor<64x8xf32>, tensor<8x8xf32>) -> tensor<64x8xf32>
  %a = nn.relu %x : tensor<64x8xf32>
  %b = arith.addf %a, %a : tensor<64x8xf32>
  %c = nn.exp %b : tensor<64x8xf32>
  return %l, %c : tensor<64x8xf32>, tensor<64x8xf32>
}

// -----

// A group made earlier stays one group with the same body.
// CHECK-LABEL: func.func @already_fused
// CHECK: nn.fused
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nn.conv
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK-NOT: nn.fused
func.func @already_fused(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %y = nn.fused (%x, %w, %b) : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a: tensor<1x8x6x6xf32>, %k: tensor<8x8x3x3xf32>, %c: tensor<8xf32>):
    %0 = nn.conv %a, %k, %c stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
        : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
    %1 = nn.add %0, %a : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %2 = nn.relu %1 : tensor<1x8x6x6xf32>
    nn.yield %2 : tensor<1x8x6x6xf32>
  }
  return %y : tensor<1x8x6x6xf32>
}
