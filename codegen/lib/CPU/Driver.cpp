//===- Driver.cpp - nn module to shared object or JIT ---------------------===//
//
// The two whole-module paths, shared by nn-compile and the frontend:
// describe → lower → (translate + object + link) or (JIT), each first asking
// the compile cache (CompileCache.h) when one is given.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace mlir;
using namespace mlir::nn;

std::string mlir::nn::printForCache(ModuleOp module) {
  // Everything that reaches the code, nothing that does not: no locations,
  // and no elision whatever the command line asked of the printer.
  OpPrintingFlags flags;
  flags.enableDebugInfo(false)
      .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .elideLargeResourceString(std::numeric_limits<int64_t>::max());
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, flags);
  return os.str();
}

/// Stores `bytes` under `key`; a cache that cannot be written costs the next
/// compile its speed-up, not this one its result, so it only warns.
static void storeOrWarn(ModuleOp module, const CompileCache &cache,
                        StringRef key, llvm::Expected<StringRef> bytes) {
  llvm::Error stored = bytes ? cache.store(key, *bytes) : bytes.takeError();
  if (stored)
    module.emitWarning() << "not cached: " << llvm::toString(std::move(stored));
}

LogicalResult mlir::nn::compileToSharedObject(ModuleOp module, StringRef path,
                                              const CompileCache *cache,
                                              StringRef options,
                                              CacheReport *report,
                                              const CpuTarget &target) {
  CacheReport found;
  if (report)
    *report = found;
  std::string error;
  if (failed(verifyCpuTarget(target, error)))
    return module.emitError() << error;
  std::string &key = found.key;
  if (cache) {
    key = CompileCache::key("so", (options + " " + target.cacheText()).str(),
                            printForCache(module));
    bool rejected = false;
    if (std::optional<std::string> bytes = cache->lookup(key, &rejected)) {
      found.outcome = CacheOutcome::Hit;
      if (report)
        *report = found;
      if (llvm::Error err = writeFileAtomically(path, *bytes))
        return module.emitError() << llvm::toString(std::move(err));
      return success();
    }
    found.outcome = rejected ? CacheOutcome::Rebuilt : CacheOutcome::Miss;
  }

  FailureOr<std::string> description = describeArtifact(module);
  if (failed(description) || failed(lowerToLLVMDialect(module)))
    return failure();
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToArtifactIR(module, llvmContext, *description,
                                          "forward", target);
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
  if (failed(emitObjectFile(**llvmModule, objectPath, error, target)) ||
      failed(linkSharedObject(objectPath, tempPath, error)))
    return fail(error);
  llvm::sys::fs::remove(objectPath);
  objectPath.clear();
  if (cache) {
    auto bytes = llvm::MemoryBuffer::getFile(tempPath, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (bytes)
      storeOrWarn(module, *cache, key, (*bytes)->getBuffer());
    else
      storeOrWarn(module, *cache, key,
                  llvm::createStringError(
                      bytes.getError(), "cannot read back '" + tempPath + "'"));
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path))
    return fail("cannot move the shared object to '" + path +
                "': " + ec.message());
  if (report)
    *report = found;
  return success();
}

FailureOr<JitArtifact> mlir::nn::compileInProcess(ModuleOp module,
                                                  const CompileCache *cache,
                                                  StringRef options,
                                                  CacheReport *report,
                                                  const CpuTarget &target) {
  CacheReport found;
  if (report)
    *report = found;
  std::string error;
  if (failed(verifyCpuTarget(target, error)))
    return module.emitError() << error;
  if (cache) {
    found.key = CompileCache::key(
        "jit-object", (options + " " + target.cacheText()).str(),
        printForCache(module));
    bool rejected = false;
    if (std::optional<std::string> object =
            cache->lookup(found.key, &rejected)) {
      found.outcome = CacheOutcome::Hit;
      if (report)
        *report = found;
      FailureOr<JitArtifact> artifact = jitLoadObject(*object, error);
      if (failed(artifact))
        return module.emitError()
               << "loading the cached object " << cache->entryPath(found.key)
               << " failed: " << error;
      return artifact;
    }
    found.outcome = rejected ? CacheOutcome::Rebuilt : CacheOutcome::Miss;
  }

  FailureOr<std::string> description = describeArtifact(module);
  if (failed(description) || failed(lowerToLLVMDialect(module)))
    return failure();
  FailureOr<JitArtifact> artifact = failure();
  if (!cache && target.isHost()) {
    artifact = jitCompile(module, *description, error);
  } else {
    // The ExecutionEngine generates code for the host only: other targets
    // go through an object file, as cached code does.
    llvm::LLVMContext llvmContext;
    auto llvmModule = translateToArtifactIR(module, llvmContext, *description,
                                            "forward", target);
    if (failed(llvmModule))
      return failure();
    SmallString<0> object;
    llvm::raw_svector_ostream os(object);
    if (succeeded(emitObject(**llvmModule, os, error, target))) {
      if (cache)
        storeOrWarn(module, *cache, found.key, StringRef(object));
      artifact = jitLoadObject(object, error);
    }
  }
  if (failed(artifact))
    return module.emitError() << "JIT compilation failed: " << error;
  if (report)
    *report = found;
  return artifact;
}
