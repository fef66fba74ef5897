//===- PyRepr.h - Python's spelling of values in extra_repr -----*- C++ -*-===//
//
// Private to the frontend's modules: numbers and tuples as Python's repr
// writes them, so a module's extra_repr() matches PyTorch's character for
// character ("eps=1e-05", "momentum=0.1", "(3, 4)").
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_LIB_MODULES_PYREPR_H
#define NN_FRONTEND_LIB_MODULES_PYREPR_H

#include "nn/Runtime/Tensor.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace nn::detail {

/// repr(float(value)): the shortest digits that round-trip, fixed notation
/// for exponents in [-4, 16), otherwise d.ddde±XX.
inline std::string py_float_repr(double value) {
  char buf[64];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);
  std::string sci = buf;
  size_t e = sci.find('e');
  int exponent = std::atoi(sci.c_str() + e + 1);
  std::string mantissa = sci.substr(0, e);
  std::string digits;
  for (char c : mantissa)
    if (c >= '0' && c <= '9')
      digits += c;
  std::string sign = value < 0 ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(-exponent - 1, '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exponent + 1) {
      out = digits + std::string(exponent + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
    }
    return sign + out;
  }
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1)
    out += "." + digits.substr(1);
  char exp[8];
  std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+',
                std::abs(exponent));
  return sign + out + exp;
}

/// repr(tuple(values)): "(16,)", "(3, 4)".
inline std::string py_tuple_repr(const std::vector<int64_t> &values) {
  std::string out = "(";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + (values.size() == 1 ? ",)" : ")");
}

inline const char *py_bool(bool value) { return value ? "True" : "False"; }

/// Fills an f32 or f64 tensor with `value` (nn.init.ones_ / zeros_, kept
/// here until Init.h has them).
inline void fill_(Tensor &tensor, double value) {
  if (tensor.dtype() == DType::f32) {
    float *p = tensor.data_ptr<float>();
    for (int64_t i = 0; i < tensor.numel(); ++i)
      p[i] = static_cast<float>(value);
  } else if (tensor.dtype() == DType::f64) {
    double *p = tensor.data_ptr<double>();
    for (int64_t i = 0; i < tensor.numel(); ++i)
      p[i] = value;
  } else {
    throw Error("fill_: only f32 and f64 tensors");
  }
}

} // namespace nn::detail

#endif // NN_FRONTEND_LIB_MODULES_PYREPR_H
