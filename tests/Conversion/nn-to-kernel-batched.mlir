// RUN: nn-opt %s -convert-nn-to-kernel -split-input-file | FileCheck %s --implicit-check-not=memref --implicit-check-not=llvm --implicit-check-not=call

// MultiheadAttention's eval path (TransformerEncoderLayer, W4): the q/k/v
// pieces of one in-projection, split into heads, attended and merged back.
// The heads are read in place: q, k, v are strided views of the projection
// (extract_slice + expand_shape, no nn.split / nn.reshape copies), the
// permutes are only strides, and the attention writes its result straight
// in the merged [seq, batch, heads, head_dim] order.
// CHECK-LABEL: func.func @attention_head_split_merge
// CHECK: %[[Q:.+]] = tensor.extract_slice %[[QKV:.+]][0, 0, 0] [6, 2, 8] [1, 1, 1]
// CHECK: %[[Q4:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [6, 2, 4, 2]
// CHECK: %[[K:.+]] = tensor.extract_slice %[[QKV]][0, 0, 8] [6, 2, 8] [1, 1, 1]
// CHECK: %[[K4:.+]] = tensor.expand_shape %[[K]]
// CHECK: %[[V:.+]] = tensor.extract_slice %[[QKV]][0, 0, 16] [6, 2, 8] [1, 1, 1]
// CHECK: %[[V4:.+]] = tensor.expand_shape %[[V]]
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<6x2x4x2xf32>
// CHECK: %[[MERGED:.+]] = nn_kernel.attention %[[Q4]], %[[K4]], %[[V4]] outs(%[[INIT]] : tensor<6x2x4x2xf32>) scale 0.707106769 {key_perm = array<i64: 1, 2, 0, 3>, out_perm = array<i64: 2, 0, 1, 3>, query_perm = array<i64: 1, 2, 0, 3>, value_perm = array<i64: 1, 2, 0, 3>}
// CHECK: nn.reshape %[[MERGED]] [6, 2, 8]
// CHECK-NOT: nn.permute
// CHECK-NOT: nn.scaled_dot_product_attention
func.func @attention_head_split_merge(%qkv: tensor<6x2x24xf32>) -> tensor<6x2x8xf32> {
  %s:3 = nn.split %qkv [8, 8, 8] dim -1 : (tensor<6x2x24xf32>) -> (tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>)
  %q0 = nn.reshape %s#0 [6, 2, 4, 2] : (tensor<6x2x8xf32>) -> tensor<6x2x4x2xf32>
  %q = nn.permute %q0 [1, 2, 0, 3] : (tensor<6x2x4x2xf32>) -> tensor<2x4x6x2xf32>
  %k0 = nn.reshape %s#1 [6, 2, 4, 2] : (tensor<6x2x8xf32>) -> tensor<6x2x4x2xf32>
  %k = nn.permute %k0 [1, 2, 0, 3] : (tensor<6x2x4x2xf32>) -> tensor<2x4x6x2xf32>
  %v0 = nn.reshape %s#2 [6, 2, 4, 2] : (tensor<6x2x8xf32>) -> tensor<6x2x4x2xf32>
  %v = nn.permute %v0 [1, 2, 0, 3] : (tensor<6x2x4x2xf32>) -> tensor<2x4x6x2xf32>
  %a = nn.scaled_dot_product_attention %q, %k, %v : (tensor<2x4x6x2xf32>, tensor<2x4x6x2xf32>, tensor<2x4x6x2xf32>) -> tensor<2x4x6x2xf32>
  %m = nn.permute %a [2, 0, 1, 3] : (tensor<2x4x6x2xf32>) -> tensor<6x2x4x2xf32>
  %o = nn.reshape %m [6, 2, 8] : (tensor<6x2x4x2xf32>) -> tensor<6x2x8xf32>
  return %o : tensor<6x2x8xf32>
}

// -----

// A float mask [L, S] shared by every batch index (broadcast: batch
// strides 0 in the call); the causal flag and an explicit scale reach the
// op.
// CHECK-LABEL: func.func @attention_mask_and_causal
// CHECK: nn_kernel.attention %arg0, %arg1, %arg2 mask(%arg3 : tensor<5x7xf32>) outs(%{{.*}} : tensor<2x3x5x6xf32>) scale 1.250000e-01 :
// CHECK: nn_kernel.attention %arg0, %arg1, %arg2 outs(%{{.*}} : tensor<2x3x5x6xf32>) scale 5.000000e-01 causal :
// CHECK-NOT: nn.scaled_dot_product_attention
func.func @attention_mask_and_causal(%q: tensor<2x3x5x4xf32>, %k: tensor<2x3x7x4xf32>, %v: tensor<2x3x7x6xf32>, %mask: tensor<5x7xf32>) -> (tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>) {
  %a = nn.scaled_dot_product_attention %q, %k, %v mask %mask scale 0.125 : (tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x6xf32>, tensor<5x7xf32>) -> tensor<2x3x5x6xf32>
  %c = nn.scaled_dot_product_attention %q, %k, %v causal : (tensor<2x3x5x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x6xf32>) -> tensor<2x3x5x6xf32>
  return %a, %c : tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>
}

// -----

