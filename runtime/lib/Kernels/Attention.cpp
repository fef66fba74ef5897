//===- Attention.cpp - nn_rt_attention: fused scaled dot-product attention ===//
//
// softmax(q·kᵀ·scale + mask)·v without writing the [L, S] scores to memory
// (flash attention, Dao et al. 2022, on a CPU): each chunk of the thread
// pool takes one batch index and a block of kQueryBlock queries, and walks
// the keys in blocks of kKeyBlock:
//
//   scores[lb, sb] = q_blk · k_blkᵀ              (packed GEMM, in L1/L2)
//   per row: x = scores·scale + mask (-inf past the causal diagonal);
//            m' = max(m, max x); p = exp(x - m'); l = l·e^(m-m') + Σp;
//            acc_row *= e^(m-m')
//   acc[lb, Ev] += p · v_blk                      (packed GEMM)
//
// and stores out = acc / l through the output's strides. With S ≤
// kKeyBlock (W4's 128 keys) there is one key block and no rescaling, and
// without a causal mask every query block of a batch index reads the same
// k and v: a chunk packs them once per batch index for its GEMMs (each
// would pack its B again; that was a sixth of W4's attention time). Rows
// that attend to nothing end with acc = 0 and l = 0, so 0/0 = NaN as in
// PyTorch's math kernel; the shift is 0 rather than -inf for them so that
// no NaN enters a row that later finds a key.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <math.h>
#include <stdlib.h>

namespace {

/// Queries per chunk: a multiple of both ISAs' register rows (6, 12).
constexpr int64_t kQueryBlock = 48;
/// Keys per block: the lb x kKeyBlock scores (48 KiB) stay in L2 between
/// the two GEMMs.
constexpr int64_t kKeyBlock = 256;

using nn_rt::minI;

struct Attention {
  const int64_t *batch;
  int64_t L, S, E, Ev;
  const nn_rt_matrix *q, *k, *v, *mask, *out;
  float scale;
  bool causal, vector;
  int64_t queryBlocks;
};

/// nn_rt::avx2::scaleMaskMaxRow for CPUs without AVX2.
float scalarScaleMaskMax(float *x, int64_t n, int64_t valid, float scale,
                         const float *mask) {
  float best = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    float v = -INFINITY;
    if (i < valid)
      v = x[i] * scale + (mask ? mask[i] : 0.f);
    x[i] = v;
    best = v > best ? v : best;
  }
  return best;
}

/// nn_rt::avx2::expShiftSumRow for CPUs without AVX2.
float scalarExpShiftSum(float *x, int64_t n, float shift) {
  float sum = 0.f;
  for (int64_t i = 0; i < n; ++i)
    sum += x[i] = expf(x[i] - shift);
  return sum;
}

/// k and v of one batch index packed for the GEMMs of attentionBlock, or
/// null each: packed per GEMM.
struct PackedKV {
  const float *k = nullptr, *v = nullptr;
};

/// The GEMM scores[lb, sb] = q_blk · k_blkᵀ of attentionBlock: B[e, j] =
/// k[s0 + j, e].
nn_rt::GemmArgs scoresGemm(const Attention &a, int64_t lb, int64_t sb,
                           const float *qb, const float *kb, float *scores,
                           const float *packedK) {
  const nn_rt_matrix &q = *a.q, &k = *a.k;
  return nn_rt::GemmArgs{lb,           sb,           a.E,       qb,
                         q.row_stride, q.col_stride, kb,        k.col_stride,
                         k.row_stride, scores,       kKeyBlock, false,
                         {},           packedK};
}

/// The GEMM acc[lb, Ev] += p[lb, sb] · v_blk of attentionBlock.
nn_rt::GemmArgs valuesGemm(const Attention &a, int64_t lb, int64_t sb,
                           const float *scores, const float *vb, float *acc,
                           const float *packedV) {
  const nn_rt_matrix &v = *a.v;
  return nn_rt::GemmArgs{lb,   a.Ev, sb,           scores,       kKeyBlock,
                         1,    vb,   v.row_stride, v.col_stride, acc,
                         a.Ev, true, {},           packedV};
}

