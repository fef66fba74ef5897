//===- CompileFuzzer.cpp - Fuzz target: nn IR through the compiler --------===//
//
// Any bytes as an .mlir file, through what nn-compile does with it: the
// nesting check, parsing and verification, nn-optimize and the lowering to
// the LLVM dialect. Every outcome but a crash is fine (an error is a
// diagnostic, here discarded); what the fuzzer looks for is an abort, a
// report_fatal_error or a sanitizer report on any input. NN_FUZZ_VERBOSE=1
// prints the diagnostics, to see how far an input gets.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/Passes.h"
#include "nn/IR/InputLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    mlir::nn::registerCodegenDialects(*r);
    return r;
  }();
  static const bool verbose = std::getenv("NN_FUZZ_VERBOSE") != nullptr;
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler discard(
      &context, [](Diagnostic &) { return success(!verbose); });
  llvm::SourceMgr sourceMgr;
  if (!verbose)
    sourceMgr.setDiagHandler([](const llvm::SMDiagnostic &, void *) {});
  unsigned buffer = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  if (failed(mlir::nn::checkInputLimits(sourceMgr, buffer, "fuzz")))
    return 0;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;
  mlir::nn::PipelineOptions options;
  LogicalResult compiled = mlir::nn::runCompilePipeline(
      *module, options, mlir::nn::CompileStage::LLVMDialect);
  if (verbose)
    llvm::errs() << (succeeded(compiled) ? "compiled\n" : "not compiled\n");
  return 0;
}
