//===- Driver.cpp - The CUDA driver, loaded on first use ------------------===//
//
// dlopen, symbol resolution, cuInit and the checked-call wrapper of
// Driver.h.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Driver.h"

#include "nn/Runtime/Error.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>
#include <dlfcn.h>

namespace nn::cuda::detail {
namespace {

/// cuda.h's name of `result` where the driver cannot say (a stub library's
/// cuGetErrorName fails too); the numbers nn acts on.
std::string_view knownErrorName(CUresult result) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_INVALID_DEVICE:
    return "CUDA_ERROR_INVALID_DEVICE";
  default:
    return {};
  }
}

std::string plural(int n, const char *noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

} // namespace

absl::StatusOr<std::unique_ptr<Driver>> Driver::load(const std::string &path) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, so
  // nothing loaded later binds to them by accident.
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    return absl::NotFoundError(
        absl::StrCat("no CUDA driver found: ", reason ? reason : path,
                     " (nn needs the NVIDIA driver's libcuda.so.1 to use a "
                     "GPU; set NN_CUDA_DRIVER to its path if it is installed "
                     "outside the loader's search path)"));
  }
  std::unique_ptr<Driver> d(new Driver());
  const char *missing = nullptr;
#define NN_CUDA_DRIVER_FUNCTION(name, symbol, parameters)                      \
  if (!missing && !(d->name = reinterpret_cast<decltype(d->name)>(             \
                        dlsym(library, symbol))))                              \
    missing = symbol;
#include "CudaDriver.def"
  if (missing) {
    dlclose(library); // nothing of it was called
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a CUDA driver nn can use: it has no ",
                     missing, " (nn needs a CUDA 12 or newer driver)"));
  }

  CUresult init = d->cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    return d; // a driver without GPUs: no devices, as torch.cuda says
  if (absl::Status s = d->check(init, "cuInit"); !s.ok())
    return absl::FailedPreconditionError(absl::StrCat(
        "the CUDA driver ", path, " did not start: ", s.message()));
  if (absl::Status s =
          d->check(d->cuDriverGetVersion(&d->version_), "cuDriverGetVersion");
      !s.ok())
    return s;
  if (absl::Status s =
          d->check(d->cuDeviceGetCount(&d->deviceCount_), "cuDeviceGetCount");
      !s.ok())
    return s;
  d->contexts_.assign(d->deviceCount_, nullptr);
  return d;
}

absl::Status Driver::check(CUresult result, const std::string &call) const {
  if (result == CUDA_SUCCESS)
    return absl::OkStatus();
  const char *name = nullptr, *text = nullptr;
  std::string known(knownErrorName(result));
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = known.empty() ? nullptr : known.c_str();
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string what =
      name ? std::string(name) : absl::StrCat("CUresult ", result);
  if (text)
    absl::StrAppend(&what, " (", text, ")");
  std::string message = absl::StrCat(call, " failed: ", what);
  return result == CUDA_ERROR_OUT_OF_MEMORY
             ? absl::ResourceExhaustedError(message)
             : absl::InternalError(message);
}

absl::Status Driver::checkDevice(int device) const {
  if (device >= 0 && device < deviceCount_)
    return absl::OkStatus();
  if (deviceCount_ == 0)
    return absl::NotFoundError(
        absl::StrCat("device ", device, " requested, no CUDA device present"));
  return absl::OutOfRangeError(absl::StrCat("device ", device, " requested, ",
                                            plural(deviceCount_, "device"),
                                            " present"));
}

absl::Status Driver::use(int device) {
  if (absl::Status s = checkDevice(device); !s.ok())
    return s;
  CUcontext context;
  {
    std::lock_guard<std::mutex> lock(contextsMutex_);
    if (!contexts_[device]) {
      CUdevice handle;
      if (absl::Status s = check(cuDeviceGet(&handle, device), "cuDeviceGet");
          !s.ok())
        return s;
      if (absl::Status s =
              check(cuDevicePrimaryCtxRetain(&contexts_[device], handle),
                    "cuDevicePrimaryCtxRetain");
          !s.ok())
        return s;
    }
    context = contexts_[device];
  }
  return check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

absl::StatusOr<Driver *> driver() {
  // Loaded once, by the first caller; never unloaded.
  static const absl::StatusOr<Driver *> loaded =
      []() -> absl::StatusOr<Driver *> {
    const char *path = std::getenv("NN_CUDA_DRIVER");
    absl::StatusOr<std::unique_ptr<Driver>> d = Driver::load(
        path && *path ? std::string(path) : std::string(kDriverLibrary));
    if (!d.ok())
      return d.status();
    return d->release();
  }();
  return loaded;
}

Driver &driverOrThrow() {
  absl::StatusOr<Driver *> d = driver();
  throwIfError(d.status());
  return **d;
}

void throwIfError(const absl::Status &status) {
  if (!status.ok())
    throw Error(std::string(status.message()));
}

} // namespace nn::cuda::detail
