//===- Repr.cpp - Python spellings for extra_repr -------------------------===//

#include "nn/Frontend/Repr.h"

#include <charconv>
#include <cmath>

namespace nn {

std::string py_repr(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[32];
  // Shortest round-trip digits, as Python's float repr; Python switches to
  // exponent form below 1e-4 and from 1e16.
  double magnitude = std::abs(value);
  auto format = (magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e16))
                    ? std::chars_format::scientific
                    : std::chars_format::fixed;
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, format);
  std::string text(buffer, end);
  if (format == std::chars_format::scientific) {
    // C++ writes 1e-05 as "1e-05" already; Python agrees.
    return text;
  }
  if (text.find('.') == std::string::npos)
    text += ".0";
  return text;
}

std::string py_repr(bool value) { return value ? "True" : "False"; }

std::string py_repr(const std::vector<int64_t> &values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

} // namespace nn
