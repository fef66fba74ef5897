//===- TraceContext.h - The state of a trace in progress --------*- C++ -*-===//
//
// Private to the frontend. A TraceContext exists while nn::trace runs a
// forward: it owns the builder, maps model tensors (by storage) to their
// state symbols and symbolic tensors to IR values, tracks the module path of
// the current call, and turns op-construction diagnostics into nn::Error
// messages prefixed with that path. The current trace is a scoped,
// thread-local pointer — the one piece of implicit state the frontend has.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_LIB_TRACECONTEXT_H
#define NN_FRONTEND_LIB_TRACECONTEXT_H

#include "nn/Frontend/Module.h"
#include "nn/Tracer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mlir::nn {
struct OptimizePipelineOptions;
} // namespace mlir::nn

namespace nn {

namespace detail {
/// nn-optimize's options as `options` ask for them: the one mapping that
/// TracedModule::optimize and the compile pipeline (nn::compile) both use.
std::shared_ptr<mlir::nn::OptimizePipelineOptions>
optimizePipelineOptions(const OptimizeOptions &options);

/// What backward runs at one nn.gradient_hook of a trace (its `site`): a
/// module call's backward hooks, at its inputs or its outputs, or the hooks
/// on one intermediate tensor's gradient. The hooks are those registered
/// when the trace ran.
struct GradientHookSite {
  enum class Kind { ModuleInputs, ModuleOutputs, Tensor };
  Kind kind;
  /// The module path (or, for a tensor, where its hook was registered).
  std::string path;
  /// The module kinds: the module and its call, the number of the call's
  /// inputs site (which its outputs site shares).
  Module *module = nullptr;
  int64_t call = -1;
  std::vector<BackwardPreHook> pre;
  std::vector<BackwardHook> full;
  /// The tensor kind.
  std::vector<GradHook> tensor;
};
} // namespace detail

struct TracedModule::Impl {
  Impl();
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  StateDict state; // symbol name → tensor to bind
  /// By nn.gradient_hook site.
  std::vector<detail::GradientHookSite> hookSites;
};

namespace detail {

/// Collects the diagnostics emitted on a context while alive (instead of
/// printing them), to put them into an exception message.
class DiagnosticCapture {
public:
  /// With `modulePaths`, each message starts with the module path its
  /// location names ("layer1.0.conv: ..."), where it names one.
  explicit DiagnosticCapture(mlir::MLIRContext &context,
                             bool modulePaths = false);
  /// Every message so far, joined with "; ".
  std::string message() const;

private:
  std::vector<std::string> messages_;
  mlir::ScopedDiagnosticHandler handler_;
};

/// The element type of `dtype` in the nn dialect.
mlir::Type elementType(mlir::MLIRContext &context, DType dtype);

class TraceContext {
public:
  /// `extra` are further module trees whose state the trace may read, named
  /// under their prefix ("loss" → "loss.weight"), as a loss module's.
  TraceContext(TracedModule::Impl &impl, Module &root,
               const std::vector<std::pair<std::string, Module *>> &extra = {});
  /// A trace resumed after the fact in `impl`'s traced `forward`, where
  /// backward hooks build on the gradients: the model's tensors are the
  /// state impl binds.
  TraceContext(TracedModule::Impl &impl, mlir::func::FuncOp forward);
  ~TraceContext();

  /// The trace in progress; throws nn::Error naming `op` when there is none.
  static TraceContext &current(const char *op);
  /// The trace in progress or nullptr.
  static TraceContext *active();

  /// The IR value of `tensor`: a symbolic tensor of this trace, a model
  /// parameter/buffer (read with nn.load), or any other concrete tensor as
  /// a constant (constantOf). `role` names it in errors.
  mlir::Value valueOf(const Tensor &tensor, const char *op, const char *role);
  /// A concrete tensor that forward uses and that is no state of the model
  /// (an index list, a mask made in forward): its values as of this call,
  /// an arith.constant of the trace, as torch.jit.trace captures them. One
  /// that requires grad is refused: it was meant to be a parameter.
  mlir::Value constantOf(const Tensor &tensor, const char *op,
                         const char *role);
  /// A symbolic tensor for `value`.
  Tensor wrap(mlir::Value value);
  /// A rank-0 constant holding `value` in the element type of `like` (a
  /// tensor type), for scalar operands.
  mlir::Value scalar(double value, mlir::Type like);
  /// Records `buffer = value` for the model buffer `buffer` (nn.store); later
  /// reads of the buffer in this trace get `value`. Throws nn::Error (naming
  /// `op`) unless `buffer` is a buffer of the traced model of value's type.
  void store(const Tensor &buffer, mlir::Value value, const char *op);

