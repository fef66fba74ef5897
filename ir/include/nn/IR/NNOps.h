//===- NNOps.h - nn dialect operations --------------------------*- C++ -*-===//
//
// Generated op classes of the nn dialect, and the shape rules they share with
// the frontend's tracer.
//
//===----------------------------------------------------------------------===//
#ifndef NN_IR_NNOPS_H
#define NN_IR_NNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "nn/IR/NNDialect.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::OpTrait::nn {
/// Marks ops that are elementwise with NumPy broadcasting: one scalar
/// expression per result element (NN_Pointwise in NNOpBase.td).
template <typename ConcreteType>
class Pointwise : public TraitBase<ConcreteType, Pointwise> {};
} // namespace mlir::OpTrait::nn

namespace mlir::nn {
/// The module's parameters and buffers as a side-effect resource: nn.load
/// reads it, nn.store writes it.
struct StateResource : public SideEffects::Resource::Base<StateResource> {
  StringRef getName() final { return "nn.state"; }
};
} // namespace mlir::nn

#define GET_OP_CLASSES
#include "nn/IR/NNOps.h.inc"

namespace mlir::nn {

/// The NumPy broadcast of two shapes, or failure (reported at `loc` when
/// given, naming both shapes and the mismatching dimension).
FailureOr<SmallVector<int64_t>> inferBroadcastShape(std::optional<Location> loc,
                                                    StringRef opName,
                                                    ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs);

/// True when a function of `module` reads or writes the state symbol `name`
/// (nn.load / nn.store). State without uses is bound by the artifact but not
/// passed to the compiled function.
bool isStateUsed(ModuleOp module, StringAttr name);

/// The state symbols some function of `module` writes (nn.store).
llvm::DenseSet<StringAttr> writtenState(ModuleOp module);

/// The type the nn.parameter or nn.buffer `declaration` declares; null for
/// any other op (or none).
Type declaredStateType(Operation *declaration);

/// What the nn.parameter or nn.buffer `declaration` embeds in the compiled
/// artifact: its `value`, unless it is in `written` (state a function
/// writes is always bound); null when nothing.
ElementsAttr embeddedValue(Operation *declaration,
                           const llvm::DenseSet<StringAttr> &written);

/// nn.interpolate's per-dimension scale, as PyTorch's (UpSample.h): the
/// source coordinate is dst · scale (nearest) or the area-pixel formula of
/// it (bilinear), in float. Shared by the lowering and the gradient rule.
float interpolationScale(int64_t in, int64_t out, bool alignCorners,
                         std::optional<double> scale);

/// nn.avg_pool's divisor of each output cell, row-major over the result's
/// spatial dimensions, as PyTorch's avg_pool kernels compute it: the window
/// clipped to the padded input (count_include_pad) or to the input itself,
/// a product over the dimensions; or divisor_override. Shared by the
/// lowering and the gradient rule.
SmallVector<double> avgPoolDivisors(AvgPoolOp op);

/// Adaptive pooling's window of output cell `i` of a dimension pooled from
/// `in` to `out`: input positions [floor(i·in/out), ceil((i+1)·in/out)).
/// Shared by the lowering and the gradient rule.
std::pair<int64_t, int64_t> adaptivePoolWindow(int64_t i, int64_t in,
                                               int64_t out);

/// The low sides of a convolution or pooling op's padding attribute (N or
/// 2N entries for N spatial dimensions; see NNConvolutionOps.td).
SmallVector<int64_t> padLow(ArrayRef<int64_t> padding, int64_t rank);
/// The high sides of a padding attribute (the low ones when it has N).
SmallVector<int64_t> padHigh(ArrayRef<int64_t> padding, int64_t rank);

/// "2x784" (rank 0: "scalar"), the spelling error messages use.
std::string formatShape(ArrayRef<int64_t> shape);

} // namespace mlir::nn

#endif // NN_IR_NNOPS_H
