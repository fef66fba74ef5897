//===- Roofline.cpp - Measured peak FMA throughput and memory bandwidth ---===//
//
// The ceilings each result is put against: a register-only FMA loop (AVX-512
// when the CPU has it, else AVX2+FMA) for the compute peak, and the STREAM
// triad a[i] = b[i] + s * c[i] for the bandwidth, with plain and with
// non-temporal stores, all with 1 and 2 threads.
// Also the hand-fused relu(x * a + b) loop of W6, with plain stores and with
// non-temporal ones (hand_nt). Built with -O3
// -march=native: this file only ever runs on the machine that built it.
//
//===----------------------------------------------------------------------===//

#include "Roofline.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace bench {
namespace {

/// Runs fn(i) for i in [0, threads) on that many threads (the caller's
/// thread takes i = 0).
template <typename Fn> void onThreads(int threads, Fn fn) {
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back(fn, i);
  fn(0);
  for (auto &t : pool)
    t.join();
}

/// 12 independent accumulators cover FMA latency (4 cycles) x 2 ports + slack.
/// No compiler barrier inside the loop: one forces the accumulators out to
/// the stack (measured half the peak that way). The sum returned keeps the
/// loop alive; without -ffast-math the FMAs cannot be folded.
__attribute__((target("avx2,fma"), noinline)) float fmaLoopAvx2(int64_t iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps(float(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t n = 0; n < iters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i)
    s = _mm256_add_ps(s, acc[i]);
  return _mm256_cvtss_f32(s);
}

__attribute__((target("avx512f"), noinline)) float
fmaLoopAvx512(int64_t iters) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(float(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t n = 0; n < iters; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i)
    s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}

} // namespace

bool hasAvx512() { return __builtin_cpu_supports("avx512f"); }

double fmaPeak(int threads, int64_t iters) {
  bool wide = hasAvx512();
  std::vector<float> sink(threads);
  onThreads(threads, [&](int t) {
    sink[t] = wide ? fmaLoopAvx512(iters) : fmaLoopAvx2(iters);
  });
  volatile float keep = sink[0];
  (void)keep;
  // flops: iterations x accumulators x lanes x 2 (mul + add), all threads.
  return double(iters) * (wide ? 16 * 16 : 12 * 8) * 2 * threads;
}

Triad::Triad(int64_t n) : a(n, 0.f), b(n, 1.f), c(n, 2.f) {}

double Triad::run(int threads, bool streaming) {
  int64_t n = static_cast<int64_t>(a.size());
  float *pa = a.data();
  const float *pb = b.data(), *pc = c.data();
  onThreads(threads, [&](int t) {
    int64_t begin = n * t / threads, end = n * (t + 1) / threads;
    int64_t i = begin;
    if (streaming) {
      for (; i < end && reinterpret_cast<uintptr_t>(pa + i) % 32 != 0; ++i)
        pa[i] = pb[i] + 3.f * pc[i];
      const __m256 s = _mm256_set1_ps(3.f);
      for (; i + 8 <= end; i += 8)
        _mm256_stream_ps(pa + i, _mm256_fmadd_ps(_mm256_loadu_ps(pc + i), s,
                                                 _mm256_loadu_ps(pb + i)));
      _mm_sfence();
    }
    for (; i < end; ++i)
      pa[i] = pb[i] + 3.f * pc[i];
  });
  return double(n) * 3 * sizeof(float); // STREAM counts 2 reads + 1 write
}

namespace {
class HandAffineRelu : public Runner {
public:
  HandAffineRelu(HostTensor x, float a, float b, int threads,
                 bool streaming = false)
      : x_(x), a_(a), b_(b), threads_(threads), streaming_(streaming),
        out_(x.numel()) {}
  void run() override {
    int64_t n = x_.numel();
    const float *x = x_.data;
    float *y = out_.data();
    float a = a_, b = b_;
    onThreads(threads_, [&](int t) {
      int64_t begin = n * t / threads_, end = n * (t + 1) / threads_;
      if (streaming_) {
        streamRange(x, y, a, b, begin, end);
        return;
      }
      for (int64_t i = begin; i < end; ++i)
        y[i] = std::max(x[i] * a + b, 0.f);
    });
  }
  std::vector<float> output() override { return out_; }

private:
  /// y[begin, end) with plain stores up to the first 32-byte boundary of
  /// y, then 8 floats per non-temporal store, then the tail; the fence
  /// orders the streamed lines before the thread is joined.
  static void streamRange(const float *x, float *y, float a, float b,
                          int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i < end && reinterpret_cast<uintptr_t>(y + i) % 32 != 0; ++i)
      y[i] = std::max(x[i] * a + b, 0.f);
    const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b),
                 zero = _mm256_setzero_ps();
    for (; i + 8 <= end; i += 8) {
      __m256 v = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), va, vb);
      _mm256_stream_ps(y + i, _mm256_max_ps(v, zero));
    }
    for (; i < end; ++i)
      y[i] = std::max(x[i] * a + b, 0.f);
    _mm_sfence();
  }

  HostTensor x_;
  float a_, b_;
  int threads_;
  bool streaming_;
  std::vector<float> out_;
};
} // namespace

std::unique_ptr<Runner> handAffineRelu(HostTensor x, float a, float b,
                                       int threads) {
  return std::make_unique<HandAffineRelu>(x, a, b, threads);
}

std::unique_ptr<Runner> handAffineReluStreaming(HostTensor x, float a, float b,
                                                int threads) {
  return std::make_unique<HandAffineRelu>(x, a, b, threads,
                                          /*streaming=*/true);
}

} // namespace bench
