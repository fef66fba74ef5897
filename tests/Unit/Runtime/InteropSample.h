//===- InteropSample.h - The tensors of the interop golden ------*- C++ -*-===//
//
// The tensors of tests/reference/goldens/interop/sample.safetensors, built in
// C++. tests/reference/generate_goldens.py builds the same tensors with
// PyTorch (interop_sample_tensors()); the two definitions must stay in step.
// Names sort differently by dtype than by name, every dtype nn has appears,
// with a scalar, an empty tensor and a non-ASCII name among them.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_UNIT_RUNTIME_INTEROPSAMPLE_H
#define NN_TESTS_UNIT_RUNTIME_INTEROPSAMPLE_H

#include "nn/Runtime/Safetensors.h"

#include <cstring>
#include <vector>

namespace nn::testing {

/// A tensor of `dtype` whose bytes are the 16-bit patterns `bits` (for f16
/// and bf16, which have no C++ element type here).
inline Tensor tensorFromBits16(const std::vector<uint16_t> &bits, Shape shape,
                               DType dtype) {
  Tensor t = Tensor::zeros(std::move(shape), dtype);
  std::memcpy(t.raw_data(), bits.data(), bits.size() * sizeof(uint16_t));
  return t;
}

/// The sample's tensors, inserted in name order (the file lays them out by
/// dtype).
inline StateDict interopSampleTensors() {
  StateDict sd;
  sd.insert("a_bool", Tensor::from_vector<bool>({true, false, true}, {3}));
  sd.insert("b_u8", Tensor::from_vector<uint8_t>({0, 1, 127, 128, 255}, {5}));
  sd.insert("c_i32",
            Tensor::from_vector<int32_t>({-3, -2, -1, 0, 1, 2}, {3, 2}));
  // 1.0, -3.0, 0.15625, 3.3895314e38 (the largest finite bfloat16).
  sd.insert("d_bf16", tensorFromBits16({0x3F80, 0xC040, 0x3E20, 0x7F7F}, {4},
                                       DType::bf16));
  // 1.0, -2.0, 0.5, 65504.0 (the largest finite half), 2^-24 (the smallest
  // subnormal), -0.0.
  sd.insert("e_f16",
            tensorFromBits16({0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x8000},
                             {2, 3}, DType::f16));
  sd.insert("empty", Tensor::zeros({0, 3}, DType::f32));
  sd.insert("f_f64", Tensor::from_vector<double>({0.1, -2.5, 1e300}, {3}));
  sd.insert("g_i64",
            Tensor::from_vector<int64_t>(
                {-(int64_t(1) << 40), -1, 0, 1, int64_t(1) << 62}, {5}));
  sd.insert("h_f32", Tensor::from_vector<float>(
                         {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}, {2, 3}));
  sd.insert("i_i8", Tensor::from_vector<int8_t>({-128, -1, 0, 127}, {4}));
  sd.insert("layers.0.weight",
            Tensor::from_vector<float>({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2}));
  sd.insert("scalar", Tensor::from_vector<float>({42.0f}, {}));
  sd.insert("\xC3\xBCnicode", Tensor::from_vector<float>({7.0f}, {1}));
  return sd;
}

inline Metadata interopSampleMetadata() { return {{"format", "pt"}}; }

/// Header (file) order of the sample: dtype descending in safetensors' enum
/// order (I64, F64, F32, I32, BF16, F16, I8, U8, BOOL), then name.
inline std::vector<std::string> interopSampleFileOrder() {
  return {"g_i64",  "f_f64",          "empty", "h_f32",  "layers.0.weight",
          "scalar", "\xC3\xBCnicode", "c_i32", "d_bf16", "e_f16",
          "i_i8",   "b_u8",           "a_bool"};
}

} // namespace nn::testing

#endif // NN_TESTS_UNIT_RUNTIME_INTEROPSAMPLE_H