/// Whether attentionChunk packs k and v once per batch index: one key
/// block, the same keys for every query block (no causal mask), and an ISA
/// whose GEMMs read a packed B.
bool packsKVOnce(const Attention &a) {
  return a.S <= kKeyBlock && !a.causal && nn_rt::gemmPackedBFloats(a.E, a.S);
}

/// Queries [l0, l0 + lb) of batch index `b`; `scratch` holds kQueryBlock *
/// (kKeyBlock + Ev + 2) floats.
void attentionBlock(const Attention &a, int64_t b, int64_t l0,
                    const PackedKV &packed, float *scratch) {
  const int64_t lb = minI(kQueryBlock, a.L - l0), Ev = a.Ev;
  float *scores = scratch, *acc = scores + kQueryBlock * kKeyBlock;
  float *rowMax = acc + kQueryBlock * Ev, *rowSum = rowMax + kQueryBlock;
  const nn_rt_matrix &q = *a.q, &k = *a.k, &v = *a.v, &out = *a.out;
  const float *qb = q.data + nn_rt::batchOffset(a.batch, q.batch_strides, b) +
                    l0 * q.row_stride;
  const float *kb = k.data + nn_rt::batchOffset(a.batch, k.batch_strides, b);
  const float *vb = v.data + nn_rt::batchOffset(a.batch, v.batch_strides, b);
  const float *mb =
      a.mask
          ? a.mask->data + nn_rt::batchOffset(a.batch, a.mask->batch_strides, b)
          : nullptr;
  for (int64_t i = 0; i < lb; ++i) {
    rowMax[i] = -INFINITY;
    rowSum[i] = 0.f;
  }
  for (int64_t i = 0; i < lb * Ev; ++i)
    acc[i] = 0.f;
  // Causal: no query of this block sees keys past its last row.
  const int64_t keys = a.causal ? minI(a.S, l0 + lb) : a.S;
  for (int64_t s0 = 0; s0 < keys; s0 += kKeyBlock) {
    const int64_t sb = minI(kKeyBlock, keys - s0);
    // scores[i, j] = q[l0 + i, :] · k[s0 + j, :].
    nn_rt::gemmOnThisThread(
        scoresGemm(a, lb, sb, qb, kb + s0 * k.row_stride, scores, packed.k), 0,
        lb, 0, sb);
    for (int64_t i = 0; i < lb; ++i) {
      float *x = scores + i * kKeyBlock;
      const int64_t l = l0 + i;
      const int64_t valid =
          a.causal ? (l - s0 + 1 < 0 ? 0 : minI(l - s0 + 1, sb)) : sb;
      const float *m = nullptr;
      float scale = a.scale;
      if (mb) {
        m = mb + l * a.mask->row_stride + s0 * a.mask->col_stride;
        if (a.mask->col_stride != 1) { // broadcast or strided: add it here
          for (int64_t j = 0; j < sb; ++j)
            x[j] = x[j] * scale + m[j * a.mask->col_stride];
          m = nullptr, scale = 1.f;
        }
      }
      float blockMax =
          a.vector ? nn_rt::avx2::scaleMaskMaxRow(x, sb, valid, scale, m)
                   : scalarScaleMaskMax(x, sb, valid, scale, m);
      float newMax = blockMax > rowMax[i] ? blockMax : rowMax[i];
      float shift = newMax == -INFINITY ? 0.f : newMax;
      float sum = a.vector ? nn_rt::avx2::expShiftSumRow(x, sb, shift)
                           : scalarExpShiftSum(x, sb, shift);
      if (s0 > 0) { // earlier blocks were summed against the old maximum
        float correction = expf(rowMax[i] - shift);
        rowSum[i] *= correction;
        for (int64_t e = 0; e < Ev; ++e)
          acc[i * Ev + e] *= correction;
      }
      rowSum[i] += sum;
      rowMax[i] = newMax;
    }
    // acc[i, e] += scores[i, :] · v[s0 + :, e].
    nn_rt::gemmOnThisThread(
        valuesGemm(a, lb, sb, scores, vb + s0 * v.row_stride, acc, packed.v), 0,
        lb, 0, Ev);
  }
  float *ob = out.data + nn_rt::batchOffset(a.batch, out.batch_strides, b) +
              l0 * out.row_stride;
  for (int64_t i = 0; i < lb; ++i)
    for (int64_t e = 0; e < Ev; ++e)
      ob[i * out.row_stride + e * out.col_stride] = acc[i * Ev + e] / rowSum[i];
}

