//===- InputLimits.cpp - What the tools refuse before parsing -------------===//

#include "nn/IR/InputLimits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static bool isWordChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

LogicalResult nn::checkInputLimits(llvm::SourceMgr &sourceMgr,
                                   unsigned bufferId, llvm::StringRef tool,
                                   unsigned nesting, size_t word) {
  llvm::StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (isWordChar(c)) {
      size_t start = i;
      while (i + 1 < e && isWordChar(text[i + 1]))
        ++i;
      if (i + 1 - start > word) {
        sourceMgr.PrintMessage(
            llvm::SMLoc::getFromPointer(text.data() + start),
            llvm::SourceMgr::DK_Error,
            tool +
                " parses words (identifiers, numbers, shapes like "
                "2x3xf32) of at most " +
                llvm::Twine(word) + " characters; this one has " +
                llvm::Twine(i + 1 - start));
        return failure();
      }
      continue;
    }
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
      if (++depth > nesting) {
        sourceMgr.PrintMessage(
            llvm::SMLoc::getFromPointer(text.data() + i),
            llvm::SourceMgr::DK_Error,
            tool + " parses at most " + llvm::Twine(nesting) +
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
