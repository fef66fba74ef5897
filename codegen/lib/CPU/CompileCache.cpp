//===- CompileCache.cpp - Content-addressed store of compiled code --------===//
//
// See CompileCache.h for the key and the entry format.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/CompileCache.h"
#include "nn/Conversion/CPU/Toolchain.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>
#include <utime.h>
#include <vector>

#ifndef NN_VERSION
#error "NN_VERSION must be the project's version"
#endif

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Bumped whenever the key's inputs or the entry layout change.
constexpr llvm::StringLiteral kFormat = "nn-compile-cache-1";
constexpr llvm::StringLiteral kMagic = "NNCACHE1";
constexpr size_t kKeyHexSize = 64;
constexpr size_t kDigestSize = 32;
// key hex, SHA-256 of the payload, payload size (u64 LE), magic.
constexpr size_t kTrailerSize = kKeyHexSize + kDigestSize + 8 + 8;

std::atomic<uint64_t> hits{0}, misses{0}, rejected{0}, stores{0}, evicted{0};

constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

/// Finds the loaded object holding this code and reads its GNU build id.
struct BuildIdSearch {
  uintptr_t address;
  std::string id;
};

int findBuildId(dl_phdr_info *info, size_t, void *data) {
  auto *search = static_cast<BuildIdSearch *>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    contains = ph.p_type == PT_LOAD && search->address >= start &&
               search->address < start + ph.p_memsz;
  }
  if (!contains)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE)
      continue;
    const char *p =
        reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
    const char *end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
      const char *name = p + sizeof(ElfW(Nhdr));
      const char *desc = name + llvm::alignTo(note->n_namesz, 4);
      if (desc + note->n_descsz > end)
        break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::equal(name, name + 4, "GNU")) {
        search->id = llvm::toHex(llvm::StringRef(desc, note->n_descsz));
        return 1;
      }
      p = desc + llvm::alignTo(note->n_descsz, 4);
    }
  }
  return 1; // the right object, without a build id
}

/// What identifies this build of the code generator: the build id of the
/// binary holding it, or (without one) that binary's path, size and time.
const std::string &compilerIdentity() {
  static const std::string identity = [] {
    BuildIdSearch search{reinterpret_cast<uintptr_t>(&findBuildId), ""};
    dl_iterate_phdr(findBuildId, &search);
    if (!search.id.empty())
      return "build-id " + search.id;
    std::string text = "unidentified";
    Dl_info info;
    llvm::sys::fs::file_status status;
    if (dladdr(reinterpret_cast<void *>(&findBuildId), &info) &&
        info.dli_fname && !llvm::sys::fs::status(info.dli_fname, status))
      text = (llvm::Twine(info.dli_fname) + " " +
              llvm::Twine(status.getSize()) + " " +
              llvm::Twine(
                  status.getLastModificationTime().time_since_epoch().count()))
                 .str();
    return text;
  }();
  return identity;
}

/// The kernel archive every shared object links: its size and time.
std::string kernelArchiveIdentity() {
  llvm::Expected<const Toolchain &> toolchain = locateToolchain();
  if (!toolchain) {
    llvm::consumeError(toolchain.takeError());
    return "missing";
  }
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(toolchain->kernelsArchive, status))
    return "missing";
  return (llvm::Twine(status.getSize()) + " " +
          llvm::Twine(
              status.getLastModificationTime().time_since_epoch().count()))
      .str();
}

/// Triple, CPU and its features (sorted: the map's order is not stable).
const std::string &hostIdentity() {
  static const std::string identity = [] {
    std::vector<std::string> features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.second ? "+" : "-") + feature.first().str());
    llvm::sort(features);
    return llvm::sys::getProcessTriple() + " " +
           llvm::sys::getHostCPUName().str() + " " + llvm::join(features, ",");
  }();
  return identity;
}

void appendField(llvm::SHA256 &hash, llvm::StringRef field) {
  // Length-prefixed, so that no two field lists hash the same bytes.
  uint64_t size = field.size();
  uint8_t prefix[8];
  llvm::support::endian::write64le(prefix, size);
  hash.update(llvm::ArrayRef<uint8_t>(prefix, 8));
  hash.update(field);
}

