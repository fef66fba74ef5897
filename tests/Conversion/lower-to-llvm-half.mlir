// The whole CPU pipeline on bf16 and f16: what reaches the LLVM dialect
// converts f32 -> bf16 with integer arithmetic (no fptrunc to bf16, which
// LLVM 19 turns into a call to __truncsfbf2 that libgcc 12 lacks) and does
// no arithmetic on bf16.
// RUN: nn-opt %s -nn-optimize -nn-lower-to-llvm | FileCheck %s

// CHECK-NOT: = nn.
// CHECK-LABEL: llvm.func @forward
// Scalars or vectors, as nn-tile-and-vectorize leaves them.
// CHECK-NOT: llvm.fptrunc {{.*}} to {{.*}}bf16
// CHECK-NOT: llvm.fadd {{.*}} : {{.*}}bf16
// CHECK-NOT: llvm.fmul {{.*}} : {{.*}}bf16
// CHECK: llvm.fptrunc {{.*}} : {{f32|vector<[0-9]+xf32>}} to {{f16|vector<[0-9]+xf16>}}
// CHECK-NOT: llvm.fptrunc {{.*}} to {{.*}}bf16
// CHECK: llvm.return
nn.parameter @fc.weight : tensor<3x4xbf16>
nn.parameter @fc.bias : tensor<3xbf16>
func.func @forward(%x: tensor<2x4xbf16>, %a: tensor<2x5xf16>, %b: tensor<5x3xf16>) -> (tensor<2x3xbf16>, tensor<2x3xf16>) {
  %w = nn.load @fc.weight : tensor<3x4xbf16>
  %bias = nn.load @fc.bias : tensor<3xbf16>
  %y = nn.linear %x, %w, %bias : (tensor<2x4xbf16>, tensor<3x4xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
  %z = nn.relu %y : tensor<2x3xbf16>
  %m = nn.matmul %a, %b : (tensor<2x5xf16>, tensor<5x3xf16>) -> tensor<2x3xf16>
  return %z, %m : tensor<2x3xbf16>, tensor<2x3xf16>
}
