//===- Nvrtc.cpp - CUDA C++ to PTX and cubin with NVRTC -------------------===//
//
// NVRTC opened with dlopen (see Nvrtc.h), its entry points resolved into one
// table, every call checked by one wrapper that names it and NVRTC's error.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CUDA/Nvrtc.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

// nvrtc.h's program handle, at global scope as nvrtc.h declares it.
struct _nvrtcProgram;

namespace mlir::nn::cuda {
namespace {

// nvrtc.h's types, declared here so building nn needs no CUDA toolkit.
using nvrtcResult = int;
using nvrtcProgram = ::_nvrtcProgram *;
constexpr nvrtcResult NVRTC_SUCCESS = 0;

/// NN_NVRTC_FUNCTION(name, parameters): the entry points nn calls; all
/// return an nvrtcResult except nvrtcGetErrorString.
#define NN_NVRTC_FUNCTIONS(X)                                                  \
  X(nvrtcVersion, (int *major, int *minor))                                    \
  X(nvrtcCreateProgram,                                                        \
    (nvrtcProgram * program, const char *source, const char *name,             \
     int headers, const char *const *headerSources,                            \
     const char *const *headerNames))                                          \
  X(nvrtcDestroyProgram, (nvrtcProgram * program))                             \
  X(nvrtcCompileProgram,                                                       \
    (nvrtcProgram program, int count, const char *const *options))             \
  X(nvrtcGetProgramLogSize, (nvrtcProgram program, size_t * size))             \
  X(nvrtcGetProgramLog, (nvrtcProgram program, char *log))                     \
  X(nvrtcGetPTXSize, (nvrtcProgram program, size_t * size))                    \
  X(nvrtcGetPTX, (nvrtcProgram program, char *ptx))                            \
  X(nvrtcGetCUBINSize, (nvrtcProgram program, size_t * size))                  \
  X(nvrtcGetCUBIN, (nvrtcProgram program, char *cubin))

struct Nvrtc {
#define NN_NVRTC_MEMBER(name, parameters)                                      \
  nvrtcResult(*name) parameters = nullptr;
  NN_NVRTC_FUNCTIONS(NN_NVRTC_MEMBER)
#undef NN_NVRTC_MEMBER
  const char *(*nvrtcGetErrorString)(nvrtcResult) = nullptr;
  std::string path;

  /// OK, or "<call> failed: <NVRTC's error>".
  llvm::Error check(nvrtcResult result, llvm::StringRef call) const {
    if (result == NVRTC_SUCCESS)
      return llvm::Error::success();
    const char *text = nvrtcGetErrorString(result);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} failed: {1}", call,
                      text ? text : "NVRTC error " + std::to_string(result)));
  }
};

/// Where NVRTC is looked for, in order (see Nvrtc.h).
llvm::SmallVector<std::string> candidates() {
  llvm::SmallVector<std::string> paths;
  if (const char *file = std::getenv("NN_NVRTC"); file && *file)
    return {file};
  for (const char *name : {"libnvrtc.so.13", "libnvrtc.so.12"})
    paths.push_back(name);
  llvm::SmallVector<std::string> roots;
#ifdef NN_CUDA_TOOLKIT_LIBRARY_DIR
  paths.push_back(std::string(NN_CUDA_TOOLKIT_LIBRARY_DIR) + "/libnvrtc.so");
#endif
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(variable); root && *root)
      roots.push_back(root);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots)
    for (const char *lib : {"/lib64/libnvrtc.so", "/lib/libnvrtc.so",
                            "/targets/x86_64-linux/lib/libnvrtc.so"})
      paths.push_back(root + lib);
  return paths;
}

/// Opens NVRTC the first time; the error (naming every place tried) on
/// every call when that failed.
llvm::Expected<const Nvrtc &> nvrtc() {
  static std::once_flag once;
  static Nvrtc *loaded = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    llvm::SmallVector<std::string> tried = candidates();
    for (const std::string &path : tried) {
      void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!library)
        continue;
      auto *n = new Nvrtc();
      n->path = path;
      const char *missing = nullptr;
#define NN_NVRTC_RESOLVE(name, parameters)                                     \
  if (!missing &&                                                              \
      !(n->name = reinterpret_cast<decltype(n->name)>(dlsym(library, #name)))) \
    missing = #name;
      NN_NVRTC_FUNCTIONS(NN_NVRTC_RESOLVE)
      NN_NVRTC_RESOLVE(nvrtcGetErrorString, ())
#undef NN_NVRTC_RESOLVE
      if (missing) {
        failure = path + " is not an NVRTC nn can use: it has no " + missing;
        delete n;
        dlclose(library);
        return;
      }
      loaded = n;
      return;
    }
    failure = "NVRTC not found (tried NN_NVRTC, " + llvm::join(tried, ", ") +
              "); install the CUDA toolkit or set NN_NVRTC to libnvrtc.so";
  });
  if (!loaded)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), failure);
  return *loaded;
}

