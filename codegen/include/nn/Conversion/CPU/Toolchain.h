//===- Toolchain.h - What shared objects are linked with --------*- C++ -*-===//
//
// Ahead-of-time compiles link the model's object file with ld.lld against
// the kernels' archive (libnn_kernels.a) and libm. Nothing of the folder nn
// was built in is remembered: the archive is found in the `lib` folder of
// the installation that holds the compiler (beside libnn.so, or ../lib
// from the executable it is linked into: bin/nn-compile, and the build
// tree's bin/ tools and tests alike), ld.lld beside the LLVM the compiler
// is linked with (its bin/ folder), then as ld.lld-19 or ld.lld on PATH.
// NN_KERNELS_ARCHIVE and NN_LLD name them instead when set.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_TOOLCHAIN_H
#define NN_CONVERSION_CPU_TOOLCHAIN_H

#include "llvm/Support/Error.h"

#include <string>

namespace mlir::nn {

struct Toolchain {
  std::string lld;            // ld.lld
  std::string kernelsArchive; // libnn_kernels.a
  std::string libm;           // the C math library's shared object
};

/// The toolchain, located once per process (see the file comment); an error
/// names what is missing and every place it was looked for.
llvm::Expected<const Toolchain &> locateToolchain();

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_TOOLCHAIN_H
