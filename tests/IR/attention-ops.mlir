// RUN: nn-opt %s | FileCheck %s
// The textual form round-trips: printing what was parsed parses again to the
// same IR.
// RUN: nn-opt %s | nn-opt | FileCheck %s

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x7x8xf32>,
                     %v: tensor<2x4x7x3xf32>, %b: tensor<5x7xi1>,
                     %f: tensor<2x1x1x7xf32>, %q3: tensor<5x8xf32>,
                     %k3: tensor<3x1x7x8xf32>, %rng: tensor<2xi64>) {
  // CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
  %0 = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
  // CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xi1>) -> tensor<2x4x5x3xf32>
  %1 = nn.scaled_dot_product_attention %q, %k, %v mask %b : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xi1>) -> tensor<2x4x5x3xf32>
  // CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 5.000000e-01 : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<2x1x1x7xf32>) -> tensor<2x4x5x3xf32>
  %2 = nn.scaled_dot_product_attention %q, %k, %v mask %f scale 0.5 : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<2x1x1x7xf32>) -> tensor<2x4x5x3xf32>
  // CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} causal : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
  %3 = nn.scaled_dot_product_attention %q, %k, %v causal : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
  // Batch dims broadcast: a 2-D query against [3, 1]-batched keys/values.
  // CHECK: -> tensor<3x1x5x8xf32>
  %4 = nn.scaled_dot_product_attention %q3, %k3, %k3 : (tensor<5x8xf32>, tensor<3x1x7x8xf32>, tensor<3x1x7x8xf32>) -> tensor<3x1x5x8xf32>
  // Dropout on the weights draws from the generator state.
  // CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} rng %{{.*}} {dropout_p = 1.000000e-01 : f64, offset = 70 : i64} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xi1>, tensor<2xi64>) -> tensor<2x4x5x3xf32>
  %5 = nn.scaled_dot_product_attention %q, %k, %v mask %b rng %rng {dropout_p = 0.1 : f64, offset = 70 : i64} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xi1>, tensor<2xi64>) -> tensor<2x4x5x3xf32>
  return
}
