//===- InputLimits.h - What the tools refuse before parsing -----*- C++ -*-===//
//
// MLIR's parser recurses once per nested bracket, region or type, with no
// limit of its own: 100,000 nested brackets or 5,000 nested regions
// overflow a thread's stack. And its lexer takes time quadratic in the
// length of a word: a dimension list lexes as one identifier ("x1x1x...")
// that is lexed again, whole, for each dimension, so a tensor type of rank
// 40,000 takes 8 s to parse. The tools check an input's nesting and words
// before they parse it, so such an input is a located error, not a crash or
// a hang.
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

/// The longest word (a run of letters, digits, '_', '$' and '.', as in
/// identifiers, numbers and shapes like 2x3x4xf32) the tools parse: a
/// tensor type of rank 4,000 fits; lexing one this long costs milliseconds.
constexpr size_t kMaxInputWord = 8192;

/// Fails, reporting through `sourceMgr` where the input goes too far, when
/// buffer `bufferId` of `sourceMgr`, outside string literals and `//`
/// comments, nests (, [, { or < more than `nesting` levels or holds a word
/// longer than `word` characters.
LogicalResult checkInputLimits(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                               llvm::StringRef tool,
                               unsigned nesting = kMaxInputNesting,
                               size_t word = kMaxInputWord);

} // namespace mlir::nn

#endif // NN_IR_INPUTLIMITS_H
