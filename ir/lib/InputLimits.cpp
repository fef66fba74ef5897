//===- InputLimits.cpp - What the tools refuse before parsing -------------===//

#include "nn/IR/InputLimits.h"

#include "llvm/Support/SourceMgr.h"

using namespace mlir;

LogicalResult nn::checkInputNesting(llvm::SourceMgr &sourceMgr,
                                    unsigned bufferId, llvm::StringRef tool,
                                    unsigned limit) {
  llvm::StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') { // a string literal: skip to its closing quote
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') { // a comment
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit) {
        sourceMgr.PrintMessage(
            llvm::SMLoc::getFromPointer(text.data() + i),
            llvm::SourceMgr::DK_Error,
            tool + " parses at most " + llvm::Twine(limit) +
                " levels of nested brackets, regions and types; this input "
                "nests deeper here");
        return failure();
      }
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
  }
  return success();
}
