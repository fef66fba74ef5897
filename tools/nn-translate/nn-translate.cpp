//===- nn-translate.cpp - nn's translations out of MLIR -------------------===//
//
// mlir-translate with nn's translations: `--nn-to-cuda` writes the CUDA C++
// kernels and launch plans of bufferized linalg (nn/Conversion/CUDA/
// EmitCuda.h). Like mlir-translate it takes --split-input-file and
// --verify-diagnostics.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CUDA/EmitCuda.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::nn::cuda::registerToCudaTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "nn translation driver\n"));
}