// A matmul of [..., K] by a shared 2-D weight is one GEMM whose rows are
// the leading dims (as PyTorch folds them), not a GEMM of 8 rows per batch
// index; a residual of the result's shape and a relu in the store.
// CHECK-LABEL: func.func @batched_matmul_residual_relu
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : tensor<2x3x8x16xf32> into tensor<48x16xf32>
// CHECK: %[[C:.+]] = nn_kernel.gemm %[[ROWS]], %arg1 addends(%arg2 : tensor<2x3x8x4xf32>) epilogue <add [0, 4, 1], relu> outs(%{{.*}} : tensor<48x4xf32>) : tensor<48x16xf32>, tensor<16x4xf32> -> tensor<48x4xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 3, 8, 4] : tensor<48x4xf32> into tensor<2x3x8x4xf32>
// CHECK-NOT: nn.matmul
// CHECK-NOT: nn.add
// CHECK-NOT: nn.relu
func.func @batched_matmul_residual_relu(%a: tensor<2x3x8x16xf32>, %b: tensor<16x4xf32>, %r: tensor<2x3x8x4xf32>) -> tensor<2x3x8x4xf32> {
  %y = nn.matmul %a, %b : (tensor<2x3x8x16xf32>, tensor<16x4xf32>) -> tensor<2x3x8x4xf32>
  %z = nn.add %y, %r : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>) -> tensor<2x3x8x4xf32>
  %w = nn.relu %z : tensor<2x3x8x4xf32>
  return %w : tensor<2x3x8x4xf32>
}

// -----

// q·kᵀ written out (MultiheadAttention with need_weights): the transpose is
// a swap of the key's strides, not a copy.
// CHECK-LABEL: func.func @batched_matmul_transposed
// CHECK: nn_kernel.batch_matmul %arg0, %arg1 outs(%{{.*}} : tensor<2x4x5x6xf32>) {b_perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x3xf32>, tensor<2x4x6x3xf32> -> tensor<2x4x5x6xf32>
// CHECK-NOT: nn.transpose
// CHECK-NOT: nn.matmul
func.func @batched_matmul_transposed(%q: tensor<2x4x5x3xf32>, %k: tensor<2x4x6x3xf32>) -> tensor<2x4x5x6xf32> {
  %kt = nn.transpose %k -2, -1 : (tensor<2x4x6x3xf32>) -> tensor<2x4x3x6xf32>
  %s = nn.matmul %q, %kt : (tensor<2x4x5x3xf32>, tensor<2x4x3x6xf32>) -> tensor<2x4x5x6xf32>
  return %s : tensor<2x4x5x6xf32>
}

// -----

// Left to convert-nn-to-linalg: dropout inside attention (training), a
// boolean mask, f16 and bf16, dynamic shapes, more batch dims than the
// kernels take.
// CHECK-LABEL: func.func @no_kernel
// CHECK-NOT: nn_kernel
// CHECK: nn.scaled_dot_product_attention {{.*}} rng
// CHECK: nn.scaled_dot_product_attention {{.*}} mask %{{.*}} :{{.*}}xi1>
// CHECK: nn.scaled_dot_product_attention {{.*}}xf16>
// CHECK: nn.matmul {{.*}}xbf16>
// CHECK: nn.matmul {{.*}}tensor<?x8x16xf32>
// CHECK: nn.matmul {{.*}}tensor<1x1x1x1x2x8x16xf32>, tensor<1x1x1x1x2x16x4xf32>
func.func @no_kernel(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>, %rng: tensor<2xi64>, %bm: tensor<5x7xi1>,
                     %hq: tensor<2x5x8xf16>, %hk: tensor<2x7x8xf16>, %hv: tensor<2x7x3xf16>,
                     %ba: tensor<2x8x16xbf16>, %bb: tensor<2x16x4xbf16>,
                     %da: tensor<?x8x16xf32>, %db: tensor<16x4xf32>,
                     %ea: tensor<1x1x1x1x2x8x16xf32>, %eb: tensor<1x1x1x1x2x16x4xf32>)
    -> (tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x3xf16>, tensor<2x8x4xbf16>, tensor<?x8x4xf32>, tensor<1x1x1x1x2x8x4xf32>) {
  %d = nn.scaled_dot_product_attention %q, %k, %v rng %rng {dropout_p = 0.25 : f64, offset = 0 : i64} : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>, tensor<2xi64>) -> tensor<2x5x3xf32>
  %b = nn.scaled_dot_product_attention %q, %k, %v mask %bm : (tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>, tensor<5x7xi1>) -> tensor<2x5x3xf32>
  %h = nn.scaled_dot_product_attention %hq, %hk, %hv : (tensor<2x5x8xf16>, tensor<2x7x8xf16>, tensor<2x7x3xf16>) -> tensor<2x5x3xf16>
  %m = nn.matmul %ba, %bb : (tensor<2x8x16xbf16>, tensor<2x16x4xbf16>) -> tensor<2x8x4xbf16>
  %y = nn.matmul %da, %db : (tensor<?x8x16xf32>, tensor<16x4xf32>) -> tensor<?x8x4xf32>
  %e = nn.matmul %ea, %eb : (tensor<1x1x1x1x2x8x16xf32>, tensor<1x1x1x1x2x16x4xf32>) -> tensor<1x1x1x1x2x8x4xf32>
  return %d, %b, %h, %m, %y, %e : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x3xf16>, tensor<2x8x4xbf16>, tensor<?x8x4xf32>, tensor<1x1x1x1x2x8x4xf32>
}