  /// In a resumed trace (a training step's optimizer update): declares
  /// `tensor` as the persistent buffer `name`, which the trace may then read
  /// and write (store), and the artifact binds by that name. With
  /// `startsAtZero`, a loader that is not given it creates it as zeros (the
  /// state of an optimizer that has not stepped yet).
  void declareBuffer(const std::string &name, const Tensor &tensor,
                     bool startsAtZero = false);
  /// In a resumed trace: adds the input `name` (a tensor of `shape` and
  /// `dtype`) to forward after its inputs (before the generator state),
  /// with the further argument attributes `attrs`; returns it.
  mlir::Value addInput(const std::string &name, const Shape &shape, DType dtype,
                       llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// Lets store() write parameters too: the trace is an optimizer update.
  void allowParameterStores() { parameterStores_ = true; }

  /// Creates `OpTy` with `args`, infers its result type, verifies it, and
  /// returns its result as a symbolic tensor; on failure erases the op and
  /// throws nn::Error "<module path>: <diagnostic>".
  template <typename OpTy, typename... Args>
  Tensor emit(mlir::Type resultGuess, Args &&...args) {
    DiagnosticCapture capture(impl_.context);
    auto op = builder.create<OpTy>(location(), resultGuess,
                                   std::forward<Args>(args)...);
    return finish(op.getOperation(), capture);
  }

  /// emit for ops with several results (nn.split): `resultGuesses` gives
  /// their number; returns every result, in order.
  template <typename OpTy, typename... Args>
  std::vector<Tensor> emitAll(mlir::TypeRange resultGuesses, Args &&...args) {
    DiagnosticCapture capture(impl_.context);
    auto op = builder.create<OpTy>(location(), resultGuesses,
                                   std::forward<Args>(args)...);
    return finishAll(op.getOperation(), capture);
  }

  /// Records `value` as the extra output `name` (nn::capture).
  void capture(const std::string &name, const Tensor &value);
  /// The captured outputs, in capture order.
  const std::vector<std::pair<std::string, mlir::Value>> &captures() const {
    return captures_;
  }
  /// The generator state and counter offset of the next random op of this
  /// trace, which draws `count` numbers. The state is one argument of the
  /// forward (added at the first call, marked `nn.rng` by nn::trace) that
  /// the runtime supplies and advances per run; the offsets of successive
  /// calls never overlap.
  std::pair<mlir::Value, int64_t> nextRandomStream(int64_t count);
  /// The forward's entry block, where nextRandomStream adds the state.
  void setEntryBlock(mlir::Block *entry) { entry_ = entry; }
  /// The state argument (null when nothing random was traced) and how many
  /// numbers one run draws.
  mlir::Value rngState() const { return rngState_; }
  int64_t randomDraws() const { return randomOffset_; }

  /// Routes `values` through a new nn.gradient_hook for `site`; returns
  /// what replaces them.
  llvm::SmallVector<mlir::Value> addGradientHook(mlir::ValueRange values,
                                                 GradientHookSite site);
  /// Hooks the gradient of `value` (a symbolic tensor's): every use of it
  /// goes through one nn.gradient_hook placed after its definition, which
  /// it returns (the tensor's new value); a second hook joins the first.
  mlir::Value hookGradient(mlir::Value value, GradHook hook);
  TracedModule::Impl &impl() { return impl_; }

  void pushModule(const Module &module);
  /// pushModule by path (a resumed trace has no module tree).
  void pushPath(const std::string &path) { paths_.push_back(path); }
  void popModule();
  /// The dotted path of the module being called ("" at the root).
  const std::string &path() const { return paths_.back(); }
  mlir::Location location();
  /// Throws nn::Error with the current module path as prefix.
  [[noreturn]] void fail(const std::string &message) const;

  mlir::OpBuilder builder;

private:
  Tensor finish(mlir::Operation *op, const DiagnosticCapture &capture);
  /// finish, returning every result.
  std::vector<Tensor> finishAll(mlir::Operation *op,
                                const DiagnosticCapture &capture);
  void declareState(Module &root, const std::string &prefix);

  TracedModule::Impl &impl_;
  TraceContext *previous_;
  std::unordered_map<const Module *, std::string> modulePaths_;
  std::vector<std::string> paths_;
  std::unordered_map<const void *, std::string> stateSymbols_; // by storage
  std::unordered_map<std::string, mlir::Value> loads_;
  std::vector<std::pair<std::string, mlir::Value>> captures_;
  mlir::Block *entry_ = nullptr;
  bool parameterStores_ = false;
  mlir::Value rngState_;
  int64_t randomOffset_ = 0;
};

} // namespace detail
} // namespace nn

#endif // NN_FRONTEND_LIB_TRACECONTEXT_H
