//===- Batched.cpp - nn_rt_sgemm_batched: strided batches of GEMMs --------===//
//
// nn.matmul with batch dimensions (attention's q·kᵀ and p·v when they are
// written out, bmm) as one call: each batch index is an ordinary GEMM of
// the packed kernel on views of its operands, so a transpose or a head
// split is a change of strides, never a copy. The pool's chunks are (batch
// index, register-tile block) pairs, so a few large matrices and many small
// ones both keep every thread busy.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <stddef.h>

// nn-lower-kernel-ops builds nn_rt_matrix as the LLVM struct
// {ptr, i64 x 6} and the batch sizes as [4 x i64].
static_assert(
    NN_RT_MAX_BATCH_DIMS == 4 && offsetof(nn_rt_matrix, batch_strides) == 8 &&
        offsetof(nn_rt_matrix, row_stride) == 40 && sizeof(nn_rt_matrix) == 56,
    "the matrix view's layout is part of the ABI generated code uses");

namespace {

struct BatchedGemm {
  const int64_t *batch;
  int64_t M, N, K;
  const nn_rt_matrix *A, *B, *C;
  bool accumulate;
  nn_rt_epilogue ep;
  /// Each batch index's C is cut in `blocks` blocks of `unit` rows (or
  /// columns when alongN).
  int64_t blocks, unit;
  bool alongN;
};

/// The GEMM of flattened batch index `b`.
nn_rt::GemmArgs gemmOf(const BatchedGemm &s, int64_t b) {
  const nn_rt_matrix &A = *s.A, &B = *s.B, &C = *s.C;
  return nn_rt::GemmArgs{
      s.M,
      s.N,
      s.K,
      A.data + nn_rt::batchOffset(s.batch, A.batch_strides, b),
      A.row_stride,
      A.col_stride,
      B.data + nn_rt::batchOffset(s.batch, B.batch_strides, b),
      B.row_stride,
      B.col_stride,
      C.data + nn_rt::batchOffset(s.batch, C.batch_strides, b),
      C.row_stride,
      s.accumulate,
      nn_rt::epilogueOfImage(s.ep, b)};
}

void batchedChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<BatchedGemm *>(ctx);
  for (int64_t c = begin; c < end; ++c) {
    int64_t b = c / s->blocks, block = c % s->blocks;
    nn_rt::GemmArgs g = gemmOf(*s, b);
    int64_t lo = block * s->unit;
    if (s->alongN)
      nn_rt::gemmOnThisThread(g, 0, s->M, lo,
                              lo + s->unit < s->N ? lo + s->unit : s->N);
    else
      nn_rt::gemmOnThisThread(g, lo, lo + s->unit < s->M ? lo + s->unit : s->M,
                              0, s->N);
  }
}

} // namespace

extern "C" void nn_rt_sgemm_batched(const int64_t *batch, int64_t M, int64_t N,
                                    int64_t K, const nn_rt_matrix *A,
                                    const nn_rt_matrix *B,
                                    const nn_rt_matrix *C, int32_t accumulate,
                                    const nn_rt_epilogue *epilogue) {
  int64_t count = nn_rt::batchCount(batch);
  if (count <= 0 || M <= 0 || N <= 0)
    return;
  BatchedGemm s{batch, M, N, K, A, B, C, accumulate != 0, {}, 1, M, false};
  if (epilogue)
    s.ep = *epilogue;
  double macs = double(count) * M * N * K;
  if (!nn_rt::worthParallel(macs)) {
    for (int64_t b = 0; b < count; ++b)
      nn_rt::gemmOnThisThread(gemmOf(s, b), 0, M, 0, N);
    return;
  }
  // Whole matrices per chunk when there are enough of them; otherwise each
  // one cut along its longer side in whole register tiles, about as many
  // blocks as threads.
  int64_t threads = nn_rt_get_num_threads();
  if (count < 2 * threads) {
    int64_t mr, nr;
    nn_rt::registerTile(mr, nr);
    s.alongN = N >= M;
    int64_t extent = s.alongN ? N : M, tile = s.alongN ? nr : mr;
    int64_t per = (threads + count - 1) / count;
    s.unit = ((extent + per - 1) / per + tile - 1) / tile * tile;
    s.blocks = (extent + s.unit - 1) / s.unit;
  }
  nn_rt::parallelFor(count * s.blocks, batchedChunk, &s, nn_rt::gemmScratch());
}
