//===- nn-opt.cpp - The nn optimizer driver -------------------------------===//
//
// mlir-opt with the nn dialect, the nn graph passes and pipelines, the nn
// lowerings, and the upstream dialects and passes they use. It runs
// MlirOptMain's steps itself so that it can refuse an input nested too
// deep for the parser (nn/IR/InputLimits.h) before parsing it.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"
#include "nn/IR/InputLimits.h"
#include "nn/IR/NNDialect.h"
#include "nn/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mlir::nn::registerTransformsPasses();
  mlir::nn::registerConversionPasses();

  mlir::DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "nn optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ", ");
    llvm::outs() << "\n";
    return 0;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    llvm::SourceMgr sourceMgr;
    unsigned id = sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (mlir::failed(mlir::nn::checkInputLimits(sourceMgr, id, "nn-opt")))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
