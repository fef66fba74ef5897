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
  /// One pass split over `threads`; returns the bytes moved.
  double run(int threads);
  std::vector<float> a, b, c;
};

} // namespace bench

#endif // NN_BENCH_ROOFLINE_H
