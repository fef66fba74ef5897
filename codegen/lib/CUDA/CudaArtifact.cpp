//===- CudaArtifact.cpp - A model's GPU half in its shared object ---------===//

#include "nn/Conversion/CUDA/CudaArtifact.h"

#include "nn/Conversion/CUDA/Nvrtc.h"
#include "nn/Conversion/Passes.h"
#include "nn/Runtime/ArtifactABI.h"
#include "nn/Runtime/CudaImage.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::cuda;

FailureOr<CudaProgram>
mlir::nn::cuda::emitCudaKernels(ModuleOp module,
                                const PipelineOptions &options) {
  DialectRegistry registry;
  registerCodegenDialects(registry);
  module->getContext()->appendDialectRegistry(registry);

  // The CPU compile goes on from `module` itself; the GPU's starts over on
  // a copy, through the same nn-optimize and weight embedding.
  OwningOpRef<ModuleOp> gpu = module.clone();
  PassManager pm(module->getContext());
  buildCompilePipeline(pm, options, CompileStage::NN);
  buildCudaKernelPipeline(pm);
  if (failed(pm.run(*gpu)))
    return failure();
  return emitCudaProgram(*gpu);
}

FailureOr<std::string> mlir::nn::cuda::compileCudaImage(
    ModuleOp module, const PipelineOptions &options, const CompileCache *cache,
    CacheReport *report) {
  CacheReport found;
  if (report)
    *report = found;
  if (!options.cuda)
    return module.emitError() << "no CUDA target to compile for";
  const std::string &arch = options.cuda->arch;
  if (!::nn::cuda::parse_cuda_arch(arch).valid())
    return module.emitError()
           << "unknown CUDA architecture '" << arch
           << "': name a compute capability as sm_<major><minor> (sm_90)";
  if (cache) {
    found.key = CompileCache::key("cuda-image", options.cacheText(),
                                  printForCache(module));
    bool rejected = false;
    std::optional<std::string> bytes = cache->lookup(found.key, &rejected);
    // An entry is a whole image (the cache checks its bytes); one this
    // runtime cannot read is built again, as a corrupt entry is.
    if (bytes &&
        ::nn::cuda::parse_cuda_image(*bytes, cache->entryPath(found.key))
            .ok()) {
      found.outcome = CacheOutcome::Hit;
      if (report)
        *report = found;
      return std::move(*bytes);
    }
    found.outcome =
        rejected || bytes ? CacheOutcome::Rebuilt : CacheOutcome::Miss;
  }
  FailureOr<CudaProgram> program = emitCudaKernels(module, options);
  if (failed(program))
    return failure();
  NvrtcOptions nvrtc;
  nvrtc.arch = arch;
  llvm::Expected<NvrtcOutput> compiled =
      compileCuda(program->source, "model.cu", nvrtc);
  if (!compiled)
    return module.emitError() << "compiling the CUDA kernels: "
                              << llvm::toString(compiled.takeError());
  ::nn::cuda::CudaImage image;
  image.arch = arch;
  image.ptx = std::move(compiled->ptx);
  image.cubin = std::move(compiled->cubin);
  image.plans = std::move(program->plans);
  std::string bytes = ::nn::cuda::serialize_cuda_image(image);
  if (cache)
    storeOrWarn(module, *cache, found.key, StringRef(bytes));
  if (report)
    *report = found;
  return bytes;
}

void mlir::nn::cuda::addCudaImage(llvm::Module &llvmModule, StringRef image) {
  llvm::LLVMContext &ctx = llvmModule.getContext();
  auto *bytes = llvm::ConstantDataArray::getString(ctx, image,
                                                   /*AddNull=*/false);
  auto *global = new llvm::GlobalVariable(llvmModule, bytes->getType(),
                                          /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage,
                                          bytes, "nn_cuda_image");
  global->setAlignment(llvm::Align(16));
  llvm::IRBuilder<> b(ctx);
  auto *ptrTy = b.getPtrTy();
  auto *getter = llvm::Function::Create(
      llvm::FunctionType::get(ptrTy, {ptrTy}, /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, NN_CUDA_IMAGE_ENTRY_POINT,
      llvmModule);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", getter));
  b.CreateStore(b.getInt64(image.size()), getter->getArg(0));
  b.CreateRet(global);
}