/// 64-byte aligned pieces of a thread's attention buffer (Kept::attention):
/// the block's scratch, then the packed k and v when packsKVOnce.
struct AttentionScratch {
  int64_t blockFloats, kFloats, vFloats;
  int64_t floats() const { return blockFloats + kFloats + vFloats; }
};

AttentionScratch attentionScratch(const Attention &a) {
  auto aligned = [](int64_t floats) { return (floats + 15) / 16 * 16; };
  const bool packOnce = packsKVOnce(a);
  return {aligned(kQueryBlock * (kKeyBlock + a.Ev + 2)),
          packOnce ? aligned(nn_rt::gemmPackedBFloats(a.E, a.S)) : 0,
          packOnce ? aligned(nn_rt::gemmPackedBFloats(a.S, a.Ev)) : 0};
}

/// Chunk c is query block c % queryBlocks of batch index c / queryBlocks;
/// a claim is a contiguous range of chunks, so the query blocks of one
/// batch index mostly run one after another on one thread, which packs
/// their k and v once (packsKVOnce) when the batch index changes.
void attentionChunk(void *ctx, int64_t begin, int64_t end) {
  auto *a = static_cast<Attention *>(ctx);
  const bool packOnce = packsKVOnce(*a);
  const AttentionScratch pieces = attentionScratch(*a);
  float *scratch = nn_rt::keptBuffer(nn_rt::Kept::attention, pieces.floats());
  if (!scratch)
    abort(); // out of memory: the ABI has no error path for a kernel
  float *packedK = scratch + pieces.blockFloats;
  float *packedV = packedK + pieces.kFloats;
  PackedKV packed;
  int64_t packedFor = -1; // the batch index packedK/V hold
  for (int64_t c = begin; c < end; ++c) {
    const int64_t b = c / a->queryBlocks;
    if (packOnce && b != packedFor) {
      const float *kb =
          a->k->data + nn_rt::batchOffset(a->batch, a->k->batch_strides, b);
      const float *vb =
          a->v->data + nn_rt::batchOffset(a->batch, a->v->batch_strides, b);
      // Only B's fields matter to the packing.
      nn_rt::gemmPackB(scoresGemm(*a, 0, a->S, nullptr, kb, nullptr, nullptr),
                       packedK);
      nn_rt::gemmPackB(valuesGemm(*a, 0, a->S, nullptr, vb, nullptr, nullptr),
                       packedV);
      packed = {packedK, packedV};
      packedFor = b;
    }
    attentionBlock(*a, b, (c % a->queryBlocks) * kQueryBlock, packed, scratch);
  }
}

} // namespace

extern "C" void nn_rt_attention(const int64_t *batch, int64_t L, int64_t S,
                                int64_t E, int64_t Ev, const nn_rt_matrix *q,
                                const nn_rt_matrix *k, const nn_rt_matrix *v,
                                const nn_rt_matrix *mask,
                                const nn_rt_matrix *out, float scale,
                                int32_t causal) {
  int64_t count = nn_rt::batchCount(batch);
  if (count <= 0 || L <= 0 || Ev <= 0)
    return;
  Attention a{batch,
              L,
              S,
              E,
              Ev,
              q,
              k,
              v,
              mask,
              out,
              scale,
              causal != 0,
              nn_rt::hasAvx2Fma(),
              (L + kQueryBlock - 1) / kQueryBlock};
  int64_t chunks = count * a.queryBlocks;
  if (!nn_rt::worthParallel(double(count) * L * S * (E + Ev))) {
    attentionChunk(&a, 0, chunks);
    return;
  }
  nn_rt::parallelFor(chunks, attentionChunk, &a,
                     nn_rt::withScratch(nn_rt::gemmScratch(),
                                        nn_rt::Kept::attention,
                                        attentionScratch(a).floats()));
}