std::array<uint8_t, kDigestSize> digest(llvm::StringRef bytes) {
  return llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes));
}

} // namespace

llvm::StringRef mlir::nn::cacheOutcomeName(CacheOutcome outcome) {
  switch (outcome) {
  case CacheOutcome::Disabled:
    return "disabled";
  case CacheOutcome::Hit:
    return "hit";
  case CacheOutcome::Miss:
    return "miss";
  case CacheOutcome::Rebuilt:
    return "rebuilt";
  }
  llvm_unreachable("unknown cache outcome");
}

std::optional<std::string> CompileCache::directoryFromEnvironment() {
  if (std::optional<std::string> off =
          llvm::sys::Process::GetEnv("NN_CACHE_DISABLE"))
    if (!off->empty() && *off != "0")
      return std::nullopt;
  if (std::optional<std::string> dir =
          llvm::sys::Process::GetEnv("NN_CACHE_DIR"))
    if (!dir->empty())
      return dir;
  llvm::SmallString<128> path;
  if (std::optional<std::string> xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty()) {
    path = *xdg;
  } else if (std::optional<std::string> home =
                 llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return std::nullopt;
  }
  llvm::sys::path::append(path, "nn");
  return std::string(path);
}

std::string CompileCache::key(llvm::StringRef kind, llvm::StringRef options,
                              llvm::StringRef irText) {
  // A named local: a temporary inside the braced list would die before the
  // loop body reads it.
  std::string kernels = kernelArchiveIdentity();
  llvm::SHA256 hash;
  for (llvm::StringRef field :
       {llvm::StringRef(kFormat), llvm::StringRef(NN_VERSION),
        llvm::StringRef(compilerIdentity()), llvm::StringRef(kernels),
        llvm::StringRef(hostIdentity()), kind, options, irText})
    appendField(hash, field);
  std::array<uint8_t, 32> result = hash.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(result), /*LowerCase=*/true);
}

std::string CompileCache::entryPath(llvm::StringRef key) const {
  llvm::SmallString<128> path(directory_);
  llvm::sys::path::append(path, key + ".entry");
  return std::string(path);
}

std::optional<std::string> CompileCache::lookup(llvm::StringRef key,
                                                bool *wasRejected) const {
  if (wasRejected)
    *wasRejected = false;
  std::string path = entryPath(key);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    ++misses;
    return std::nullopt;
  }
  llvm::StringRef bytes = (*file)->getBuffer();
  bool valid = false;
  if (bytes.size() >= kTrailerSize) {
    llvm::StringRef trailer = bytes.take_back(kTrailerSize);
    llvm::StringRef payload = bytes.drop_back(kTrailerSize);
    llvm::StringRef storedKey = trailer.take_front(kKeyHexSize);
    llvm::StringRef storedDigest =
        trailer.drop_front(kKeyHexSize).take_front(kDigestSize);
    uint64_t size = llvm::support::endian::read64le(trailer.data() +
                                                    kKeyHexSize + kDigestSize);
    llvm::StringRef magic = trailer.take_back(8);
    std::array<uint8_t, kDigestSize> actual = digest(payload);
    valid = magic == kMagic && size == payload.size() && storedKey == key &&
            storedDigest == llvm::toStringRef(llvm::ArrayRef<uint8_t>(actual));
    if (valid) {
      ++hits;
      // Recently used: the trim evicts by modification time. A read-only
      // cache folder just keeps the old time.
      ::utime(path.c_str(), nullptr);
      return payload.str();
    }
  }
  // Corrupt, truncated or someone else's: drop it so the rebuild replaces
  // it (a failed remove is harmless; the store renames over it).
  llvm::sys::fs::remove(path);
  ++misses;
  ++rejected;
  if (wasRejected)
    *wasRejected = true;
  return std::nullopt;
}

