// RUN: nn-opt %s -nn-lower-state-to-arguments -split-input-file -verify-diagnostics | FileCheck %s

// State becomes leading arguments in declaration order, parameters and
// buffers alike; the declarations disappear.
// CHECK-NOT: nn.parameter
// CHECK-NOT: nn.buffer
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[W:.+]]: tensor<3x4xf32> {nn.state = "fc.weight"}, %[[M:.+]]: tensor<3xf32> {nn.state = "bn.running_mean"}, %[[X:.+]]: tensor<2x4xf32>)
// CHECK-NOT: nn.load
// CHECK: nn.linear %[[X]], %[[W]]
// CHECK: nn.add %{{.*}}, %[[M]]
nn.parameter @fc.weight : tensor<3x4xf32>
nn.buffer @bn.running_mean : tensor<3xf32> persistent
func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = nn.load @fc.weight : tensor<3x4xf32>
  %m = nn.load @bn.running_mean : tensor<3xf32>
  %y = nn.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %z = nn.add %y, %m : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// A private function has no state arguments to read.
nn.parameter @w : tensor<3xf32>
func.func private @helper() -> tensor<3xf32> {
  // expected-error @+1 {{'nn.load' op reads state outside a public function, which has no state arguments}}
  %w = nn.load @w : tensor<3xf32>
  return %w : tensor<3xf32>
}

// -----

// nn.store becomes a write into the buffer's argument before the return
// (the last store of a buffer wins), still on tensors; the argument is
// marked writable.
// CHECK-LABEL: func.func @train
// CHECK-SAME: %[[RM:[^:]+]]: tensor<3xf32> {bufferization.writable = true, nn.state = "bn.running_mean"}
// CHECK-NOT: nn.store
// CHECK: %[[NEW:.+]] = nn.add
// CHECK: %[[SECOND:.+]] = nn.add %[[NEW]]
// CHECK-NEXT: nn_kernel.write_state %[[SECOND]] into %[[RM]] : tensor<3xf32>
// CHECK-NEXT: return
nn.buffer @bn.running_mean : tensor<3xf32> persistent
func.func @train(%x: tensor<3xf32>) -> tensor<3xf32> {
  %m = nn.load @bn.running_mean : tensor<3xf32>
  %new = nn.add %m, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  nn.store @bn.running_mean, %new : tensor<3xf32>
  %second = nn.add %new, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  nn.store @bn.running_mean, %second : tensor<3xf32>
  return %second : tensor<3xf32>
}

// -----

nn.buffer @b : tensor<3xf32>
func.func private @helper(%v: tensor<3xf32>) {
  // expected-error @+1 {{'nn.store' op writes state outside a public function, which has no state arguments}}
  nn.store @b, %v : tensor<3xf32>
  return
}

// -----

// State that no function reads or writes (dead after canonicalization) gets
// no argument; the artifact description still lists it ("argument": false).
// CHECK-LABEL: func.func @skips_unused
// CHECK-SAME: (%{{.+}}: tensor<3xf32> {nn.state = "used"}, %{{.+}}: tensor<3xf32>) -> tensor<3xf32>
nn.parameter @unused : tensor<5xf32>
nn.parameter @used : tensor<3xf32>
nn.buffer @unused_buffer : tensor<2xf32> persistent
func.func @skips_unused(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = nn.load @used : tensor<3xf32>
  %y = nn.add %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// A declaration's value travels on its argument as nn.embedded; a written
// buffer's value does not (written state is always bound).
// CHECK-LABEL: func.func @embedded
// CHECK-SAME: (%{{.+}}: tensor<2xi1> {nn.embedded = dense<[true, false]> : tensor<2xi1>, nn.state = "mask"}, %{{.+}}: tensor<2xf32> {bufferization.writable = true, nn.state = "count"}, %{{.+}}: tensor<2xf32>)
nn.buffer @mask : tensor<2xi1> = dense<[true, false]> : tensor<2xi1>
nn.buffer @count : tensor<2xf32> = dense<0.0> : tensor<2xf32>
func.func @embedded(%x: tensor<2xf32>) -> tensor<2xf32> {
  %m = nn.load @mask : tensor<2xi1>
  %c = nn.load @count : tensor<2xf32>
  %y = nn.where %m, %x, %c : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  nn.store @count, %y : tensor<2xf32>
  return %y : tensor<2xf32>
}
