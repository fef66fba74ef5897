// RUN: nn-opt %s -split-input-file -verify-diagnostics

func.func @reduction_inside(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = nn.fused (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %0 = nn.relu %a : tensor<2x3xf32>
    // expected-error @+1 {{cannot be in an nn.fused group: only a leading conv, linear or matmul and pointwise ops can}}
    %1 = nn.softmax %0, dim = 1 : tensor<2x3xf32>
    nn.yield %1 : tensor<2x3xf32>
  }
  return %g : tensor<2x3xf32>
}

// -----

func.func @contraction_not_first(%x: tensor<2x3xf32>, %w: tensor<3x3xf32>) -> tensor<2x3xf32> {
  %g = nn.fused (%x, %w) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>):
    %0 = nn.relu %a : tensor<2x3xf32>
    // expected-error @+1 {{cannot be in an nn.fused group}}
    %1 = nn.linear %0, %b : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    nn.yield %1 : tensor<2x3xf32>
  }
  return %g : tensor<2x3xf32>
}

// -----

func.func @epilogue_shape(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %g = nn.fused (%x, %y) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<3xf32>, %b: tensor<2x3xf32>):
    // expected-error @+1 {{computes 3 inside an nn.fused group of shape 2x3: every epilogue value must have the group's shape}}
    %0 = nn.exp %a : tensor<3xf32>
    %1 = nn.add %0, %b : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    nn.yield %1 : tensor<2x3xf32>
  }
  return %g : tensor<2x3xf32>
}

// -----

func.func @argument_types(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{body argument #0 has type 'tensor<4xf32>', input has 'tensor<3xf32>'}}
  %g = nn.fused (%x) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<4xf32>):
    nn.yield %a : tensor<4xf32>
  }
  return %g : tensor<3xf32>
}

// -----

func.func @yield_type(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{yields 'tensor<3xf64>' but the result is 'tensor<3xf32>'}}
  %g = nn.fused (%x) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %c = arith.constant dense<1.0> : tensor<3xf64>
    nn.yield %c : tensor<3xf64>
  }
  return %g : tensor<3xf32>
}
