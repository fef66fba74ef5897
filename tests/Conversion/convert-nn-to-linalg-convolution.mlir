// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s

// conv2d, groups 1: zero padding (the input copied into a slice of zeros,
// in destination-passing style), the bias broadcast as the accumulator,
// linalg.conv_2d_nchw_fchw with the strides and dilations.
// CHECK-LABEL: func.func @conv2d
// CHECK: %[[ZEROS:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x9x9xf32>)
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %[[ZEROS]][0, 0, 1, 1] [2, 3, 7, 7] [1, 1, 1, 1]
// CHECK: %[[COPY:.+]] = linalg.copy ins(%{{.*}} : tensor<2x3x7x7xf32>) outs(%[[SLICE]] : tensor<2x3x7x7xf32>)
// CHECK: %[[PAD:.+]] = tensor.insert_slice %[[COPY]] into %[[ZEROS]][0, 0, 1, 1] [2, 3, 7, 7] [1, 1, 1, 1] : tensor<2x3x7x7xf32> into tensor<2x3x9x9xf32>
// CHECK: %[[BIAS:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<2x8x4x4xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %{{.*}} : tensor<2x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%[[BIAS]] : tensor<2x8x4x4xf32>)
// CHECK-NOT: nn.
func.func @conv2d(%x: tensor<2x3x7x7xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  %y = nn.conv %x, %w, %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x7x7xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  return %y : tensor<2x8x4x4xf32>
}

// -----

// conv1d: linalg.conv_1d_ncw_fcw accumulating into zeros; no pad when
// padding is 0.
// CHECK-LABEL: func.func @conv1d
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[ZERO:.+]] = linalg.fill
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x3x17xf32>, tensor<4x3x3xf32>) outs(%[[ZERO]] : tensor<1x4x13xf32>)
func.func @conv1d(%x: tensor<1x3x17xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x13xf32> {
  %y = nn.conv %x, %w stride [1] padding [0] dilation [2] groups 1 : (tensor<1x3x17xf32>, tensor<4x3x3xf32>) -> tensor<1x4x13xf32>
  return %y : tensor<1x4x13xf32>
}

// -----

// Depthwise (groups == in == out channels): the weight loses its unit
// dimension and linalg.depthwise_conv_2d_nchw_chw runs.
// CHECK-LABEL: func.func @depthwise
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<3x1x3x3xf32> into tensor<3x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x3x7x7xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 3 : (tensor<1x3x7x7xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

// Grouped: [N, G, C/G, H, W] views and linalg.conv_2d_ngchw_gfchw; the
// asymmetric padding of padding="same" with an even kernel.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 4, 7, 7] [1, 1, 1, 1] : tensor<1x4x7x7xf32> into tensor<1x4x10x10xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] {{.*}} : tensor<1x4x10x10xf32> into tensor<1x2x2x10x10xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] {{.*}} : tensor<6x2x4x4xf32> into tensor<2x3x2x4x4xf32>
// CHECK: %[[CONV:.+]] = linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x7x7xf32> into tensor<1x6x7x7xf32>
func.func @grouped(%x: tensor<1x4x7x7xf32>, %w: tensor<6x2x4x4xf32>) -> tensor<1x6x7x7xf32> {
  %y = nn.conv %x, %w stride [1, 1] padding [1, 1, 2, 2] dilation [1, 1] groups 2 : (tensor<1x4x7x7xf32>, tensor<6x2x4x4xf32>) -> tensor<1x6x7x7xf32>
  return %y : tensor<1x6x7x7xf32>
}

// -----

// conv_transpose2d: the input interleaved with zeros (a strided copy into
// a slice of zeros), the kernel flipped and transposed by one generic, then a
// stride-1 convolution.
// CHECK-LABEL: func.func @conv_transpose2d
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 4, 5, 5] [1, 1, 2, 2]
// CHECK: linalg.copy
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 4, 5, 5] [1, 1, 2, 2] : tensor<1x4x5x5xf32> into tensor<1x4x12x12xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x2x3x3xf32>) outs(%{{.*}} : tensor<2x4x3x3xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x12x12xf32>, tensor<2x4x3x3xf32>) outs(%{{.*}} : tensor<1x2x10x10xf32>)
// CHECK-NOT: nn.
func.func @conv_transpose2d(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x10x10xf32> {
  %y = nn.conv_transpose %x, %w, %b stride [2, 2] padding [1, 1] output_padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x10x10xf32>
  return %y : tensor<1x2x10x10xf32>
}

// -----

// conv3d, groups 1: padded like conv2d, then linalg.conv_3d_ncdhw_fcdhw.
// CHECK-LABEL: func.func @conv3d
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 1, 1] [2, 3, 5, 7, 7] [1, 1, 1, 1, 1] : tensor<2x3x5x7x7xf32> into tensor<2x3x5x9x9xf32>
// CHECK: linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>} ins(%{{.*}}, %{{.*}} : tensor<2x3x5x9x9xf32>, tensor<8x3x3x3x3xf32>) outs(%{{.*}} : tensor<2x8x3x4x4xf32>)
// CHECK-NOT: nn.
func.func @conv3d(%x: tensor<2x3x5x7x7xf32>, %w: tensor<8x3x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x3x4x4xf32> {
  %y = nn.conv %x, %w, %b stride [1, 2, 2] padding [0, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<2x3x5x7x7xf32>, tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x3x4x4xf32>
  return %y : tensor<2x8x3x4x4xf32>
}

// -----

// Depthwise 3-D: linalg.depthwise_conv_3d_ncdhw_cdhw on the weight without
// its unit dimension.
// CHECK-LABEL: func.func @depthwise3d
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] : tensor<3x1x1x3x3xf32> into tensor<3x1x3x3xf32>
// CHECK: linalg.depthwise_conv_3d_ncdhw_cdhw
func.func @depthwise3d(%x: tensor<1x3x4x7x7xf32>, %w: tensor<3x1x1x3x3xf32>) -> tensor<1x3x4x5x5xf32> {
  %y = nn.conv %x, %w stride [1, 1, 1] padding [0, 0, 0] dilation [1, 1, 1] groups 3 : (tensor<1x3x4x7x7xf32>, tensor<3x1x1x3x3xf32>) -> tensor<1x3x4x5x5xf32>
  return %y : tensor<1x3x4x5x5xf32>
}

// -----

// Grouped 3-D has no named linalg op: one linalg.generic on [N, G, C/G, ...]
// views, iterating (n, g, f, od, oh, ow) in parallel and (c, kd, kh, kw) as
// reductions; the input read at o * stride + k * dilation.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 + d7 * 2, d4 * 2 + d8, d5 * 2 + d9)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @grouped3d
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4], [5]] {{.*}} : tensor<1x4x6x9x9xf32> into tensor<1x2x2x6x9x9xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4], [5]] {{.*}} : tensor<6x2x3x3x3xf32> into tensor<2x3x2x3x3x3xf32>
// CHECK: %[[CONV:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3], [4], [5]] : tensor<1x2x3x2x4x4xf32> into tensor<1x6x2x4x4xf32>
func.func @grouped3d(%x: tensor<1x4x6x7x7xf32>, %w: tensor<6x2x3x3x3xf32>) -> tensor<1x6x2x4x4xf32> {
  %y = nn.conv %x, %w stride [1, 2, 2] padding [0, 1, 1] dilation [2, 1, 1] groups 2 : (tensor<1x4x6x7x7xf32>, tensor<6x2x3x3x3xf32>) -> tensor<1x6x2x4x4xf32>
  return %y : tensor<1x6x2x4x4xf32>
}

