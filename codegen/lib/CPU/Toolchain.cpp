//===- Toolchain.cpp - Finding ld.lld and the kernels' archive ------------===//
//
// Locates what linkSharedObject runs and links (see Toolchain.h), from
// where the compiler and LLVM were loaded from, never from a path of the
// build.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Toolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Host.h"

#include <link.h>

#ifndef NN_LIBM_PATH
#error "NN_LIBM_PATH must name the C math library (a system file)"
#endif

using namespace mlir::nn;

namespace {

/// The file of the loaded object (executable or shared library) holding
/// `address`, as the dynamic loader named it (symlinks kept); the main
/// executable by /proc/self/exe.
std::string objectHolding(const void *address) {
  struct Search {
    uintptr_t address;
    std::string name;
    bool found = false;
  } search{reinterpret_cast<uintptr_t>(address)};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *s = static_cast<Search *>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && s->address >= start &&
              s->address < start + ph.p_memsz) {
            s->name = info->dlpi_name ? info->dlpi_name : "";
            s->found = true;
            return 1;
          }
        }
        return 0;
      },
      &search);
  if (search.found && search.name.empty()) // the main executable
    return llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  return search.name;
}

/// The first of `candidates` that exists, or "".
std::string firstExisting(llvm::ArrayRef<std::string> candidates) {
  for (const std::string &path : candidates)
    if (llvm::sys::fs::exists(path))
      return path;
  return "";
}

/// `file`'s folder joined with `relative`.
std::string besides(llvm::StringRef file, llvm::StringRef relative) {
  llvm::SmallString<256> path(llvm::sys::path::parent_path(file));
  llvm::sys::path::append(path, relative);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return std::string(path);
}

llvm::Expected<std::string> locateKernelsArchive() {
  if (std::optional<std::string> set =
          llvm::sys::Process::GetEnv("NN_KERNELS_ARCHIVE")) {
    if (!llvm::sys::fs::exists(*set))
      return llvm::createStringError("NN_KERNELS_ARCHIVE names '" + *set +
                                     "', which does not exist");
    return *set;
  }
  std::string holder =
      objectHolding(reinterpret_cast<void *>(&locateToolchain));
  // Beside libnn.so, or in the lib/ beside an executable's bin/ (the same
  // place when the holder is in lib/ itself).
  std::vector<std::string> candidates = {besides(holder, "libnn_kernels.a")};
  if (std::string up = besides(holder, "../lib/libnn_kernels.a");
      up != candidates.front())
    candidates.push_back(up);
  if (std::string found = firstExisting(candidates); !found.empty())
    return found;
  return llvm::createStringError(
      "cannot find the kernels' archive libnn_kernels.a of the nn that '" +
      holder + "' belongs to (looked for " + llvm::join(candidates, " and ") +
      "); set NN_KERNELS_ARCHIVE to its path");
}

llvm::Expected<std::string> locateLld() {
  if (std::optional<std::string> set = llvm::sys::Process::GetEnv("NN_LLD")) {
    if (!llvm::sys::fs::can_execute(*set))
      return llvm::createStringError("NN_LLD names '" + *set +
                                     "', which is not an executable");
    return *set;
  }
  // libLLVM's lib/ folder has the same LLVM's ld.lld in ../bin.
  std::string llvm =
      objectHolding(reinterpret_cast<void *>(&llvm::sys::getProcessTriple));
  std::string beside = besides(llvm, "../bin/ld.lld");
  if (llvm::sys::fs::can_execute(beside))
    return beside;
  std::vector<std::string> looked = {beside};
  for (std::string name : {"ld.lld-" + std::to_string(LLVM_VERSION_MAJOR),
                           std::string("ld.lld")}) {
    if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName(name))
      return *onPath;
    looked.push_back(name + " on PATH");
  }
  return llvm::createStringError("cannot find ld.lld (looked for " +
                                 llvm::join(looked, ", ") +
                                 "); install lld-19 or set NN_LLD to it");
}

} // namespace

llvm::Expected<const Toolchain &> mlir::nn::locateToolchain() {
  struct Located {
    Toolchain toolchain;
    std::string error;
  };
  static const Located located = [] {
    Located result;
    llvm::Expected<std::string> archive = locateKernelsArchive();
    llvm::Expected<std::string> lld = archive ? locateLld() : std::string();
    if (!archive)
      result.error = llvm::toString(archive.takeError());
    else if (!lld)
      result.error = llvm::toString(lld.takeError());
    else
      result.toolchain = {*lld, *archive, NN_LIBM_PATH};
    return result;
  }();
  if (!located.error.empty())
    return llvm::createStringError(located.error);
  return located.toolchain;
}
