//===- Driver.cpp - nn module to shared object or JIT ---------------------===//
//
// The whole-module paths, shared by nn-compile and the frontend: the compile
// pipeline → (translate + object + link) or (JIT), each first asking the
// compile cache (CompileCache.h) when one is given.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CUDA/CudaArtifact.h"
#include "nn/Conversion/CUDA/Nvrtc.h"
#include "nn/Conversion/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

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

/// A digest of every tensor of `state`: name, dtype, shape and bytes.
static std::string digestOf(const ::nn::StateDict &state) {
  llvm::SHA256 hash;
  auto add = [&](StringRef text) {
    hash.update(text);
    hash.update(StringRef("\0", 1));
  };
  for (const auto &[name, tensor] : state) {
    add(name);
    if (!tensor.defined() || tensor.is_symbolic()) {
      add("undefined");
      continue;
    }
    add(::nn::dtype_safetensors_name(tensor.dtype()));
    for (int64_t d : tensor.shape())
      add(std::to_string(d));
    hash.update(llvm::ArrayRef<uint8_t>(
        static_cast<const uint8_t *>(tensor.raw_data()), tensor.nbytes()));
  }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::string PipelineOptions::cacheText() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "optimize=";
  if (optimize)
    // PassOptions::print only reads the options, but is not const.
    const_cast<OptimizePipelineOptions &>(*optimize).print(os);
  else
    os << "none";
  os << " " << target.cacheText();
  if (cuda) {
    // NVRTC's version too: another NVRTC emits other PTX and cubins.
    llvm::Expected<std::string> nvrtc = cuda::nvrtcVersion();
    os << " cuda=" << cuda->arch << " nvrtc=";
    if (nvrtc)
      os << *nvrtc;
    else
      os << "none (" << llvm::toString(nvrtc.takeError()) << ")";
  }
  if (embed)
    os << " embed=" << digestOf(*embed);
  return os.str();
}

LogicalResult mlir::nn::runCompilePipeline(ModuleOp module,
                                           const PipelineOptions &options,
                                           CompileStage last) {
  // The lowering and the translation to LLVM IR need their dialects,
  // interfaces and translations in the module's context.
  DialectRegistry registry;
  registerCodegenDialects(registry);
  module->getContext()->appendDialectRegistry(registry);
  PassManager pm(module->getContext());
  buildCompilePipeline(pm, options, last);
  if (options.configure && failed(options.configure(pm)))
    return failure();
  return pm.run(module);
}

FailureOr<std::unique_ptr<llvm::Module>>
mlir::nn::compileToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                          const PipelineOptions &options) {
  std::string error;
  if (failed(verifyCpuTarget(options.target, error)))
    return module.emitError() << error;
  // The GPU half first: it starts from the module as it is now.
  std::optional<std::string> cudaImage;
  if (options.cuda) {
    FailureOr<std::string> image = cuda::compileCudaImage(module, options);
    if (failed(image))
      return failure();
    cudaImage = std::move(*image);
  }
  if (failed(runCompilePipeline(module, options, CompileStage::LLVMDialect)))
    return failure();
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      translateToArtifactIR(module, llvmContext, "forward", options.target);
  if (succeeded(llvmModule) && cudaImage)
    cuda::addCudaImage(**llvmModule, *cudaImage);
  return llvmModule;
}

void mlir::nn::storeOrWarn(ModuleOp module, const CompileCache &cache,
                           StringRef key, llvm::Expected<StringRef> bytes) {
  llvm::Error stored = bytes ? cache.store(key, *bytes) : bytes.takeError();
  if (stored)
    module.emitWarning() << "not cached: " << llvm::toString(std::move(stored));
}

LogicalResult mlir::nn::compileToSharedObject(ModuleOp module, StringRef path,
                                              const PipelineOptions &options,
                                              const CompileCache *cache,
                                              CacheReport *report) {
  const CpuTarget &target = options.target;
  CacheReport found;
  if (report)
    *report = found;
  std::string error;
  if (failed(verifyCpuTarget(target, error)))
    return module.emitError() << error;
  std::string &key = found.key;
  if (cache) {
    key = CompileCache::key("so", options.cacheText(), printForCache(module));
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

  llvm::LLVMContext llvmContext;
  auto llvmModule = compileToLLVMIR(module, llvmContext, options);
  if (failed(llvmModule))
    return failure();

  // Object and shared object under temporary names in the target's folder;
  // the rename is the only step that touches `path`.
  SmallString<128> model(path);
  llvm::sys::path::remove_filename(model);
  if (model.empty())
    model = ".";
  llvm::sys::path::append(model,
                          llvm::sys::path::filename(path) + ".tmp-%%%%%%");
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

FailureOr<JitArtifact>
mlir::nn::compileInProcess(ModuleOp module, const PipelineOptions &options,
                           const CompileCache *cache, CacheReport *report) {
  const CpuTarget &target = options.target;
  CacheReport found;
  if (report)
    *report = found;
  std::string error;
  if (failed(verifyCpuTarget(target, error)))
    return module.emitError() << error;
  if (cache) {
    found.key = CompileCache::key("jit-object", options.cacheText(),
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

  FailureOr<JitArtifact> artifact = failure();
  if (!cache && target.isHost()) {
    if (failed(runCompilePipeline(module, options, CompileStage::LLVMDialect)))
      return failure();
    artifact = jitCompile(module, error);
  } else {
    // The ExecutionEngine generates code for the host only: other targets
    // go through an object file, as cached code does.
    llvm::LLVMContext llvmContext;
    auto llvmModule = compileToLLVMIR(module, llvmContext, options);
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
