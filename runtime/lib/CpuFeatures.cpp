//===- CpuFeatures.cpp - The x86 ISA features of this CPU -----------------===//
//
// One table maps each LLVM feature name to its CPUID bit and to the XCR0
// state components the operating system must enable for it (AVX's YMM
// state, AVX-512's opmask and ZMM state). A feature is supported when its bit
// is set and the OS saves its registers.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/CpuFeatures.h"

#include <cpuid.h>
#include <cstdint>

namespace nn {
namespace {

enum Reg { EAX, EBX, ECX, EDX };

/// XCR0 components: SSE and AVX state (YMM), and AVX-512's opmask,
/// ZMM_Hi256 and Hi16_ZMM.
constexpr uint64_t kYmm = 0x6, kZmm = 0xe6;

struct Feature {
  const char *name; // LLVM's
  unsigned leaf, subleaf;
  Reg reg;
  unsigned bit;
  uint64_t xcr0 = 0;
};

/// The extensions a compiler may use in generated code without being asked
/// through an intrinsic. Instructions for the operating system (invpcid,
/// xsaves) or only ever reached through intrinsics (rdrand, xsave, clwb,
/// movdiri, ...) are left out: nn's code never asks for them, and a CPU
/// that lacks one (qemu's Haswell lacks invpcid) runs it fine.
// clang-format off
constexpr Feature kFeatures[] = {
    {"cmov", 1, 0, EDX, 15},       {"cx8", 1, 0, EDX, 8},
    {"mmx", 1, 0, EDX, 23},        {"fxsr", 1, 0, EDX, 24},
    {"sse", 1, 0, EDX, 25},        {"sse2", 1, 0, EDX, 26},
    {"sse3", 1, 0, ECX, 0},        {"pclmul", 1, 0, ECX, 1},
    {"ssse3", 1, 0, ECX, 9},       {"fma", 1, 0, ECX, 12, kYmm},
    {"cx16", 1, 0, ECX, 13},       {"sse4.1", 1, 0, ECX, 19},
    {"sse4.2", 1, 0, ECX, 20},     {"movbe", 1, 0, ECX, 22},
    {"popcnt", 1, 0, ECX, 23},     {"aes", 1, 0, ECX, 25},
    {"avx", 1, 0, ECX, 28, kYmm},  {"f16c", 1, 0, ECX, 29, kYmm},
    {"bmi", 7, 0, EBX, 3},         {"avx2", 7, 0, EBX, 5, kYmm},
    {"bmi2", 7, 0, EBX, 8},        {"avx512f", 7, 0, EBX, 16, kZmm},
    {"avx512dq", 7, 0, EBX, 17, kZmm}, {"adx", 7, 0, EBX, 19},
    {"avx512ifma", 7, 0, EBX, 21, kZmm}, {"avx512cd", 7, 0, EBX, 28, kZmm},
    {"sha", 7, 0, EBX, 29},
    {"avx512bw", 7, 0, EBX, 30, kZmm}, {"avx512vl", 7, 0, EBX, 31, kZmm},
    {"avx512vbmi", 7, 0, ECX, 1, kZmm}, {"avx512vbmi2", 7, 0, ECX, 6, kZmm},
    {"gfni", 7, 0, ECX, 8},        {"vaes", 7, 0, ECX, 9, kYmm},
    {"vpclmulqdq", 7, 0, ECX, 10, kYmm}, {"avx512vnni", 7, 0, ECX, 11, kZmm},
    {"avx512bitalg", 7, 0, ECX, 12, kZmm},
    {"avx512vpopcntdq", 7, 0, ECX, 14, kZmm},
    {"avx512vp2intersect", 7, 0, EDX, 8, kZmm},
    {"avx512fp16", 7, 0, EDX, 23, kZmm},
    {"avxvnni", 7, 1, EAX, 4, kYmm}, {"avx512bf16", 7, 1, EAX, 5, kZmm},
    {"sahf", 0x80000001, 0, ECX, 0}, {"lzcnt", 0x80000001, 0, ECX, 5},
    {"sse4a", 0x80000001, 0, ECX, 6}, {"prfchw", 0x80000001, 0, ECX, 8},
    {"xop", 0x80000001, 0, ECX, 11, kYmm}, {"fma4", 0x80000001, 0, ECX, 16, kYmm},
    {"tbm", 0x80000001, 0, ECX, 21},
};
// clang-format on

uint64_t readXcr0() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) // OSXSAVE
    return 0;
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

bool supported(const Feature &f) {
  static const uint64_t xcr0 = readXcr0();
  unsigned r[4];
  // __get_cpuid_count checks the leaf against the highest one of its range.
  if (!__get_cpuid_count(f.leaf, f.subleaf, &r[EAX], &r[EBX], &r[ECX], &r[EDX]))
    return false;
  return (r[f.reg] >> f.bit & 1) && (xcr0 & f.xcr0) == f.xcr0;
}

} // namespace

const std::vector<std::string> &checkable_cpu_features() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const Feature &f : kFeatures)
      all.push_back(f.name);
    return all;
  }();
  return names;
}

bool cpu_supports(std::string_view feature) {
  for (const Feature &f : kFeatures)
    if (feature == f.name)
      return supported(f);
  return false;
}

std::vector<std::string>
missing_cpu_features(const std::vector<std::string> &features) {
  std::vector<std::string> missing;
  for (const std::string &feature : features)
    if (!cpu_supports(feature))
      missing.push_back(feature);
  return missing;
}

} // namespace nn
