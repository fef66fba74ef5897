//===- Tensor.cpp - Dense tensors and their storage -------------*- C++ -*-===//
//
// Storage is a 64-byte-aligned, zero-filled block of bytes (a zero-byte
// Storage still has a valid, aligned data pointer). A Tensor is a view of a
// whole Storage: contiguous, row-major, no offset or strides, plus the
// gradient slot (AutogradMeta) its copies share. Every misuse
// (wrong dtype, mismatched shapes, a symbolic tensor where data is needed)
// throws nn::Error with a message that names what was expected and what was
// found.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Tensor.h"

#include "Cuda/Memory.h"
#include "nn/Runtime/Error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace nn {

namespace {

constexpr size_t kStorageAlignment = 64;

/// Converts IEEE binary16 bits to a double, subnormals, infinities and NaNs
/// included.
double halfToDouble(uint16_t bits) {
  bool negative = bits & 0x8000;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(static_cast<double>(mantissa), -24);
  else if (exponent == 0x1f)
    value = mantissa ? std::numeric_limits<double>::quiet_NaN()
                     : std::numeric_limits<double>::infinity();
  else
    value = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
  return negative ? -value : value;
}

/// Converts bfloat16 bits (the top half of a binary32) to a double.
double bfloat16ToDouble(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// Reads one T at `p` without assuming alignment.
template <typename T> T load(const unsigned char *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// Writes one T at `p` without assuming alignment.
template <typename T> void store(unsigned char *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// IEEE binary16 bits of `value`, rounded to nearest even (c10::Half's
/// conversion): overflow gives infinity, NaN a quiet NaN of the same sign.
uint16_t floatToHalfBits(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN
    return sign | 0x7e00;
  if (magnitude >= 0x477ff000) // >= 65520 rounds to infinity
    return sign | 0x7c00;
  uint32_t exponent = magnitude >> 23; // biased by 127
  if (exponent < 113) {
    // Below 2^-14: a half subnormal, in units of 2^-24. The float's value is
    // mantissa * 2^(exponent - 150) (float subnormals are far below 2^-25).
    if (exponent == 0)
      return sign;
    uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exponent; // >= 14
    if (shift > 24)
      return sign; // below half of 2^-24
    uint32_t result = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (result & 1)))
      ++result; // may carry into the smallest normal, which is correct
    return sign | static_cast<uint16_t>(result);
  }
  uint32_t result = ((exponent - 112) << 10) | ((magnitude >> 13) & 0x3ff);
  uint32_t rest = magnitude & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (result & 1)))
    ++result; // a carry moves to the next binade (or to infinity)
  return sign | static_cast<uint16_t>(result);
}

/// bfloat16 bits of `value`, rounded to nearest even (c10::BFloat16's
/// conversion); NaN becomes 0x7fc0.
uint16_t floatToBFloat16Bits(float value) {
  if (std::isnan(value))
    return 0x7fc0;
  uint32_t bits = floatBits(value);
  uint32_t roundingBias = ((bits >> 16) & 1) + 0x7fff;
  return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

/// One element on its way through Tensor::to: a double for floating-point
/// sources (exact for every one of them), an int64 for the others.
struct Element {
  bool isFloat;
  double real;
  int64_t integer;
};

Element readElement(const unsigned char *p, DType dtype) {
  switch (dtype) {
  case DType::f32:
    return {true, load<float>(p), 0};
  case DType::f64:
    return {true, load<double>(p), 0};
  case DType::f16:
    return {true, halfToDouble(load<uint16_t>(p)), 0};
  case DType::bf16:
    return {true, bfloat16ToDouble(load<uint16_t>(p)), 0};
  case DType::i64:
    return {false, 0, load<int64_t>(p)};
  case DType::i32:
    return {false, 0, load<int32_t>(p)};
  case DType::i8:
    return {false, 0, load<int8_t>(p)};
  case DType::u8:
    return {false, 0, load<uint8_t>(p)};
  case DType::boolean:
    return {false, 0, load<uint8_t>(p) != 0};
  }
  return {false, 0, 0};
}

/// The integer a floating-point element converts to (truncated toward
/// zero), or nullopt when T cannot hold it.
template <typename T> std::optional<T> truncateTo(double value) {
  if (!std::isfinite(value))
    return std::nullopt;
  double truncated = std::trunc(value);
  // Both bounds are exact doubles: -2^(n-1) and 2^(n-1) for signed types.
  double low = static_cast<double>(std::numeric_limits<T>::min());
  double high = -2.0 * static_cast<double>(std::numeric_limits<T>::min() / 2);
  if constexpr (std::is_unsigned_v<T>)
    high = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  if (truncated < low || truncated >= high)
    return std::nullopt;
  return static_cast<T>(truncated);
}

/// float for an element bound for float32/float16/bfloat16: a single
/// rounding for float64 (and int) sources, exact for the others.
float toFloat(const Element &e) {
  return e.isFloat ? static_cast<float>(e.real) : static_cast<float>(e.integer);
}

} // namespace

