//===- Driver.h - The CUDA driver, loaded on first use (private) -*- C++
//-*-===//
//
// nn never links libcuda: the driver is opened with dlopen the first time a
// GPU is asked for, so every nn binary runs unchanged where no GPU or driver
// exists, and says so by name when one is asked for. Its entry points are
// resolved into a table (CudaDriver.def) and every call goes through
// Driver::check, which names the call and the driver's error.
//
// The driver's types are declared here rather than taken from cuda.h, so
// building nn needs no CUDA toolkit; they are the ABI's (CUresult and
// CUdevice are int, a CUdeviceptr is 64 bits, the handles are pointers).
//
// This header is private to runtime/lib (and its unit tests).
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_LIB_CUDA_DRIVER_H
#define NN_RUNTIME_LIB_CUDA_DRIVER_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

// The handles' structs, at global scope as cuda.h declares them: a driver
// function's type names them, and calling it through a pointer of another
// type is undefined (UBSan's -fsanitize=function reports it).
struct CUctx_st;
struct CUstream_st;
struct CUmod_st;
struct CUfunc_st;

namespace nn::cuda::detail {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = ::CUctx_st *;
using CUstream = ::CUstream_st *;
using CUmodule = ::CUmod_st *;
using CUfunction = ::CUfunc_st *;

/// The CUresult values nn acts on (cuda.h's numbers).
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NOT_FOUND = 500,
};

/// cuDeviceGetAttribute's attributes nn reads (CUdevice_attribute).
enum : int {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

/// The library dlopen searches for when NN_CUDA_DRIVER does not name one.
inline constexpr std::string_view kDriverLibrary = "libcuda.so.1";

/// A loaded, initialized CUDA driver: its entry points and its devices.
class Driver {
public:
  /// Opens the driver library `path` (a name dlopen searches for, or a
  /// file), resolves every entry point of CudaDriver.def and calls cuInit.
  /// Errors name the library: "no CUDA driver found: <dlopen's reason>",
  /// "<path> is not a CUDA driver nn can use: it has no <symbol>", or
  /// cuInit's error. A driver that reports no GPU (CUDA_ERROR_NO_DEVICE)
  /// loads, with no devices.
  static absl::StatusOr<std::unique_ptr<Driver>> load(const std::string &path);

  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;
  /// The library stays mapped: the driver's own threads may outlive this.
  ~Driver() = default;

  /// OK, or "<call> failed: CUDA_ERROR_<NAME> (<the driver's text>)".
  absl::Status check(CUresult result, const std::string &call) const;

  /// The GPUs the driver reports.
  int deviceCount() const { return deviceCount_; }
  /// The driver's CUDA version (13000 for 13.0).
  int version() const { return version_; }

  /// OK when `device` is one of deviceCount(); else "device <d> requested,
  /// <n> device(s) present" (or "... no CUDA device present").
  absl::Status checkDevice(int device) const;

  /// Makes `device`'s primary context current on the calling thread,
  /// retaining it the first time, as the CUDA runtime does before any call
  /// that needs a context (allocation, copies, memory queries).
  absl::Status use(int device);

  // The entry points, as CudaDriver.def lists them.
#define NN_CUDA_DRIVER_FUNCTION(name, symbol, parameters)                      \
  CUresult(*name) parameters = nullptr;
#include "CudaDriver.def"

private:
  Driver() = default;

  int deviceCount_ = 0;
  int version_ = 0;
  std::mutex contextsMutex_;
  std::vector<CUcontext> contexts_; // retained primary contexts, by device
};

/// The process's driver, loaded by the first call from the library that
/// NN_CUDA_DRIVER names, else libcuda.so.1, and kept for the life of the
/// process; when that failed, every call returns the same error.
absl::StatusOr<Driver *> driver();

/// For nn's C++ API, which throws: driver(), or nn::Error saying why there
/// is none.
Driver &driverOrThrow();
/// Throws nn::Error with `status`'s message unless it is OK.
void throwIfError(const absl::Status &status);

} // namespace nn::cuda::detail

#endif // NN_RUNTIME_LIB_CUDA_DRIVER_H
