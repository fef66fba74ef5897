//===- Driver.cpp - nn module to shared object or JIT ---------------------===//
//
// The two whole-module paths, shared by nn-compile and the frontend:
// describe → lower → (translate + object + link) or (JIT).
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::nn;

LogicalResult mlir::nn::compileToSharedObject(ModuleOp module, StringRef path) {
  FailureOr<std::string> description = describeArtifact(module);
  if (failed(description) || failed(lowerToLLVMDialect(module)))
    return failure();
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToArtifactIR(module, llvmContext, *description);
  if (failed(llvmModule))
    return failure();

  // Object and shared object under temporary names in the target's folder;
  // the rename is the only step that touches `path`.
  SmallString<128> model(path);
  llvm::sys::path::remove_filename(model);
  if (model.empty())
    model = ".";
  llvm::sys::path::append(model, llvm::sys::path::filename(path) +
                                     ".tmp-%%%%%%");
  SmallString<128> objectPath, tempPath;
  std::string error;
  auto fail = [&](const Twine &message) {
    if (!objectPath.empty())
      llvm::sys::fs::remove(objectPath);
    if (!tempPath.empty())
      llvm::sys::fs::remove(tempPath);
    return module.emitError() << message;
  };
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model + ".o", objectPath))
    return fail("cannot create a temporary file beside '" + path +
                "': " + ec.message());
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model + ".so", tempPath))
    return fail("cannot create a temporary file beside '" + path +
                "': " + ec.message());
  if (failed(emitObjectFile(**llvmModule, objectPath, error)) ||
      failed(linkSharedObject(objectPath, tempPath, error)))
    return fail(error);
  llvm::sys::fs::remove(objectPath);
  objectPath.clear();
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path))
    return fail("cannot move the shared object to '" + path +
                "': " + ec.message());
  return success();
}

FailureOr<JitArtifact> mlir::nn::compileInProcess(ModuleOp module) {
  FailureOr<std::string> description = describeArtifact(module);
  if (failed(description) || failed(lowerToLLVMDialect(module)))
    return failure();
  std::string error;
  FailureOr<JitArtifact> artifact = jitCompile(module, *description, error);
  if (failed(artifact))
    return module.emitError() << "JIT compilation failed: " << error;
  return artifact;
}
