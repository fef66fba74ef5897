//===- Differentiate.cpp - nn-autodiff with the frontend's hooks ----------===//
//
// TracedModule::differentiate runs nn-autodiff with the backward hooks the
// trace recorded. While forward is traced, a module with backward hooks has
// its tensor inputs and outputs routed through nn.gradient_hook ops (as
// PyTorch wraps them in BackwardHookFunction), and a symbolic tensor whose
// gradient is hooked gets one after its definition. nn-autodiff hands the
// gradients reaching each such op to the HookRunner below, which resumes
// the trace at the point backward is being built, so hooks compute with the
// same functional ops forward uses, and a captured gradient becomes an
// extra output.
//
//===----------------------------------------------------------------------===//

#include "TraceContext.h"

#include "nn/IR/NNOps.h"
#include "nn/Transforms/Autodiff.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

namespace nn {

using mlir::Value;

//===----------------------------------------------------------------------===//
// Recording the hooks while forward is traced
//===----------------------------------------------------------------------===//

namespace detail {

llvm::SmallVector<Value> TraceContext::addGradientHook(mlir::ValueRange values,
                                                       GradientHookSite site) {
  auto hook = builder.create<mlir::nn::GradientHookOp>(
      location(), values, static_cast<int64_t>(impl_.hookSites.size()));
  impl_.hookSites.push_back(std::move(site));
  return llvm::SmallVector<Value>(hook.getResults());
}

Value TraceContext::hookGradient(Value value, GradHook hook) {
  // A value hooked before already flows out of its hook: add to that one.
  if (auto existing = value.getDefiningOp<mlir::nn::GradientHookOp>()) {
    GradientHookSite &site = impl_.hookSites[existing.getSite()];
    if (site.kind == GradientHookSite::Kind::Tensor) {
      site.tensor.push_back(std::move(hook));
      return value;
    }
  }
  mlir::OpBuilder::InsertionGuard guard(builder);
  if (mlir::Operation *def = value.getDefiningOp())
    builder.setInsertionPointAfter(def);
  else
    builder.setInsertionPointToStart(value.getParentBlock());
  GradientHookSite site{GradientHookSite::Kind::Tensor, path()};
  site.tensor.push_back(std::move(hook));
  Value hooked = addGradientHook(value, std::move(site))[0];
  value.replaceAllUsesExcept(hooked, hooked.getDefiningOp());
  for (auto &[name, captured] : captures_)
    if (captured == value)
      captured = hooked;
  return hooked;
}

} // namespace detail

int64_t Module::route_backward_inputs(TensorList &inputs) {
  detail::TraceContext *trace = detail::TraceContext::active();
  if (!trace || !has_backward_hooks() || inputs.empty())
    return -1;
  detail::GradientHookSite site{detail::GradientHookSite::Kind::ModuleInputs,
                                trace->path()};
  site.module = this;
  // The call is known by its inputs' site.
  site.call = static_cast<int64_t>(trace->impl().hookSites.size());
  // The hooks as registered now: this trace's.
  for (const detail::ModuleHook &hook : hooks_->entries()) {
    if (hook.backward_pre)
      site.pre.push_back(hook.backward_pre);
    if (hook.backward)
      site.full.push_back(hook.backward);
  }
  llvm::SmallVector<Value> values;
  for (const Tensor &input : inputs)
    values.push_back(trace->valueOf(input, "backward hook", "an input"));
  int64_t call = site.call;
  llvm::SmallVector<Value> routed = trace->addGradientHook(values, site);
  for (size_t i = 0; i < inputs.size(); ++i)
    inputs[i] = trace->wrap(routed[i]);
  return call;
}

void Module::route_backward_outputs(int64_t call, TensorList &outputs) {
  detail::TraceContext *trace = detail::TraceContext::active();
  if (!trace || call < 0 || outputs.empty())
    return;
  // The inputs' site (number `call`) holds the hooks as registered then.
  detail::GradientHookSite site = trace->impl().hookSites[call];
  site.kind = detail::GradientHookSite::Kind::ModuleOutputs;
  site.path = trace->path();
  llvm::SmallVector<Value> values;
  for (const Tensor &output : outputs)
    values.push_back(trace->valueOf(output, "backward hook", "an output"));
  llvm::SmallVector<Value> routed = trace->addGradientHook(values, site);
  for (size_t i = 0; i < outputs.size(); ++i)
    outputs[i] = trace->wrap(routed[i]);
}

//===----------------------------------------------------------------------===//
// Running them while backward is built
//===----------------------------------------------------------------------===//

namespace {

using detail::GradientHookSite;

std::string typeString(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return os.str();
}

/// nn-autodiff's GradientHooks for one differentiation of a trace.
class HookRunner final : public mlir::nn::GradientHooks {
public:
  HookRunner(TracedModule::Impl &impl, detail::TraceContext &trace)
      : impl_(impl), trace_(trace) {}

