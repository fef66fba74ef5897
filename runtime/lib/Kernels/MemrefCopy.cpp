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

/// The copy's iteration space with unit dims dropped and neighbours that
/// are one dim on both sides merged: a cat along a new unit dim (the
/// interleave of a stride's phases) leaves its real inner dim innermost,
/// a dense block one dim.
struct Dims {
  int64_t rank = 0;
  int64_t sizes[64], src[64], dst[64];
};

Dims normalized(const Strided &from, const Strided &to, int64_t rank) {
  Dims d;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = from.sizes[i];
    if (size == 1)
      continue;
    if (d.rank > 0) {
      int64_t last = d.rank - 1;
      if (d.src[last] == from.strides[i] * size &&
          d.dst[last] == to.strides[i] * size) {
        d.sizes[last] *= size;
        d.src[last] = from.strides[i];
        d.dst[last] = to.strides[i];
        continue;
      }
    }
    d.sizes[d.rank] = size;
    d.src[d.rank] = from.strides[i];
    d.dst[d.rank] = to.strides[i];
    ++d.rank;
  }
  return d;
}

/// `count` elements of type T, `srcStep` and `dstStep` elements apart.
template <typename T>
void copyRow(char *to, const char *from, int64_t count, int64_t srcStep,
             int64_t dstStep) {
  for (int64_t i = 0; i < count; ++i) {
    T value;
    memcpy(&value, from + i * srcStep * int64_t(sizeof(T)), sizeof(T));
    memcpy(to + i * dstStep * int64_t(sizeof(T)), &value, sizeof(T));
  }
}

} // namespace

extern "C" void memrefCopy(int64_t element_size, nn_rt_unranked_memref *source,
                           nn_rt_unranked_memref *dest) {
  int64_t rank = source->rank;
  if (rank > 64)
    return; // no tensor nn makes has this rank
  Strided src = view(source), dst = view(dest);
  for (int64_t d = 0; d < rank; ++d)
    if (src.sizes[d] == 0)
      return;
  char *from = src.aligned + src.offset * element_size;
  char *to = dst.aligned + dst.offset * element_size;
  Dims dims = normalized(src, dst, rank);
  if (dims.rank == 0) { // one element
    memmove(to, from, static_cast<size_t>(element_size));
    return;
  }
  int64_t last = dims.rank - 1;
  int64_t inner = dims.sizes[last];
  int64_t srcStep = dims.src[last], dstStep = dims.dst[last];
  if (dims.rank == 1 && srcStep == 1 && dstStep == 1) {
    memmove(to, from, static_cast<size_t>(inner * element_size));
    return;
  }
  // Row by row along the inner dim, with an odometer over the others; a
  // row dense on both sides is one memcpy, any other a typed loop.
  int64_t rows = 1;
  for (int64_t d = 0; d < last; ++d)
    rows *= dims.sizes[d];
  int64_t index[64] = {0};
  int64_t s = 0, t = 0; // the row's first element, in elements
  for (int64_t row = 0; row < rows; ++row) {
    char *rowTo = to + t * element_size;
    const char *rowFrom = from + s * element_size;
    if (srcStep == 1 && dstStep == 1)
      memcpy(rowTo, rowFrom, static_cast<size_t>(inner * element_size));
    else if (element_size == 4)
      copyRow<uint32_t>(rowTo, rowFrom, inner, srcStep, dstStep);
    else if (element_size == 8)
      copyRow<uint64_t>(rowTo, rowFrom, inner, srcStep, dstStep);
    else if (element_size == 2)
      copyRow<uint16_t>(rowTo, rowFrom, inner, srcStep, dstStep);
    else if (element_size == 1)
      copyRow<uint8_t>(rowTo, rowFrom, inner, srcStep, dstStep);
    else
      for (int64_t i = 0; i < inner; ++i)
        memcpy(rowTo + i * dstStep * element_size,
               rowFrom + i * srcStep * element_size,
               static_cast<size_t>(element_size));
    for (int64_t d = last - 1; d >= 0; --d) {
      s += dims.src[d];
      t += dims.dst[d];
      if (++index[d] < dims.sizes[d])
        break;
      s -= dims.src[d] * dims.sizes[d];
      t -= dims.dst[d] * dims.sizes[d];
      index[d] = 0;
    }
  }
}
