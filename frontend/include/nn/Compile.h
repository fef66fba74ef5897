//===- Compile.h - Compiling traced modules ---------------------*- C++ -*-===//
//
// A traced module becomes native code for this CPU, either in this process
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

#include <memory>
#include <string>

namespace nn {

struct CompileOptions {
  /// Run nn-optimize before lowering (skip for an already optimized module).
  bool optimize = true;
  OptimizeOptions optimize_options;
};

/// JIT-compiles `traced` and binds it to the traced model's tensors (shared:
/// later in-place weight updates are seen). Throws nn::Error on failure.
std::shared_ptr<Artifact> compile(const TracedModule &traced,
                                  const CompileOptions &options = {});

/// Compiles `traced` ahead of time into the shared object `path`. The weights
/// are not embedded: bind them from a safetensors file at load time.
void compile_to_file(const TracedModule &traced, const std::string &path,
                     const CompileOptions &options = {});

} // namespace nn

#endif // NN_COMPILE_H
