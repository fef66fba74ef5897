//===- Autodiff.cpp - nn-autodiff: reverse-mode differentiation -----------===//
//
// Implements nn-autodiff (see Passes.td): the function's first result is a
// scalar loss; its gradient with respect to every trainable parameter it
// depends on is appended to the results, built backward through the
// function's ops by their VJP rules (Autodiff.h, one file per op family).
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"
#include "nn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-autodiff"

namespace mlir::nn {
#define GEN_PASS_DEF_AUTODIFFPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Whether `v` is a floating-point tensor (what can carry a gradient).
bool isFloatTensor(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && llvm::isa<FloatType>(type.getElementType());
}

const VJPRules &allRules() {
  static const VJPRules rules = [] {
    VJPRules r;
    populateElementwiseVJPRules(r);
    populateActivationVJPRules(r);
    populateDenseVJPRules(r);
    populateReductionVJPRules(r);
    populateShapeVJPRules(r);
    populateLossVJPRules(r);
    populateNormalizationVJPRules(r);
    populateAttentionVJPRules(r);
    populateConvolutionVJPRules(r);
    return r;
  }();
  return rules;
}

/// The trainable parameters (not frozen) by symbol, in declaration order.
llvm::MapVector<StringAttr, ParameterOp> trainable(ModuleOp module) {
  llvm::MapVector<StringAttr, ParameterOp> params;
  for (auto param : module.getOps<ParameterOp>())
    if (!param.getFrozen())
      params[param.getSymNameAttr()] = param;
  return params;
}

/// The gradients `op`'s operands get from its results' `dys` (`active` says
/// which results depend on what is differentiated): the frontend's hook
/// decides them for nn.gradient_hook, a rule for every other op.
LogicalResult operandGrads(OpBuilder &b, Operation *op, ArrayRef<Value> dys,
                           const llvm::DenseSet<Value> &active,
                           GradientHooks *hooks, SmallVectorImpl<Value> &dx) {
  if (auto hook = llvm::dyn_cast<GradientHookOp>(op)) {
    if (!hooks)
      return hook.emitOpError("belongs to the frontend that traced it: its "
                              "hooks run only when nn::TracedModule::"
                              "differentiate (or nn::TrainStep) "
                              "differentiates the trace");
    SmallVector<bool> isActive;
    for (Value result : hook.getResults())
      isActive.push_back(active.contains(result));
    FailureOr<SmallVector<Value>> grads = hooks->atHook(b, hook, dys, isActive);
    if (failed(grads))
      return failure();
    if (grads->size() != op->getNumOperands())
      return hook.emitOpError("got ")
             << grads->size() << " gradients from its hook for "
             << op->getNumOperands() << " operands (a bug in the frontend)";
    for (auto [operand, grad] : llvm::zip(op->getOperands(), *grads))
      if (grad && grad.getType() != operand.getType())
        return hook.emitOpError("got a gradient of type ")
               << grad.getType() << " from its hook for an operand of type "
               << operand.getType();
    dx.assign(grads->begin(), grads->end());
    return success();
  }
  if (llvm::all_of(dys, [](Value g) { return !g; }))
    return success();
  const VJPRule *rule = allRules().lookup(op);
  if (!rule)
    return op->emitOpError("has no gradient rule (nn-autodiff): add one "
                           "to its family in passes/lib/Autodiff/");
  GradBuilder g(b, op->getLoc());
  dx.assign(op->getNumOperands(), Value());
  try {
    return (*rule)(g, op, dys, dx);
  } catch (const GradBuilder::Failure &) {
    // The op the rule built was reported where it failed.
    return op->emitOpError("has a gradient rule that built an invalid op "
                           "(a bug in nn-autodiff)");
  }
}

struct AutodiffPass : public nn::impl::AutodiffPassBase<AutodiffPass> {
  using AutodiffPassBase::AutodiffPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(function);
    if (!func || func.isDeclaration()) {
      module.emitError() << "nn-autodiff: no function '" << function
                         << "' to differentiate";
      return signalPassFailure();
    }
    if (failed(nn::differentiate(module, func, inputs)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::nn::differentiate(ModuleOp module, func::FuncOp func,
                                      bool inputs, GradientHooks *hooks) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("nn-autodiff: the function must be one block "
                            "(a trace is)");
  Block &body = func.getBody().front();
  auto ret = llvm::cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() == 0 || !isFloatTensor(ret.getOperand(0)) ||
      llvm::cast<RankedTensorType>(ret.getOperand(0).getType()).getRank())
    return func.emitOpError("nn-autodiff: the first result must be the "
                            "loss, a scalar floating-point tensor; got ")
           << (ret.getNumOperands() ? ret.getOperand(0).getType() : Type());
  Value loss = ret.getOperand(0);

  // What depends on a trainable parameter (forward, in order).
  llvm::MapVector<StringAttr, ParameterOp> params = trainable(module);
  llvm::DenseSet<Value> active;
  llvm::MapVector<StringAttr, SmallVector<Value>> leaves;
  if (inputs)
    for (BlockArgument arg : body.getArguments())
      if (isFloatTensor(arg))
        active.insert(arg);
  for (Operation &op : body.without_terminator()) {
    if (auto load = llvm::dyn_cast<LoadOp>(op)) {
      StringAttr name = load.getNameAttr().getAttr();
      if (params.count(name)) {
        active.insert(load.getResult());
        leaves[name].push_back(load.getResult());
      }
      continue;
    }
    if (auto hook = llvm::dyn_cast<GradientHookOp>(op)) {
      // Identity, operand by operand.
      for (auto [input, result] :
           llvm::zip(hook.getInputs(), hook.getResults()))
        if (active.contains(input) && isFloatTensor(result))
          active.insert(result);
      continue;
    }
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value result : op.getResults())
        if (isFloatTensor(result))
          active.insert(result);
  }