/// The gradient slot behind Tensor::requires_grad and Tensor::grad.
struct GradHookEntry {
  uint64_t id = 0;
  GradHook hook;
};

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;
  /// Created by the first hook; shared with the handles (weakly).
  std::shared_ptr<detail::HookList<GradHookEntry>> hooks;
};

std::string shape_str(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

int64_t shape_numel(const Shape &shape) {
  int64_t numel = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      throw Error("shape " + shape_str(shape) + " has negative dimension " +
                  std::to_string(shape[i]) + " at index " + std::to_string(i));
  }
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(numel, d, &numel))
      throw Error("shape " + shape_str(shape) +
                  " has more elements than int64 can count");
  }
  return numel;
}

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.is_cuda())
    return std::shared_ptr<Storage>(
        new Storage(cuda::detail::allocateZeroed(device.index(), nbytes),
                    nbytes, /*owned=*/true, device));
  // aligned_alloc wants a size that is a multiple of the alignment; a
  // zero-byte request still gets one aligned block so data() is never null.
  size_t rounded = nbytes == 0 ? kStorageAlignment : nbytes;
  if (rounded > std::numeric_limits<size_t>::max() - (kStorageAlignment - 1))
    throw Error("cannot allocate " + std::to_string(nbytes) +
                " bytes: size too large");
  rounded = (rounded + kStorageAlignment - 1) & ~(kStorageAlignment - 1);
  void *data = std::aligned_alloc(kStorageAlignment, rounded);
  if (!data)
    throw Error("out of memory allocating " + std::to_string(nbytes) +
                " bytes of tensor storage");
  std::memset(data, 0, rounded);
  return std::shared_ptr<Storage>(
      new Storage(data, nbytes, /*owned=*/true, Device::cpu()));
}

std::shared_ptr<Storage> Storage::borrow(void *data, size_t nbytes) {
  return std::shared_ptr<Storage>(
      new Storage(data, nbytes, /*owned=*/false, Device::cpu()));
}

Storage::~Storage() {
  if (!owned_)
    return;
  if (device_.is_cuda())
    cuda::detail::deallocate(device_.index(), data_);
  else
    std::free(data_);
}

TraceNode::~TraceNode() = default;

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

/// The bytes of a tensor of `shape` and `dtype`; throws when they do not
/// fit a size_t.
static size_t bytesOf(const Shape &shape, DType dtype) {
  int64_t numel = shape_numel(shape);
  size_t nbytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(numel), dtype_size(dtype),
                             &nbytes))
    throw Error("tensor of shape " + shape_str(shape) + " and dtype " +
                std::string(dtype_name(dtype)) + " is too large to allocate");
  return nbytes;
}

