//===- InputLimits.h - What the tools refuse before parsing -----*- C++ -*-===//
//
// MLIR's parser recurses once per nested bracket, region or type, with no
// limit of its own: 100,000 nested brackets or 5,000 nested regions
// overflow a thread's stack. The tools check an input's nesting before
// they parse it, so such an input is a located error, not a crash.
//
//===----------------------------------------------------------------------===//
#ifndef NN_IR_INPUTLIMITS_H
#define NN_IR_INPUTLIMITS_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::nn {

/// The deepest bracket nesting the tools parse: far beyond any model's IR
/// (a traced model nests a few levels), far below what overflows an 8 MB
/// stack.
constexpr unsigned kMaxInputNesting = 1000;

/// Fails, reporting through `sourceMgr` at the bracket that goes too deep,
/// when buffer `bufferId` of `sourceMgr` nests (, [, { or < more than
/// `limit` levels outside string literals and `//` comments.
LogicalResult checkInputNesting(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                llvm::StringRef tool,
                                unsigned limit = kMaxInputNesting);

} // namespace mlir::nn

#endif // NN_IR_INPUTLIMITS_H
