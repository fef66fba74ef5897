// RUN: nn-opt %s | nn-opt | FileCheck %s
// RUN: nn-opt %s -mlir-print-op-generic | nn-opt | FileCheck %s

// Round trip of every shape op in its custom form.

// CHECK-LABEL: func.func @reshaping
func.func @reshaping(%x: tensor<2x3x4xf32>, %s: tensor<1x3x1xf32>) {
  // CHECK: nn.reshape %{{.*}} [3, -1] : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
  %0 = nn.reshape %x [3, -1] : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
  // CHECK: nn.flatten %{{.*}} from 1 to -1 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = nn.flatten %x from 1 to -1 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK: nn.squeeze %{{.*}} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %2 = nn.squeeze %s : (tensor<1x3x1xf32>) -> tensor<3xf32>
  // CHECK: nn.squeeze %{{.*}} dim -1 : (tensor<1x3x1xf32>) -> tensor<1x3xf32>
  %3 = nn.squeeze %s dim -1 : (tensor<1x3x1xf32>) -> tensor<1x3xf32>
  // CHECK: nn.unsqueeze %{{.*}} dim 1 : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
  %4 = nn.unsqueeze %x dim 1 : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
  // CHECK: nn.expand %{{.*}} [5, -1, 3, 2] : (tensor<1x3x1xf32>) -> tensor<5x1x3x2xf32>
  %5 = nn.expand %s [5, -1, 3, 2] : (tensor<1x3x1xf32>) -> tensor<5x1x3x2xf32>
  // CHECK: nn.permute %{{.*}} [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %6 = nn.permute %x [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: nn.transpose %{{.*}} 0, -1 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %7 = nn.transpose %x 0, -1 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return
}

// CHECK-LABEL: func.func @joining
func.func @joining(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %x: tensor<3x7xi64>) {
  // CHECK: nn.cat %{{.*}}, %{{.*}} dim 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %0 = nn.cat %a, %b dim 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: nn.stack %{{.*}}, %{{.*}} dim -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  %1 = nn.stack %a, %a dim -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  // CHECK: nn.split %{{.*}} [2, 5] dim 1 : (tensor<3x7xi64>) -> (tensor<3x2xi64>, tensor<3x5xi64>)
  %2:2 = nn.split %x [2, 5] dim 1 : (tensor<3x7xi64>) -> (tensor<3x2xi64>, tensor<3x5xi64>)
  // CHECK: nn.slice %{{.*}} dim 1 [1 : 7 : 2] : (tensor<3x7xi64>) -> tensor<3x3xi64>
  %3 = nn.slice %x dim 1 [1 : 7 : 2] : (tensor<3x7xi64>) -> tensor<3x3xi64>
  // CHECK: nn.pad %{{.*}} low [0, 1] high [2, 0] value 7.000000e+00 : (tensor<3x7xi64>) -> tensor<5x8xi64>
  %p = nn.pad %x low [0, 1] high [2, 0] value 7.0 : (tensor<3x7xi64>) -> tensor<5x8xi64>
  return
}

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<5x3xf32>, %i: tensor<4xi64>, %g: tensor<5x2xi64>, %ids: tensor<2x7xi64>) {
  // CHECK: nn.index_select %{{.*}}, %{{.*}} dim 0 : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %0 = nn.index_select %x, %i dim 0 : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  // CHECK: nn.gather %{{.*}}, %{{.*}} dim 1 : (tensor<5x3xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  %1 = nn.gather %x, %g dim 1 : (tensor<5x3xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  // CHECK: nn.embedding %{{.*}}, %{{.*}} : (tensor<2x7xi64>, tensor<5x3xf32>) -> tensor<2x7x3xf32>
  %2 = nn.embedding %ids, %x : (tensor<2x7xi64>, tensor<5x3xf32>) -> tensor<2x7x3xf32>
  // CHECK: nn.embedding %{{.*}}, %{{.*}} padding_idx 4 : (tensor<2x7xi64>, tensor<5x3xf32>) -> tensor<2x7x3xf32>
  %p = nn.embedding %ids, %x padding_idx 4 : (tensor<2x7xi64>, tensor<5x3xf32>) -> tensor<2x7x3xf32>
  return
}