  mlir::FailureOr<llvm::SmallVector<Value>>
  atHook(mlir::OpBuilder &builder, mlir::nn::GradientHookOp op,
         llvm::ArrayRef<Value> grads, llvm::ArrayRef<bool> active) override {
    if (op.getSite() >= impl_.hookSites.size()) {
      op.emitOpError("names site ")
          << op.getSite() << ", which this trace did not record";
      return mlir::failure();
    }
    const GradientHookSite &site = impl_.hookSites[op.getSite()];
    return guarded(builder, site.path, [&] {
      switch (site.kind) {
      case GradientHookSite::Kind::ModuleOutputs:
        return atOutputs(builder, op, site, grads, active);
      case GradientHookSite::Kind::ModuleInputs:
        return atInputs(builder, op, site, grads, active);
      case GradientHookSite::Kind::Tensor:
        return atTensor(op, site, grads);
      }
      return llvm::SmallVector<Value>(grads);
    });
  }

  mlir::FailureOr<Value> atParameter(mlir::OpBuilder &builder,
                                     mlir::nn::ParameterOp param,
                                     Value grad) override {
    const Tensor *tensor = impl_.state.find(param.getSymName().str());
    std::vector<GradHook> hooks =
        tensor ? tensor->grad_hooks() : std::vector<GradHook>();
    if (hooks.empty())
      return grad;
    auto result = guarded(builder, param.getSymName().str(), [&] {
      return llvm::SmallVector<Value>{runTensorHooks(
          hooks, grad, "parameter '" + param.getSymName().str() + "'")};
    });
    if (mlir::failed(result))
      return mlir::failure();
    return (*result)[0];
  }

  /// The message of the hook that failed, if one did.
  const std::string &error() const { return error_; }

private:
  /// What backward has seen of one module call.
  struct Call {
    bool reached = false;
    TensorList gradOutput;
  };

  /// Runs `body` with the trace resumed where backward is being built, at
  /// `path`; an nn::Error (a hook's, or a bad replacement) is a failure.
  template <typename Body>
  mlir::FailureOr<llvm::SmallVector<Value>>
  guarded(mlir::OpBuilder &builder, const std::string &path, Body &&body) {
    trace_.builder.setInsertionPoint(builder.getInsertionBlock(),
                                     builder.getInsertionPoint());
    trace_.pushPath(path);
    try {
      llvm::SmallVector<Value> result = body();
      trace_.popModule();
      return result;
    } catch (const Error &e) {
      trace_.popModule();
      error_ = e.what();
      return mlir::failure();
    }
  }

  /// The gradients as tensors: an undefined Tensor (None) where none
  /// flows; where `zeros` and the result depends on what is differentiated,
  /// zeros instead (autograd materializes them for BackwardHookFunction).
  TensorList tensorsOf(mlir::OpBuilder &builder, mlir::nn::GradientHookOp op,
                       llvm::ArrayRef<Value> grads, llvm::ArrayRef<bool> active,
                       bool zeros) {
    TensorList tensors;
    for (auto [i, grad] : llvm::enumerate(grads)) {
      Value value = grad;
      if (!value && zeros && active[i]) {
        mlir::OpBuilder at(trace_.builder.getInsertionBlock(),
                           trace_.builder.getInsertionPoint());
        Value result = op.getResult(i);
        value = mlir::nn::GradBuilder(at, op.getLoc())
                    .filled(result, mlir::nn::shapeOf(result), 0.0);
      }
      tensors.push_back(value ? trace_.wrap(value) : Tensor());
    }
    return tensors;
  }

