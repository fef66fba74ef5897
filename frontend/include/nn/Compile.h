//===- Compile.h - Compiling traced modules ---------------------*- C++ -*-===//
//
// A traced module becomes native code for a CPU (this one by default: see
// CompileOptions::target_cpu), either in this process
// (compile: JIT, returns a runnable nn::Artifact already bound to the model's
// tensors) or ahead of time (compile_to_file: a shared object that
// nn::Artifact::load opens in a program that links only the runtime).
//
//   auto traced = nn::trace(model, {nn::TensorSpec({64, 784})});
//   auto artifact = nn::compile(traced);
//   std::vector<nn::Tensor> y = artifact->run({x}).value();
//
//===----------------------------------------------------------------------===//
#ifndef NN_COMPILE_H
#define NN_COMPILE_H

#include "nn/Runtime/Artifact.h"
#include "nn/Tracer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nn {

struct CompileOptions {
  /// Run nn-optimize before lowering (skip for an already optimized module).
  bool optimize = true;
  OptimizeOptions optimize_options;
  /// Answer a repeated compile (same optimized IR, options, CPU and nn
  /// build) from the on-disk compile cache: $NN_CACHE_DIR, else
  /// $XDG_CACHE_HOME/nn, else ~/.cache/nn; NN_CACHE_DISABLE=1 turns it off
  /// everywhere.
  bool cache = true;
  /// The CPU the generated code targets: "host" (this machine, every feature
  /// it has), an x86-64 level ("x86-64-v2", "x86-64-v3" for AVX2 + FMA,
  /// "x86-64-v4" for AVX-512) or an LLVM CPU name ("haswell", "znver4",
  /// "skylake-avx512"). A shared object compiled for a CPU runs on any
  /// machine that has its features and is refused by name elsewhere
  /// (Artifact::load). The kernels choose their ISA at run time whatever
  /// the target.
  std::string target_cpu = "host";
  /// Features added to or removed from the target CPU's, LLVM-style:
  /// "+avx512f,-avx512vl".
  std::string target_features;
  /// compile_to_file: embed every parameter and buffer of the traced model
  /// in the shared object, which then runs without a weights file (one
  /// file to ship). Tensors bound by name at load time still take
  /// precedence. Non-persistent buffers (in no state_dict) are always
  /// embedded.
  bool embed_weights = false;
  /// Where forward runs. A GPU (Device::cuda(i)) compiles forward's
  /// kernels with NVRTC for `cuda_arch` besides the CPU code (see
  /// docs/gpu.md): compile() returns an artifact that runs on that GPU;
  /// compile_to_file writes a shared object that runs on either,
  /// Artifact::load(path, device) choosing.
  Device device = Device::cpu();
  /// The GPU architecture the kernels are compiled for, as "sm_90"; empty:
  /// the GPU `device` names when it is present, else sm_90.
  std::string cuda_arch;
};

/// JIT-compiles `traced` and binds it to the traced model's tensors (shared:
/// later in-place weight updates are seen). A forward with random ops
/// (training dropout) gets its generator seeded from nn's default generator
/// (nn::manual_seed). Throws nn::Error on failure.
std::shared_ptr<Artifact> compile(const TracedModule &traced,
                                  const CompileOptions &options = {});

/// Compiles `traced` ahead of time into the shared object `path`. The weights
/// are bound from a safetensors file at load time (PyTorch's own state_dict
/// file binds: the non-persistent buffers travel in the artifact), unless
/// `options.embed_weights` embeds them too.
void compile_to_file(const TracedModule &traced, const std::string &path,
                     const CompileOptions &options = {});

/// A model compiled on first use and recompiled when what its trace depends
/// on has changed since: a hook added or removed anywhere in the tree,
/// train()/eval(), a module, parameter or buffer registered, replaced, tied
/// or converted (to(dtype)) — the guards torch.compile keeps. New weight
/// *values* (an optimizer step, load_state_dict) need no recompile: the
/// compiled code reads the model's own storages.
///
///   nn::CompiledModule fast(model, {nn::TensorSpec({64, 784})});
///   std::vector<nn::Tensor> y = fast({x});   // traces and compiles
///   y = fast({x});                           // reuses the compiled code
///   auto h = model->fc1->register_capture_hook("fc1");
///   nn::StateDict named = fast.run_named({{"input.0", x}});  // recompiles;
///                                            // named["fc1"] is the capture
///
/// A training forward with dropout draws a fresh mask on every call from
/// the artifact's generator (see Artifact::run); a recompile reseeds it from
/// nn's default generator.
class CompiledModule {
public:
  template <typename C>
  CompiledModule(const ModuleHolder<C> &model, std::vector<TensorSpec> inputs,
                 CompileOptions options = {})
      : CompiledModule(
            model.ptr(),
            [model, inputs = std::move(inputs)] {
              return trace(model, inputs);
            },
            std::move(options)) {}
  /// `retrace` traces `root` (or a model owning it) anew.
  CompiledModule(std::shared_ptr<Module> root,
                 std::function<TracedModule()> retrace,
                 CompileOptions options = {});

  /// Runs the compiled forward (compiling first when stale); outputs in
  /// order: forward's, then the captured ones. Throws nn::Error.
  std::vector<Tensor> operator()(const std::vector<Tensor> &inputs);
  /// As operator(), with inputs and outputs by name.
  StateDict run_named(const StateDict &inputs);

  /// The artifact for the model as it is now, compiled when stale.
  const std::shared_ptr<Artifact> &artifact();
  /// Whether the next call recompiles.
  bool is_stale() const;
  /// How many times the model has been compiled.
  size_t compile_count() const { return compiles_; }
  /// Makes the trace depend on `key` too (an optimizer's structure, for a
  /// training step that traces its update): when its value changes, the
  /// next call recompiles.
  void depend_on(std::function<uint64_t()> key) { extra_key_ = std::move(key); }
  /// How many times the artifact's prepare step ran again without a
  /// recompile, because a parameter or buffer was written in place
  /// (load_state_dict, an optimizer step, data_ptr writes).
  size_t reprepare_count() const { return reprepares_; }

private:
  /// A hash of everything a trace depends on besides the input specs.
  uint64_t fingerprint() const;
  /// A hash of the state's data versions (Storage::version): when it moves,
  /// the values prepare derived from the state (folded, packed weights) are
  /// stale and prepare runs again before the next call.
  uint64_t data_fingerprint() const;

  std::shared_ptr<Module> root_;
  std::function<TracedModule()> retrace_;
  CompileOptions options_;
  std::function<uint64_t()> extra_key_;
  std::shared_ptr<Artifact> artifact_;
  uint64_t fingerprint_ = 0;
  uint64_t data_fingerprint_ = 0;
  size_t compiles_ = 0;
  size_t reprepares_ = 0;
};

} // namespace nn

#endif // NN_COMPILE_H
