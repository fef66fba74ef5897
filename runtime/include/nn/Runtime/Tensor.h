//===- Tensor.h - Dense tensors and their storage ---------------*- C++ -*-===//
//
// A Tensor is a shape, a dtype and a reference-counted, 64-byte-aligned CPU
// Storage, contiguous and row-major. Copying a Tensor shares its storage (as
// torch.Tensor does); clone() copies the data. Two state_dict names that hold
// Tensors with one Storage are tied.
//
// While a model is traced, forward() sees symbolic tensors: a shape and a
// dtype with no storage, carrying an opaque TraceNode that the tracer uses to
// find the IR value behind the tensor.
//
// A tensor also has a gradient slot, as torch.Tensor does: requires_grad()
// and grad() (undefined, PyTorch's None, until training fills it). Like the
// data, the slot is shared by every copy of a Tensor, so a parameter tied
// into two modules (`head->weight = embed->weight`) has one flag and one
// gradient. Hooks on the gradient (register_hook) live in the slot too;
// they run when a trace of the tensor's model is differentiated.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_TENSOR_H
#define NN_RUNTIME_TENSOR_H

#include "nn/Runtime/DType.h"
#include "nn/Runtime/Device.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/HookHandle.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace nn {

using Shape = std::vector<int64_t>;

/// "2x784"; "scalar" for rank 0.
std::string shape_str(const Shape &shape);

/// Number of elements of a shape; throws nn::Error on a negative dimension or
/// on overflow of int64.
int64_t shape_numel(const Shape &shape);

/// A block of bytes, 64-byte aligned, zero-initialised, freed with its last
/// reference: host memory, or a GPU's (from its caching allocator, see
/// nn/Runtime/Cuda.h), which the CPU cannot address.
class Storage {
public:
  /// Allocates `nbytes` zeroed bytes on `device`; throws nn::Error when out
  /// of memory or when the device cannot be used (no driver, no such GPU).
  static std::shared_ptr<Storage> allocate(size_t nbytes,
                                           Device device = Device::cpu());
  /// The caller's `nbytes` at `data`, neither copied nor freed (the caller
  /// keeps them alive while the storage lives).
  static std::shared_ptr<Storage> borrow(void *data, size_t nbytes);
  ~Storage();
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;

  /// The bytes: a device address for a GPU's storage (null when empty).
  void *data() { return data_; }
  const void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  /// How many times the data may have been written: bumped by every
  /// mutable data access of a Tensor (data_ptr<T>(), raw_data(), copy_),
  /// like torch.Tensor._version. What a compiled model derives from its
  /// state (nn::Artifact::prepare) is recomputed when this moves. A write
  /// through a pointer obtained before is not seen: take the pointer anew
  /// (or call bump_version) after writing.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

private:
  Storage(void *data, size_t nbytes, bool owned, Device device)
      : data_(data), nbytes_(nbytes), owned_(owned), device_(device) {}
  void *data_;
  size_t nbytes_;
  bool owned_;
  Device device_;
  std::atomic<uint64_t> version_{0};
};

/// What the tracer attaches to a symbolic tensor. Defined by the frontend.
class Tensor;
/// A hook on a gradient: sees it, may return a replacement (nullopt keeps
/// it).
using GradHook = std::function<std::optional<Tensor>(const Tensor &grad)>;

struct TraceNode {
  virtual ~TraceNode();
  /// Tensor::register_hook on the symbolic tensor `self`; the tracer's
  /// nodes implement it, the base throws.
  virtual RemovableHandle register_grad_hook(Tensor &self, GradHook hook);
};

/// The gradient slot a Tensor shares with its copies. Defined in Tensor.cpp.
struct AutogradMeta;

class Tensor {
public:
  /// An undefined tensor (defined() is false), like torch::Tensor().
  Tensor() = default;

  /// A zero-filled tensor on `device`.
  static Tensor zeros(Shape shape, DType dtype = DType::f32,
                      Device device = Device::cpu());
  /// A tensor holding a copy of `values`; numel(shape) must equal
  /// values.size().
  template <typename T>
  static Tensor from_vector(const std::vector<T> &values, Shape shape);
  /// A tensor over `data`, which the caller owns and keeps alive while any
  /// copy of the tensor lives (no copy is made), as torch::from_blob. The
  /// data must be contiguous and row-major; it need not be more aligned
  /// than its element type.
  static Tensor from_blob(void *data, Shape shape, DType dtype);
  /// A symbolic tensor: shape and dtype only, for tracing.
  static Tensor symbolic(Shape shape, DType dtype,
                         std::shared_ptr<TraceNode> node);

  bool defined() const { return defined_; }
  bool is_symbolic() const { return node_ != nullptr; }

