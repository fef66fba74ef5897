//===- Roofline.h - Measured compute and bandwidth ceilings -----*- C++ -*-===//
#ifndef NN_BENCH_ROOFLINE_H
#define NN_BENCH_ROOFLINE_H

#include "Anchors.h"

#include <cstdint>
#include <vector>

namespace bench {

/// True when the FMA peak is measured with AVX-512 (else AVX2 + FMA).
bool hasAvx512();

/// Runs the FMA loop `iters` times on each of `threads` threads; returns the
/// floating-point operations done.
double fmaPeak(int threads, int64_t iters);

/// STREAM triad over three arrays of n floats.
struct Triad {
  explicit Triad(int64_t n);
  /// One pass split over `threads`; returns the bytes STREAM counts (two
  /// arrays read, one written). With plain stores the memory also reads
  /// every written line first (read for ownership), which STREAM does not
  /// count; `streaming` writes with non-temporal stores, which skip it, so
  /// its rate is the one to hold non-temporal code against.
  double run(int threads, bool streaming = false);
  std::vector<float> a, b, c;
};

} // namespace bench

#endif // NN_BENCH_ROOFLINE_H
