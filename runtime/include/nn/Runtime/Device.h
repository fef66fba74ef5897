//===- Device.h - Where tensors live ----------------------------*- C++ -*-===//
//
// The devices nn knows. Every tensor lives on the CPU today; Device::cuda is
// reserved for the CUDA backend, and asking for it (Module::to(Device::cuda))
// is an error that says so.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_DEVICE_H
#define NN_RUNTIME_DEVICE_H

#include <cstdint>
#include <string_view>

namespace nn {

enum class Device : uint8_t { cpu, cuda };

/// "cpu" or "cuda", as torch.device prints them.
constexpr std::string_view device_name(Device device) {
  return device == Device::cpu ? "cpu" : "cuda";
}

} // namespace nn

#endif // NN_RUNTIME_DEVICE_H
