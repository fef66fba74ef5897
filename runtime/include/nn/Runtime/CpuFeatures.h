//===- CpuFeatures.h - The x86 ISA features of this CPU ---------*- C++ -*-===//
//
// What instruction-set extensions the CPU this process runs on supports, by
// LLVM's feature names ("avx2", "avx512f", "fma", ...), read with CPUID and,
// for the extensions that need operating-system support for their
// registers, XGETBV. A compiled model records the features its code may use
// (ArtifactABI.h, "target"); Artifact::load refuses one that needs a feature
// this CPU lacks, by name, rather than let it die of SIGILL.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_CPUFEATURES_H
#define NN_RUNTIME_CPUFEATURES_H

#include <string>
#include <string_view>
#include <vector>

namespace nn {

/// Every feature name cpu_supports() can answer for, in a fixed order: the
/// x86-64 extensions generated code may use.
const std::vector<std::string> &checkable_cpu_features();

/// Whether this CPU (and its operating system) supports `feature`; false
/// for a name that checkable_cpu_features() does not list.
bool cpu_supports(std::string_view feature);

/// The names in `features` that this CPU does not support (unknown names
/// included), in the order given.
std::vector<std::string>
missing_cpu_features(const std::vector<std::string> &features);

} // namespace nn

#endif // NN_RUNTIME_CPUFEATURES_H