llvm::Error CompileCache::store(llvm::StringRef key,
                                llvm::StringRef bytes) const {
  if (key.size() != kKeyHexSize)
    return llvm::createStringError("compile cache: malformed key '" + key +
                                   "'");
  if (std::error_code ec = llvm::sys::fs::create_directories(directory_))
    return llvm::createStringError(ec, "compile cache: cannot create '" +
                                           directory_ + "': " + ec.message());
  std::string entry;
  entry.reserve(bytes.size() + kTrailerSize);
  entry.append(bytes.data(), bytes.size());
  entry.append(key.data(), key.size());
  std::array<uint8_t, kDigestSize> sum = digest(bytes);
  entry.append(reinterpret_cast<const char *>(sum.data()), sum.size());
  char size[8];
  llvm::support::endian::write64le(size, bytes.size());
  entry.append(size, 8);
  entry.append(kMagic.data(), kMagic.size());
  if (llvm::Error err = writeFileAtomically(entryPath(key), entry))
    return err;
  ++stores;
  trim(key);
  return llvm::Error::success();
}

uint64_t CompileCache::maxSizeFromEnvironment() {
  std::optional<std::string> text =
      llvm::sys::Process::GetEnv("NN_CACHE_MAX_SIZE");
  if (!text || text->empty())
    return kDefaultMaxBytes;
  llvm::StringRef rest(*text);
  uint64_t value = 0;
  if (rest.consumeInteger(10, value))
    return kDefaultMaxBytes;
  unsigned shift = 0;
  if (rest.size() == 1)
    shift = llvm::StringSwitch<unsigned>(rest.lower())
                .Case("k", 10)
                .Case("m", 20)
                .Case("g", 30)
                .Default(~0u);
  else if (!rest.empty())
    shift = ~0u;
  if (shift == ~0u || (shift && value > (UINT64_MAX >> shift)))
    return kDefaultMaxBytes;
  return value << shift;
}

uint64_t CompileCache::trim(llvm::StringRef keep) const {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::string kept = keep.empty() ? std::string() : entryPath(keep);
  auto staleBefore = std::chrono::system_clock::now() - std::chrono::hours(1);
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory_, ec), end;
       !ec && it != end; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (!status || status->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    if (name.contains(".entry.tmp-")) {
      if (status->getLastModificationTime() < staleBefore)
        llvm::sys::fs::remove(it->path());
      continue;
    }
    if (!name.ends_with(".entry"))
      continue;
    total += status->getSize();
    if (it->path() != kept)
      entries.push_back(
          {it->path(), status->getSize(), status->getLastModificationTime()});
  }
  if (maxBytes_ == 0 || total <= maxBytes_)
    return 0;
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return a.time < b.time || (a.time == b.time && a.path < b.path);
  });
  uint64_t target = maxBytes_ / 10 * 9, removed = 0;
  for (const Entry &entry : entries) {
    if (total <= target)
      break;
    // Another process may have evicted it already; only what this call
    // removed is counted.
    if (!llvm::sys::fs::remove(entry.path, /*IgnoreNonExisting=*/false)) {
      ++removed;
      ++evicted;
    }
    total -= entry.size;
  }
  return removed;
}

CompileCacheStats CompileCache::stats() {
  return {hits.load(), misses.load(), rejected.load(), stores.load(),
          evicted.load()};
}

void CompileCache::resetStats() {
  hits = misses = rejected = stores = evicted = 0;
}

llvm::Error mlir::nn::writeFileAtomically(llvm::StringRef path,
                                          llvm::StringRef bytes) {
  llvm::SmallString<128> model(path);
  model += ".tmp-%%%%%%%%";
  int fd = -1;
  llvm::SmallString<128> tempPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tempPath))
    return llvm::createStringError(ec,
                                   "cannot create a temporary file beside '" +
                                       path + "': " + ec.message());
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << bytes;
    out.flush();
    std::error_code ec = out.error();
    out.clear_error();
    // On disk before the rename publishes it: a crash leaves the old file
    // or the whole new one.
    if (!ec && ::fsync(fd) != 0)
      ec = std::error_code(errno, std::generic_category());
    if (ec) {
      llvm::sys::fs::remove(tempPath);
      return llvm::createStringError(ec, "writing '" + tempPath +
                                             "' failed: " + ec.message());
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path)) {
    llvm::sys::fs::remove(tempPath);
    return llvm::createStringError(ec, "cannot move '" + tempPath + "' to '" +
                                           path + "': " + ec.message());
  }
  return llvm::Error::success();
}
