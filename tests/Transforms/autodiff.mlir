// RUN: nn-opt %s -nn-autodiff -split-input-file | FileCheck %s

// A linear + relu + mse: one gradient per trainable parameter, in
// declaration order, after the loss; the frozen bias and the unused
// parameter get none. Backward reads forward's values (saved, not
// recomputed): relu's mask from its result, the weight gradient from the
// input.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<3x4xf32> {nn.grad = "fc.weight", nn.name = "grad.fc.weight"})
// CHECK: %[[W:.+]] = nn.load @fc.weight
// CHECK: %[[Y:.+]] = nn.linear %[[X:[^,]+]], %[[W]], %{{.+}}
// CHECK: %[[R:.+]] = nn.relu %[[Y]]
// CHECK: %[[L:.+]] = nn.mse_loss %[[R]], %[[T:[^ ]+]] reduction <mean>
// CHECK: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DIFF:.+]] = nn.sub %[[R]], %[[T]]
// CHECK: nn.compare <gt>, %[[R]],
// CHECK: %[[DW:.+]] = nn.matmul %{{.+}}, %[[X]] : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK: return %[[L]], %[[DW]] : tensor<f32>, tensor<3x4xf32>
nn.parameter @fc.weight : tensor<3x4xf32>
nn.parameter @fc.bias : tensor<3xf32> frozen
nn.parameter @unused : tensor<5xf32>
func.func @forward(%x: tensor<2x4xf32>, %t: tensor<2x3xf32>) -> tensor<f32> {
  %w = nn.load @fc.weight : tensor<3x4xf32>
  %b = nn.load @fc.bias : tensor<3xf32>
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = nn.relu %y : tensor<2x3xf32>
  %l = nn.mse_loss %r, %t reduction <mean> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter used twice gets the sum of both uses' gradients; a
// broadcast operand's gradient is summed back to its shape.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32> {nn.grad = "scale", nn.name = "grad.scale"})
// CHECK: nn.sum %{{.+}} dims [0] keepdim : (tensor<2x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[G:.+]] = nn.add
// CHECK: return %{{.+}}, %[[G]]
nn.parameter @scale : tensor<4xf32>
func.func @forward(%x: tensor<2x4xf32>) -> tensor<f32> {
  %s = nn.load @scale : tensor<4xf32>
  %a = nn.mul %x, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %b = nn.add %a, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l = nn.sum %b dims [] : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// nll_loss reaches the input at the target class: the targets compared
// with the class indices, weighted, divided by the total weight for mean.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<3x4xf32> {nn.grad = "w", nn.name = "grad.w"})
// CHECK: nn.log_softmax
// CHECK: %[[CLASSES:.+]] = arith.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
// CHECK: nn.compare <eq>, %{{.+}}, %[[CLASSES]] : (tensor<2x1xi64>, tensor<1x3xi64>) -> tensor<2x3xi1>
// CHECK: %[[IGNORE:.+]] = arith.constant dense<-100> : tensor<i64>
// CHECK: nn.compare <ne>, %{{.+}}, %[[IGNORE]] : (tensor<2x1xi64>, tensor<i64>) -> tensor<2x1xi1>
nn.parameter @w : tensor<3x4xf32>
func.func @forward(%x: tensor<2x4xf32>, %t: tensor<2xi64>) -> tensor<f32> {
  %w = nn.load @w : tensor<3x4xf32>
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %p = nn.log_softmax %y, dim = 1 : tensor<2x3xf32>
  %l = nn.nll_loss %p, %t reduction <mean> ignore_index -100 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A loss that depends on no parameter adds no result.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> tensor<f32>
// CHECK-NOT: nn.grad
nn.parameter @w : tensor<4xf32>
func.func @forward(%x: tensor<4xf32>) -> tensor<f32> {
  %l = nn.sum %x dims [] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A stride-1 convolution's input gradient is a convolution of the output's
// gradient with the kernel flipped in space and its channels swapped (so it
// runs on the convolution kernels); a strided one puts each kernel offset's
// part back on the stride's phases, as pooling does, without multiplying
// zeros.
nn.parameter @m : tensor<3x1x1xf32>
nn.parameter @w : tensor<4x3x3x3xf32>
nn.parameter @s : tensor<4x3x3x3xf32>
// CHECK-LABEL: func.func @forward
func.func @forward(%input: tensor<2x3x8x8xf32>) -> tensor<f32> {
  %m = nn.load @m : tensor<3x1x1xf32>
  %w = nn.load @w : tensor<4x3x3x3xf32>
  %s = nn.load @s : tensor<4x3x3x3xf32>
  %x = nn.add %input, %m : (tensor<2x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<2x3x8x8xf32>
  %y = nn.conv %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %r = nn.relu %y : tensor<2x4x8x8xf32>
  %z = nn.conv %x, %s stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %a = nn.sum %r dims [] : (tensor<2x4x8x8xf32>) -> tensor<f32>
  %b = nn.sum %z dims [] : (tensor<2x4x4x4xf32>) -> tensor<f32>
  %l = nn.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
// The strided convolution, differentiated first: the parts of all nine
// kernel offsets from one 1x1 convolution with the weight laid out
// [taps x C, O] = [27, 4], offset k's part its channels [3k, 3k + 3); the
// parts summed per stride phase on the 5x5 grid (offsets (0,0), (0,2),
// (2,0) and (2,2) all land on phase (0,0)), the phases interleaved into the
// 10x10 padded canvas, which is cropped to the input. No other convolution
// before the stride-1 one's gradient.
// CHECK: %[[T:.*]] = nn.permute %{{.*}} [2, 3, 1, 0] : (tensor<4x3x3x3xf32>) -> tensor<3x3x3x4xf32>
// CHECK: %[[K:.*]] = nn.reshape %[[T]] [27, 4, 1, 1]
// CHECK: %[[ALL:.*]] = nn.conv %{{.*}}, %[[K]] stride [1, 1] padding [0, 0, 0, 0] dilation [1, 1] groups 1 : (tensor<2x4x4x4xf32>, tensor<27x4x1x1xf32>) -> tensor<2x27x4x4xf32>
// CHECK: %[[K00:.*]] = nn.slice %[[ALL]] dim 1 [0 : 3 : 1]
// CHECK: %[[K02:.*]] = nn.slice %[[ALL]] dim 1 [6 : 9 : 1]
// CHECK: %[[K20:.*]] = nn.slice %[[ALL]] dim 1 [18 : 21 : 1]
// CHECK: %[[K22:.*]] = nn.slice %[[ALL]] dim 1 [24 : 27 : 1]
// CHECK-NOT: nn.conv
// CHECK: %[[P00:.*]] = nn.pad %[[K00]] low [0, 0, 0, 0] high [0, 0, 1, 1]
// CHECK: %[[P02:.*]] = nn.pad %[[K02]] low [0, 0, 0, 1] high [0, 0, 1, 0]
// CHECK: %[[S1:.*]] = nn.add %[[P00]], %[[P02]]
// CHECK: %[[P20:.*]] = nn.pad %[[K20]] low [0, 0, 1, 0] high [0, 0, 0, 1]
// CHECK: %[[S2:.*]] = nn.add %[[S1]], %[[P20]]
// CHECK: %[[P22:.*]] = nn.pad %[[K22]] low [0, 0, 1, 1] high [0, 0, 0, 0]
// CHECK: nn.add %[[S2]], %[[P22]] : (tensor<2x3x5x5xf32>, tensor<2x3x5x5xf32>) -> tensor<2x3x5x5xf32>
// CHECK-NOT: nn.conv
// CHECK: nn.cat %{{.*}}, %{{.*}} dim 3 : (tensor<2x3x5x1x10xf32>, tensor<2x3x5x1x10xf32>) -> tensor<2x3x5x2x10xf32>
// CHECK: %[[CANVAS:.*]] = nn.reshape %{{.*}} [2, 3, 10, 10]
// CHECK: %[[ROWS:.*]] = nn.slice %[[CANVAS]] dim 2 [1 : 9 : 1]
// CHECK: nn.slice %[[ROWS]] dim 3 [1 : 9 : 1] : (tensor<2x3x8x10xf32>) -> tensor<2x3x8x8xf32>
// CHECK: %[[REV:.*]] = arith.constant dense<[2, 1, 0]> : tensor<3xi64>
// CHECK: %[[H:.*]] = nn.index_select %[[W:.*]], %[[REV]] dim 2
// CHECK: %[[HW:.*]] = nn.index_select %[[H]], %{{.*}} dim 3
// CHECK: %[[K:.*]] = nn.transpose %[[HW]] 0, 1
// CHECK: nn.conv %{{.*}}, %[[K]] stride [1, 1] padding [1, 1, 1, 1] dilation [1, 1] groups 1 : (tensor<2x4x8x8xf32>, tensor<3x4x3x3xf32>) -> tensor<2x3x8x8xf32>

// -----

// A 3-D convolution differentiates as a 2-D one, one more spatial dimension
// in every step: the stride-1 input gradient the kernel flipped in all
// three dimensions, the strided one's parts put back on its phases, and the
// weight gradient, over an output of fewer than 256 positions, one 3-D
// convolution of the regrouped input with the output's gradient.
nn.parameter @w : tensor<4x3x3x3x3xf32>
nn.parameter @s : tensor<4x3x1x3x3xf32>
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<1x3x4x6x6xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<4x3x3x3x3xf32>
  %s = nn.load @s : tensor<4x3x1x3x3xf32>
  %y = nn.conv %x, %w stride [1, 1, 1] padding [1, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x3x4x6x6xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x4x6x6xf32>
  %z = nn.conv %x, %s stride [1, 2, 2] padding [0, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x3x4x6x6xf32>, tensor<4x3x1x3x3xf32>) -> tensor<1x4x4x3x3xf32>
  %a = nn.sum %y dims [] : (tensor<1x4x4x6x6xf32>) -> tensor<f32>
  %b = nn.sum %z dims [] : (tensor<1x4x4x3x3xf32>) -> tensor<f32>
  %l = nn.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
// The strided convolution, differentiated first: one 1x1x1 convolution
// for the 9 offsets' parts, interleaved along height and width only (the
// depth's stride is 1), cropped to the input.
// CHECK: nn.conv %{{.*}}, %{{.*}} stride [1, 1, 1] padding [0, 0, 0, 0, 0, 0] dilation [1, 1, 1] groups 1 : (tensor<1x4x4x3x3xf32>, tensor<27x4x1x1x1xf32>) -> tensor<1x27x4x3x3xf32>
// CHECK-NOT: nn.conv
// CHECK: nn.cat %{{.*}}, %{{.*}} dim 4 : (tensor<1x3x4x4x1x8xf32>, tensor<1x3x4x4x1x8xf32>) -> tensor<1x3x4x4x2x8xf32>
// CHECK: nn.slice %{{.*}} dim 4 [1 : 7 : 1] : (tensor<1x3x4x6x8xf32>) -> tensor<1x3x4x6x6xf32>
// CHECK: nn.conv %{{.*}}, %{{.*}} stride [1, 1, 1] padding [0, 1, 1, 0, 1, 1] dilation [1, 2, 2] groups 1 : (tensor<3x1x4x6x6xf32>, tensor<4x1x4x3x3xf32>) -> tensor<3x4x1x4x4xf32>
// CHECK: nn.index_select %{{.*}} dim 2
// CHECK: nn.index_select %{{.*}} dim 3
// CHECK: nn.index_select %{{.*}} dim 4
// CHECK: nn.conv %{{.*}}, %{{.*}} stride [1, 1, 1] padding [1, 1, 1, 1, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x4x4x6x6xf32>, tensor<3x4x3x3x3xf32>) -> tensor<1x3x4x6x6xf32>

// -----

// A forward whose results carry attributes (a captured feature's name)
// keeps them; the gradients' names follow.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<2x4xf32> {nn.name = "features"}, tensor<4xf32> {nn.grad = "scale", nn.name = "grad.scale"})
nn.parameter @scale : tensor<4xf32>
func.func @forward(%x: tensor<2x4xf32>) -> (tensor<f32>, tensor<2x4xf32> {nn.name = "features"}) {
  %s = nn.load @scale : tensor<4xf32>
  %a = nn.mul %x, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l = nn.sum %a dims [] : (tensor<2x4xf32>) -> tensor<f32>
  return %l, %a : tensor<f32>, tensor<2x4xf32>
}

// -----

// On an output plane of 256 positions or more the weight gradient is one
// GEMM. With stride 1 each kernel offset's matrix is a window of the padded
// input's rows ([1·18·18, 2]: 324 rows), the output's gradient placed at the
// window's first pixels (padded to 18x18 on the high side) and cut to the
// 324 - (2·18 + 2) = 286 rows every window holds; B is the nine windows side
// by side (a cat of slices, which the CPU kernels read in place).
nn.parameter @w : tensor<3x2x3x3xf32>
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<1x2x16x16xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<3x2x3x3xf32>
  %y = nn.conv %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x2x16x16xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x16x16xf32>
  %l = nn.sum %y dims [] : (tensor<1x3x16x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// CHECK: %[[XH:.+]] = nn.permute %{{.+}} [0, 2, 3, 1] : (tensor<1x2x18x18xf32>) -> tensor<1x18x18x2xf32>
// CHECK: %[[XR:.+]] = nn.reshape %[[XH]] [324, 2]
// CHECK: %[[DH:.+]] = nn.permute %{{.+}} [1, 0, 2, 3] : (tensor<1x3x18x18xf32>) -> tensor<3x1x18x18xf32>
// CHECK: %[[DR:.+]] = nn.reshape %[[DH]] [3, 324]
// CHECK: %[[D:.+]] = nn.slice %[[DR]] dim 1 [0 : 286 : 1] : (tensor<3x324xf32>) -> tensor<3x286xf32>
// CHECK: %[[T0:.+]] = nn.slice %[[XR]] dim 0 [0 : 286 : 1] : (tensor<324x2xf32>) -> tensor<286x2xf32>
// CHECK: %[[T1:.+]] = nn.slice %[[XR]] dim 0 [1 : 287 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [2 : 288 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [18 : 304 : 1]
// CHECK: %[[T8:.+]] = nn.slice %[[XR]] dim 0 [38 : 324 : 1]
// CHECK: %[[B:.+]] = nn.cat %[[T0]], %[[T1]], {{.+}}, %[[T8]] dim 1 : ({{.+}}) -> tensor<286x18xf32>
// CHECK: %[[P:.+]] = nn.matmul %[[D]], %[[B]] : (tensor<3x286xf32>, tensor<286x18xf32>) -> tensor<3x18xf32>
// CHECK: %[[PR:.+]] = nn.reshape %[[P]] [3, 9, 2]
// CHECK: %[[PT:.+]] = nn.transpose %[[PR]] 1, 2 : (tensor<3x9x2xf32>) -> tensor<3x2x9xf32>
// CHECK: nn.reshape %[[PT]] [3, 2, 3, 3]

// -----

// Strided, the padded input ([1, 2, 34, 34]: 17 grid positions of 2
// phases per dim) is laid out by phase, [2, 2, 1, 17, 17, 2], as 4 · 289
// rows. Offset k of a dim reads phase k % 2 at grid position out + k / 2:
// offset (0, 1) starts at phase 1's first row (289), (1, 0) at phase 2's
// (578), (2, 2) 18 rows into phase 0; every window holds 289 - 18 = 271
// rows, and the output's gradient is placed on the 17x17 grid.
nn.parameter @w : tensor<3x2x3x3xf32>
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<1x2x32x32xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<3x2x3x3xf32>
  %y = nn.conv %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : (tensor<1x2x32x32xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x16x16xf32>
  %l = nn.sum %y dims [] : (tensor<1x3x16x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// CHECK: %[[XS:.+]] = nn.reshape %{{.+}} [1, 2, 17, 2, 17, 2] : (tensor<1x2x34x34xf32>) -> tensor<1x2x17x2x17x2xf32>
// CHECK: %[[XP:.+]] = nn.permute %[[XS]] [3, 5, 0, 2, 4, 1] : (tensor<1x2x17x2x17x2xf32>) -> tensor<2x2x1x17x17x2xf32>
// CHECK: %[[XR:.+]] = nn.reshape %[[XP]] [1156, 2]
// CHECK: %[[DP:.+]] = nn.pad %{{.+}} low [0, 0, 0, 0] high [0, 0, 1, 1]
// CHECK: %[[DH:.+]] = nn.permute %[[DP]] [1, 0, 2, 3] : (tensor<1x3x17x17xf32>) -> tensor<3x1x17x17xf32>
// CHECK: %[[DR:.+]] = nn.reshape %[[DH]] [3, 289]
// CHECK: %[[D:.+]] = nn.slice %[[DR]] dim 1 [0 : 271 : 1] : (tensor<3x289xf32>) -> tensor<3x271xf32>
// CHECK: %[[T0:.+]] = nn.slice %[[XR]] dim 0 [0 : 271 : 1] : (tensor<1156x2xf32>) -> tensor<271x2xf32>
// CHECK: nn.slice %[[XR]] dim 0 [289 : 560 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [1 : 272 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [578 : 849 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [867 : 1138 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [579 : 850 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [17 : 288 : 1]
// CHECK: nn.slice %[[XR]] dim 0 [306 : 577 : 1]
// CHECK: %[[T8:.+]] = nn.slice %[[XR]] dim 0 [18 : 289 : 1]
// CHECK: %[[B:.+]] = nn.cat %[[T0]], {{.+}}, %[[T8]] dim 1 : ({{.+}}) -> tensor<271x18xf32>
// CHECK: nn.matmul %[[D]], %[[B]] : (tensor<3x271xf32>, tensor<271x18xf32>) -> tensor<3x18xf32>

// -----

// A 1x1 stride-2 convolution (ResNet's downsampling shortcut) reads one
// phase of four: only that phase is laid out, and its one window is all
// of it (the output's gradient needs no grid: 16 = 32 / 2).
nn.parameter @w : tensor<3x2x1x1xf32>
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<1x2x32x32xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<3x2x1x1xf32>
  %y = nn.conv %x, %w stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x2x32x32xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x16x16xf32>
  %l = nn.sum %y dims [] : (tensor<1x3x16x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// CHECK: %[[XS:.+]] = nn.reshape %{{.+}} [1, 2, 16, 2, 16, 2] : (tensor<1x2x32x32xf32>) -> tensor<1x2x16x2x16x2xf32>
// CHECK: %[[H:.+]] = nn.slice %[[XS]] dim 3 [0 : 1 : 1]
// CHECK: %[[W:.+]] = nn.slice %[[H]] dim 5 [0 : 1 : 1] : (tensor<1x2x16x1x16x2xf32>) -> tensor<1x2x16x1x16x1xf32>
// CHECK: %[[XP:.+]] = nn.permute %[[W]] [3, 5, 0, 2, 4, 1] : (tensor<1x2x16x1x16x1xf32>) -> tensor<1x1x1x16x16x2xf32>
// CHECK: %[[XR:.+]] = nn.reshape %[[XP]] [256, 2]
// CHECK: %[[DR:.+]] = nn.reshape %{{.+}} [3, 256]
// CHECK: nn.matmul %[[DR]], %[[XR]] : (tensor<3x256xf32>, tensor<256x2xf32>) -> tensor<3x2xf32>

// -----

// Train-mode batch norm recomputes its statistics from the saved input (two
// reductions) and reduces the batch twice more: Σdy and Σdy·x̂, which are
// the bias's and the weight's gradients and give dx = w·rstd·(dy - Σdy/n -
// x̂·Σdy·x̂/n), n = 2·4·4 = 32 elements per channel.
nn.parameter @w : tensor<3xf32>
nn.parameter @b : tensor<3xf32>
nn.buffer @m : tensor<3xf32>
nn.buffer @v : tensor<3xf32>
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32> {nn.grad = "w", nn.name = "grad.w"}, tensor<3xf32> {nn.grad = "b", nn.name = "grad.b"})
func.func @forward(%x: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<3xf32>
  %b = nn.load @b : tensor<3xf32>
  %m = nn.load @m : tensor<3xf32>
  %v = nn.load @v : tensor<3xf32>
  %y, %rm, %rv = nn.batch_norm_training %x, %m, %v weight %w bias %b eps 1.000000e-05 momentum 1.000000e-01 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %l = nn.sum %y dims [] : (tensor<2x3x4x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// CHECK: %[[DY:.+]] = nn.expand
// CHECK: %[[SX:.+]] = nn.sum %arg0 dims [0, 2, 3] keepdim
// CHECK: %[[C:.+]] = nn.sub %arg0
// CHECK: %[[SQ:.+]] = nn.mul %[[C]], %[[C]]
// CHECK: nn.sum %[[SQ]] dims [0, 2, 3] keepdim
// CHECK: %[[RSTD:.+]] = nn.rsqrt
// CHECK: %[[XHAT:.+]] = nn.mul %[[C]], %[[RSTD]]
// CHECK: %[[SDY:.+]] = nn.sum %[[DY]] dims [0, 2, 3] keepdim
// CHECK: %[[DYX:.+]] = nn.mul %[[DY]], %[[XHAT]]
// CHECK: %[[SDYX:.+]] = nn.sum %[[DYX]] dims [0, 2, 3] keepdim
// CHECK-NOT: nn.sum
// CHECK: %[[DW:.+]] = nn.reshape %[[SDYX]] [3] : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
// CHECK: %[[DB:.+]] = nn.reshape %[[SDY]] [3] : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
// CHECK: return %{{.+}}, %[[DW]], %[[DB]]

// -----

// A pad's gradient is its interior: one slice per padded dim, no copy of
// the padding.
nn.parameter @p : tensor<2x3xf32>
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<2x3xf32>) -> tensor<f32> {
  %p = nn.load @p : tensor<2x3xf32>
  %y = nn.pad %p low [0, 1] high [2, 1] value 5.0 : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %l = nn.sum %y dims [] : (tensor<4x5xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// CHECK: %[[DY:.+]] = nn.expand %{{.+}} [4, 5]
// CHECK: %[[R:.+]] = nn.slice %[[DY]] dim 0 [0 : 2 : 1] : (tensor<4x5xf32>) -> tensor<2x5xf32>
// CHECK: %[[C:.+]] = nn.slice %[[R]] dim 1 [1 : 4 : 1] : (tensor<2x5xf32>) -> tensor<2x3xf32>
// CHECK: return %{{.+}}, %[[C]]

// -----

// Max pooling's gradient (kernel 3, stride 2, padding 1 on 8x8) is summed
// on the stride's four phases: each offset's part, output-sized, shifted
// on the coarse 5x5 grid (offset 2 lands one step on), the parts of a
// phase added there, and the phases interleaved once into the 10x10
// canvas, which is cropped to the input. No input- or canvas-sized sum.
nn.parameter @p : tensor<1x2x8x8xf32>
// CHECK-LABEL: func.func @forward
func.func @forward() -> tensor<f32> {
  %p = nn.load @p : tensor<1x2x8x8xf32>
  %y = nn.max_pool %p kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %l = nn.sum %y dims [] : (tensor<1x2x4x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
// CHECK: nn.max_pool
// CHECK-NOT: nn.add {{.*}}-> tensor<1x2x{{8x8|10x10}}xf32>
// CHECK: nn.pad %{{.+}} low [0, 0, 0, 0] high [0, 0, 1, 1] value 0.000000e+00 : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
// CHECK: nn.pad %{{.+}} low [0, 0, 0, 1] high [0, 0, 1, 0] value 0.000000e+00 : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
// CHECK: nn.add %{{.+}}, %{{.+}} : (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
// CHECK: nn.pad %{{.+}} low [0, 0, 1, 1] high [0, 0, 0, 0] value 0.000000e+00
// CHECK: nn.cat %{{.+}}, %{{.+}} dim 4 : (tensor<1x2x5x5x1xf32>, tensor<1x2x5x5x1xf32>) -> tensor<1x2x5x5x2xf32>
// CHECK: nn.cat %{{.+}}, %{{.+}} dim 3 : (tensor<1x2x5x1x10xf32>, tensor<1x2x5x1x10xf32>) -> tensor<1x2x5x2x10xf32>
// CHECK: %[[C:.+]] = nn.reshape %{{.+}} [1, 2, 10, 10]
// CHECK: %[[H:.+]] = nn.slice %[[C]] dim 2 [1 : 9 : 1]
// CHECK: %[[G:.+]] = nn.slice %[[H]] dim 3 [1 : 9 : 1] : (tensor<1x2x8x10xf32>) -> tensor<1x2x8x8xf32>
// CHECK: return %{{.+}}, %[[G]] : tensor<f32>, tensor<1x2x8x8xf32>
