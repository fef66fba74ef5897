//===- Autodiff.h - Vector-Jacobian products of nn ops ----------*- C++ -*-===//
//
// nn-autodiff (Passes.td) differentiates a traced function in reverse mode.
// What it knows of each op is a rule: given the gradient flowing into the
// op's result, the gradients of its operands, built as ordinary nn ops with
// a GradBuilder. Rules are data kept next to their op family, one file per
// family under passes/lib/Autodiff/ (as derivatives.yaml is in PyTorch);
// adding an op means adding its rule there. An op without a rule is a
// located error, never a silent zero.
//
// Saved or recomputed: a rule reads forward's values (the op's operands and
// result) where it needs them. Backward is emitted in the same function as
// forward, so those values are saved (kept alive until backward uses them);
// nothing is recomputed.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TRANSFORMS_AUTODIFF_H
#define NN_TRANSFORMS_AUTODIFF_H

#include "nn/IR/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace mlir::nn {

/// The shape of `v`, a ranked tensor (as every value a rule sees is).
inline ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}

/// Builds the nn ops gradients are written in, at one location. Shapes
/// broadcast as the ops do; scalars are rank-0 constants of the value's
/// element type. An op whose result type cannot be inferred (operands a
/// rule got wrong) is reported at the location and ends the rule: the
/// builder throws GradBuilder::Failure, which nn-autodiff catches and turns
/// into the pass's failure, so a faulty rule is a located error, never an
/// abort.
class GradBuilder {
public:
  struct Failure {};

  GradBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value add(Value lhs, Value rhs);
  Value sub(Value lhs, Value rhs);
  Value mul(Value lhs, Value rhs);
  Value div(Value lhs, Value rhs);
  Value neg(Value x);
  Value exp(Value x);
  Value log(Value x);
  Value sqrt(Value x);
  Value rsqrt(Value x);
  /// A constant tensor of `shape` filled with `value`, of `like`'s element
  /// type.
  Value filled(Value like, ArrayRef<int64_t> shape, double value);
  /// Elements [start, end) of `x` along `dim`, every `step`-th.
  Value slice(Value x, int64_t dim, int64_t start, int64_t end,
              int64_t step = 1);
  Value cat(ValueRange parts, int64_t dim);
  /// `x` padded with `value` by `lo` before and `hi` after along `dim` (x
  /// itself when both are 0).
  Value pad(Value x, int64_t dim, int64_t lo, int64_t hi, double value);
  /// `x` padded with `value` by lo[d] before and hi[d] after every dim d:
  /// one nn.pad (x itself when all are 0).
  Value pad(Value x, ArrayRef<int64_t> lo, ArrayRef<int64_t> hi, double value);
  /// The inverse of slice: a tensor of `size` along `dim` (x's other dims)
  /// holding x's elements at start, start + step, ... and zeros elsewhere.
  Value unslice(Value x, int64_t dim, int64_t start, int64_t step,
                int64_t size);
  /// Mean over `dims`, dims kept (sum / count).
  Value meanKeep(Value x, ArrayRef<int64_t> dims);
  Value pow(Value x, Value exponent);
  /// `value` as a rank-0 tensor of `like`'s element type.
  Value scalar(Value like, double value);
  /// `x` times the constant `factor`.
  Value scale(Value x, double factor);
  Value compare(ComparisonPredicate predicate, Value lhs, Value rhs);
  Value where(Value condition, Value lhs, Value rhs);
  /// 0 where `condition` is false, `x` where it is true.
  Value mask(Value condition, Value x);
  /// Sum over `dims` (none: every dim).
  Value sum(Value x, ArrayRef<int64_t> dims, bool keepdim);
  Value reshape(Value x, ArrayRef<int64_t> shape);
  Value transpose(Value x, int64_t dim0, int64_t dim1);
  Value permute(Value x, ArrayRef<int64_t> dims);
  Value expand(Value x, ArrayRef<int64_t> shape);
  /// torch.matmul: 1-D operands are a row (lhs) or column (rhs) vector.
  Value matmul(Value lhs, Value rhs);
  /// `grad`, the gradient of a value broadcast from `type`'s shape, summed
  /// back to that shape (PyTorch's sum_to_size).
  Value unbroadcast(Value grad, Type type);

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

private:
  /// Op with its result type inferred, or Failure (see the class comment).
  template <typename Op, typename... Args> Value inferred(Args &&...args);

