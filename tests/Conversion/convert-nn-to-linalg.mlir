// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// linear: matmul_transpose_b accumulating into the broadcast bias; the relu
// after it is one elementwise generic over the product.
// CHECK-LABEL: func.func @linear_relu
// CHECK: %[[BIAS:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul_transpose_b ins(%{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<3x4xf32>) outs(%[[BIAS]] : tensor<2x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<2x3xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: nn.
func.func @linear_relu(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %l = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = nn.relu %l : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Batched input: flattened to 2-D and back.
// CHECK-LABEL: func.func @linear_batched
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<5x2x4xf32> into tensor<10x4xf32>
// CHECK: linalg.fill
// CHECK: linalg.matmul_transpose_b
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [5, 2, 3] : tensor<10x3xf32> into tensor<5x2x3xf32>
func.func @linear_batched(%x: tensor<5x2x4xf32>, %w: tensor<3x4xf32>) -> tensor<5x2x3xf32> {
  %y = nn.linear %x, %w : (tensor<5x2x4xf32>, tensor<3x4xf32>) -> tensor<5x2x3xf32>
  return %y : tensor<5x2x3xf32>
}

// -----

// Broadcasting is in the indexing maps: size-1 dimensions read index 0,
// missing leading dimensions are dropped.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]]
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %c = nn.add %a, %b : (tensor<2x1x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %c : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @add_int
// CHECK: arith.addi
func.func @add_int(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %c = nn.add %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %c : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @matmul_2d
// CHECK: linalg.matmul ins
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = nn.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// Batched with a broadcast batch: one generic, k a reduction loop.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_batched(%a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<5x2x4xf32> {
  %c = nn.matmul %a, %b : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<5x2x4xf32>
  return %c : tensor<5x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @relu
// CHECK: arith.maximumf
func.func @relu(%x: tensor<7xf32>) -> tensor<7xf32> {
  %y = nn.relu %x : tensor<7xf32>
  return %y : tensor<7xf32>
}

// -----

// softmax: the row maxima, exp(x - max) once per element into a tensor of
// its own, which both the row sums and the normalization read (no second
// exp), 1 / sum per row, and the elements times it.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4x7xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x7xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<4x7xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x7xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<4x7xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%[[EXP]], %[[INV]] : tensor<4x7xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x7xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: return
func.func @softmax(%x: tensor<4x7xf32>) -> tensor<4x7xf32> {
  %y = nn.softmax %x, dim = 1 : tensor<4x7xf32>
  return %y : tensor<4x7xf32>
}

// -----

// log_softmax needs exp(x - max) only in the row sums: it stays there, and
// the result is x - max - log(sum), without an exp tensor.
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4x7xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x7xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<4x7xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[LOG:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: math.log
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[MAX]], %[[LOG]] : tensor<4x7xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x7xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.subf
// CHECK: arith.subf
// CHECK: return
func.func @log_softmax(%x: tensor<4x7xf32>) -> tensor<4x7xf32> {
  %y = nn.log_softmax %x, dim = 1 : tensor<4x7xf32>
  return %y : tensor<4x7xf32>
}

// -----

// Eval dropout is the identity.
// CHECK-LABEL: func.func @dropout_eval
// CHECK-SAME: (%[[X:.+]]: tensor<7xf32>)
// CHECK-NOT: nn.dropout
// CHECK: return %[[X]]
func.func @dropout_eval(%x: tensor<7xf32>) -> tensor<7xf32> {
  %y = nn.dropout %x {p = 0.2 : f64} : tensor<7xf32>
  return %y : tensor<7xf32>
}

// -----

// Training dropout: the generator state (seed, base) is read once from the
// rng operand, then one elementwise generic computes Philox4x32-10 of
// base + offset + the element's row-major index (ten rounds of two 32x32->64
// multiplies), keeping an element when the top 24 bits of word 0 are below
// round(0.8 * 2^24) = 13421773, and scaling survivors by 1/(1-p).
// CHECK-LABEL: func.func @dropout_train
// CHECK-SAME: %[[RNG:[^:]+]]: tensor<2xi64>
// CHECK-DAG: %[[SEED:.+]] = tensor.extract %[[RNG]][%{{.*}}] : tensor<2xi64>
// CHECK-DAG: %[[BASE:.+]] = tensor.extract %[[RNG]][%{{.*}}] : tensor<2xi64>
// CHECK: %[[START:.+]] = arith.addi %[[BASE]], %{{.*}} : i64
// CHECK: arith.shrui %[[SEED]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<2x7xf32>) outs(%{{.*}} : tensor<2x7xf32>)
// CHECK: linalg.index 0
// CHECK: arith.constant 7 : i64
// CHECK: linalg.index 1
// CHECK-COUNT-20: arith.mului_extended
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: arith.divf
// CHECK: arith.select
// CHECK-NOT: nn.dropout
// CHECK-NOT: func.call
func.func @dropout_train(%x: tensor<2x7xf32>, %rng: tensor<2xi64>) -> tensor<2x7xf32> {
  %y = nn.dropout %x rng %rng {p = 0.2 : f64, training, offset = 64 : i64} : tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}

