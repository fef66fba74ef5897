//===- Avx512Intrinsics.h - The AVX-512 kernels' intrinsics -----*- C++ -*-===//
//
// The one include of GemmAvx512.cpp and DirectConvAvx512.cpp for their
// intrinsics. Normally the compiler's <immintrin.h> (the files are compiled
// with -mavx512f). In nn_kernels_avx512_emulated, a test-only build of the
// kernels (runtime/CMakeLists.txt), NN_KERNELS_SIMDE_AVX512 is defined and
// the same source is compiled against SIMDe's portable implementation of
// AVX-512 on top of AVX2 + FMA: SIMDe's native aliases map every _mm512_*
// name and type the kernels use to simde_mm512_*, so the AVX-512 code paths
// run, and are tested, on machines without AVX-512.
//
//===----------------------------------------------------------------------===//

#ifndef NN_RUNTIME_KERNELS_AVX512_INTRINSICS_H
#define NN_RUNTIME_KERNELS_AVX512_INTRINSICS_H

#ifdef NN_KERNELS_SIMDE_AVX512
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include <stdint.h>

/// `p`, after trapping unless it is 64-byte aligned: what AVX-512's aligned
/// loads and stores do, and SIMDe's on AVX2 (32-byte aligned halves) would
/// not, so an address that faults on the hardware fails the emulated tests.
template <typename T> inline T *nnCheckAligned64(T *p) {
  if (reinterpret_cast<uintptr_t>(p) % 64 != 0)
    __builtin_trap();
  return p;
}
#undef _mm512_load_ps
#define _mm512_load_ps(p) simde_mm512_load_ps(nnCheckAligned64(p))
#undef _mm512_store_ps
#define _mm512_store_ps(p, v) simde_mm512_store_ps(nnCheckAligned64(p), v)

// What SIMDe 0.7.4 (Debian 12) lacks. No native alias for
// _mm512_shuffle_f32x4, though SIMDe implements it:
#ifndef _mm512_shuffle_f32x4
#define _mm512_shuffle_f32x4(a, b, imm8) simde_mm512_shuffle_f32x4(a, b, imm8)
#endif
// No masked store at all: lane by lane, writing only the lanes of `mask`,
// so a store that would fault (or overwrite) past its lanes does here too.
#ifndef _mm512_mask_storeu_ps
inline void nnMaskStoreuPs(void *p, simde__mmask16 mask, simde__m512 v) {
  float lanes[16];
  simde_mm512_storeu_ps(lanes, v);
  for (int i = 0; i < 16; ++i)
    if (mask >> i & 1)
      static_cast<float *>(p)[i] = lanes[i];
}
#define _mm512_mask_storeu_ps(p, mask, v) nnMaskStoreuPs(p, mask, v)
#endif
// No zero-masked load either: lane by lane, reading only the lanes of
// `mask`, so a load past them would fault here as it must not there.
#ifndef _mm512_maskz_loadu_ps
inline simde__m512 nnMaskzLoaduPs(simde__mmask16 mask, const void *p) {
  float lanes[16] = {};
  for (int i = 0; i < 16; ++i)
    if (mask >> i & 1)
      lanes[i] = static_cast<const float *>(p)[i];
  return simde_mm512_loadu_ps(lanes);
}
#define _mm512_maskz_loadu_ps(mask, p) nnMaskzLoaduPs(mask, p)
#endif
// No masked alignr: lane i of the result is lane i + n of b then a, or zero
// outside `mask`.
#ifndef _mm512_maskz_alignr_epi32
template <int N>
inline simde__m512i nnMaskzAlignrEpi32(simde__mmask16 mask, simde__m512i a,
                                       simde__m512i b) {
  int32_t low[16], high[16], out[16];
  simde_mm512_storeu_si512(low, b);
  simde_mm512_storeu_si512(high, a);
  for (int i = 0; i < 16; ++i)
    out[i] = mask >> i & 1 ? (i + N < 16 ? low[i + N] : high[i + N - 16]) : 0;
  return simde_mm512_loadu_si512(out);
}
#define _mm512_maskz_alignr_epi32(mask, a, b, n)                               \
  nnMaskzAlignrEpi32<n>(mask, a, b)
#endif
#else
#include <immintrin.h>
#endif

#endif // NN_RUNTIME_KERNELS_AVX512_INTRINSICS_H
