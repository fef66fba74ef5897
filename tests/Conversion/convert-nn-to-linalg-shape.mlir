// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s
// RUN: nn-opt %s -nn-lower-to-llvm -split-input-file | FileCheck %s --check-prefix=LLVM

// All the way to LLVM, no copy needs the runtime library's memrefCopy
// (compiled models do not link it): strided slices, splits and joins copy
// with linalg loops.
// LLVM-NOT: memrefCopy
// LLVM: llvm.func @slice(
// LLVM-NOT: memrefCopy
// LLVM: llvm.func @split(
// LLVM-NOT: memrefCopy
// LLVM: llvm.func @cat(
// LLVM-NOT: memrefCopy
// LLVM: llvm.func @pad(
// LLVM-NOT: memrefCopy
// LLVM: llvm.func @stack(
// LLVM-NOT: memrefCopy

// A reshape that only merges dimensions is a collapse.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x7xf32> into tensor<21xf32>
// CHECK-NOT: nn.
func.func @reshape_collapse(%x: tensor<3x7xf32>) -> tensor<21xf32> {
  %0 = nn.reshape %x [-1] : (tensor<3x7xf32>) -> tensor<21xf32>
  return %0 : tensor<21xf32>
}

// -----

// One that only splits dimensions is an expand.
// CHECK-LABEL: func.func @reshape_expand
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [1, 17, 1] : tensor<17xf32> into tensor<1x17x1xf32>
func.func @reshape_expand(%x: tensor<17xf32>) -> tensor<1x17x1xf32> {
  %0 = nn.reshape %x [1, 17, 1] : (tensor<17xf32>) -> tensor<1x17x1xf32>
  return %0 : tensor<1x17x1xf32>
}

// -----

