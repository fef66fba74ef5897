// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @sum_dim_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{sum: dim 2 is out of range for input 2x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.sum %x dims [2] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @mean_dim_repeat(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{mean: dim 1 appears more than once in dims [1, -1] (input 2x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.mean %x dims [1, -1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @amax_result(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'nn.amax' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.amax %x dims [1] : (tensor<2x3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @var_dim_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{var: dim -3 is out of range for input 2x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.var %x dims [-3] correction = 1 : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @mean_int(%x: tensor<2x3xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = nn.mean %x dims [1] : (tensor<2x3xi64>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

func.func @argmax_dim_range(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+2 {{argmax: dim 5 is out of range for input 2x3 (expected -2 to 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.argmax %x dim = 5 : (tensor<2x3xf32>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

func.func @argmin_empty(%x: tensor<0x3xf32>) -> tensor<3xi64> {
  // expected-error @+2 {{argmin: input 0x3 is empty, so it has no extreme element}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.argmin %x dim = 0 : (tensor<0x3xf32>) -> tensor<3xi64>
  return %y : tensor<3xi64>
}

// -----

func.func @layer_norm_shape(%x: tensor<2x5x16xf32>) -> tensor<2x5x16xf32> {
  // expected-error @+2 {{layer_norm: input 2x5x16 does not end with normalized_shape 5x15}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.layer_norm %x normalized_shape [5, 15] eps 1.0e-05 : (tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

func.func @layer_norm_empty(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+2 {{layer_norm: normalized_shape is empty; it names at least the last dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.layer_norm %x normalized_shape [] eps 1.0e-05 : (tensor<2x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

func.func @layer_norm_weight(%x: tensor<2x16xf32>, %w: tensor<15xf32>) -> tensor<2x16xf32> {
  // expected-error @+2 {{layer_norm: weight must be 16 (normalized_shape), got 15 (input 2x16)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.layer_norm %x weight %w normalized_shape [16] eps 1.0e-05 : (tensor<2x16xf32>, tensor<15xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

func.func @layer_norm_bias_type(%x: tensor<2x16xf32>, %b: tensor<16xf64>) -> tensor<2x16xf32> {
  // expected-error @+2 {{layer_norm: input has element type 'f32' but bias has 'f64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.layer_norm %x bias %b normalized_shape [16] eps 1.0e-05 : (tensor<2x16xf32>, tensor<16xf64>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

func.func @layer_norm_eps(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+2 {{layer_norm: eps must be >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.layer_norm %x normalized_shape [16] eps -1.0 : (tensor<2x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

func.func @group_norm_groups(%x: tensor<2x6x7xf32>) -> tensor<2x6x7xf32> {
  // expected-error @+2 {{group_norm: 6 channels do not split into 4 groups (input 2x6x7)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.group_norm %x groups 4 eps 1.0e-05 : (tensor<2x6x7xf32>) -> tensor<2x6x7xf32>
  return %y : tensor<2x6x7xf32>
}

// -----

func.func @group_norm_rank(%x: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+2 {{group_norm: input must be [N, C, *] (at least 2-D), got 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.group_norm %x groups 2 eps 1.0e-05 : (tensor<6xf32>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

func.func @group_norm_bias(%x: tensor<2x6x7xf32>, %b: tensor<3xf32>) -> tensor<2x6x7xf32> {
  // expected-error @+2 {{group_norm: bias must be 6 (one per channel), got 3 (input 2x6x7)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.group_norm %x bias %b groups 2 eps 1.0e-05 : (tensor<2x6x7xf32>, tensor<3xf32>) -> tensor<2x6x7xf32>
  return %y : tensor<2x6x7xf32>
}

// -----

func.func @group_norm_eps(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{group_norm: eps must be >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.group_norm %x groups 2 eps -1.0 : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

func.func @batch_norm_mean(%x: tensor<4x3xf32>, %m: tensor<4xf32>, %v: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{batch_norm: mean must be 3 (one per channel), got 4 (input 4x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.batch_norm %x, %m, %v eps 1.0e-05 : (tensor<4x3xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

func.func @batch_norm_rank(%x: tensor<3xf32>, %m: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{batch_norm: input must be [N, C, *] (at least 2-D), got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.batch_norm %x, %m, %m eps 1.0e-05 : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @batch_norm_eps(%x: tensor<4x3xf32>, %m: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{batch_norm: eps must be >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.batch_norm %x, %m, %m eps -1.0 : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

func.func @batch_norm_empty(%x: tensor<0x3xf32>, %m: tensor<3xf32>) -> tensor<0x3xf32> {
  // expected-error @+2 {{batch_norm: input 0x3 is empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.batch_norm %x, %m, %m eps 1.0e-05 : (tensor<0x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<0x3xf32>
  return %y : tensor<0x3xf32>
}

// -----

func.func @batch_norm_training_var(%x: tensor<4x3xf32>, %m: tensor<3xf32>, %v: tensor<2xf32>) {
  // expected-error @+2 {{batch_norm_training: running_var must be 3 (one per channel), got 2 (input 4x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y:3 = nn.batch_norm_training %x, %m, %v eps 1.0e-05 momentum 0.1 : (tensor<4x3xf32>, tensor<3xf32>, tensor<2xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<2xf32>)
  return
}

// -----

func.func @batch_norm_training_one_value(%x: tensor<1x3xf32>, %m: tensor<3xf32>) {
  // expected-error @+2 {{batch_norm_training: expected more than 1 value per channel when training, got input 1x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %y:3 = nn.batch_norm_training %x, %m, %m eps 1.0e-05 momentum 0.1 : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_training_no_momentum(%x: tensor<4x3xf32>, %m: tensor<3xf32>) {
  // expected-error @+1 {{'nn.batch_norm_training' op needs num_batches_tracked when momentum is absent (momentum=None averages over the batches seen)}}
  %y:3 = nn.batch_norm_training %x, %m, %m eps 1.0e-05 : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_training_count_shape(%x: tensor<4x3xf32>, %m: tensor<3xf32>, %n: tensor<1xi64>) {
  // expected-error @+1 {{'nn.batch_norm_training' op num_batches_tracked must be a scalar, got 1}}
  %y:4 = nn.batch_norm_training %x, %m, %m num_batches_tracked %n eps 1.0e-05 : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1xi64>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1xi64>)
  return
}

// -----

func.func @batch_norm_training_momentum(%x: tensor<4x3xf32>, %m: tensor<3xf32>) {
  // expected-error @+1 {{'nn.batch_norm_training' op momentum must be in [0, 1], got 1.5}}
  %y:3 = nn.batch_norm_training %x, %m, %m eps 1.0e-05 momentum 1.5 : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

nn.buffer @"bn.running_mean" : tensor<3xf32> persistent
func.func @store_type(%v: tensor<4xf32>) {
  // expected-error @+1 {{'nn.store' op value type 'tensor<4xf32>' differs from the declared type 'tensor<3xf32>' of 'bn.running_mean'}}
  nn.store @"bn.running_mean", %v : tensor<4xf32>
  return
}

// -----

nn.parameter @"fc.weight" : tensor<3xf32>
func.func @store_parameter_type(%v: tensor<3xf64>) {
  // expected-error @+1 {{'nn.store' op value type 'tensor<3xf64>' differs from the declared type 'tensor<3xf32>' of 'fc.weight'}}
  nn.store @"fc.weight", %v : tensor<3xf64>
  return
}

// -----

func.func private @helper()
func.func @store_function(%v: tensor<3xf32>) {
  // expected-error @+1 {{'nn.store' op writes 'helper', which is not an nn.buffer or nn.parameter}}
  nn.store @helper, %v : tensor<3xf32>
  return
}

// -----

func.func @store_undeclared(%v: tensor<3xf32>) {
  // expected-error @+1 {{'nn.store' op writes 'nothing', which is not declared}}
  nn.store @nothing, %v : tensor<3xf32>
  return
}
