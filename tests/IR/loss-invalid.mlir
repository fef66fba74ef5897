// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @nll_target_shape(%x: tensor<4x5xf32>, %t: tensor<5xi64>) -> tensor<f32> {
  // expected-error @+2 {{nll_loss: target must be 4 for input 4x5, got 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.nll_loss %x, %t reduction <mean> ignore_index -100 : (tensor<4x5xf32>, tensor<5xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @nll_kdim_target(%x: tensor<2x3x4xf32>, %t: tensor<2x3xi64>) -> tensor<f32> {
  // expected-error @+2 {{nll_loss: target must be 2x4 for input 2x3x4, got 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.nll_loss %x, %t reduction <sum> ignore_index -100 : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @nll_scalar_input(%x: tensor<f32>, %t: tensor<i64>) -> tensor<f32> {
  // expected-error @+2 {{nll_loss: input must be [N, C, ...] or [C], got a scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.nll_loss %x, %t reduction <sum> ignore_index -100 : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @nll_weight_shape(%x: tensor<4x5xf32>, %t: tensor<4xi64>, %w: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+2 {{nll_loss: weight must be [5] (one per class of input 4x5), got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.nll_loss %x, %t weight %w reduction <mean> ignore_index -100 : (tensor<4x5xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @nll_weight_type(%x: tensor<4x5xf32>, %t: tensor<4xi64>, %w: tensor<5xf64>) -> tensor<f32> {
  // expected-error @+2 {{nll_loss: input has element type 'f32' but weight has 'f64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.nll_loss %x, %t weight %w reduction <mean> ignore_index -100 : (tensor<4x5xf32>, tensor<4xi64>, tensor<5xf64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @nll_int_target(%x: tensor<4x5xf32>, %t: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{operand #1 must be ranked tensor of 64-bit signless integer values}}
  %l = nn.nll_loss %x, %t reduction <mean> ignore_index -100 : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @nll_none_result(%x: tensor<4x5xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+2 {{'nn.nll_loss' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.nll_loss %x, %t reduction <none> ignore_index -100 : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @mse_shapes(%x: tensor<3x4xf32>, %y: tensor<4x3xf32>) -> tensor<f32> {
  // expected-error @+2 {{mse_loss: input 3x4 and target 4x3 must have the same shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.mse_loss %x, %y reduction <mean> : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @l1_types(%x: tensor<3xf32>, %y: tensor<3xf16>) -> tensor<f32> {
  // expected-error @+2 {{l1_loss: input has element type 'f32' but target has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %l = nn.l1_loss %x, %y reduction <sum> : (tensor<3xf32>, tensor<3xf16>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @bad_reduction(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+2 {{expected ::mlir::nn::LossReduction to be one of: none, mean, sum}}
  // expected-error @+1 {{failed to parse NN_LossReductionAttr parameter 'value'}}
  %l = nn.l1_loss %x, %y reduction <avg> : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @dropout_offset(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'nn.dropout' op offset must be >= 0, got -1}}
  %y = nn.dropout %x {p = 0.5 : f64, offset = -1 : i64} : tensor<3xf32>
  return %y : tensor<3xf32>
}
