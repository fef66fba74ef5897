// RUN: nn-opt %s -nn-use-nontemporal-stores=alignment=24 -split-input-file -verify-diagnostics

// expected-error @+1 {{nn-use-nontemporal-stores: alignment must be a power of two, got 24}}
func.func @bad_alignment(%v: vector<32xf32>, %out: memref<16777216xf32>, %i: index) {
  vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<32xf32>, memref<16777216xf32>
  return
}
