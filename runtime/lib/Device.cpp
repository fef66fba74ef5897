//===- Device.cpp - Where tensors live ------------------------------------===//

#include "nn/Runtime/Device.h"

#include "nn/Runtime/Error.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nn {

Device::Device(std::string_view spec) : Device(DeviceType::CPU) {
  if (spec == "cpu")
    return;
  constexpr std::string_view cuda = "cuda";
  if (spec.substr(0, cuda.size()) == cuda) {
    std::string_view rest = spec.substr(cuda.size());
    int index = 0;
    // "cuda", or "cuda:<index>" with a decimal index of digits alone.
    if (rest.empty() ||
        (rest.size() > 1 && rest[0] == ':' &&
         rest.find_first_not_of("0123456789", 1) == std::string_view::npos &&
         absl::SimpleAtoi(std::string(rest.substr(1)), &index))) {
      *this = Device(DeviceType::CUDA, index);
      return;
    }
  }
  throw Error(
      absl::StrCat("invalid device '", std::string(spec),
                   "': expected \"cpu\", \"cuda\" or \"cuda:<index>\""));
}

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : absl::StrCat("cuda:", index_);
}

} // namespace nn
