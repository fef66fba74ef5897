// RUN: nn-opt %s -nn-optimize -nn-lower-to-cuda-kernels | FileCheck %s --implicit-check-not=nn_kernel --implicit-check-not=llvm

// What the CUDA kernel emitter takes: state as arguments ahead of the
// inputs, the result an out-parameter, every op a linalg op on memrefs (the
// convolution too: no CPU kernel op, no tiling), padding a fill and a copy
// into a view, the epilogue one generic.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[W:.+]]: memref<4x3x3x3xf32> {nn.state = "conv.weight"}, %[[X:.+]]: memref<1x3x6x6xf32>, %[[R:.+]]: memref<1x4x6x6xf32>, %[[Y:.+]]: memref<1x4x6x6xf32>)
// CHECK: %[[P:.+]] = memref.alloc() {{.*}} : memref<1x3x8x8xf32>
// CHECK: linalg.fill {{.*}} outs(%[[P]]
// CHECK: %[[V:.+]] = memref.subview %[[P]][0, 0, 1, 1] [1, 3, 6, 6]
// CHECK: linalg.copy ins(%[[X]] {{.*}} outs(%[[V]]
// CHECK: %[[C:.+]] = memref.alloc() {{.*}} : memref<1x4x6x6xf32>
// CHECK: linalg.fill {{.*}} outs(%[[C]]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %[[W]] {{.*}} outs(%[[C]]
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[R]] {{.*}} outs(%[[Y]]
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: return
nn.parameter @conv.weight : tensor<4x3x3x3xf32>
func.func @forward(%x: tensor<1x3x6x6xf32>, %r: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = nn.load @conv.weight : tensor<4x3x3x3xf32>
  %c = nn.conv %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = nn.add %c, %r : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = nn.relu %a : tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}
