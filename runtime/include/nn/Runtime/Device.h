//===- Device.h - Where tensors live ----------------------------*- C++ -*-===//
//
// A device is a type (the CPU or a CUDA GPU) and, for a GPU, its index, as
// torch.device is: Device::cpu(), Device::cuda(1), or parsed from "cuda:1".
// Every tensor lives on the CPU today; nn/Runtime/Cuda.h finds the GPUs.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_DEVICE_H
#define NN_RUNTIME_DEVICE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace nn {

enum class DeviceType : int8_t { CPU, CUDA };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

class Device {
public:
  /// The CPU, or GPU number `index` (0 when left out, as torch.device('cuda')
  /// means the current device, which nn always takes to be 0).
  constexpr explicit Device(DeviceType type, int index = 0)
      : type_(type), index_(type == DeviceType::CPU ? 0 : index) {}
  /// "cpu", "cuda" or "cuda:<index>", as torch.device parses them; throws
  /// nn::Error naming the string otherwise.
  explicit Device(std::string_view spec);

  static constexpr Device cpu() { return Device(DeviceType::CPU); }
  static constexpr Device cuda(int index = 0) {
    return Device(DeviceType::CUDA, index);
  }

  constexpr DeviceType type() const { return type_; }
  /// The GPU's index; 0 for the CPU.
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const { return type_ == DeviceType::CUDA; }

  /// "cpu" or "cuda:<index>", as str(torch.device) prints them.
  std::string str() const;

  friend constexpr bool operator==(Device a, Device b) {
    return a.type_ == b.type_ && a.index_ == b.index_;
  }
  friend constexpr bool operator!=(Device a, Device b) { return !(a == b); }

private:
  DeviceType type_;
  int index_;
};

} // namespace nn

#endif // NN_RUNTIME_DEVICE_H