  const Shape &sizes() const { return shape_; }
  const Shape &shape() const { return shape_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  /// Size of dimension d; negative d counts from the end.
  int64_t size(int64_t d) const;
  int64_t numel() const;
  size_t nbytes() const;
  DType dtype() const { return dtype_; }
  /// Where the data is: the CPU, or a GPU (the CPU for symbolic tensors).
  Device device() const {
    return storage_ ? storage_->device() : Device::cpu();
  }
  bool is_cuda() const { return device().is_cuda(); }

  /// Typed pointer to the first element; throws unless T matches dtype() and
  /// the tensor has storage in host memory (a GPU tensor's data is reached
  /// by copying it: to(Device::cpu()); storage()->data() is its device
  /// address).
  template <typename T> T *data_ptr();
  template <typename T> const T *data_ptr() const;
  void *raw_data();
  const void *raw_data() const;

  const std::shared_ptr<Storage> &storage() const { return storage_; }
  const std::shared_ptr<TraceNode> &node() const { return node_; }
  /// True when both tensors have data in the same Storage.
  bool shares_storage(const Tensor &other) const;

  /// A new tensor with its own copy of the data (and a fresh gradient slot:
  /// like detach().clone(), it does not require grad).
  Tensor clone() const;
  /// This tensor converted to `dtype`, as torch.Tensor.to(dtype): the tensor
  /// itself when it already has that dtype, otherwise a new tensor (with a
  /// fresh gradient slot). Floating-point results round to nearest even;
  /// float64 -> float16/bfloat16 goes through float32, as PyTorch's cast
  /// does. Floating point -> integer truncates toward zero and throws
  /// nn::Error for NaN, infinities and values out of the target's range;
  /// integer -> integer wraps (two's complement), anything -> bool is
  /// `!= 0`.
  Tensor to(DType dtype) const;
  /// This tensor on `device`, as torch.Tensor.to(device): the tensor itself
  /// when it is there already, otherwise a copy (with a fresh gradient
  /// slot).
  Tensor to(Device device) const;
  /// Copies `src`'s data into this tensor's storage, between any devices;
  /// shapes and dtypes must match (the error names both). Ties survive:
  /// the storage is kept.
  void copy_(const Tensor &src);
  /// Element i of a flat view converted to double (any dtype, any device:
  /// a GPU's element is copied to the host); for tests, printing and
  /// comparisons.
  double item_as_double(int64_t flat_index) const;

  /// "Tensor[float32, 2x784]"; "Tensor[float32, 2x784, cuda:0]" on a GPU.
  std::string to_string() const;

  //===-- Gradient slot (shared by every copy of this Tensor) -------------===//

  /// Whether gradients are wanted for this tensor; false for a new tensor.
  bool requires_grad() const;
  /// Sets requires_grad; only floating-point tensors can require gradients
  /// (nn::Error otherwise). Returns *this, as libtorch's does.
  Tensor &set_requires_grad(bool requires_grad);
  /// torch.Tensor.requires_grad_.
  Tensor &requires_grad_(bool requires_grad = true) {
    return set_requires_grad(requires_grad);
  }
  /// The gradient: undefined (None) until something sets it.
  const Tensor &grad() const;
  /// Sets the gradient: an undefined Tensor (None), or one with this
  /// tensor's shape, dtype and device (nn::Error otherwise).
  void set_grad(Tensor grad);

  /// PyTorch's Tensor.register_hook: `hook(grad)` runs on this tensor's
  /// gradient, summed over its uses, before it reaches grad() — void,
  /// std::nullopt or a Tensor of the same shape and dtype that replaces it
  /// (to mask or scale a parameter's gradient). It runs when a trace that
  /// reads the tensor is differentiated (nn::TrainStep recompiles when
  /// hooks change), on the symbolic gradient. On a parameter, it needs
  /// requires_grad; on a symbolic tensor inside forward it hooks that
  /// intermediate's gradient, every use of the tensor included.
  /// Accepted forms: (const Tensor&) -> void | Tensor | std::optional<Tensor>.
  template <typename Fn> RemovableHandle register_hook(Fn hook);
  RemovableHandle add_grad_hook(GradHook hook);
  /// The gradient hooks, in registration order.
  std::vector<GradHook> grad_hooks() const;
  /// Changes whenever a gradient hook is added or removed.
  uint64_t grad_hooks_version() const;

private:
  bool defined_ = false;
  Shape shape_;
  DType dtype_ = DType::f32;
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<TraceNode> node_;
  std::shared_ptr<AutogradMeta> autograd_;
  AutogradMeta &autograd_meta(const char *what);
  void check_dtype(DType expected) const;
  void check_numel_matches(size_t count) const;
};

template <typename T>
Tensor Tensor::from_vector(const std::vector<T> &values, Shape shape) {
  Tensor t = zeros(std::move(shape), DTypeOf<T>::value);
  t.check_numel_matches(values.size());
  T *out = t.data_ptr<T>();
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = values[i];
  return t;
}

template <typename Fn> RemovableHandle Tensor::register_hook(Fn hook) {
  static_assert(std::is_invocable_v<Fn &, const Tensor &>,
                "a tensor hook is (const Tensor& grad)");
  return add_grad_hook([hook = std::move(hook)](const Tensor &grad) mutable
                       -> std::optional<Tensor> {
    using R = std::invoke_result_t<Fn &, const Tensor &>;
    if constexpr (std::is_void_v<R>) {
      hook(grad);
      return std::nullopt;
    } else {
      return hook(grad);
    }
  });
}

template <typename T> T *Tensor::data_ptr() {
  check_dtype(DTypeOf<T>::value);
  return static_cast<T *>(raw_data());
}
template <typename T> const T *Tensor::data_ptr() const {
  check_dtype(DTypeOf<T>::value);
  return static_cast<const T *>(raw_data());
}

} // namespace nn

#endif // NN_RUNTIME_TENSOR_H
