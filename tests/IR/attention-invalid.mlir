// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @embed_mismatch(%q: tensor<2x5x8xf32>, %k: tensor<2x7x4xf32>, %v: tensor<2x7x3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: query has embedding size 8 but key has 4 (query 2x5x8, key 2x7x4, value 2x7x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x5x8xf32>, tensor<2x7x4xf32>, tensor<2x7x3xf32>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}

// -----

func.func @source_mismatch(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x6x3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: key has 7 positions but value has 6 (query 2x5x8, key 2x7x8, value 2x6x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x6x3xf32>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}

// -----

func.func @rank_one(%q: tensor<8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: query, key and value need at least two dimensions [..., seq, embed] (query 8, key 7x8, value 7x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<8xf32>, tensor<7x8xf32>, tensor<7x3xf32>) -> tensor<3xf32>
  return %o : tensor<3xf32>
}

// -----

func.func @batch_mismatch(%q: tensor<2x5x8xf32>, %k: tensor<3x7x8xf32>, %v: tensor<3x7x3xf32>) -> tensor<3x5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention (batch dimensions of query and key): shapes 2 and 3 do not broadcast (dimension 0: 2 vs 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x5x8xf32>, tensor<3x7x8xf32>, tensor<3x7x3xf32>) -> tensor<3x5x3xf32>
  return %o : tensor<3x5x3xf32>
}

// -----

func.func @element_type(%q: tensor<5x8xf32>, %k: tensor<7x8xf16>, %v: tensor<7x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: query has element type 'f32' but key has 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<5x8xf32>, tensor<7x8xf16>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}

// -----

func.func @mask_shape(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>, %m: tensor<5x6xi1>) -> tensor<2x5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: attn_mask 5x6 does not broadcast to the attention scores 2x5x7 (query 2x5x8, key 2x7x8, value 2x7x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>, tensor<5x6xi1>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}

// -----

// The mask may not grow the batch dims.
func.func @mask_grows_batch(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>, %m: tensor<2x5x7xf32>) -> tensor<5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: attn_mask 2x5x7 does not broadcast to the attention scores 5x7 (query 5x8, key 7x8, value 7x3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m : (tensor<5x8xf32>, tensor<7x8xf32>, tensor<7x3xf32>, tensor<2x5x7xf32>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}

// -----

func.func @mask_element_type(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>, %m: tensor<5x7xf64>) -> tensor<5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: query has element type 'f32' but a float attn_mask has 'f64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m : (tensor<5x8xf32>, tensor<7x8xf32>, tensor<7x3xf32>, tensor<5x7xf64>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}

// -----

func.func @mask_and_causal(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>, %m: tensor<5x7xi1>) -> tensor<5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: attn_mask and causal exclude each other (attn_mask 5x7)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m causal : (tensor<5x8xf32>, tensor<7x8xf32>, tensor<7x3xf32>, tensor<5x7xi1>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}

// -----

func.func @integer_mask(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>, %m: tensor<5x7xi64>) -> tensor<5x3xf32> {
  // expected-error @+1 {{operand #3 must be ranked tensor of 1-bit signless integer or 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m : (tensor<5x8xf32>, tensor<7x8xf32>, tensor<7x3xf32>, tensor<5x7xi64>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}

// -----

func.func @scale_inf(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+2 {{scaled_dot_product_attention: scale must be finite, got inf}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v scale 0x7FF0000000000000 : (tensor<5x8xf32>, tensor<7x8xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %o : tensor<5x3xf32>
}

// -----

func.func @result_type(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x3xf32>) -> tensor<5x8xf32> {
  // expected-error @+2 {{'nn.scaled_dot_product_attention' op inferred type(s) 'tensor<5x3xf32>' are incompatible with return type(s) of operation 'tensor<5x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<5x8xf32>, tensor<7x8xf32>, tensor<7x3xf32>) -> tensor<5x8xf32>
  return %o : tensor<5x8xf32>
}

// -----

func.func @missing_value(%q: tensor<5x8xf32>, %k: tensor<7x8xf32>) {
  // expected-error @+1 {{expected ','}}
  %o = nn.scaled_dot_product_attention %q, %k : (tensor<5x8xf32>, tensor<7x8xf32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @dropout_needs_rng(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>) -> tensor<2x5x3xf32> {
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op draws random numbers (dropout_p > 0) and needs the generator state operand `rng`, the forward's nn.rng argument}}
  %o = nn.scaled_dot_product_attention %q, %k, %v {dropout_p = 0.5 : f64}
      : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}

// -----

func.func @dropout_p_range(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>, %rng: tensor<2xi64>) -> tensor<2x5x3xf32> {
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op dropout_p must be in [0, 1], got 1.5}}
  %o = nn.scaled_dot_product_attention %q, %k, %v rng %rng {dropout_p = 1.5 : f64}
      : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>, tensor<2xi64>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}
