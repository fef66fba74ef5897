// RUN: nn-opt %s | FileCheck %s
// RUN: nn-opt %s | nn-opt | FileCheck %s

// The activations round-trip with their attributes; a default attribute is
// left out when printed.

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: nn.gelu %{{.*}} : tensor<2x3xf32>
  %a = nn.gelu %x : tensor<2x3xf32>
  // CHECK: nn.gelu %{{.*}} approximate<tanh> : tensor<2x3xf32>
  %b = nn.gelu %x approximate<tanh> : tensor<2x3xf32>
  // CHECK: nn.gelu %{{.*}} : tensor<2x3xf32>
  %c = nn.gelu %x approximate<none> : tensor<2x3xf32>
  // CHECK: nn.silu %{{.*}} : tensor<2x3xf32>
  %d = nn.silu %x : tensor<2x3xf32>
  return %a, %b, %c, %d : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