// -----

// conv_transpose3d: as conv_transpose2d, one more dimension throughout.
// CHECK-LABEL: func.func @conv_transpose3d
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1, 1] [1, 4, 2, 3, 3] [1, 1, 2, 2, 2] : tensor<1x4x2x3x3xf32> into tensor<1x4x5x8x8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x2x3x3x3xf32>) outs(%{{.*}} : tensor<2x4x3x3x3xf32>)
// CHECK: linalg.conv_3d_ncdhw_fcdhw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x5x8x8xf32>, tensor<2x4x3x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x6x6xf32>)
// CHECK-NOT: nn.
func.func @conv_transpose3d(%x: tensor<1x4x2x3x3xf32>, %w: tensor<4x2x3x3x3xf32>) -> tensor<1x2x3x6x6xf32> {
  %y = nn.conv_transpose %x, %w stride [2, 2, 2] padding [1, 1, 1] output_padding [0, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x4x2x3x3xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x2x3x6x6xf32>
  return %y : tensor<1x2x3x6x6xf32>
}

// max_pool2d: -inf padding (one more high row/column for ceil_mode) and
// a window-reducing generic (linalg.pooling_nchw_max's maps) into a -inf
// fill.
// CHECK-LABEL: func.func @max_pool2d
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x3x11x11xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : tensor<1x3x8x8xf32> into tensor<1x3x11x11xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[IN:.+]], #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x3x11x11xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x3x5x5xf32>)
// CHECK: arith.maximumf
func.func @max_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32> {
  %y = nn.max_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

// avg_pool2d: the windows summed by one generic, then a divide by the
// per-cell divisors (count_include_pad: corners count 4 cells, edges 6).
// CHECK-LABEL: func.func @avg_pool2d
// CHECK: %[[SUM:.+]] = linalg.generic
// CHECK: arith.addf
// CHECK: %[[DIV:.+]] = arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[DIV]] : tensor<1x2x3x3xf32>, tensor<3x3xf32>)
// CHECK: arith.divf
func.func @avg_pool2d(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = nn.avg_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// adaptive_avg_pool2d 7 -> 3: windows [0,3) [2,5) [4,7), so one generic
// reduces over 3x3 with bounds from linalg.index, masked with a select.
// CHECK-LABEL: func.func @adaptive_avg_pool2d
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<3x3xf32>) outs(%{{.*}} : tensor<1x8x3x3xf32>)
// CHECK: linalg.index 4
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK: arith.constant dense<9.000000e+00> : tensor<3x3xf32>
// CHECK: arith.divf
func.func @adaptive_avg_pool2d(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32> {
  %y = nn.adaptive_avg_pool %x output_size [3, 3] : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
  return %y : tensor<1x8x3x3xf32>
}

// -----

// max_pool3d: the same generic with three window loops; the input read at
// out * stride + offset * dilation in each spatial dimension.
// CHECK-DAG: #[[IN3:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6 * 2, d4 + d7)>
// CHECK-DAG: #[[WIN3:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
// CHECK-LABEL: func.func @max_pool3d
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x7x9x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN3]], #[[WIN3]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x2x7x9x8xf32>, tensor<3x2x2xf32>) outs(%{{.*}} : tensor<1x2x3x4x7xf32>)
// CHECK: arith.maximumf
func.func @max_pool3d(%x: tensor<1x2x5x7x8xf32>) -> tensor<1x2x3x4x7xf32> {
  %y = nn.max_pool %x kernel [3, 2, 2] stride [2, 2, 1] padding [1, 1, 0] dilation [1, 2, 1] ceil_mode : (tensor<1x2x5x7x8xf32>) -> tensor<1x2x3x4x7xf32>
  return %y : tensor<1x2x3x4x7xf32>
}

