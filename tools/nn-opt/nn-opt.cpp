//===- nn-opt.cpp - The nn optimizer driver -------------------------------===//
//
// mlir-opt with the nn dialect, the nn graph passes and pipelines, the nn
// lowerings, and the upstream dialects and passes they use.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"
#include "nn/IR/NNDialect.h"
#include "nn/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::nn::registerTransformsPasses();
  mlir::nn::registerConversionPasses();

  mlir::DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nn optimizer driver\n", registry));
}
