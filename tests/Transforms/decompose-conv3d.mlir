// RUN: nn-opt %s -nn-decompose-conv3d -split-input-file | FileCheck %s

// Depth padded by zeros on both sides after one permute to [N, D, C, H, W];
// one 2-D convolution per depth offset over the slices it reads (every
// stride-th), the first with the bias; their sum permuted back.
// CHECK-LABEL: func.func @padded_strided
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x5x5xf32>, %[[W:.*]]: tensor<3x2x2x3x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[P:.*]] = nn.permute %[[X]] [0, 2, 1, 3, 4] : (tensor<1x2x4x5x5xf32>) -> tensor<1x4x2x5x5xf32>
// CHECK: %[[C:.*]] = nn.pad %[[P]] low [0, 1, 0, 0, 0] high [0, 1, 0, 0, 0] value 0.000000e+00 : (tensor<1x4x2x5x5xf32>) -> tensor<1x6x2x5x5xf32>
// CHECK: %[[S0:.*]] = nn.slice %[[C]] dim 1 [0 : 5 : 2] : (tensor<1x6x2x5x5xf32>) -> tensor<1x3x2x5x5xf32>
// CHECK: %[[I0:.*]] = nn.reshape %[[S0]] [3, 2, 5, 5]
// CHECK: %[[W0:.*]] = nn.slice %[[W]] dim 2 [0 : 1 : 1] : (tensor<3x2x2x3x3xf32>) -> tensor<3x2x1x3x3xf32>
// CHECK: %[[K0:.*]] = nn.reshape %[[W0]] [3, 2, 3, 3]
// CHECK: %[[Y0:.*]] = nn.conv %[[I0]], %[[K0]], %[[B]] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] groups 1 : (tensor<3x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<3x3x5x5xf32>
// CHECK: %[[S1:.*]] = nn.slice %[[C]] dim 1 [1 : 6 : 2]
// CHECK: %[[I1:.*]] = nn.reshape %[[S1]] [3, 2, 5, 5]
// CHECK: %[[W1:.*]] = nn.slice %[[W]] dim 2 [1 : 2 : 1]
// CHECK: %[[K1:.*]] = nn.reshape %[[W1]] [3, 2, 3, 3]
// CHECK: %[[Y1:.*]] = nn.conv %[[I1]], %[[K1]] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] groups 1 : (tensor<3x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<3x3x5x5xf32>
// CHECK: %[[SUM:.*]] = nn.add %[[Y0]], %[[Y1]]
// CHECK: %[[R:.*]] = nn.reshape %[[SUM]] [1, 3, 3, 5, 5] : (tensor<3x3x5x5xf32>) -> tensor<1x3x3x5x5xf32>
// CHECK: %[[Y:.*]] = nn.permute %[[R]] [0, 2, 1, 3, 4] : (tensor<1x3x3x5x5xf32>) -> tensor<1x3x3x5x5xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: nn.conv {{.*}}x5xf32>, tensor<3x2x2x3x3xf32>
func.func @padded_strided(%x: tensor<1x2x4x5x5xf32>, %w: tensor<3x2x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x3x5x5xf32> {
  %y = nn.conv %x, %w, %b stride [2, 1, 1] padding [1, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x2x4x5x5xf32>, tensor<3x2x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x5x5xf32>
  return %y : tensor<1x3x3x5x5xf32>
}

// -----

// No depth padding: no zeros. The depth dilation spaces the slices' starts;
// height and width keep their asymmetric padding, stride and dilation;
// groups stay.
// CHECK-LABEL: func.func @grouped_dilated
// CHECK-NOT: nn.cat
// CHECK: nn.slice %{{.*}} dim 1 [0 : 3 : 1] : (tensor<2x5x4x6x7xf32>) -> tensor<2x3x4x6x7xf32>
// CHECK: nn.reshape %{{.*}} [6, 4, 6, 7]
// CHECK: nn.conv {{.*}} stride [2, 1] padding [0, 1, 1, 2] dilation [1, 2] groups 2 : (tensor<6x4x6x7xf32>, tensor<6x2x3x3xf32>) -> tensor<6x6x3x6xf32>
// CHECK: nn.slice %{{.*}} dim 1 [2 : 5 : 1]
// CHECK: nn.conv {{.*}} groups 2
// CHECK: nn.add
// CHECK: nn.permute %{{.*}} [0, 2, 1, 3, 4] : (tensor<2x3x6x3x6xf32>) -> tensor<2x6x3x3x6xf32>
func.func @grouped_dilated(%x: tensor<2x4x5x6x7xf32>, %w: tensor<6x2x2x3x3xf32>) -> tensor<2x6x3x3x6xf32> {
  %y = nn.conv %x, %w stride [1, 2, 1] padding [0, 0, 1, 0, 1, 2] dilation [2, 1, 2] groups 2 : (tensor<2x4x5x6x7xf32>, tensor<6x2x2x3x3xf32>) -> tensor<2x6x3x3x6xf32>
  return %y : tensor<2x6x3x3x6xf32>
}

// -----

// 1-D and 2-D convolutions are left alone.
// CHECK-LABEL: func.func @two_d
// CHECK-NEXT: nn.conv %{{.*}}, %{{.*}} stride [1, 1]
// CHECK-NEXT: return
func.func @two_d(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}