  // Backward, from the loss's seed 1 to the leaves, before the return.
  OpBuilder b(ret);
  llvm::DenseMap<Value, Value> grads;
  if (active.contains(loss))
    grads[loss] = GradBuilder(b, loss.getLoc()).scalar(loss, 1.0);
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  SmallVector<GradientHookOp> hookOps;
  for (Operation *op : llvm::reverse(ops)) {
    if (llvm::isa<LoadOp>(op) || op->getNumResults() == 0)
      continue;
    if (auto hook = llvm::dyn_cast<GradientHookOp>(op))
      hookOps.push_back(hook);
    SmallVector<Value> dys;
    for (Value result : op->getResults())
      dys.push_back(grads.lookup(result));
    SmallVector<Value> dx;
    if (failed(operandGrads(b, op, dys, active, hooks, dx)))
      return failure();
    for (auto [operand, grad] : llvm::zip(op->getOperands(), dx)) {
      if (!grad || !active.contains(operand))
        continue;
      Value &sum = grads[operand];
      sum = sum ? GradBuilder(b, op->getLoc()).add(sum, grad) : grad;
    }
  }

  // One gradient per parameter (its loads' summed), in declaration order.
  SmallVector<Value> results(ret.getOperands());
  SmallVector<std::string> names;
  for (auto &[name, param] : params) {
    Value total;
    for (Value load : leaves.lookup(name))
      if (Value g = grads.lookup(load))
        total = total ? GradBuilder(b, load.getLoc()).add(total, g) : g;
    if (!total)
      continue; // unused: no gradient (None), as PyTorch
    if (hooks) {
      FailureOr<Value> hooked = hooks->atParameter(b, param, total);
      if (failed(hooked))
        return failure();
      total = *hooked;
    }
    if (total.getType() != param.getType())
      return param.emitOpError("got a gradient of type ")
             << total.getType() << " (a bug in a VJP rule or a hook)";
    results.push_back(total);
    names.push_back(name.str());
  }
  if (inputs)
    for (BlockArgument arg : body.getArguments()) {
      Value g = grads.lookup(arg);
      if (!g)
        continue;
      auto name =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), NNAttr::kName);
      results.push_back(g);
      names.push_back(name ? name.str()
                           : "input." + std::to_string(arg.getArgNumber()));
    }
  unsigned first = ret.getNumOperands();
  b.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  // The forward's results keep their attributes (a capture's name); the
  // gradients' are added after them.
  SmallVector<DictionaryAttr> resultAttrs;
  func.getAllResultAttrs(resultAttrs);
  resultAttrs.resize(results.size(), b.getDictionaryAttr({}));
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  for (auto [i, name] : llvm::enumerate(names)) {
    func.setResultAttr(first + i, NNAttr::kName,
                       b.getStringAttr("grad." + name));
    func.setResultAttr(first + i, NNAttr::kGrad, b.getStringAttr(name));
  }
  // The hooks have run: forward, they are the identity.
  for (GradientHookOp hook : hookOps) {
    hook.replaceAllUsesWith(hook.getInputs());
    hook.erase();
  }
  LLVM_DEBUG(llvm::dbgs() << "nn-autodiff: " << names.size() << " gradients\n");
  return success();
}
