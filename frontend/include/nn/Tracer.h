//===- Tracer.h - Tracing a forward into the nn dialect ---------*- C++ -*-===//
//
// nn::trace runs a module's forward once on symbolic tensors (shape and dtype,
// no data) and records every functional op into an nn dialect module:
// parameters and buffers become symbols named by their state_dict keys, each
// op is located at the module path it came from. Control flow in forward is
// ordinary C++ and is unrolled by the trace. Any other concrete tensor that
// forward uses (an index list, a mask made in forward) is recorded as a
// constant with its values at the time of the trace, as torch.jit.trace
// does.
//
//   auto traced = nn::trace(model, {nn::TensorSpec({64, 784})});
//   std::cout << traced.to_string();   // the nn IR
//   traced.optimize();                 // nn-optimize: clean-up, fusion
//
// The traced module keeps the model's tensors (shared, not copied) to bind
// when it is compiled. MLIR types never appear here: the IR lives behind a
// pimpl.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TRACER_H
#define NN_TRACER_H

#include "nn/Frontend/Module.h"
#include "nn/Frontend/ModuleHolder.h"

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace nn {

/// Shape, dtype and (optional) name of a traced input; unnamed inputs are
/// "input.0", "input.1", …
struct TensorSpec {
  TensorSpec(Shape shape, DType dtype = DType::f32, std::string name = "")
      : shape(std::move(shape)), dtype(dtype), name(std::move(name)) {}
  Shape shape;
  DType dtype;
  std::string name;
};

/// The stages of nn-optimize (each on by default).
struct OptimizeOptions {
  /// Merge tied parameters into one symbol (nn-tie-weights).
  bool tie_weights = true;
  /// Fold eval batch norm into the conv/linear before it (nn-fold-batchnorm).
  bool fold_batchnorm = true;
  /// Fold constant scalar factors into weights or the attention scale
  /// (nn-fold-scalar-mul).
  bool fold_scalar_mul = true;
  /// Merge linears of one input into one (nn-merge-linears).
  bool merge_linears = true;
  /// Compute 3-D convolutions as sums of 2-D ones, which run on the
  /// convolution kernels (nn-decompose-conv3d).
  bool decompose_conv3d = true;
  /// Run the fusion pass (nn-fuse).
  bool fuse = true;
};

class TracedModule {
public:
  /// The IR in MLIR's textual form; with locations when `debug_info`.
  std::string to_string(bool debug_info = false) const;
  /// Runs the nn-optimize pipeline in place. Throws nn::Error on failure.
  TracedModule &optimize(const OptimizeOptions &options = {});
  /// Reverse-mode differentiation (nn-autodiff): the traced function's first
  /// output must be a scalar loss; after its outputs come the gradients of
  /// the loss with respect to every trainable parameter it depends on, named
  /// "grad.<state_dict key>" (none for a frozen or unused parameter, as
  /// PyTorch leaves their grad None), and with `inputs` those of the
  /// floating-point inputs ("grad.input.0", ...). The backward hooks the
  /// trace met (a module's full backward hooks and pre-hooks, the gradient
  /// hooks of its parameters and intermediates; see Hooks.h) run now, on the
  /// symbolic gradients, and what they capture follows as named outputs; the
  /// modules that registered them must still be alive. Throws nn::Error
  /// naming the op and its module path when an op has no gradient rule, or
  /// the module path and the hook when a hook fails or returns a gradient
  /// of the wrong count, shape or dtype.
  TracedModule &differentiate(bool inputs = false);
  /// A deep copy (the IR; the bound tensors stay shared).
  TracedModule clone() const;
  /// The tensors to bind, under their state_dict names: every parameter and
  /// every buffer (non-persistent ones too), a tied tensor under each name.
  const StateDict &state() const;

  struct Impl;
  explicit TracedModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl> &impl() const { return impl_; }

private:
  std::shared_ptr<Impl> impl_;
};

/// Traces `forward` (called with one symbolic tensor per spec) with `root` as
/// the module tree that owns the parameters and names the paths. `extra`
/// module trees (a loss module, say) may be read too; their tensors are
/// named under the given prefix ("loss" → "loss.weight").
TracedModule
trace(Module &root, const std::vector<TensorSpec> &inputs,
      const std::function<std::vector<Tensor>(const std::vector<Tensor> &)>
          &forward,
      const std::vector<std::pair<std::string, Module *>> &extra = {});

/// Makes `value` (a symbolic tensor of the trace in progress) the extra
/// output `name` of the traced function, after forward's own outputs:
/// feature capture from a forward hook (Module::register_capture_hook) or
/// from forward itself. Compiled, it is returned beside the result under
/// that name (Artifact::run with a StateDict gives outputs by name). Throws
/// nn::Error outside a trace, for a name captured twice, or for a name of
/// the form "output.N" (forward's own outputs).
void capture(const std::string &name, const Tensor &value);

namespace detail {
/// Every Tensor of a forward's result, depth first (what the forward hooks
/// see too): a Tensor, or tuples/pairs/vectors of them, nested as LSTM's
/// (output, (h_n, c_n)).
template <typename T> std::vector<Tensor> flatten_outputs(T result) {
  return gather_tensors(result);
}

template <size_t> using TensorArg = const Tensor &;

/// Calls `model` with args[0..N) when its forward takes N tensors.
template <size_t N, typename Holder>
bool try_call_forward(const Holder &model, const std::vector<Tensor> &args,
                      std::vector<Tensor> &outputs) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    if constexpr (std::is_invocable_v<const Holder &, TensorArg<I>...>) {
      if (args.size() != N)
        return false;
      outputs = flatten_outputs(model(args[I]...));
      return true;
    } else {
      return false;
    }
  }
  (std::make_index_sequence<N>());
}

/// Calls `model` with `args` when its forward takes that many tensors (1 to
/// 4), setting `outputs` (flattened); false when it takes another number.
template <typename Holder>
bool call_forward(const Holder &model, const std::vector<Tensor> &args,
                  std::vector<Tensor> &outputs) {
  return try_call_forward<1>(model, args, outputs) ||
         try_call_forward<2>(model, args, outputs) ||
         try_call_forward<3>(model, args, outputs) ||
         try_call_forward<4>(model, args, outputs);
}
} // namespace detail

/// Traces a module holder's forward; it takes as many tensors as there are
/// specs (1 to 4) and returns a Tensor or tuples/pairs/vectors of them,
/// nested at any depth (flattened depth first into the outputs).
template <typename C>
TracedModule trace(const ModuleHolder<C> &model,
                   const std::vector<TensorSpec> &inputs) {
  auto forward = [&](const std::vector<Tensor> &args) {
    std::vector<Tensor> outputs;
    if (detail::call_forward(model, args, outputs))
      return outputs;
    throw Error("nn::trace: " + std::to_string(args.size()) +
                " input specs given, but " + model->name() +
                "'s forward does not take that many tensors");
  };
  return trace(*model, inputs, forward);
}

/// Traces a module's forward from a reference to it (`trace(*model, specs)`,
/// or a module that is a member of another): as the holder form, hooks
/// included. The module must outlive the call only.
template <typename C>
requires std::derived_from<C, Module>
    TracedModule trace(C &module, const std::vector<TensorSpec> &inputs) {
  // A holder that does not own the module (aliasing an empty owner).
  return trace(
      ModuleHolder<C>(std::shared_ptr<C>(std::shared_ptr<C>(), &module)),
      inputs);
}

} // namespace nn

#endif // NN_TRACER_H
