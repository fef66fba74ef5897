//===- Error.h - The exception type of nn's C++ API -------------*- C++ -*-===//
//
// Misuse of the C++ API (a wrong dtype for data_ptr, a shape error while
// tracing, a strict load_state_dict that fails) throws nn::Error, as libtorch
// throws c10::Error. Boundaries that read untrusted input (files, compiled
// artifacts, inputs to a deployed model) return absl::Status instead.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_ERROR_H
#define NN_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace nn {

/// The error every nn API throws; what() is the complete message.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace nn

#endif // NN_RUNTIME_ERROR_H