// -----

// avg_pool1d without count_include_pad: the edge windows hold 2 cells.
// CHECK-LABEL: func.func @avg_pool1d
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x2x7xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<1x2x3xf32>)
// CHECK: %[[DIV:.+]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[DIV]] : tensor<1x2x3xf32>, tensor<3xf32>)
func.func @avg_pool1d(%x: tensor<1x2x5xf32>) -> tensor<1x2x3xf32> {
  %y = nn.avg_pool %x kernel [3] stride [2] padding [1] : (tensor<1x2x5xf32>) -> tensor<1x2x3xf32>
  return %y : tensor<1x2x3xf32>
}

// -----

// avg_pool3d's divisor is the product of each dimension's window: with
// count_include_pad (the default here) the padded cells count, clipped to
// the padded input in ceil mode (the last row of windows holds 1 x 2 x 3).
// CHECK-LABEL: func.func @avg_pool3d
// CHECK: arith.constant dense<{{\[\[\[}}9.000000e+00], [9.000000e+00], [6.000000e+00]], {{\[\[}}9.000000e+00], [9.000000e+00], [6.000000e+00]]]> : tensor<2x3x1xf32>
func.func @avg_pool3d(%x: tensor<1x1x3x4x3xf32>) -> tensor<1x1x2x3x1xf32> {
  %y = nn.avg_pool %x kernel [1, 3, 3] stride [2, 2, 2] padding [0, 1, 0] ceil_mode count_include_pad : (tensor<1x1x3x4x3xf32>) -> tensor<1x1x2x3x1xf32>
  return %y : tensor<1x1x2x3x1xf32>
}

// -----

// adaptive_avg_pool3d: three masked window loops; 2x3x4 -> 1x3x2 averages
// boxes of 2 x 1 x 2 cells.
// CHECK-LABEL: func.func @adaptive_avg_pool3d
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x1x2xf32>) outs(%{{.*}} : tensor<1x2x1x3x2xf32>)
// CHECK: arith.constant dense<4.000000e+00> : tensor<1x3x2xf32>
func.func @adaptive_avg_pool3d(%x: tensor<1x2x2x3x4xf32>) -> tensor<1x2x1x3x2xf32> {
  %y = nn.adaptive_avg_pool %x output_size [1, 3, 2] : (tensor<1x2x2x3x4xf32>) -> tensor<1x2x1x3x2xf32>
  return %y : tensor<1x2x1x3x2xf32>
}

// -----

// interpolate: one generic over the output computing source indices from
// linalg.index and reading with tensor.extract.
// CHECK-LABEL: func.func @interpolate_bilinear
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x14x14xf32>)
// CHECK: linalg.index 2
// CHECK: arith.sitofp
// CHECK: arith.fptosi
// CHECK-COUNT-4: tensor.extract
func.func @interpolate_bilinear(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32> {
  %y = nn.interpolate %x size [14, 14] mode "bilinear" : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
  return %y : tensor<1x3x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @interpolate_nearest
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x10x10xf32>)
// CHECK: arith.mulf
// CHECK: arith.minui
// CHECK: tensor.extract
func.func @interpolate_nearest(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x10x10xf32> {
  %y = nn.interpolate %x size [10, 10] mode "nearest" scales [1.5, 1.5] : (tensor<1x3x7x7xf32>) -> tensor<1x3x10x10xf32>
  return %y : tensor<1x3x10x10xf32>
}
