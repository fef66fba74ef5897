//===- LinkableSymbols.cpp - What compiled code may call ------------------===//
//
// A compiled model's shared object links nn's kernels (a static archive) and
// libm, and finds the rest of the C library in the process that loads it;
// the JIT resolves the same kernels. Any other external symbol would be
// found missing only when the model is loaded (dlopen's "undefined symbol",
// ORC's "Symbols not found"), on another machine, long after the compile
// said it succeeded. So both the lowered module and the object file are
// checked here, and a symbol outside the set is a compile error: located at
// the call in the module (the op it was lowered from), named in the object
// (where LLVM's code generator added a call for an operation the target
// has no instruction for, such as 128-bit division).
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::nn;

/// The C library functions generated code calls: memory (lowered
/// allocations, copies and fills) and <math.h>, in both precisions (the
/// math dialect's libm calls, and LLVM's for intrinsics without an
/// instruction).
static const llvm::StringSet<> &libcSymbols() {
  static const llvm::StringSet<> symbols = [] {
    llvm::StringSet<> set = {"malloc", "calloc",        "realloc",
                             "free",   "aligned_alloc", "posix_memalign",
                             "memcpy", "memmove",       "memset",
                             "memcmp", "abort"};
    static const char *const math[] = {
        "acos",   "acosh",     "asin",   "asinh",    "atan",      "atan2",
        "atanh",  "cbrt",      "ceil",   "copysign", "cos",       "cosh",
        "erf",    "erfc",      "exp",    "exp10",    "exp2",      "expm1",
        "fabs",   "fdim",      "floor",  "fma",      "fmax",      "fmin",
        "fmod",   "frexp",     "hypot",  "ilogb",    "ldexp",     "lgamma",
        "llrint", "llround",   "log",    "log10",    "log1p",     "log2",
        "logb",   "lrint",     "lround", "modf",     "nearbyint", "nextafter",
        "pow",    "remainder", "rint",   "round",    "roundeven", "scalbln",
        "scalbn", "sin",       "sincos", "sinh",     "sqrt",      "tan",
        "tanh",   "tgamma",    "trunc"};
    for (const char *name : math) {
      set.insert(name);
      set.insert((llvm::Twine(name) + "f").str());
    }
    return set;
  }();
  return symbols;
}

bool mlir::nn::isLinkableSymbol(StringRef symbol) {
  static const llvm::StringSet<> kernels = {
#define NN_RT_FUNCTION(name, ...) #name,
#include "nn/Runtime/KernelABI.def"
  };
  return kernels.contains(symbol) || libcSymbols().contains(symbol);
}

static constexpr llvm::StringLiteral kLinkableSet =
    "it may call only nn's kernels (nn/Runtime/KernelABI.def) and the C "
    "library's memory and <math.h> functions";

LogicalResult mlir::nn::verifyExternalCalls(ModuleOp module) {
  bool failed = false;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = func.getSymName();
    if (!func.isExternal() || name.starts_with("llvm.") ||
        isLinkableSymbol(name))
      continue;
    failed = true;
    // Where it is used says which op it came from; the declaration alone
    // was made by whichever lowering needed it.
    Operation *user = func;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(func.getSymNameAttr(), module))
      if (!uses->empty())
        user = uses->begin()->getUser();
    user->emitError() << "calls '" << name
                      << "', which a compiled model cannot link: "
                      << kLinkableSet;
  }
  return mlir::failure(failed);
}

LogicalResult mlir::nn::verifyObjectSymbols(StringRef object,
                                            std::string &error) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(
          llvm::MemoryBufferRef(object, "model object"));
  if (!file) {
    error = "the emitted object cannot be read back: " +
            llvm::toString(file.takeError());
    return failure();
  }
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags) {
      error = "the emitted object's symbol table cannot be read: " +
              llvm::toString(flags.takeError());
      return failure();
    }
    llvm::Expected<StringRef> name = symbol.getName();
    if (!name) {
      error = "the emitted object's symbol table cannot be read: " +
              llvm::toString(name.takeError());
      return failure();
    }
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined) || name->empty() ||
        *name == "_GLOBAL_OFFSET_TABLE_" || isLinkableSymbol(*name))
      continue;
    error = "the generated code calls '" + name->str() +
            "', which a compiled model cannot link (LLVM's code generator "
            "called it for an operation the target CPU has no instruction "
            "for): " +
            kLinkableSet.str();
    return failure();
  }
  return success();
}
