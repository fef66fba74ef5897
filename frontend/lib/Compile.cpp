//===- Compile.cpp - Compiling traced modules -----------------------------===//
//
// Runs nn-optimize on a copy of the traced IR, then the CPU back end: JIT
// (bound to the model's tensors) or a shared object on disk.
//
//===----------------------------------------------------------------------===//

#include "nn/Compile.h"

#include "TraceContext.h"

#include "nn/Conversion/CPU/Compile.h"

namespace nn {

/// A copy of `traced`, optimized when asked, ready to be lowered in place.
static TracedModule prepare(const TracedModule &traced,
                            const CompileOptions &options) {
  TracedModule work = traced.clone();
  if (options.optimize)
    work.optimize(options.optimize_options);
  return work;
}

std::shared_ptr<Artifact> compile(const TracedModule &traced,
                                  const CompileOptions &options) {
  TracedModule work = prepare(traced, options);
  detail::DiagnosticCapture capture(work.impl()->context);
  auto jit = mlir::nn::compileInProcess(*work.impl()->module);
  if (mlir::failed(jit))
    throw Error("nn::compile failed: " + capture.message());
  // The engine owns the code; the artifact keeps the engine (and the engine
  // nothing else of `work`).
  auto artifact = Artifact::from_table(jit->table, jit->engine, "<jit>");
  if (!artifact.ok())
    throw Error(std::string(artifact.status().message()));
  if (absl::Status bound = (*artifact)->bind(traced.state()); !bound.ok())
    throw Error(std::string(bound.message()));
  return *artifact;
}

void compile_to_file(const TracedModule &traced, const std::string &path,
                     const CompileOptions &options) {
  TracedModule work = prepare(traced, options);
  detail::DiagnosticCapture capture(work.impl()->context);
  if (mlir::failed(
          mlir::nn::compileToSharedObject(*work.impl()->module, path)))
    throw Error("nn::compile_to_file failed: " + capture.message());
}

} // namespace nn