  OpBuilder &b;
  Location loc;
};

/// The gradients of an op's operands (null: none flows, the operand is not
/// differentiable or the gradient is zero) from `resultGrads`, those of its
/// results (null where none flows). A rule that cannot differentiate the
/// op as configured reports why on the op and fails.
using VJPRule = std::function<LogicalResult(
    GradBuilder &g, Operation *op, ArrayRef<Value> resultGrads,
    MutableArrayRef<Value> operandGrads)>;

/// The rules by op name.
class VJPRules {
public:
  /// Registers `rule` for `Op`, an op whose first result alone carries
  /// gradients (the others, if any, are state updates such as batch
  /// norm's running statistics).
  template <typename Op>
  void add(std::function<LogicalResult(GradBuilder &, Op, Value,
                                       MutableArrayRef<Value>)>
               rule) {
    rules[Op::getOperationName()] = [rule](GradBuilder &g, Operation *op,
                                           ArrayRef<Value> dys,
                                           MutableArrayRef<Value> dx) {
      // Only another result's gradient (a running statistic): none flows
      // back from this op.
      if (!dys[0])
        return success();
      return rule(g, llvm::cast<Op>(op), dys[0], dx);
    };
  }
  /// Registers `rule` for `Op`, whose results may each carry a gradient.
  template <typename Op>
  void
  addWithResults(std::function<LogicalResult(GradBuilder &, Op, ArrayRef<Value>,
                                             MutableArrayRef<Value>)>
                     rule) {
    rules[Op::getOperationName()] = [rule](GradBuilder &g, Operation *op,
                                           ArrayRef<Value> dys,
                                           MutableArrayRef<Value> dx) {
      return rule(g, llvm::cast<Op>(op), dys, dx);
    };
  }
  /// The rule of `op`, or null.
  const VJPRule *lookup(Operation *op) const;

private:
  llvm::StringMap<VJPRule> rules;
};

/// What the frontend that traced a function does at its hooks: nn-autodiff
/// calls it when the reverse pass reaches an nn.gradient_hook and when it
/// has a parameter's gradient, and builds on with what it returns. The
/// builder inserts where backward is being built. A failure has been
/// reported (on the op or the parameter) and ends the pass.
class GradientHooks {
public:
  virtual ~GradientHooks() = default;
  /// At `op`, with `grads[i]` the gradient reaching result i (null: none)
  /// and `active[i]` whether result i depends on what is differentiated;
  /// returns the gradients for its operands, one each (null: none).
  /// Called for every hook op backward passes, gradient or not, in reverse
  /// order.
  virtual FailureOr<SmallVector<Value>> atHook(OpBuilder &builder,
                                               GradientHookOp op,
                                               ArrayRef<Value> grads,
                                               ArrayRef<bool> active) = 0;
  /// The gradient of `param`, summed over its uses, before it becomes a
  /// result; returns the gradient to keep.
  virtual FailureOr<Value> atParameter(OpBuilder &builder, ParameterOp param,
                                       Value grad) = 0;
};

/// nn-autodiff on `func` of `module` (see Passes.td), with the frontend's
/// `hooks` (null: nn.gradient_hook is an error). With `inputs`, the
/// gradients of the floating-point arguments are results too.
LogicalResult differentiate(ModuleOp module, func::FuncOp func, bool inputs,
                            GradientHooks *hooks = nullptr);

/// Every rule nn knows, one family at a time.
void populateElementwiseVJPRules(VJPRules &rules);
void populateActivationVJPRules(VJPRules &rules);
void populateDenseVJPRules(VJPRules &rules);
void populateReductionVJPRules(VJPRules &rules);
void populateShapeVJPRules(VJPRules &rules);
void populateLossVJPRules(VJPRules &rules);
void populateNormalizationVJPRules(VJPRules &rules);
void populateAttentionVJPRules(VJPRules &rules);
void populateConvolutionVJPRules(VJPRules &rules);

} // namespace mlir::nn

#endif // NN_TRANSFORMS_AUTODIFF_H
