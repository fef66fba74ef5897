//===- EmulatedKernels.h - Emitted CUDA kernels run on the host -*- C++ -*-===//
//
// The CUDA backend's emitted source compiled as host C++ under the
// emulation header (tests/Unit/Conversion/Inputs/CudaEmulation.h) with the
// machine's C++ compiler and loaded: each kernel's <name>_emulated entry runs
// a launch on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_E2E_EMULATEDKERNELS_H
#define NN_TESTS_E2E_EMULATEDKERNELS_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <optional>
#include <string>

namespace nn::testing {

inline constexpr const char *kNoCompiler = "no host C++ compiler (c++) on PATH";

/// The emitted source compiled as host C++ and loaded.
class EmulatedKernels {
public:
  using Entry = void (*)(const void *params, unsigned grid, unsigned block);

  /// Compiles `source` with the host's C++ compiler; "" or why not.
  std::string compile(const std::string &source, const std::string &name) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("nn-cuda-emulated", dir))
      return "cannot make a temporary folder";
    directory = dir.str().str();
    name_ = name;
    std::string cu = directory + "/" + name + ".cu";
    std::string so = directory + "/" + name + ".so";
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(cu, ec);
      if (ec)
        return "cannot write " + cu;
      out << source;
    }
    llvm::ErrorOr<std::string> cxx = llvm::sys::findProgramByName("c++");
    if (!cxx)
      return kNoCompiler;
    std::string header = std::string(NN_SOURCE_DIR) +
                         "/tests/Unit/Conversion/Inputs/CudaEmulation.h";
    std::string log = directory + "/compile.log";
    llvm::SmallVector<llvm::StringRef> args = {
        *cxx,   "-std=c++17", "-O0", "-shared", "-fPIC", "-w", "-include",
        header, "-x",         "c++", cu,        "-o",    so};
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
    if (llvm::sys::ExecuteAndWait(*cxx, args, std::nullopt, redirects) != 0) {
      auto text = llvm::MemoryBuffer::getFile(log);
      return "the host compile fails:\n" +
             (text ? (*text)->getBuffer().str() : std::string());
    }
    handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return std::string("dlopen: ") + dlerror();
    return "";
  }

  /// The shared object compile() made.
  std::string path() const { return directory + "/" + name_ + ".so"; }

  Entry entry(const std::string &kernel) const {
    return reinterpret_cast<Entry>(
        dlsym(handle, (kernel + "_emulated").c_str()));
  }

  ~EmulatedKernels() {
    if (handle)
      dlclose(handle);
    if (!directory.empty())
      llvm::sys::fs::remove_directories(directory);
  }

private:
  void *handle = nullptr;
  std::string directory;
  std::string name_;
};

} // namespace nn::testing

#endif // NN_TESTS_E2E_EMULATEDKERNELS_H
