//===- MemrefCopy.cpp - MLIR's memrefCopy for compiled models -------------===//
//
// finalize-memref-to-llvm lowers a memref.copy whose layouts are not both
// the identity (a strided slice copied into a contiguous buffer, a cat
// along an inner dim) into a call to `memrefCopy`, which MLIR's C runner
// utilities define. Compiled models link this archive instead of those
// utilities, so the function lives here, for shared objects and the JIT
// alike. A strided descriptor is {allocated, aligned, offset, sizes[rank],
// strides[rank]}; strides count elements.
//
// Plain C and libc (memcpy), as the rest of the archive.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <stdint.h>
#include <string.h>

namespace {

struct Strided {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

Strided view(const nn_rt_unranked_memref *m) {
  auto *words = static_cast<int64_t *>(m->descriptor);
  char *aligned;
  memcpy(&aligned, words + 1, sizeof aligned);
  return {aligned, words[2], words + 3, words + 3 + m->rank};
}

/// Whether the `rank` dims of `v` are row-major and dense.
bool contiguous(const Strided &v, int64_t rank) {
  int64_t expected = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (v.sizes[d] != 1 && v.strides[d] != expected)
      return false;
    expected *= v.sizes[d];
  }
  return true;
}

} // namespace

extern "C" void memrefCopy(int64_t element_size, nn_rt_unranked_memref *source,
                           nn_rt_unranked_memref *dest) {
  int64_t rank = source->rank;
  Strided src = view(source), dst = view(dest);
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= src.sizes[d];
  if (count == 0)
    return;
  char *from = src.aligned + src.offset * element_size;
  char *to = dst.aligned + dst.offset * element_size;
  if (contiguous(src, rank) && contiguous(dst, rank)) {
    memmove(to, from, static_cast<size_t>(count * element_size));
    return;
  }
  // Row by row along the last dim, with an odometer over the others (rank
  // 0 is one row of one element); a row dense on both sides is one memcpy.
  if (rank > 64)
    return; // no tensor nn makes has this rank
  int64_t inner = rank ? src.sizes[rank - 1] : 1;
  int64_t srcStep = rank ? src.strides[rank - 1] : 1;
  int64_t dstStep = rank ? dst.strides[rank - 1] : 1;
  bool denseRows = inner == 1 || (srcStep == 1 && dstStep == 1);
  int64_t index[64] = {0};
  for (int64_t row = 0; row < count / inner; ++row) {
    int64_t s = 0, t = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      s += index[d] * src.strides[d];
      t += index[d] * dst.strides[d];
    }
    if (denseRows) {
      memcpy(to + t * element_size, from + s * element_size,
             static_cast<size_t>(inner * element_size));
    } else {
      for (int64_t i = 0; i < inner; ++i)
        memcpy(to + (t + i * dstStep) * element_size,
               from + (s + i * srcStep) * element_size,
               static_cast<size_t>(element_size));
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < src.sizes[d])
        break;
      index[d] = 0;
    }
  }
}
