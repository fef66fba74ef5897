//===- DType.h - Element types ----------------------------------*- C++ -*-===//
//
// The element types a tensor can have, with their safetensors spellings
// ("F32", "I64", ...) and sizes.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_DTYPE_H
#define NN_RUNTIME_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nn {

enum class DType : uint8_t { f32, f64, f16, bf16, i64, i32, i8, u8, boolean };

/// float32, float64, float16 or bfloat16 (torch.is_floating_point).
bool is_floating_point(DType dtype);
/// Bytes per element.
size_t dtype_size(DType dtype);
/// Short lowercase name as PyTorch prints it: "float32", "int64", "bool", ...
std::string_view dtype_name(DType dtype);
/// The safetensors header spelling: "F32", "BF16", "BOOL", ...
std::string_view dtype_safetensors_name(DType dtype);
/// Inverse of dtype_safetensors_name; nullopt for names nn does not know.
std::optional<DType> dtype_from_safetensors_name(std::string_view name);

/// Maps a C++ element type to its DType (data_ptr<T> checks against it).
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::f32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::f64;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::i64;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::i32;
};
template <> struct DTypeOf<int8_t> {
  static constexpr DType value = DType::i8;
};
template <> struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::u8;
};
template <> struct DTypeOf<bool> {
  static constexpr DType value = DType::boolean;
};

} // namespace nn

#endif // NN_RUNTIME_DTYPE_H