/// "sm_90" -> 90; 0 when `arch` is not sm_ followed by digits.
int computeCapability(llvm::StringRef arch) {
  int cc = 0;
  if (!arch.consume_front("sm_") || arch.empty() || arch.getAsInteger(10, cc) ||
      cc <= 0)
    return 0;
  return cc;
}

} // namespace

llvm::Expected<std::string> nvrtcVersion() {
  llvm::Expected<const Nvrtc &> n = nvrtc();
  if (!n)
    return n.takeError();
  int major = 0, minor = 0;
  if (llvm::Error e = n->check(n->nvrtcVersion(&major, &minor), "nvrtcVersion"))
    return std::move(e);
  return llvm::formatv("{0}.{1}", major, minor).str();
}

llvm::Expected<NvrtcOutput> compileCuda(llvm::StringRef source,
                                        llvm::StringRef name,
                                        const NvrtcOptions &options) {
  int cc = computeCapability(options.arch);
  if (!cc)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0}: '{1}' is not a CUDA architecture (expected "
                      "sm_<compute capability>, such as sm_90)",
                      name, options.arch));
  llvm::Expected<const Nvrtc &> n = nvrtc();
  if (!n)
    return n.takeError();

  nvrtcProgram program = nullptr;
  std::string sourceText = source.str(), nameText = name.str();
  if (llvm::Error e =
          n->check(n->nvrtcCreateProgram(&program, sourceText.c_str(),
                                         nameText.c_str(), 0, nullptr, nullptr),
                   "nvrtcCreateProgram"))
    return std::move(e);
  auto destroy =
      llvm::make_scope_exit([&] { n->nvrtcDestroyProgram(&program); });

  // A real architecture: NVRTC writes its cubin, and the PTX it compiled
  // through (the driver JIT-compiles that for a newer GPU).
  std::vector<std::string> flags = {"--gpu-architecture=" + options.arch,
                                    "--std=c++17", "-default-device"};
  if (options.lineInfo)
    flags.push_back("-lineinfo");
  llvm::append_range(flags, options.extraOptions);
  std::vector<const char *> argv;
  for (const std::string &f : flags)
    argv.push_back(f.c_str());
  nvrtcResult compiled = n->nvrtcCompileProgram(
      program, static_cast<int>(argv.size()), argv.data());

  NvrtcOutput out;
  size_t logSize = 0;
  if (n->nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS &&
      logSize > 1) {
    out.log.resize(logSize);
    if (n->nvrtcGetProgramLog(program, out.log.data()) != NVRTC_SUCCESS)
      out.log.clear();
    while (!out.log.empty() &&
           (out.log.back() == '\0' || out.log.back() == '\n'))
      out.log.pop_back();
  }
  if (compiled != NVRTC_SUCCESS) {
    llvm::Error e = n->check(compiled, "nvrtcCompileProgram");
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} for {1}: {2}\n{3}", name, options.arch,
                      llvm::toString(std::move(e)), out.log));
  }
  auto fetch = [&](auto getSize, auto get, const char *what,
                   std::string &into) -> llvm::Error {
    size_t size = 0;
    if (llvm::Error e = n->check(getSize(program, &size), what))
      return e;
    into.resize(size);
    return n->check(get(program, into.data()), what);
  };
  if (llvm::Error e =
          fetch(n->nvrtcGetPTXSize, n->nvrtcGetPTX, "nvrtcGetPTX", out.ptx))
    return std::move(e);
  if (!out.ptx.empty() && out.ptx.back() == '\0') // a C string
    out.ptx.pop_back();
  if (llvm::Error e = fetch(n->nvrtcGetCUBINSize, n->nvrtcGetCUBIN,
                            "nvrtcGetCUBIN", out.cubin))
    return std::move(e);
  return out;
}

} // namespace mlir::nn::cuda