  /// `tensors` (a hook's replacement for the gradients of `values`) as IR
  /// values, null for undefined; `what` names the hook in errors.
  llvm::SmallVector<Value> valuesOf(const TensorList &tensors,
                                    mlir::ValueRange values,
                                    const std::string &what) {
    if (tensors.size() != values.size())
      trace_.fail(what + " returned " + std::to_string(tensors.size()) +
                  " gradients for " + std::to_string(values.size()));
    llvm::SmallVector<Value> result;
    for (auto [i, tensor] : llvm::enumerate(tensors)) {
      if (!tensor.defined()) {
        result.push_back(Value());
        continue;
      }
      Value value = trace_.valueOf(tensor, "backward hook", "a gradient");
      if (value.getType() != values[i].getType())
        trace_.fail(what + " returned " + tensor.to_string() +
                    " for gradient " + std::to_string(i) + ", which is " +
                    typeString(values[i].getType()));
      result.push_back(value);
    }
    return result;
  }

  llvm::SmallVector<Value> atOutputs(mlir::OpBuilder &builder,
                                     mlir::nn::GradientHookOp op,
                                     const GradientHookSite &site,
                                     llvm::ArrayRef<Value> grads,
                                     llvm::ArrayRef<bool> active) {
    // A call the loss does not reach runs no hook, as in PyTorch.
    if (llvm::all_of(grads, [](Value g) { return !g; }))
      return llvm::SmallVector<Value>(grads);
    Call &call = calls_[site.call];
    call.reached = true;
    TensorList gradOutput = tensorsOf(builder, op, grads, active, true);
    for (const BackwardPreHook &hook : site.pre)
      if (std::optional<TensorList> replaced = hook(*site.module, gradOutput)) {
        valuesOf(*replaced, op.getResults(), "a backward pre-hook");
        gradOutput = std::move(*replaced);
      }
    call.gradOutput = gradOutput;
    return valuesOf(gradOutput, op.getResults(), "a backward pre-hook");
  }

  llvm::SmallVector<Value> atInputs(mlir::OpBuilder &builder,
                                    mlir::nn::GradientHookOp op,
                                    const GradientHookSite &site,
                                    llvm::ArrayRef<Value> grads,
                                    llvm::ArrayRef<bool> active) {
    auto call = calls_.find(site.call);
    if (call == calls_.end() || !call->second.reached)
      return llvm::SmallVector<Value>(grads);
    const TensorList gradOutput = call->second.gradOutput;
    calls_.erase(call);
    TensorList gradInput = tensorsOf(builder, op, grads, active, true);
    bool anyActive = llvm::any_of(active, [](bool a) { return a; });
    for (const BackwardHook &hook : site.full) {
      std::optional<TensorList> replaced =
          hook(*site.module, gradInput, gradOutput);
      if (!replaced)
        continue;
      if (!anyActive &&
          llvm::any_of(*replaced, [](const Tensor &t) { return t.defined(); }))
        trace_.fail("a full backward hook returned gradients for inputs "
                    "that require none (PyTorch refuses this too): return "
                    "nothing, or undefined tensors");
      valuesOf(*replaced, op.getResults(), "a full backward hook");
      gradInput = std::move(*replaced);
    }
    return valuesOf(gradInput, op.getResults(), "a full backward hook");
  }

  llvm::SmallVector<Value> atTensor(mlir::nn::GradientHookOp op,
                                    const GradientHookSite &site,
                                    llvm::ArrayRef<Value> grads) {
    if (!grads[0])
      return llvm::SmallVector<Value>(grads);
    (void)op;
    return {runTensorHooks(site.tensor, grads[0], "a tensor's gradient hook")};
  }

