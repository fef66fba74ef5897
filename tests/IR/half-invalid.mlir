// RUN: nn-opt %s -split-input-file -verify-diagnostics
// Mixed float16 / bfloat16 / float32 operands are refused, naming both.

func.func @matmul_f16_bf16(%a: tensor<2x4xf16>, %b: tensor<4x3xbf16>) -> tensor<2x3xf16> {
  // expected-error @+2 {{matmul: lhs has element type 'f16' but rhs has 'bf16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.matmul %a, %b : (tensor<2x4xf16>, tensor<4x3xbf16>) -> tensor<2x3xf16>
  return %y : tensor<2x3xf16>
}

// -----

func.func @linear_bias_f32(%x: tensor<2x4xbf16>, %w: tensor<3x4xbf16>, %b: tensor<3xf32>) -> tensor<2x3xbf16> {
  // expected-error @+2 {{linear: input has element type 'bf16' but bias has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.linear %x, %w, %b : (tensor<2x4xbf16>, tensor<3x4xbf16>, tensor<3xf32>) -> tensor<2x3xbf16>
  return %y : tensor<2x3xbf16>
}

// -----

func.func @conv_bias_bf16(%x: tensor<1x3x7x7xf16>, %w: tensor<4x3x3x3xf16>, %b: tensor<4xbf16>) -> tensor<1x4x5x5xf16> {
  // expected-error @+2 {{conv2d: input has element type 'f16' but bias has 'bf16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.conv %x, %w, %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x7x7xf16>, tensor<4x3x3x3xf16>, tensor<4xbf16>) -> tensor<1x4x5x5xf16>
  return %y : tensor<1x4x5x5xf16>
}

// -----

func.func @add_bf16_f32(%a: tensor<3xbf16>, %b: tensor<3xf32>) -> tensor<3xbf16> {
  // expected-error @+2 {{add: lhs has element type 'bf16' but rhs has 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.add %a, %b : (tensor<3xbf16>, tensor<3xf32>) -> tensor<3xbf16>
  return %y : tensor<3xbf16>
}

// -----

// The declared result must keep the operands' storage type (no implicit
// widening to the f32 accumulator).
func.func @matmul_result_f32(%a: tensor<2x4xbf16>, %b: tensor<4x3xbf16>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'nn.matmul' op inferred type(s) 'tensor<2x3xbf16>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.matmul %a, %b : (tensor<2x4xbf16>, tensor<4x3xbf16>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