Tensor Tensor::zeros(Shape shape, DType dtype, Device device) {
  size_t nbytes = bytesOf(shape, dtype);
  Tensor t;
  t.defined_ = true;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.storage_ = Storage::allocate(nbytes, device);
  t.autograd_ = std::make_shared<AutogradMeta>();
  return t;
}

Tensor Tensor::from_blob(void *data, Shape shape, DType dtype) {
  size_t nbytes = bytesOf(shape, dtype);
  if (!data && nbytes > 0)
    throw Error("Tensor::from_blob: null data for a tensor of shape " +
                shape_str(shape));
  Tensor t;
  t.defined_ = true;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.storage_ = Storage::borrow(data, nbytes);
  t.autograd_ = std::make_shared<AutogradMeta>();
  return t;
}

Tensor Tensor::symbolic(Shape shape, DType dtype,
                        std::shared_ptr<TraceNode> node) {
  if (!node)
    throw Error("Tensor::symbolic needs a trace node");
  shape_numel(shape); // Validates the shape.
  Tensor t;
  t.defined_ = true;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.node_ = std::move(node);
  return t;
}

int64_t Tensor::size(int64_t d) const {
  int64_t rank = dim();
  int64_t index = d < 0 ? d + rank : d;
  if (index < 0 || index >= rank)
    throw Error("dimension " + std::to_string(d) +
                " is out of range for a tensor of rank " +
                std::to_string(rank) + " (" + to_string() + ")");
  return shape_[index];
}

int64_t Tensor::numel() const { return shape_numel(shape_); }

size_t Tensor::nbytes() const {
  return static_cast<size_t>(numel()) * dtype_size(dtype_);
}

void *Tensor::raw_data() {
  void *data =
      const_cast<void *>(static_cast<const Tensor *>(this)->raw_data());
  // A mutable pointer may be written through (see Storage::version).
  storage_->bump_version();
  return data;
}

const void *Tensor::raw_data() const {
  if (!defined_)
    throw Error("data access on an undefined tensor");
  if (!storage_)
    throw Error("data access on a symbolic tensor " + to_string() +
                ": it has no storage while tracing");
  if (storage_->device().is_cuda())
    throw Error("data access on " + to_string() +
                ": its data is in GPU memory, which the CPU cannot address; "
                "copy it to the CPU with to(Device::cpu())");
  return storage_->data();
}

bool Tensor::shares_storage(const Tensor &other) const {
  return storage_ && storage_ == other.storage_;
}

Tensor Tensor::clone() const {
  if (!defined_)
    return Tensor();
  if (!storage_)
    throw Error("clone() of a symbolic tensor " + to_string() +
                ": it has no data while tracing");
  Tensor t = zeros(shape_, dtype_, device());
  cuda::detail::copy(t.storage_->data(), t.device(), storage_->data(), device(),
                     nbytes());
  return t;
}

void Tensor::copy_(const Tensor &src) {
  if (!defined_ || !src.defined_)
    throw Error("copy_ between " + to_string() + " and " + src.to_string() +
                ": both tensors must be defined");
  if (shape_ != src.shape_ || dtype_ != src.dtype_)
    throw Error("copy_: destination " + to_string() + " and source " +
                src.to_string() + " differ in " +
                (shape_ != src.shape_ ? "shape" : "dtype"));
  if (!storage_ || !src.storage_)
    throw Error("copy_ between " + to_string() + " and " + src.to_string() +
                ": a symbolic tensor has no data while tracing");
  storage_->bump_version();
  if (storage_->data() != src.storage_->data())
    cuda::detail::copy(storage_->data(), device(), src.storage_->data(),
                       src.device(), nbytes());
}

Tensor Tensor::to(Device device) const {
  if (!defined_)
    throw Error("to(" + device.str() + ") of an undefined tensor");
  if (!storage_)
    throw Error("to(" + device.str() + ") of a symbolic tensor " + to_string() +
                ": it has no data while tracing");
  if (device == this->device())
    return *this;
  Tensor result = zeros(shape_, dtype_, device);
  result.copy_(*this);
  return result;
}

