// The nn-optimize pipeline: canonicalize, cse, tie-weights, fold-batchnorm,
// fold-scalar-mul, merge-linears, fuse, canonicalize.
// RUN: nn-opt %s -nn-optimize | FileCheck %s
// Each graph pass can be switched off.
// RUN: nn-opt %s -nn-optimize=fuse=false | FileCheck %s --check-prefix=NOFUSE
// RUN: nn-opt %s -nn-optimize=fold-batchnorm=false | FileCheck %s --check-prefix=NOFOLD
// RUN: nn-opt %s -nn-optimize=tie-weights=false | FileCheck %s --check-prefix=NOTIE
// RUN: nn-opt %s '-nn-optimize=fold-scalar-mul=false merge-linears=false' \
// RUN:   -mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOALGEBRA
// --mlir-print-ir-after-all shows every step, in order.
// RUN: nn-opt %s -nn-optimize -mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEPS

nn.parameter @fc1.weight : tensor<8x4xf32>
nn.parameter @fc1.bias : tensor<8xf32>
nn.parameter @fc2.weight : tensor<8x8xf32> tied_to @fc1.weight2
nn.parameter @fc1.weight2 : tensor<8x8xf32>
nn.parameter @conv.weight : tensor<8x3x1x1xf32>
nn.buffer @bn.running_mean : tensor<8xf32> persistent
nn.buffer @bn.running_var : tensor<8xf32> persistent
nn.parameter @unused : tensor<5xf32>

// CHECK: nn.parameter @fc1.weight2 : tensor<8x8xf32> aliases ["fc2.weight"]
// CHECK-NOT: nn.parameter @fc2.weight
// CHECK-LABEL: func.func @forward
// CHECK-NOT: nn.dropout
// CHECK-NOT: nn.load @unused
// CHECK-NOT: nn.batch_norm
// The linear + relu and the conv (batch norm folded) + relu are groups (an
// nn.yield right after them); the batch-norm prologue computes the conv's
// new weight and bias first.
// CHECK: nn.linear
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK-NOT: nn.relu
// CHECK: nn.linear
// CHECK: nn.conv
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// NOFUSE-LABEL: func.func @forward
// NOFUSE-NOT: nn.fused
// NOFUSE-NOT: nn.batch_norm
// NOFUSE: nn.relu
// NOFOLD-LABEL: func.func @forward
// NOFOLD: nn.conv
// NOFOLD-NEXT: nn.batch_norm
// NOFOLD-NEXT: nn.relu
// NOTIE: nn.parameter @fc2.weight : tensor<8x8xf32> tied_to @fc1.weight2
// NOTIE-LABEL: func.func @forward
// NOTIE: nn.load @fc2.weight
// NOALGEBRA: IR Dump After FoldBatchNormPass
// NOALGEBRA-NOT: FoldScalarMulPass
// NOALGEBRA-NOT: MergeLinearsPass
// NOALGEBRA: IR Dump After FusePass
// STEPS: IR Dump After Canonicalizer
// STEPS: IR Dump After CSE
// STEPS: IR Dump After TieWeightsPass
// STEPS: IR Dump After CSE
// STEPS: IR Dump After FoldBatchNormPass
// STEPS: IR Dump After FoldScalarMulPass
// STEPS: IR Dump After MergeLinearsPass
// STEPS: IR Dump After FusePass
// STEPS: IR Dump After Canonicalizer
func.func @forward(%x: tensor<3x4xf32>, %img: tensor<1x3x2x2xf32>) -> (tensor<3x8xf32>, tensor<1x8x2x2xf32>) {
  %w1 = nn.load @fc1.weight : tensor<8x4xf32>
  %b1 = nn.load @fc1.bias : tensor<8xf32>
  %w2 = nn.load @fc2.weight : tensor<8x8xf32>
  %u = nn.load @unused : tensor<5xf32>
  %h = nn.linear %x, %w1, %b1 : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %r = nn.relu %h : tensor<3x8xf32>
  %d = nn.dropout %r {p = 0.1 : f64} : tensor<3x8xf32>
  %y = nn.linear %d, %w2 : (tensor<3x8xf32>, tensor<8x8xf32>) -> tensor<3x8xf32>
  %cw = nn.load @conv.weight : tensor<8x3x1x1xf32>
  %m = nn.load @bn.running_mean : tensor<8xf32>
  %v = nn.load @bn.running_var : tensor<8xf32>
  %c = nn.conv %img, %cw stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x2x2xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x2x2xf32>
  %n = nn.batch_norm %c, %m, %v eps 1.000000e-05 : (tensor<1x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x2x2xf32>
  %o = nn.relu %n : tensor<1x8x2x2xf32>
  return %y, %o : tensor<3x8xf32>, tensor<1x8x2x2xf32>
}
