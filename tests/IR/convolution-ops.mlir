// RUN: nn-opt %s | FileCheck %s
// The textual form round-trips: printing what was parsed parses again to the
// same IR.
// RUN: nn-opt %s | nn-opt | FileCheck %s

// CHECK-LABEL: func.func @conv2d
// CHECK: nn.conv %{{.*}}, %{{.*}}, %{{.*}} stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x7x7xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
func.func @conv2d(%x: tensor<2x3x7x7xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  %y = nn.conv %x, %w, %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x7x7xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  return %y : tensor<2x8x4x4xf32>
}

// Asymmetric padding (low sides, then high sides), as padding="same" with an
// even kernel gives; grouped, no bias.
// CHECK-LABEL: func.func @conv2d_same_grouped
// CHECK: nn.conv %{{.*}}, %{{.*}} stride [1, 1] padding [1, 1, 2, 2] dilation [1, 1] groups 2 : (tensor<1x4x7x7xf32>, tensor<6x2x4x4xf32>) -> tensor<1x6x7x7xf32>
func.func @conv2d_same_grouped(%x: tensor<1x4x7x7xf32>, %w: tensor<6x2x4x4xf32>) -> tensor<1x6x7x7xf32> {
  %y = nn.conv %x, %w stride [1, 1] padding [1, 1, 2, 2] dilation [1, 1] groups 2 : (tensor<1x4x7x7xf32>, tensor<6x2x4x4xf32>) -> tensor<1x6x7x7xf32>
  return %y : tensor<1x6x7x7xf32>
}

