// RUN: nn-opt %s -split-input-file -verify-diagnostics

// One case per error of the shape ops' inference (ir/lib/ShapeOps.cpp).

func.func @reshape_two_inferred(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape: only one dimension can be -1, got [-1, -1] (input 2x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.reshape %x [-1, -1] : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @reshape_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape: invalid size -2 in [-2, 3] (input 2x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.reshape %x [-2, 3] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape: shape [4, -1] is invalid for input 2x3 (6 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.reshape %x [4, -1] : (tensor<2x3xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @reshape_count_static(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape: shape [7] is invalid for input 2x3 (6 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.reshape %x [7] : (tensor<2x3xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @flatten_order(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{flatten: start_dim 2 comes after end_dim 1 (input 2x3x4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.flatten %x from 2 to 1 : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @flatten_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{flatten: start_dim 3 is out of range for input 2x3x4 (expected -3 to 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.flatten %x from 3 to -1 : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @squeeze_range(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{squeeze: dim -3 is out of range for input 1x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.squeeze %x dim -3 : (tensor<1x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @unsqueeze_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{unsqueeze: dim 3 is out of range for input 2x3 (expected -3 to 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.unsqueeze %x dim 3 : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @expand_rank(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expand: the target shape [3] has fewer dimensions than input 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.expand %x [3] : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @expand_new_dim(%x: tensor<3xf32>) {
  // expected-error @+2 {{expand: new leading dimension 0 needs a size, got -1 (input 3, target [-1, 3])}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.expand %x [-1, 3] : (tensor<3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @expand_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expand: dimension 0 of size 2 cannot expand to 4 (input 2x3, target [4, 3])}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.expand %x [4, 3] : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @permute_count(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permute: dims [1, 0] has 2 entries but input 2x3x4 has 3 dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.permute %x [1, 0] : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @permute_repeat(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{permute: dims [1, -1] repeat dimension 1 (input 2x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.permute %x [1, -1] : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @permute_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{permute: dim 2 is out of range for input 2x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.permute %x [0, 2] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{transpose: dim1 2 is out of range for input 2x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.transpose %x 0, 2 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @cat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{cat: tensor 0 has element type 'f32' but tensor 1 has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.cat %a, %b dim 0 : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_shape(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{cat: tensor 1 (3x4) does not match tensor 0 (2x3) outside dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.cat %a, %b dim 1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x7xf32>
  return
}

// -----

func.func @cat_rank(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{cat: tensor 1 (2) does not match tensor 0 (2x3) outside dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.cat %a, %b dim 0 : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_scalar(%a: tensor<f32>) {
  // expected-error @+2 {{cat: zero-dimensional tensor 0 cannot be concatenated}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.cat %a, %a dim 0 : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @cat_empty() {
  // expected-error @+2 {{cat: expected a non-empty list of tensors}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.cat dim 0 : () -> tensor<2xf32>
  return
}

// -----

func.func @stack_shape(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+2 {{stack: tensor 1 (3x2) has a different shape than tensor 0 (2x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.stack %a, %b dim 0 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @stack_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{stack: dim 3 is out of range for input 2x3 (expected -3 to 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.stack %a, %a dim 3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  return
}

// -----

func.func @stack_empty() {
  // expected-error @+2 {{stack: expected a non-empty list of tensors}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.stack dim 0 : () -> tensor<2xf32>
  return
}

// -----

func.func @split_sum(%x: tensor<3x7xf32>) {
  // expected-error @+2 {{split: split_sizes [2, 4] sum to 6 but dimension 1 of input 3x7 has size 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:2 = nn.split %x [2, 4] dim 1 : (tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x4xf32>)
  return
}

// -----

func.func @split_negative(%x: tensor<3xf32>) {
  // expected-error @+2 {{split: split_sizes [4, -1] has a negative size (input 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:2 = nn.split %x [4, -1] dim 0 : (tensor<3xf32>) -> (tensor<4xf32>, tensor<1xf32>)
  return
}

// -----

func.func @split_empty(%x: tensor<3xf32>) {
  // expected-error @+2 {{split: split_sizes is empty (input 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  nn.split %x [] dim 0 : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @split_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{split: input must have at least one dimension, got a scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.split %x [1] dim 0 : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @slice_step(%x: tensor<5xf32>) {
  // expected-error @+2 {{slice: step must be positive, got 0 (input 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.slice %x dim 0 [0 : 5 : 0] : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @slice_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{slice: [2:4] is not a range within dimension 1 of input 2x3 (expected 0 <= start <= end <= 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.slice %x dim 1 [2 : 4 : 1] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_rank(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad: 1 low and 2 high pads for an input of rank 2 (2x3); one of each per dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.pad %x low [1] high [1, 1] value 0.0 : (tensor<2x3xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad: dimension 1 padded by (1, -1); pads are non-negative (crop with nn.slice)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.pad %x low [0, 1] high [0, -1] value 0.0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_integer_value(%x: tensor<2x3xi64>) {
  // expected-error @+2 {{pad: value 5.000000e-01 is not an integer, as the 'i64' input needs}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.pad %x low [0, 1] high [0, 1] value 0.5 : (tensor<2x3xi64>) -> tensor<2x5xi64>
  return
}

// -----

func.func @slice_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{slice: input must have at least one dimension, got a scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.slice %x dim 0 [0 : 1 : 1] : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @index_select_rank(%x: tensor<5x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+2 {{index_select: index must be 1-D or a scalar, got 2x2 (input 5x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.index_select %x, %i dim 0 : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_scalar(%x: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{index_select: a scalar input takes one index, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.index_select %x, %i dim 0 : (tensor<f32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

func.func @index_select_range(%x: tensor<5x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{index_select: dim 2 is out of range for input 5x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.index_select %x, %i dim 2 : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<5x2xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<5x3xf32>, %i: tensor<5xi64>) {
  // expected-error @+2 {{gather: index 5 and input 5x3 must have the same number of dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.gather %x, %i dim 0 : (tensor<5x3xf32>, tensor<5xi64>) -> tensor<5xf32>
  return
}

// -----

func.func @gather_size(%x: tensor<5x3xf32>, %i: tensor<5x4xi64>) {
  // expected-error @+2 {{gather: index 5x4 is larger than input 5x3 in dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.gather %x, %i dim 0 : (tensor<5x3xf32>, tensor<5x4xi64>) -> tensor<5x4xf32>
  return
}

// -----

func.func @gather_range(%x: tensor<5x3xf32>, %i: tensor<5x3xi64>) {
  // expected-error @+2 {{gather: dim -3 is out of range for input 5x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.gather %x, %i dim -3 : (tensor<5x3xf32>, tensor<5x3xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @embedding_weight(%i: tensor<4xi64>, %w: tensor<10xf32>) {
  // expected-error @+2 {{embedding: weight must be 2-D [num_embeddings, embedding_dim], got 10 (indices 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.embedding %i, %w : (tensor<4xi64>, tensor<10xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @embedding_padding(%i: tensor<4xi64>, %w: tensor<10x3xf32>) {
  // expected-error @+2 {{embedding: padding_idx 10 is outside [0, 10) (weight 10x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.embedding %i, %w padding_idx 10 : (tensor<4xi64>, tensor<10x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_float_index(%x: tensor<5x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'nn.index_select' op operand #1 must be ranked tensor of 64-bit signless integer values}}
  %r = nn.index_select %x, %i dim 0 : (tensor<5x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'nn.reshape' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %r = nn.reshape %x [3, 2] : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @split_sum_overflows(%x: tensor<3xf32>) {
  // expected-error @+2 {{split: split_sizes [9223372036854775807, 9223372036854775807] sum past int64 (input 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %r:2 = nn.split %x [9223372036854775807, 9223372036854775807] dim 0 : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}
