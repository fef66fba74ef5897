//===- CHeader.h - A typed C header for a compiled model --------*- C++ -*-===//
//
// nn-compile --emit=header writes, from an artifact's description, a C
// header with one struct of fixed-shape arrays for the model's inputs and
// one for its outputs, and an inline <name>_run() that passes them to
// nn_artifact_run (nn/Runtime/CApi.h), tfcompile-style: C code addresses
// tensors by name and shape, checked by the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_CHEADER_H
#define NN_CONVERSION_CPU_CHEADER_H

#include "nn/Runtime/ArtifactDescription.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::nn {

/// The header for the model `name` (a C identifier prefix, e.g. "mlp") of
/// `description`. `source` names what it was written from, for its comment.
/// Fails on what C cannot declare (a zero-sized dimension).
llvm::Expected<std::string>
writeCHeader(const ::nn::ArtifactDescription &description, llvm::StringRef name,
             llvm::StringRef source);

/// `text` as a C identifier: characters other than letters, digits and '_'
/// become '_', and a leading digit gets a '_' in front ("input.0" ->
/// "input_0").
std::string cIdentifier(llvm::StringRef text);

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_CHEADER_H
