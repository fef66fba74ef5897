//===- Compile.cpp - Compiling traced modules -----------------------------===//
//
// Runs the compile pipeline (nn-optimize, then the CPU back end) on a copy of
// the traced IR: JIT (bound to the model's tensors) or a shared object on
// disk, each answered from the compile cache when it holds the product
// already.
//
//===----------------------------------------------------------------------===//

#include "nn/Compile.h"

#include "TraceContext.h"

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CUDA/CudaArtifact.h"
#include "nn/Init.h"
#include "nn/Runtime/Cuda.h"

#include <functional>
#include <optional>

namespace nn {

/// The value of `result`, or nn::Error with its status message.
template <typename T> static T valueOrThrow(absl::StatusOr<T> result) {
  if (!result.ok())
    throw Error(std::string(result.status().message()));
  return *std::move(result);
}

/// The compile cache `options` ask for, if the environment gives one.
static std::optional<mlir::nn::CompileCache>
cacheFor(const CompileOptions &options) {
  if (!options.cache)
    return std::nullopt;
  std::optional<std::string> folder =
      mlir::nn::CompileCache::directoryFromEnvironment();
  if (!folder)
    return std::nullopt;
  return mlir::nn::CompileCache(*folder);
}

/// The compile pipeline's options for `options`, embedding `embed` when
/// given.
static mlir::nn::PipelineOptions
pipelineOptions(const CompileOptions &options,
                const StateDict *embed = nullptr) {
  mlir::nn::PipelineOptions pipeline;
  pipeline.optimize =
      options.optimize
          ? detail::optimizePipelineOptions(options.optimize_options)
          : nullptr;
  pipeline.embed = embed;
  pipeline.target = {options.target_cpu, options.target_features};
  return pipeline;
}

/// The GPU architecture `options` compile for: cuda_arch, else the GPU
/// options.device names when it is present, else sm_90.
static std::string cudaArch(const CompileOptions &options) {
  return options.cuda_arch.empty() ? cuda::default_arch(options.device.index())
                                   : options.cuda_arch;
}

std::shared_ptr<Artifact> compile(const TracedModule &traced,
                                  const CompileOptions &options) {
  TracedModule work = traced.clone();
  detail::DiagnosticCapture capture(work.impl()->context);
  std::optional<mlir::nn::CompileCache> cache = cacheFor(options);
  mlir::nn::PipelineOptions pipeline = pipelineOptions(options);
  // The GPU's kernels first, as their own image (the JIT's code is the
  // CPU's alone; each is cached on its own): the CPU compile changes the
  // module in place.
  std::string cudaImage;
  if (options.device.is_cuda()) {
    cuda::check_device(options.device);
    mlir::nn::PipelineOptions gpu = pipeline;
    gpu.cuda = mlir::nn::CudaTarget{cudaArch(options)};
    mlir::FailureOr<std::string> image = mlir::nn::cuda::compileCudaImage(
        *work.impl()->module, gpu, cache ? &*cache : nullptr);
    if (mlir::failed(image))
      throw Error("nn::compile failed: " + capture.message());
    cudaImage = std::move(*image);
  }
  auto jit = mlir::nn::compileInProcess(*work.impl()->module, pipeline,
                                        cache ? &*cache : nullptr);
  if (mlir::failed(jit))
    throw Error("nn::compile failed: " + capture.message());
  // The engine owns the code; the artifact keeps the engine (and the engine
  // nothing else of `work`).
  std::shared_ptr<Artifact> artifact = valueOrThrow(Artifact::from_table(
      jit->table, jit->engine, "<jit>", options.device, cudaImage));
  if (absl::Status bound = artifact->bind(traced.state()); !bound.ok())
    throw Error(std::string(bound.message()));
  // A forward that draws random numbers starts its generator from nn's
  // default one, so nn::manual_seed before compiling reproduces its runs.
  // Others draw nothing from it, leaving e.g. parameter init unchanged.
  if (artifact->description().has_rng)
    artifact->manual_seed(default_generator().next_u64());
  return artifact;
}

void compile_to_file(const TracedModule &traced, const std::string &path,
                     const CompileOptions &options) {
  TracedModule work = traced.clone();
  detail::DiagnosticCapture capture(work.impl()->context);
  std::optional<mlir::nn::CompileCache> cache = cacheFor(options);
  mlir::nn::PipelineOptions pipeline = pipelineOptions(
      options, options.embed_weights ? &traced.state() : nullptr);
  if (options.device.is_cuda())
    pipeline.cuda = mlir::nn::CudaTarget{cudaArch(options)};
  if (mlir::failed(mlir::nn::compileToSharedObject(
          *work.impl()->module, path, pipeline, cache ? &*cache : nullptr)))
    throw Error("nn::compile_to_file failed: " + capture.message());
}

//===----------------------------------------------------------------------===//
// CompiledModule
//===----------------------------------------------------------------------===//

CompiledModule::CompiledModule(std::shared_ptr<Module> root,
                               std::function<TracedModule()> retrace,
                               CompileOptions options)
    : root_(std::move(root)), retrace_(std::move(retrace)),
      options_(std::move(options)) {
  if (!root_)
    throw Error("nn::CompiledModule: the model is empty");
}

static void hashCombine(uint64_t &seed, uint64_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
}

uint64_t CompiledModule::fingerprint() const {
  uint64_t h = 0;
  std::hash<std::string> hashString;
  for (const std::shared_ptr<Module> &module : root_->modules()) {
    hashCombine(h, reinterpret_cast<uintptr_t>(module.get()));
    hashCombine(h, module->hooks_version());
    hashCombine(h, module->is_training());
  }
  auto hashState = [&](const std::vector<Module::NamedTensor> &named) {
    for (const auto &[name, tensor] : named) {
      hashCombine(h, hashString(name));
      hashCombine(h, reinterpret_cast<uintptr_t>(tensor.storage().get()));
      hashCombine(h, static_cast<uint64_t>(tensor.dtype()));
      hashCombine(h, tensor.grad_hooks_version());
      for (int64_t d : tensor.shape())
        hashCombine(h, static_cast<uint64_t>(d));
    }
  };
  hashState(root_->named_parameters());
  hashState(root_->named_buffers());
  if (extra_key_)
    hashCombine(h, extra_key_());
  return h;
}

uint64_t CompiledModule::data_fingerprint() const {
  uint64_t h = 0;
  for (const auto &named : {root_->named_parameters(), root_->named_buffers()})
    for (const auto &entry : named)
      if (const std::shared_ptr<Storage> &storage = entry.second.storage())
        hashCombine(h, storage->version());
  return h;
}

bool CompiledModule::is_stale() const {
  return !artifact_ || fingerprint() != fingerprint_;
}

const std::shared_ptr<Artifact> &CompiledModule::artifact() {
  uint64_t now = fingerprint();
  if (!artifact_ || now != fingerprint_) {
    artifact_ = compile(retrace_(), options_);
    // Tracing may have created what the trace depends on (an optimizer's
    // state, made at its first traced step): key what was traced.
    fingerprint_ = fingerprint();
    data_fingerprint_ = data_fingerprint();
    ++compiles_;
  } else if (uint64_t data = data_fingerprint(); data != data_fingerprint_) {
    // Same tensors, new values: only what prepare derived is stale.
    if (absl::Status s = artifact_->prepare(); !s.ok())
      throw Error(std::string(s.message()));
    data_fingerprint_ = data;
    ++reprepares_;
  }
  return artifact_;
}

std::vector<Tensor>
CompiledModule::operator()(const std::vector<Tensor> &inputs) {
  return valueOrThrow(artifact()->run(inputs));
}

StateDict CompiledModule::run_named(const StateDict &inputs) {
  return valueOrThrow(artifact()->run(inputs));
}

} // namespace nn