  /// Runs `hooks` in order on `grad`, each on what the last one left.
  Value runTensorHooks(const std::vector<GradHook> &hooks, Value grad,
                       const std::string &what) {
    Tensor current = trace_.wrap(grad);
    for (const GradHook &hook : hooks)
      if (std::optional<Tensor> replaced = hook(current)) {
        if (!replaced->defined())
          trace_.fail(what + " returned an undefined tensor; return "
                             "std::nullopt to keep the gradient");
        valuesOf({*replaced}, mlir::ValueRange{grad}, what);
        current = *replaced;
      }
    return trace_.valueOf(current, "gradient hook", "a gradient");
  }

  TracedModule::Impl &impl_;
  detail::TraceContext &trace_;
  std::map<int64_t, Call> calls_;
  std::string error_;
};

} // namespace

TracedModule &TracedModule::differentiate(bool inputs) {
  detail::DiagnosticCapture capture(impl_->context, /*modulePaths=*/true);
  auto forward = impl_->module->lookupSymbol<mlir::func::FuncOp>("forward");
  if (!forward || forward.isDeclaration())
    throw Error("nn-autodiff failed: the traced module has no forward");
  // A gradient hook on a model input runs only when backward reaches the
  // inputs; PyTorch refuses one on a tensor that does not require grad
  // rather than never run it.
  for (auto hook : forward.getOps<mlir::nn::GradientHookOp>()) {
    if (hook.getSite() >= impl_->hookSites.size() ||
        impl_->hookSites[hook.getSite()].kind != GradientHookSite::Kind::Tensor)
      continue;
    for (mlir::Value operand : hook->getOperands()) {
      auto arg = llvm::dyn_cast<mlir::BlockArgument>(operand);
      if (!arg || arg.getOwner() != &forward.getBody().front())
        continue;
      bool floating = llvm::isa<mlir::FloatType>(
          llvm::cast<mlir::ShapedType>(arg.getType()).getElementType());
      if (inputs && floating)
        continue;
      auto name = forward.getArgAttrOfType<mlir::StringAttr>(
          arg.getArgNumber(), mlir::nn::NNAttr::kName);
      throw Error("register_hook: model input '" +
                  (name ? name.getValue().str()
                        : "input." + std::to_string(arg.getArgNumber())) +
                  "' does not require grad, so no gradient reaches its hook "
                  "(PyTorch refuses the hook too); hook an intermediate, or "
                  "differentiate with respect to the inputs");
    }
  }
  detail::TraceContext trace(*impl_, forward);
  HookRunner hooks(*impl_, trace);
  if (mlir::failed(
          mlir::nn::differentiate(*impl_->module, forward, inputs, &hooks)))
    throw Error("nn-autodiff failed: " +
                (hooks.error().empty() ? capture.message() : hooks.error()));

  // What the hooks captured: outputs after the gradients.
  if (!trace.captures().empty()) {
    mlir::Block &body = forward.getBody().front();
    mlir::Operation *ret = body.getTerminator();
    unsigned first = ret->getNumOperands();
    for (unsigned i = 0; i < first; ++i)
      if (auto name = forward.getResultAttrOfType<mlir::StringAttr>(
              i, mlir::nn::NNAttr::kName))
        for (const auto &[taken, _] : trace.captures())
          if (name.getValue() == taken)
            throw Error("nn::capture: \"" + taken +
                        "\" is captured twice (forward and a backward hook)");
    llvm::SmallVector<mlir::DictionaryAttr> attrs;
    forward.getAllResultAttrs(attrs);
    mlir::Builder b(&impl_->context);
    for (const auto &[name, value] : trace.captures()) {
      ret->insertOperands(ret->getNumOperands(), value);
      attrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr(mlir::nn::NNAttr::kName, b.getStringAttr(name))));
    }
    forward.setFunctionType(mlir::FunctionType::get(
        &impl_->context, forward.getArgumentTypes(), ret->getOperandTypes()));
    forward.setAllResultAttrs(attrs);
  }
  if (mlir::failed(mlir::verify(*impl_->module)))
    throw Error("nn-autodiff produced invalid IR (a bug in nn): " +
                capture.message());
  return *this;
}

} // namespace nn
