// RUN: nn-opt %s -nn-autodiff -split-input-file -verify-diagnostics

nn.parameter @w : tensor<2x3xf32>
// expected-error @+1 {{nn-autodiff: the first result must be the loss, a scalar floating-point tensor; got 'tensor<2x3xf32>'}}
func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = nn.load @w : tensor<2x3xf32>
  %y = nn.mul %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// An op without a rule (here a fused group: nn-autodiff runs before nn-fuse)
// is an error at the op, whose location is its module path in a trace.
nn.parameter @w : tensor<2x1x1xf32>
func.func @forward(%x: tensor<1x2x8x8xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<2x1x1xf32>
  %y = nn.mul %x, %w : (tensor<1x2x8x8xf32>, tensor<2x1x1xf32>) -> tensor<1x2x8x8xf32>
  // expected-error @+1 {{'nn.fused' op has no gradient rule (nn-autodiff): add one to its family in passes/lib/Autodiff/}}
  %p = nn.fused (%y) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  ^bb0(%a: tensor<1x2x8x8xf32>):
    %r = nn.relu %a : tensor<1x2x8x8xf32>
    nn.yield %r : tensor<1x2x8x8xf32>
  }
  %l = nn.sum %p dims [] : (tensor<1x2x8x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{nn-autodiff: no function 'forward' to differentiate}}
module {
  func.func @other() {
    return
  }
}

// -----

// nn.gradient_hook is where the frontend that traced the function runs its
// backward hooks; the pass alone has none to run and refuses it rather than
// drop them.
nn.parameter @w : tensor<3xf32>
func.func @forward(%x: tensor<3xf32>) -> tensor<f32> {
  %w = nn.load @w : tensor<3xf32>
  %y = nn.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @+1 {{'nn.gradient_hook' op belongs to the frontend that traced it: its hooks run only when nn::TracedModule::differentiate (or nn::TrainStep) differentiates the trace}}
  %h = nn.gradient_hook %y site 0 : tensor<3xf32>
  %l = nn.sum %h dims [] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
