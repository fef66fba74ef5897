// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @linear_features(%x: tensor<2x5x31xf32>, %w: tensor<96x32xf32>) -> tensor<2x5x96xf32> {
  // expected-error @+2 {{linear: input has 31 features, weight expects 32 (input 2x5x31, weight 96x32)}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %y = nn.linear %x, %w : (tensor<2x5x31xf32>, tensor<96x32xf32>) -> tensor<2x5x96xf32>
  return %y : tensor<2x5x96xf32>
}

// -----

func.func @linear_bias(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{linear: bias must be [3] to match weight 3x4, got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @linear_result(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'nn.linear' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{linear: weight must be 2-D [out, in], got 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @linear_dtypes(%x: tensor<2x4xf32>, %w: tensor<3x4xf16>) -> tensor<2x3xf32> {
  // expected-error @+2 {{linear: input has element type 'f32' but weight has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf16>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{matmul: lhs has 3 columns but rhs has 4 rows (lhs 2x3, rhs 4x5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = nn.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @+2 {{matmul (batch dimensions): shapes 2 and 5 do not broadcast (dimension 0: 2 vs 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x6xf32>
  return %c : tensor<2x3x6xf32>
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{matmul: both operands need at least two dimensions (lhs 3, rhs 3x4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = nn.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{add: shapes 2x3 and 4 do not broadcast (dimension 1: 3 vs 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = nn.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

func.func @add_dtypes(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+2 {{add: lhs has element type 'f32' but rhs has 'i64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = nn.add %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

func.func @dropout_p(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'nn.dropout' op probability p must be in [0, 1], got 1.5}}
  %y = nn.dropout %x {p = 1.5 : f64} : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @relu_int(%x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{'nn.relu' op operand #0 must be ranked tensor of}}
  %y = nn.relu %x : tensor<3xi64>
  return %y : tensor<3xi64>
}

// -----

func.func @load_undeclared() -> tensor<3xf32> {
  // expected-error @+1 {{'nn.load' op reads 'fc.weight', which is not declared}}
  %w = nn.load @"fc.weight" : tensor<3xf32>
  return %w : tensor<3xf32>
}

// -----

nn.parameter @w : tensor<3x4xf32>
func.func @load_type() -> tensor<4x3xf32> {
  // expected-error @+1 {{'nn.load' op result type 'tensor<4x3xf32>' differs from the declared type 'tensor<3x4xf32>' of 'w'}}
  %w = nn.load @w : tensor<4x3xf32>
  return %w : tensor<4x3xf32>
}

// -----

func.func private @not_state()
func.func @load_function() -> tensor<3xf32> {
  // expected-error @+1 {{'nn.load' op reads 'not_state', which is not an nn.parameter or nn.buffer}}
  %w = nn.load @not_state : tensor<3xf32>
  return %w : tensor<3xf32>
}

// -----

func.func @nested() {
  // expected-error @+1 {{'nn.parameter' op expects parent op 'builtin.module'}}
  nn.parameter @w : tensor<3xf32>
  return
}

// -----

// expected-error @+1 {{'nn.parameter' op state_dict key 'a..b' has an empty path component}}
nn.parameter @"a..b" : tensor<3xf32>

// -----

// expected-error @+1 {{'nn.buffer' op value of type 'tensor<2xf32>' differs from the declared type 'tensor<3xf32>'}}
nn.buffer @mask : tensor<3xf32> = dense<1.0> : tensor<2xf32>

// -----

// expected-error @+1 {{'nn.buffer' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped tensor of any type values}}
nn.buffer @dynamic : tensor<?xf32>

// -----

func.func @dropout_needs_rng(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'nn.dropout' op draws random numbers (training with p > 0) and needs the generator state operand `rng`, the forward's nn.rng argument}}
  %y = nn.dropout %x {p = 0.5 : f64, training} : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @dropout_rng_shape(%x: tensor<3xf32>, %rng: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{'nn.dropout' op operand #1 must be tensor<2xi64> random generator state (seed, offset), but got 'tensor<3xi64>'}}
  %y = "nn.dropout"(%x, %rng) <{p = 0.5 : f64, training}> : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @gradient_hook_site(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'nn.gradient_hook' op site must be non-negative, got -1}}
  %h = nn.gradient_hook %x site -1 : tensor<4xf32>
  return %h : tensor<4xf32>
}

// -----

func.func @gradient_hook_empty() {
  // expected-error @+1 {{'nn.gradient_hook' op hooks no value}}
  "nn.gradient_hook"() {site = 0 : i64} : () -> ()
  return
}