// CHECK-LABEL: func.func @conv1d
// CHECK: nn.conv %{{.*}}, %{{.*}} stride [2] padding [2] dilation [2] groups 1 : (tensor<1x3x17xf32>, tensor<4x3x3xf32>) -> tensor<1x4x9xf32>
func.func @conv1d(%x: tensor<1x3x17xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x9xf32> {
  %y = nn.conv %x, %w stride [2] padding [2] dilation [2] groups 1 : (tensor<1x3x17xf32>, tensor<4x3x3xf32>) -> tensor<1x4x9xf32>
  return %y : tensor<1x4x9xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d
// CHECK: nn.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x10x10xf32>
func.func @conv_transpose2d(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x10x10xf32> {
  %y = nn.conv_transpose %x, %w, %b stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x10x10xf32>
  return %y : tensor<1x2x10x10xf32>
}

// CHECK-LABEL: func.func @conv3d
// CHECK: nn.conv %{{.*}}, %{{.*}} stride [1, 2, 2] padding [0, 1, 1] dilation [1, 1, 1] groups 2 : (tensor<2x4x5x7x7xf32>, tensor<6x2x3x3x3xf32>) -> tensor<2x6x3x4x4xf32>
func.func @conv3d(%x: tensor<2x4x5x7x7xf32>, %w: tensor<6x2x3x3x3xf32>) -> tensor<2x6x3x4x4xf32> {
  %y = nn.conv %x, %w stride [1, 2, 2] padding [0, 1, 1] dilation [1, 1, 1] groups 2 : (tensor<2x4x5x7x7xf32>, tensor<6x2x3x3x3xf32>) -> tensor<2x6x3x4x4xf32>
  return %y : tensor<2x6x3x4x4xf32>
}

// CHECK-LABEL: func.func @conv_transpose1d_3d
// CHECK: nn.conv_transpose %{{.*}}, %{{.*}} stride [3] padding [0] output_padding [1] dilation [2] groups 1 : (tensor<2x3x5xf32>, tensor<3x2x4xf32>) -> tensor<2x2x20xf32>
// CHECK: nn.conv_transpose %{{.*}}, %{{.*}} stride [2, 2, 2] padding [1, 1, 1] output_padding [0, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x4x2x3x3xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x2x3x6x6xf32>
func.func @conv_transpose1d_3d(%x: tensor<2x3x5xf32>, %w: tensor<3x2x4xf32>, %x3: tensor<1x4x2x3x3xf32>, %w3: tensor<4x2x3x3x3xf32>) -> (tensor<2x2x20xf32>, tensor<1x2x3x6x6xf32>) {
  %y = nn.conv_transpose %x, %w stride [3] padding [0] output_padding [1] dilation [2] groups 1 : (tensor<2x3x5xf32>, tensor<3x2x4xf32>) -> tensor<2x2x20xf32>
  %y3 = nn.conv_transpose %x3, %w3 stride [2, 2, 2] padding [1, 1, 1] output_padding [0, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x4x2x3x3xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x2x3x6x6xf32>
  return %y, %y3 : tensor<2x2x20xf32>, tensor<1x2x3x6x6xf32>
}

// CHECK-LABEL: func.func @max_pool2d
// CHECK: nn.max_pool %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
func.func @max_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32> {
  %y = nn.max_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// CHECK-LABEL: func.func @avg_pool2d
// CHECK: nn.avg_pool %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] count_include_pad {divisor_override = 4 : i64} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
func.func @avg_pool2d(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32> {
  %y = nn.avg_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] count_include_pad {divisor_override = 4 : i64} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @adaptive_avg_pool2d
// CHECK: nn.adaptive_avg_pool %{{.*}} output_size [3, 5] : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x5xf32>
func.func @adaptive_avg_pool2d(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x3x5xf32> {
  %y = nn.adaptive_avg_pool %x output_size [3, 5] : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x5xf32>
  return %y : tensor<1x8x3x5xf32>
}

// The pooling ops take 1 to 3 spatial dimensions, as nn.conv does.
// CHECK-LABEL: func.func @pooling_1d_and_3d
// CHECK: nn.max_pool %{{.*}} kernel [3] stride [2] padding [1] dilation [1] : (tensor<2x3x17xf32>) -> tensor<2x3x9xf32>
// CHECK: nn.avg_pool %{{.*}} kernel [3, 3, 2] stride [2, 2, 1] padding [1, 1, 0] ceil_mode : (tensor<1x2x5x7x6xf32>) -> tensor<1x2x3x4x5xf32>
// CHECK: nn.adaptive_avg_pool %{{.*}} output_size [2, 3, 4] : (tensor<1x2x5x7x9xf32>) -> tensor<1x2x2x3x4xf32>
func.func @pooling_1d_and_3d(%a: tensor<2x3x17xf32>, %b: tensor<1x2x5x7x6xf32>, %c: tensor<1x2x5x7x9xf32>) -> (tensor<2x3x9xf32>, tensor<1x2x3x4x5xf32>, tensor<1x2x2x3x4xf32>) {
  %0 = nn.max_pool %a kernel [3] stride [2] padding [1] dilation [1] : (tensor<2x3x17xf32>) -> tensor<2x3x9xf32>
  %1 = nn.avg_pool %b kernel [3, 3, 2] stride [2, 2, 1] padding [1, 1, 0] ceil_mode : (tensor<1x2x5x7x6xf32>) -> tensor<1x2x3x4x5xf32>
  %2 = nn.adaptive_avg_pool %c output_size [2, 3, 4] : (tensor<1x2x5x7x9xf32>) -> tensor<1x2x2x3x4xf32>
  return %0, %1, %2 : tensor<2x3x9xf32>, tensor<1x2x3x4x5xf32>, tensor<1x2x2x3x4xf32>
}

// CHECK-LABEL: func.func @interpolate
// CHECK: nn.interpolate %{{.*}} size [14, 14] mode "bilinear" align_corners : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
// CHECK: nn.interpolate %{{.*}} size [10, 10] mode "nearest" scales [1.500000e+00, 1.500000e+00] : (tensor<1x3x7x7xf32>) -> tensor<1x3x10x10xf32>
func.func @interpolate(%x: tensor<1x3x7x7xf32>) -> (tensor<1x3x14x14xf32>, tensor<1x3x10x10xf32>) {
  %y = nn.interpolate %x size [14, 14] mode "bilinear" align_corners : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
  %z = nn.interpolate %x size [10, 10] mode "nearest" scales [1.5, 1.5] : (tensor<1x3x7x7xf32>) -> tensor<1x3x10x10xf32>
  return %y, %z : tensor<1x3x14x14xf32>, tensor<1x3x10x10xf32>
}
