//===- EmbedState.h - Tensor values into the compiled artifact --*- C++ -*-===//
//
// A state declaration (nn.parameter, nn.buffer) with a `value` is embedded
// in the artifact: its entry points read that copy unless the caller binds
// the tensor by name. The tracer gives non-persistent buffers their values
// (no state_dict file holds them); embedState gives every declaration one,
// for a single-file artifact (nn-compile --embed-weights,
// CompileOptions::embed_weights).
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_EMBEDSTATE_H
#define NN_CONVERSION_CPU_EMBEDSTATE_H

#include "nn/Runtime/StateDict.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::nn {

/// The contents of `tensor` as an attribute of `type`, which has its shape
/// and element type.
DenseElementsAttr denseAttrOf(const ::nn::Tensor &tensor,
                              RankedTensorType type);

/// Gives every nn.parameter and nn.buffer of `module` the value `state`
/// holds under its name or one of its aliases. Fails, reported on the
/// module, naming every missing tensor, every shape or dtype mismatch, and
/// the state a function writes (train-mode batch-norm statistics), which
/// must stay bound; nothing is changed then.
LogicalResult embedState(ModuleOp module, const ::nn::StateDict &state);

/// embedState as a pass of the compile pipeline (after nn-optimize, whose
/// nn-tie-weights gives tied parameters their aliases). `state` must outlive
/// the pass.
std::unique_ptr<Pass> createEmbedStatePass(const ::nn::StateDict &state);

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_EMBEDSTATE_H
