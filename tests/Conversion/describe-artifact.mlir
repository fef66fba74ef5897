// RUN: nn-opt %s -nn-describe-artifact -split-input-file -verify-diagnostics | FileCheck %s

// The description (ArtifactABI.h) is attached to the module before it is
// lowered: state with its kind, inputs and outputs by name, shape and dtype.
// It prints as the JSON the artifact embeds, the fields in ArtifactABI.h's
// order.
// CHECK: module attributes {nn_kernel.artifact = #nn_kernel.artifact<"{\22abi_version\22:2,
// CHECK-SAME: \22state\22:[{\22name\22:\22fc.weight\22,\22shape\22:[3,4],\22dtype\22:\22F32\22,\22kind\22:\22parameter\22,\22persistent\22:true,\22requires_grad\22:true,\22aliases\22:[],\22argument\22:true}],
// CHECK-SAME: \22inputs\22:[{\22name\22:\22input.0\22,\22shape\22:[2,4],\22dtype\22:\22F32\22}],
// CHECK-SAME: \22outputs\22:[{\22name\22:\22output.0\22,\22shape\22:[2,3],\22dtype\22:\22F32\22}]}">
module {
  nn.parameter @"fc.weight" : tensor<3x4xf32>
  func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = nn.load @"fc.weight" : tensor<3x4xf32>
    %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}

// -----

// expected-error @+1 {{no function 'forward' to compile}}
module {
  func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

module {
  // expected-error @+1 {{'input.0' must be a statically shaped tensor, got 'tensor<?xf32>'}}
  func.func @forward(%x: tensor<?xf32>) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}

// -----

module {
  // expected-error @+1 {{'input.0' has element type 'complex<f32>', which compiled artifacts do not support}}
  func.func @forward(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
    return %x : tensor<2xcomplex<f32>>
  }
}

// -----

module {
  // expected-error @+1 {{a value of type 'tensor<99999999999x99999999999xf32>' holds more bytes than an int64 counts}}
  func.func @forward(%x: tensor<99999999999x99999999999xf32>) -> tensor<99999999999x99999999999xf32> {
    return %x : tensor<99999999999x99999999999xf32>
  }
}

// -----

// The generator state the runtime passes is an int64[2] {seed, base}.
module {
  // expected-error @+1 {{the nn.rng argument must be a tensor<2xi64>, got 'tensor<3xi64>'}}
  func.func @forward(%x: tensor<2xf32>, %rng: tensor<3xi64> {nn.rng = 4 : i64}) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

module {
  // expected-error @+1 {{the nn.rng argument must be the last one and draw a count >= 0}}
  func.func @forward(%rng: tensor<2xi64> {nn.rng = 4 : i64}, %x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// The runtime's checks of a description run before it is written: two
// inputs named alike would be refused at the first load.
module {
  // expected-error @+1 {{forward: invalid artifact description: two inputs are named 'x'}}
  func.func @forward(%a: tensor<2xf32> {nn.name = "x"}, %b: tensor<2xf32> {nn.name = "x"}) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
