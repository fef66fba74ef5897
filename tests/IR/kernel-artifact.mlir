// RUN: nn-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: nn-opt %s -split-input-file -verify-diagnostics | nn-opt -split-input-file | FileCheck %s

// The artifact description is a typed attribute written as the JSON the
// artifact embeds, read with the runtime's parser: it prints back as it
// was read.
// CHECK: module attributes {nn_kernel.artifact = #nn_kernel.artifact<"{\22abi_version\22:2,\22state\22:[{\22name\22:\22fc.weight\22,\22shape\22:[3,4],\22dtype\22:\22F32\22,\22kind\22:\22parameter\22,\22persistent\22:true,\22requires_grad\22:true,\22aliases\22:[],\22argument\22:true}],\22inputs\22:[{\22name\22:\22input.0\22,\22shape\22:[2,4],\22dtype\22:\22F32\22}],\22outputs\22:[{\22name\22:\22output.0\22,\22shape\22:[2,3],\22dtype\22:\22F32\22}]}">}
module attributes {nn_kernel.artifact = #nn_kernel.artifact<"{\22abi_version\22:2,\22state\22:[{\22name\22:\22fc.weight\22,\22shape\22:[3,4],\22dtype\22:\22F32\22,\22kind\22:\22parameter\22,\22persistent\22:true,\22requires_grad\22:true,\22aliases\22:[],\22argument\22:true}],\22inputs\22:[{\22name\22:\22input.0\22,\22shape\22:[2,4],\22dtype\22:\22F32\22}],\22outputs\22:[{\22name\22:\22output.0\22,\22shape\22:[2,3],\22dtype\22:\22F32\22}]}">} {
}

// -----

// What the runtime would refuse to load, the parser refuses here, naming
// the field.
// expected-error @+1 {{#nn_kernel.artifact: invalid artifact description: 'input.0' has a bad shape}}
module attributes {nn_kernel.artifact = #nn_kernel.artifact<"{\22abi_version\22:2,\22state\22:[],\22inputs\22:[{\22name\22:\22input.0\22,\22shape\22:[-2],\22dtype\22:\22F32\22}],\22outputs\22:[]}">} {
}

// -----

// expected-error @+1 {{'nn_kernel.artifact' is a module's #nn_kernel.artifact<...>}}
func.func @f() attributes {nn_kernel.artifact = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'nn_kernel.other' is not an attribute of the nn_kernel dialect}}
module attributes {nn_kernel.other = 1 : i64} {
}