// Otherwise tensor.reshape with a constant shape.
// CHECK-LABEL: func.func @reshape_regroup
// CHECK: %[[SHAPE:.+]] = arith.constant dense<[4, 6]> : tensor<2xi64>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
func.func @reshape_regroup(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = nn.reshape %x [4, -1] : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// flatten, squeeze and unsqueeze are reshapes too.
// CHECK-LABEL: func.func @reshape_like
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<2x3x7x5xf32> into tensor<2x21x5xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x3x1x7xf32> into tensor<3x7xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @reshape_like(%a: tensor<2x3x7x5xf32>, %b: tensor<1x3x1x7xf32>, %c: tensor<3xf32>, %d: tensor<f32>)
    -> (tensor<2x21x5xf32>, tensor<3x7xf32>, tensor<3x1xf32>, tensor<1xf32>) {
  %0 = nn.flatten %a from 1 to 2 : (tensor<2x3x7x5xf32>) -> tensor<2x21x5xf32>
  %1 = nn.squeeze %b : (tensor<1x3x1x7xf32>) -> tensor<3x7xf32>
  %2 = nn.unsqueeze %c dim -1 : (tensor<3xf32>) -> tensor<3x1xf32>
  %3 = nn.flatten %d from 0 to -1 : (tensor<f32>) -> tensor<1xf32>
  return %0, %1, %2, %3 : tensor<2x21x5xf32>, tensor<3x7xf32>, tensor<3x1xf32>, tensor<1xf32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x3x2xf32>) permutation = [2, 1, 0]
func.func @permute(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<4x3x2xf32>) {
  %0 = nn.permute %x [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = nn.transpose %x 0, -1 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<4x2x3xf32>, tensor<4x3x2xf32>
}

// -----

// expand broadcasts in the input's indexing map: nothing is copied first.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]]{{.*}} ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x7xf32>)
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x7xf32> {
  %0 = nn.expand %x [2, -1, 7] : (tensor<3x1xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// A strided slice is copied into a fresh tensor (linalg loops), so no
// strided view needs a memref.copy later.
// CHECK-LABEL: func.func @slice
// CHECK: %[[S:.+]] = tensor.extract_slice %{{.*}}[0, 1] [2, 3] [1, 2] : tensor<2x7xf32> to tensor<2x3xf32>
// CHECK: linalg.copy ins(%[[S]] : tensor<2x3xf32>)
func.func @slice(%x: tensor<2x7xf32>) -> tensor<2x3xf32> {
  %0 = nn.slice %x dim -1 [1 : 7 : 2] : (tensor<2x7xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A contiguous one (rows of a row-major tensor) stays a view.
// CHECK-LABEL: func.func @slice_rows
// CHECK: tensor.extract_slice %{{.*}}[2, 0] [3, 4] [1, 1] : tensor<7x4xf32> to tensor<3x4xf32>
// CHECK-NOT: linalg.copy
func.func @slice_rows(%x: tensor<7x4xf32>) -> tensor<3x4xf32> {
  %0 = nn.slice %x dim 0 [2 : 5 : 1] : (tensor<7x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @split
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [3, 2] [1, 1] : tensor<3x7xf32> to tensor<3x2xf32>
// CHECK: linalg.copy
// CHECK: tensor.extract_slice %{{.*}}[0, 2] [3, 5] [1, 1] : tensor<3x7xf32> to tensor<3x5xf32>
// CHECK: linalg.copy
func.func @split(%x: tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x5xf32>) {
  %0:2 = nn.split %x [2, 5] dim 1 : (tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x5xf32>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x5xf32>
}

// -----

// cat and stack copy each input into its slice of the result (destination
// style: bufferization then writes in place, no memref.copy into a strided
// view).
// CHECK-LABEL: func.func @cat
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x5xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[S0:.+]] = tensor.extract_slice %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x8xf32> to tensor<2x3xf32>
// CHECK: %[[C0:.+]] = linalg.copy ins(%[[A]] : tensor<2x3xf32>) outs(%[[S0]] : tensor<2x3xf32>)
// CHECK: %[[I0:.+]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
// CHECK: %[[S1:.+]] = tensor.extract_slice %[[I0]][0, 3] [2, 5] [1, 1]
// CHECK: %[[C1:.+]] = linalg.copy ins(%[[B]] : tensor<2x5xf32>) outs(%[[S1]] : tensor<2x5xf32>)
// CHECK: tensor.insert_slice %[[C1]] into %[[I0]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
func.func @cat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = nn.cat %a, %b dim 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A cat with splat-constant inputs (a padding's zero borders): the result
// is filled with the value first (one contiguous fill), and only the other
// inputs are copied into their slices.
// CHECK-LABEL: func.func @cat_zero_borders
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x5xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x3x7x5xf32>)
// CHECK: %[[S:.+]] = tensor.extract_slice %[[F]][0, 0, 1, 0] [2, 3, 4, 5] [1, 1, 1, 1]
// CHECK: %[[C:.+]] = linalg.copy ins(%[[X]] : tensor<2x3x4x5xf32>) outs(%[[S]] : tensor<2x3x4x5xf32>)
// CHECK: %[[R:.+]] = tensor.insert_slice %[[C]] into %[[F]][0, 0, 1, 0] [2, 3, 4, 5] [1, 1, 1, 1]
// CHECK-NOT: linalg.copy
// CHECK: return %[[R]]
func.func @cat_zero_borders(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x7x5xf32> {
  %top = arith.constant dense<0.0> : tensor<2x3x1x5xf32>
  %bottom = arith.constant dense<0.0> : tensor<2x3x2x5xf32>
  %0 = nn.cat %top, %x, %bottom dim 2 : (tensor<2x3x1x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x2x5xf32>) -> tensor<2x3x7x5xf32>
  return %0 : tensor<2x3x7x5xf32>
}

// -----

// pad: the whole result filled with the value (one contiguous pass), the
// input copied into its interior once, whatever the number of padded dims.
// CHECK-LABEL: func.func @pad
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3x7x8xf32>
// CHECK: %[[V:.+]] = arith.constant -1.500000e+00 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<2x3x7x8xf32>)
// CHECK: %[[S:.+]] = tensor.extract_slice %[[F]][0, 0, 1, 3] [2, 3, 4, 5] [1, 1, 1, 1] : tensor<2x3x7x8xf32> to tensor<2x3x4x5xf32>
// CHECK: %[[C:.+]] = linalg.copy ins(%{{.+}} : tensor<2x3x4x5xf32>) outs(%[[S]] : tensor<2x3x4x5xf32>)
// CHECK: %[[R:.+]] = tensor.insert_slice %[[C]] into %[[F]][0, 0, 1, 3] [2, 3, 4, 5] [1, 1, 1, 1]
// CHECK-NOT: linalg.copy
// CHECK: return %[[R]]
func.func @pad(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x7x8xf32> {
  %0 = nn.pad %x low [0, 0, 1, 3] high [0, 0, 2, 0] value -1.5 : (tensor<2x3x4x5xf32>) -> tensor<2x3x7x8xf32>
  return %0 : tensor<2x3x7x8xf32>
}

// -----

// An integer pad fills with the value as an integer.
// CHECK-LABEL: func.func @pad_i64
// CHECK: %[[V:.+]] = arith.constant 7 : i64
// CHECK: linalg.fill ins(%[[V]] : i64)
func.func @pad_i64(%x: tensor<3xi64>) -> tensor<5xi64> {
  %0 = nn.pad %x low [1] high [1] value 7.0 : (tensor<3xi64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// stack uses rank-reduced slices along the new dimension.
// CHECK-LABEL: func.func @stack
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3x2xf32>
// CHECK: tensor.extract_slice %[[E]][0, 0, 0] [2, 3, 1] [1, 1, 1] : tensor<2x3x2xf32> to tensor<2x3xf32>
// CHECK: linalg.copy
// CHECK: %[[I0:.+]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0, 0] [2, 3, 1] [1, 1, 1] : tensor<2x3xf32> into tensor<2x3x2xf32>
// CHECK: tensor.extract_slice %[[I0]][0, 0, 1] [2, 3, 1] [1, 1, 1] : tensor<2x3x2xf32> to tensor<2x3xf32>
// CHECK: linalg.copy
// CHECK: tensor.insert_slice %{{.*}} into %[[I0]][0, 0, 1] [2, 3, 1] [1, 1, 1] : tensor<2x3xf32> into tensor<2x3x2xf32>
func.func @stack(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3x2xf32> {
  %0 = nn.stack %a, %b dim -1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}

// -----

// The gathers are a linalg.generic over the result reading the index with a
// map and the source with tensor.extract; only the loop indices the extract
// needs are materialized.
// CHECK-DAG: #[[SEL:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<4xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[SEL]], #[[ID]]]{{.*}} ins(%[[I]] : tensor<4xi64>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: ^bb0(%[[IDX:.+]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[ROW:.+]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK-NEXT: %[[COL:.+]] = linalg.index 1 : index
// CHECK-NEXT: tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<5x3xf32>
func.func @index_select(%x: tensor<5x3xf32>, %i: tensor<4xi64>) -> tensor<4x3xf32> {
  %0 = nn.index_select %x, %i dim 0 : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.+]]: tensor<3x5xf32>, %[[I:.+]]: tensor<3x2xi64>)
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<3x2xi64>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[COL:.+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[ROW:.+]] = linalg.index 0 : index
// CHECK-NEXT: tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<3x5xf32>
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = nn.gather %x, %i dim 1 : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-DAG: #[[IDS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[IDS_ARG:.+]]: tensor<2x7xi64>, %[[W:.+]]: tensor<10x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDS]], {{.*}}]{{.*}} ins(%[[IDS_ARG]] : tensor<2x7xi64>) outs(%{{.*}} : tensor<2x7x3xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[ROW:.+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[COL:.+]] = linalg.index 2 : index
// CHECK-NEXT: tensor.extract %[[W]][%[[ROW]], %[[COL]]] : tensor<10x3xf32>
func.func @embedding(%ids: tensor<2x7xi64>, %w: tensor<10x3xf32>) -> tensor<2x7x3xf32> {
  %0 = nn.embedding %ids, %w : (tensor<2x7xi64>, tensor<10x3xf32>) -> tensor<2x7x3xf32>
  return %0 : tensor<2x7x3xf32>
}
