//===- DType.cpp - Element types --------------------------------*- C++ -*-===//
//
// Sizes and names of the element types. The safetensors spellings are the
// ones of safetensors' Rust `Dtype` enum ("F32", "BF16", "BOOL", ...); nn
// knows a subset of them (see Safetensors.cpp for the full enum, which fixes
// the on-disk layout order).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/DType.h"

namespace nn {

bool is_floating_point(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 ||
         dtype == DType::bf16;
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return 4;
  case DType::f64:
    return 8;
  case DType::f16:
    return 2;
  case DType::bf16:
    return 2;
  case DType::i64:
    return 8;
  case DType::i32:
    return 4;
  case DType::i8:
    return 1;
  case DType::u8:
    return 1;
  case DType::boolean:
    return 1;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "float32";
  case DType::f64:
    return "float64";
  case DType::f16:
    return "float16";
  case DType::bf16:
    return "bfloat16";
  case DType::i64:
    return "int64";
  case DType::i32:
    return "int32";
  case DType::i8:
    return "int8";
  case DType::u8:
    return "uint8";
  case DType::boolean:
    return "bool";
  }
  return "<invalid dtype>";
}

std::string_view dtype_safetensors_name(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "F32";
  case DType::f64:
    return "F64";
  case DType::f16:
    return "F16";
  case DType::bf16:
    return "BF16";
  case DType::i64:
    return "I64";
  case DType::i32:
    return "I32";
  case DType::i8:
    return "I8";
  case DType::u8:
    return "U8";
  case DType::boolean:
    return "BOOL";
  }
  return "<invalid dtype>";
}

std::optional<DType> dtype_from_safetensors_name(std::string_view name) {
  static constexpr DType all[] = {DType::f32,  DType::f64, DType::f16,
                                  DType::bf16, DType::i64, DType::i32,
                                  DType::i8,   DType::u8,  DType::boolean};
  for (DType dtype : all)
    if (dtype_safetensors_name(dtype) == name)
      return dtype;
  return std::nullopt;
}

} // namespace nn
