// RUN: nn-opt %s | nn-opt | FileCheck %s
// RUN: nn-opt %s -mlir-print-op-generic | nn-opt | FileCheck %s

// Round trip of every loss op in its custom form.

// CHECK-LABEL: func.func @losses
func.func @losses(%x: tensor<4x5xf32>, %t: tensor<4xi64>, %w: tensor<5xf32>,
                  %k: tensor<2x3x4xf32>, %kt: tensor<2x4xi64>,
                  %y: tensor<4x5xf32>) {
  // CHECK: nn.nll_loss %{{.*}}, %{{.*}} weight %{{.*}} reduction <mean> ignore_index -100 : (tensor<4x5xf32>, tensor<4xi64>, tensor<5xf32>) -> tensor<f32>
  %0 = nn.nll_loss %x, %t weight %w reduction <mean> ignore_index -100
      : (tensor<4x5xf32>, tensor<4xi64>, tensor<5xf32>) -> tensor<f32>
  // CHECK: nn.nll_loss %{{.*}}, %{{.*}} reduction <none> ignore_index 2 : (tensor<2x3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  %1 = nn.nll_loss %k, %kt reduction <none> ignore_index 2
      : (tensor<2x3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  // CHECK: nn.mse_loss %{{.*}}, %{{.*}} reduction <sum> : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
  %2 = nn.mse_loss %x, %y reduction <sum> : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
  // CHECK: nn.l1_loss %{{.*}}, %{{.*}} reduction <none> : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %3 = nn.l1_loss %x, %y reduction <none> : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}