double Tensor::item_as_double(int64_t flat_index) const {
  int64_t count = numel();
  if (flat_index < 0 || flat_index >= count)
    throw Error("item_as_double: index " + std::to_string(flat_index) +
                " is out of range for " + to_string() + " with " +
                std::to_string(count) + " elements");
  const unsigned char *p;
  unsigned char element[8]; // the widest dtype
  if (is_cuda()) {
    cuda::detail::copy(element, Device::cpu(),
                       static_cast<const unsigned char *>(storage_->data()) +
                           flat_index * dtype_size(dtype_),
                       device(), dtype_size(dtype_));
    p = element;
  } else {
    p = static_cast<const unsigned char *>(raw_data()) +
        flat_index * dtype_size(dtype_);
  }
  switch (dtype_) {
  case DType::f32:
    return load<float>(p);
  case DType::f64:
    return load<double>(p);
  case DType::f16:
    return halfToDouble(load<uint16_t>(p));
  case DType::bf16:
    return bfloat16ToDouble(load<uint16_t>(p));
  case DType::i64:
    return static_cast<double>(load<int64_t>(p));
  case DType::i32:
    return load<int32_t>(p);
  case DType::i8:
    return load<int8_t>(p);
  case DType::u8:
    return load<uint8_t>(p);
  case DType::boolean:
    return load<uint8_t>(p) != 0 ? 1.0 : 0.0;
  }
  return 0.0;
}

Tensor Tensor::to(DType dtype) const {
  if (!defined_)
    throw Error(std::string("to(") + std::string(dtype_name(dtype)) +
                ") of an undefined tensor");
  if (dtype == dtype_)
    return *this;
  if (!storage_)
    throw Error(std::string("to(") + std::string(dtype_name(dtype)) +
                ") of a symbolic tensor " + to_string() +
                ": it has no data while tracing");
  if (is_cuda()) // converted on the host, for now
    return to(Device::cpu()).to(dtype).to(device());
  Tensor result = zeros(shape_, dtype);
  int64_t count = numel();
  const auto *in = static_cast<const unsigned char *>(raw_data());
  auto *out = static_cast<unsigned char *>(result.raw_data());
  size_t inSize = dtype_size(dtype_), outSize = dtype_size(dtype);
  for (int64_t i = 0; i < count; ++i) {
    Element e = readElement(in + i * inSize, dtype_);
    unsigned char *p = out + i * outSize;
    auto integer = [&]<typename T>(T *) {
      if (!e.isFloat) {
        store<T>(p, static_cast<T>(e.integer));
        return;
      }
      std::optional<T> value = truncateTo<T>(e.real);
      if (!value) {
        char text[32];
        std::snprintf(text, sizeof(text), "%.17g", e.real);
        throw Error(std::string("to(") + std::string(dtype_name(dtype)) +
                    "): element " + std::to_string(i) + " of " + to_string() +
                    " is " + text + ", which " +
                    std::string(dtype_name(dtype)) + " cannot hold");
      }
      store<T>(p, *value);
    };
    switch (dtype) {
    case DType::f32:
      store<float>(p, toFloat(e));
      break;
    case DType::f64:
      store<double>(p, e.isFloat ? e.real : static_cast<double>(e.integer));
      break;
    case DType::f16:
      store<uint16_t>(p, floatToHalfBits(toFloat(e)));
      break;
    case DType::bf16:
      store<uint16_t>(p, floatToBFloat16Bits(toFloat(e)));
      break;
    case DType::i64:
      integer(static_cast<int64_t *>(nullptr));
      break;
    case DType::i32:
      integer(static_cast<int32_t *>(nullptr));
      break;
    case DType::i8:
      integer(static_cast<int8_t *>(nullptr));
      break;
    case DType::u8:
      integer(static_cast<uint8_t *>(nullptr));
      break;
    case DType::boolean:
      store<uint8_t>(p, e.isFloat ? e.real != 0.0 : e.integer != 0);
      break;
    }
  }
  return result;
}

