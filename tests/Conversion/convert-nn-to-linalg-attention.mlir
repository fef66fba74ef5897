// RUN: nn-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s

// Same batch dims: q·kᵀ is linalg.batch_matmul_transpose_b; the scale is one
// broadcasting generic; softmax is the max reduction, exp(x - max) per
// element (once: both the sum and the normalization read it), the Σ
// reduction, 1 / Σ per row and the normalization (a multiplication by it);
// then linalg.batch_matmul with v.
// CHECK-LABEL: func.func @sdpa_same_batch
// CHECK: %[[SCORES:.+]] = linalg.batch_matmul_transpose_b ins(%{{.*}}, %{{.*}} : tensor<2x5x8xf32>, tensor<2x7x8xf32>) outs(%{{.*}} : tensor<2x5x7xf32>)
// CHECK: %[[SCALED:.+]] = linalg.generic {{.*}} ins(%[[SCORES]] : tensor<2x5x7xf32>)
// CHECK: arith.constant 0.353553385 : f32
// CHECK: arith.mulf
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[SCALED]] : tensor<2x5x7xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[SCALED]], %[[MAX]] : tensor<2x5x7xf32>, tensor<2x5xf32>)
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[EXP]] : tensor<2x5x7xf32>)
// CHECK-NOT: math.exp
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x5xf32>) outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: arith.divf
// CHECK: %[[PROBS:.+]] = linalg.generic {{.*}} ins(%[[EXP]], %[[INV]] : tensor<2x5x7xf32>, tensor<2x5xf32>)
// CHECK-NOT: arith.divf
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: linalg.batch_matmul ins(%[[PROBS]], %{{.*}} : tensor<2x5x7xf32>, tensor<2x7x3xf32>) outs(%{{.*}} : tensor<2x5x3xf32>)
// CHECK-NOT: nn.
func.func @sdpa_same_batch(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>) -> tensor<2x5x3xf32> {
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}

// -----

// Broadcasting batch dims: both products are generics whose maps read the
// size-1 batch dim at index 0 (the key has none).
// CHECK-LABEL: func.func @sdpa_broadcast_batch
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x1x5x4xf32>, tensor<3x7x4xf32>) outs(%{{.*}} : tensor<2x3x5x7xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x3x5x7xf32>, tensor<7x6xf32>) outs(%{{.*}} : tensor<2x3x5x6xf32>)
// CHECK-NOT: nn.
func.func @sdpa_broadcast_batch(%q: tensor<2x1x5x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<7x6xf32>) -> tensor<2x3x5x6xf32> {
  %o = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x1x5x4xf32>, tensor<3x7x4xf32>, tensor<7x6xf32>) -> tensor<2x3x5x6xf32>
  return %o : tensor<2x3x5x6xf32>
}

// -----

// A bool mask selects -inf where it is false; scale 1 multiplies nothing.
// CHECK-LABEL: func.func @sdpa_bool_mask
// CHECK: linalg.matmul_transpose_b
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<5x7xf32>, tensor<5x7xi1>)
// CHECK-NOT: arith.mulf
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.matmul ins
func.func @sdpa_bool_mask(%q: tensor<5x3xf32>, %k: tensor<7x3xf32>, %v: tensor<7x2xf32>, %m: tensor<5x7xi1>) -> tensor<5x2xf32> {
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m scale 1.0 : (tensor<5x3xf32>, tensor<7x3xf32>, tensor<7x2xf32>, tensor<5x7xi1>) -> tensor<5x2xf32>
  return %o : tensor<5x2xf32>
}

// -----

// A float mask is added after the scale, broadcast over the batch.
// CHECK-LABEL: func.func @sdpa_float_mask
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x5x7xf32>, tensor<2x1x1x7xf32>)
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @sdpa_float_mask(%q: tensor<2x4x5x6xf32>, %k: tensor<2x4x7x6xf32>, %v: tensor<2x4x7x6xf32>, %m: tensor<2x1x1x7xf32>) -> tensor<2x4x5x6xf32> {
  %o = nn.scaled_dot_product_attention %q, %k, %v mask %m scale 0.5 : (tensor<2x4x5x6xf32>, tensor<2x4x7x6xf32>, tensor<2x4x7x6xf32>, tensor<2x1x1x7xf32>) -> tensor<2x4x5x6xf32>
  return %o : tensor<2x4x5x6xf32>
}

// -----

// causal: the key index (last loop) must not pass the query index.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK: linalg.generic
// CHECK-DAG: %[[ROW:.+]] = linalg.index 1 : index
// CHECK-DAG: %[[COL:.+]] = linalg.index 2 : index
// CHECK: %[[KEEP:.+]] = arith.cmpi ule, %[[COL]], %[[ROW]] : index
// CHECK: arith.select %[[KEEP]], %{{.*}}, %{{.*}} : f32
func.func @sdpa_causal(%q: tensor<2x6x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x6x5xf32> {
  %o = nn.scaled_dot_product_attention %q, %k, %v causal : (tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  return %o : tensor<2x6x5xf32>
}

// -----

// dropout_p: the softmaxed weights [2, 5, 7] go through the dropout generic
// (the Philox rounds, drawn from the rng operand) before the product with
// value.
// CHECK-LABEL: func.func @sdpa_dropout
// CHECK-SAME: %[[RNG:[^:]+]]: tensor<2xi64>
// CHECK: tensor.extract %[[RNG]]
// CHECK: %[[DROPPED:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x5x7xf32>) outs(%{{.*}} : tensor<2x5x7xf32>)
// CHECK-COUNT-20: arith.mului_extended
// CHECK: linalg.batch_matmul ins(%[[DROPPED]], %{{.*}} : tensor<2x5x7xf32>, tensor<2x7x3xf32>)
func.func @sdpa_dropout(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>, %rng: tensor<2xi64>) -> tensor<2x5x3xf32> {
  %o = nn.scaled_dot_product_attention %q, %k, %v rng %rng {dropout_p = 0.25 : f64, offset = 0 : i64} : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>, tensor<2xi64>) -> tensor<2x5x3xf32>
  return %o : tensor<2x5x3xf32>
}
