// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @conv_input_rank(%x: tensor<2x3xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x4x1xf32> {
  // expected-error @+2 {{conv: input must be [N, C, L], [N, C, H, W] or [N, C, D, H, W], got 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1] padding [0] dilation [1] groups 1 : (tensor<2x3xf32>, tensor<4x3x3xf32>) -> tensor<2x4x1xf32>
  return %y : tensor<2x4x1xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: weight must be 4-D [out, in / groups, kernel...] like the input (input 1x3x7x7, weight 4x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_groups_zero(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: groups must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 0 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_stride_count(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: stride must have 2 entries, got [1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_stride_zero(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: stride must be >= 1, got [1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 0] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_padding_count(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: padding must have 2 (or 4 low-then-high) entries, got [0, 0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_padding_negative(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: padding must be >= 0, got [0, -1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, -1] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_dilation_zero(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: dilation must be >= 1, got [0, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [0, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_groups_channels(%x: tensor<1x3x7x7xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: input has 3 channels, not divisible by groups 2 (input 1x3x7x7, weight 4x1x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : (tensor<1x3x7x7xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_groups_out_channels(%x: tensor<1x4x7x7xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32> {
  // expected-error @+2 {{conv2d: weight has 3 output channels, not divisible by groups 2 (input 1x4x7x7, weight 3x2x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2 : (tensor<1x4x7x7xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x5x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: input has 5 channels, weight expects 3 (3 per group, groups 1) (input 1x5x7x7, weight 4x3x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x5x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_element_type(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: input has element type 'f32' but weight has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: bias must be [4] to match weight 4x3x3x3, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w, %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x3x2x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x5xf32> {
  // expected-error @+2 {{conv2d: the (dilated) kernel is larger than the padded input in dimension 2 (input 1x3x2x7, weight 4x3x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x2x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x5xf32>
  return %y : tensor<1x4x1x5xf32>
}

// -----

func.func @conv_result(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+2 {{'nn.conv' op inferred type(s) 'tensor<1x4x5x5xf32>' are incompatible with return type(s) of operation 'tensor<1x4x7x7xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// -----

func.func @conv_transpose_input_rank(%x: tensor<1x4x5x5x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+2 {{conv_transpose: input must be [N, C, L], [N, C, H, W] or [N, C, D, H, W], got 1x4x5x5x5x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x5x5x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

func.func @conv_transpose_weight_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+2 {{conv_transpose2d: weight must be 4-D [in, out / groups, kernel...] like the input (input 1x4x5x5, weight 4x2x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3xf32>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

func.func @conv_transpose_groups_zero(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+2 {{conv_transpose2d: groups must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 0 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x3x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+2 {{conv_transpose2d: input has 3 channels, weight expects 4 (input 1x3x5x5, weight 4x2x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

func.func @conv_transpose_groups_channels(%x: tensor<1x3x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+2 {{conv_transpose2d: input has 3 channels, not divisible by groups 2 (input 1x3x5x5, weight 3x2x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 2 : (tensor<1x3x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x12x12xf32> {
  // expected-error @+2 {{conv_transpose2d: output_padding [2, 2] must be smaller than stride [2, 2] or dilation [1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [2, 2] padding [0, 0] output_padding [2, 2] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x12x12xf32>
  return %y : tensor<1x2x12x12xf32>
}

// -----

func.func @conv_transpose_empty(%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error @+2 {{conv_transpose2d: padding [1, 1] leaves no output in dimension 2 (input 1x4x1x1, weight 4x2x1x1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1, 1] padding [1, 1] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %y : tensor<1x2x1x1xf32>
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+2 {{conv_transpose2d: bias must be [2] to match weight 4x2x3x3, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w, %b stride [1, 1] padding [0, 0] output_padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x2x7x7xf32>
  return %y : tensor<1x2x7x7xf32>
}

// -----

func.func @max_pool_input_rank(%x: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{max_pool: input must be [N, C, L], [N, C, H, W] or [N, C, D, H, W], got 8x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [2] stride [2] padding [0] dilation [1] : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// The rank of the input names the op: a 3-D input is a 1-D pooling.
func.func @max_pool1d_kernel_count(%x: tensor<3x8x8xf32>) -> tensor<3x8x4xf32> {
  // expected-error @+2 {{max_pool1d: kernel_size must have 1 entries, got [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : (tensor<3x8x8xf32>) -> tensor<3x8x4xf32>
  return %y : tensor<3x8x4xf32>
}

// -----

func.func @max_pool3d_dilation(%x: tensor<1x2x4x8x8xf32>) -> tensor<1x2x2x4x4xf32> {
  // expected-error @+2 {{max_pool3d: dilation must be >= 1, got [1, 0, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [2, 2, 2] stride [2, 2, 2] padding [0, 0, 0] dilation [1, 0, 1] : (tensor<1x2x4x8x8xf32>) -> tensor<1x2x2x4x4xf32>
  return %y : tensor<1x2x2x4x4xf32>
}

// -----

func.func @avg_pool3d_padding(%x: tensor<1x2x4x8x8xf32>) -> tensor<1x2x3x4x4xf32> {
  // expected-error @+2 {{avg_pool3d: padding [1, 0, 2] must be at most half of kernel_size [2, 2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.avg_pool %x kernel [2, 2, 2] stride [2, 2, 2] padding [1, 0, 2] : (tensor<1x2x4x8x8xf32>) -> tensor<1x2x3x4x4xf32>
  return %y : tensor<1x2x3x4x4xf32>
}

// -----

func.func @avg_pool1d_divisor(%x: tensor<1x3x8xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+2 {{avg_pool1d: divisor_override must be >= 1, got -2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.avg_pool %x kernel [2] stride [2] padding [0] {divisor_override = -2 : i64} : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

func.func @adaptive_avg_pool3d_empty(%x: tensor<1x3x2x0x8xf32>) -> tensor<1x3x1x1x1xf32> {
  // expected-error @+2 {{adaptive_avg_pool3d: input 1x3x2x0x8 has an empty spatial dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.adaptive_avg_pool %x output_size [1, 1, 1] : (tensor<1x3x2x0x8xf32>) -> tensor<1x3x1x1x1xf32>
  return %y : tensor<1x3x1x1x1xf32>
}

// -----

func.func @adaptive_avg_pool_input_rank(%x: tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1xf32> {
  // expected-error @+2 {{adaptive_avg_pool: input must be [N, C, L], [N, C, H, W] or [N, C, D, H, W], got 1x1x1x1x1x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.adaptive_avg_pool %x output_size [1, 1, 1, 1] : (tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1xf32>
  return %y : tensor<1x1x1x1x1x1xf32>
}

// -----

func.func @max_pool2d_kernel_count(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+2 {{max_pool2d: kernel_size must have 2 entries, got [2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [2] stride [2, 2] padding [0, 0] dilation [1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_padding(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32> {
  // expected-error @+2 {{max_pool2d: padding [2, 2] must be at most half of kernel_size [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [2, 2] stride [2, 2] padding [2, 2] dilation [1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

func.func @max_pool2d_kernel_too_large(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32> {
  // expected-error @+2 {{max_pool2d: kernel_size [3, 3] is larger than the padded input 1x3x2x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [3, 3] stride [1, 1] padding [0, 0] dilation [1, 1] : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32>
  return %y : tensor<1x3x1x1xf32>
}

// -----

func.func @avg_pool2d_divisor(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+2 {{avg_pool2d: divisor_override must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.avg_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] {divisor_override = 0 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @avg_pool2d_stride_zero(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+2 {{avg_pool2d: stride must be >= 1, got [0, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.avg_pool %x kernel [2, 2] stride [0, 2] padding [0, 0] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @adaptive_avg_pool2d_output_size(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+2 {{adaptive_avg_pool2d: output_size must be >= 1, got [4, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.adaptive_avg_pool %x output_size [4, 0] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @adaptive_avg_pool2d_empty(%x: tensor<1x3x0x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+2 {{adaptive_avg_pool2d: input 1x3x0x8 has an empty spatial dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.adaptive_avg_pool %x output_size [4, 4] : (tensor<1x3x0x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @interpolate_mode(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32> {
  // expected-error @+2 {{interpolate: mode must be "nearest" or "bilinear", got "bicubic"}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.interpolate %x size [14, 14] mode "bicubic" : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
  return %y : tensor<1x3x14x14xf32>
}

// -----

func.func @interpolate_align_corners_nearest(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32> {
  // expected-error @+2 {{interpolate: align_corners only applies to mode "bilinear"}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.interpolate %x size [14, 14] mode "nearest" align_corners : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
  return %y : tensor<1x3x14x14xf32>
}

// -----

func.func @interpolate_scales(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32> {
  // expected-error @+2 {{interpolate: scales must be two positive numbers}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.interpolate %x size [14, 14] mode "nearest" scales [2.0, 0.0] : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
  return %y : tensor<1x3x14x14xf32>
}

// -----

func.func @interpolate_size(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32> {
  // expected-error @+2 {{interpolate: size must have 2 entries, got [14]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.interpolate %x size [14] mode "nearest" : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
  return %y : tensor<1x3x14x14xf32>
}

// -----

func.func @conv_size_overflows(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{conv2d: the output size overflows int64 in dimension 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [9223372036854775807, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

func.func @max_pool2d_size_overflows(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+2 {{max_pool2d: padding [9223372036854775807, 0] must be at most half of kernel_size [2, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.max_pool %x kernel [2, 2] stride [2, 2] padding [9223372036854775807, 0] dilation [1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @conv3d_weight_rank(%x: tensor<1x3x5x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x5x5xf32> {
  // expected-error @+2 {{conv3d: weight must be 5-D [out, in / groups, kernel...] like the input (input 1x3x5x7x7, weight 4x3x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1, 1] padding [0, 0, 0] dilation [1, 1, 1] groups 1 : (tensor<1x3x5x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x5x5xf32>
  return %y : tensor<1x4x3x5x5xf32>
}

// -----

func.func @conv3d_stride_count(%x: tensor<1x3x5x7x7xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x4x3x5x5xf32> {
  // expected-error @+2 {{conv3d: stride must have 3 entries, got [1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1] padding [0, 0, 0] dilation [1, 1, 1] groups 1 : (tensor<1x3x5x7x7xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x3x5x5xf32>
  return %y : tensor<1x4x3x5x5xf32>
}

// -----

func.func @conv3d_kernel_too_deep(%x: tensor<1x3x2x7x7xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x4x1x5x5xf32> {
  // expected-error @+2 {{conv3d: the (dilated) kernel is larger than the padded input in dimension 2 (input 1x3x2x7x7, weight 4x3x3x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1, 1] padding [0, 0, 0] dilation [1, 1, 1] groups 1 : (tensor<1x3x2x7x7xf32>, tensor<4x3x3x3x3xf32>) -> tensor<1x4x1x5x5xf32>
  return %y : tensor<1x4x1x5x5xf32>
}

// -----

func.func @conv3d_groups(%x: tensor<1x3x5x7x7xf32>, %w: tensor<4x1x3x3x3xf32>) -> tensor<1x4x3x5x5xf32> {
  // expected-error @+2 {{conv3d: input has 3 channels, not divisible by groups 2 (input 1x3x5x7x7, weight 4x1x3x3x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w stride [1, 1, 1] padding [0, 0, 0] dilation [1, 1, 1] groups 2 : (tensor<1x3x5x7x7xf32>, tensor<4x1x3x3x3xf32>) -> tensor<1x4x3x5x5xf32>
  return %y : tensor<1x4x3x5x5xf32>
}

// -----

func.func @conv_transpose3d_output_padding(%x: tensor<1x4x2x3x3xf32>, %w: tensor<4x2x3x3x3xf32>) -> tensor<1x2x5x7x7xf32> {
  // expected-error @+2 {{conv_transpose3d: output_padding must have 3 entries, got [1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [2, 2, 2] padding [1, 1, 1] output_padding [1, 1] dilation [1, 1, 1] groups 1 : (tensor<1x4x2x3x3xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x2x5x7x7xf32>
  return %y : tensor<1x2x5x7x7xf32>
}

// -----

func.func @conv_transpose1d_no_output(%x: tensor<1x4x1xf32>, %w: tensor<4x2x1xf32>) -> tensor<1x2x1xf32> {
  // expected-error @+2 {{conv_transpose1d: padding [1] leaves no output in dimension 2 (input 1x4x1, weight 4x2x1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv_transpose %x, %w stride [1] padding [1] output_padding [0] dilation [1] groups 1 : (tensor<1x4x1xf32>, tensor<4x2x1xf32>) -> tensor<1x2x1xf32>
  return %y : tensor<1x2x1xf32>
}