AutogradMeta &Tensor::autograd_meta(const char *what) {
  if (!defined_)
    throw Error(std::string(what) + " on an undefined tensor");
  // Symbolic tensors get a slot on first use; tensors with storage have
  // one from the start, so every copy shares it.
  if (!autograd_)
    autograd_ = std::make_shared<AutogradMeta>();
  return *autograd_;
}

bool Tensor::requires_grad() const {
  return autograd_ && autograd_->requires_grad;
}

Tensor &Tensor::set_requires_grad(bool requires_grad) {
  AutogradMeta &meta = autograd_meta("set_requires_grad");
  if (requires_grad && !is_floating_point(dtype_))
    throw Error("set_requires_grad: only tensors of floating point dtype can "
                "require gradients, got " +
                to_string());
  meta.requires_grad = requires_grad;
  return *this;
}

const Tensor &Tensor::grad() const {
  static const Tensor none;
  return autograd_ ? autograd_->grad : none;
}

void Tensor::set_grad(Tensor grad) {
  AutogradMeta &meta = autograd_meta("set_grad");
  if (grad.defined() &&
      (grad.shape_ != shape_ || grad.dtype_ != dtype_ ||
       (grad.storage_ && storage_ && grad.device() != device())))
    throw Error("set_grad: the gradient " + grad.to_string() +
                " must have the shape, dtype and device of " + to_string());
  meta.grad = std::move(grad);
}

RemovableHandle TraceNode::register_grad_hook(Tensor &self, GradHook) {
  throw Error("register_hook: " + self.to_string() +
              " belongs to no trace in progress");
}

RemovableHandle Tensor::add_grad_hook(GradHook hook) {
  if (is_symbolic())
    return node_->register_grad_hook(*this, std::move(hook));
  AutogradMeta &meta = autograd_meta("register_hook");
  if (!meta.requires_grad)
    throw Error("register_hook: " + to_string() +
                " does not require grad, so it gets no gradient to hook");
  if (!meta.hooks)
    meta.hooks = std::make_shared<detail::HookList<GradHookEntry>>();
  uint64_t id = meta.hooks->add({0, std::move(hook)});
  return RemovableHandle(meta.hooks, id);
}

std::vector<GradHook> Tensor::grad_hooks() const {
  std::vector<GradHook> hooks;
  if (autograd_ && autograd_->hooks)
    for (const GradHookEntry &entry : autograd_->hooks->entries())
      hooks.push_back(entry.hook);
  return hooks;
}

uint64_t Tensor::grad_hooks_version() const {
  return autograd_ && autograd_->hooks ? autograd_->hooks->version() : 0;
}

std::string Tensor::to_string() const {
  if (!defined_)
    return "Tensor[undefined]";
  std::string out = "Tensor[";
  out += dtype_name(dtype_);
  out += ", ";
  out += shape_str(shape_);
  if (!storage_)
    out += ", symbolic";
  else if (is_cuda())
    out += ", " + device().str();
  out += ']';
  return out;
}

void Tensor::check_dtype(DType expected) const {
  if (!defined_)
    throw Error(std::string("data_ptr<") + std::string(dtype_name(expected)) +
                ">() on an undefined tensor");
  if (dtype_ != expected)
    throw Error(std::string("data_ptr<") + std::string(dtype_name(expected)) +
                ">() on " + to_string() + ": expected dtype " +
                std::string(dtype_name(expected)) + ", but the tensor is " +
                std::string(dtype_name(dtype_)));
}

void Tensor::check_numel_matches(size_t count) const {
  int64_t expected = numel();
  if (static_cast<uint64_t>(expected) != count)
    throw Error("from_vector: shape " + shape_str(shape_) + " has " +
                std::to_string(expected) + " elements, but " +
                std::to_string(count) + " values were given");
}

} // namespace nn
