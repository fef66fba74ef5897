//===- CompileCache.h - Content-addressed compiled code --------*- C++ -*-===//
//
// A repeated compile of the same optimized IR with the same options, for
// the same CPU, by the same compiler build is answered from disk instead of
// running the lowering, LLVM and the linker again. Entries are keyed by a
// SHA-256 over everything that decides the bytes produced:
//
//   key = SHA-256(entry format, nn version, the compiler's build id and the
//                 kernel archive it links, host triple + CPU + features,
//                 the kind of product ("so"), the options, the IR text)
//
// The compiler's build id (the GNU build-id note of the binary that holds
// this code) changes with every rebuild of nn, so an entry can never outlive
// the code generator that made it, even between versions.
//
// Each entry is one file, <dir>/<key>.entry: the product's bytes followed by
// a trailer (key, SHA-256 of the bytes, their length, a magic). It is written
// under a temporary name in the cache folder and renamed into place, so
// readers see a whole entry or none. A truncated, corrupt or foreign entry
// (wrong magic, length, checksum or key) is a miss, never a crash: it is
// removed and rebuilt.
//
// The folder is $NN_CACHE_DIR, else $XDG_CACHE_HOME/nn, else
// $HOME/.cache/nn; NN_CACHE_DISABLE=1 turns the cache off.
//
// The folder is bounded, least recently used first out: a hit refreshes the
// entry's modification time, and every store trims the folder to 90% of its
// limit when it has grown past it (as ccache does), so a long-lived cache
// does not fill the disk. The limit is $NN_CACHE_MAX_SIZE (bytes, or with a
// K, M or G suffix; 0 means unbounded), else 1 GiB. The entry just stored is
// never evicted, even when it alone exceeds the limit.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_COMPILECACHE_H
#define NN_CONVERSION_CPU_COMPILECACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::nn {

/// What a lookup found.
enum class CacheOutcome {
  Disabled, // no cache was asked for
  Hit,      // a valid entry answered
  Miss,     // no entry; the product was built and stored
  Rebuilt,  // a corrupt or foreign entry was dropped; built and stored
};

/// "hit", "miss", ... for log lines.
llvm::StringRef cacheOutcomeName(CacheOutcome outcome);

/// What one compile did with the cache, and under which key.
struct CacheReport {
  CacheOutcome outcome = CacheOutcome::Disabled;
  std::string key; // empty when Disabled
};

/// Process-wide counters over every CompileCache (tests observe hits here).
struct CompileCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;   // including rejected entries
  uint64_t rejected = 0; // corrupt or foreign entries dropped
  uint64_t stores = 0;
  uint64_t evicted = 0; // entries removed to keep the folder in its limit
};

class CompileCache {
public:
  /// The folder the environment names (see above), or nullopt when the
  /// cache is disabled or no variable gives one.
  static std::optional<std::string> directoryFromEnvironment();

  explicit CompileCache(std::string directory)
      : directory_(std::move(directory)), maxBytes_(maxSizeFromEnvironment()) {}
  const std::string &directory() const { return directory_; }

  /// The size limit $NN_CACHE_MAX_SIZE gives (see above): 1 GiB when unset
  /// or unreadable, 0 for unbounded.
  static uint64_t maxSizeFromEnvironment();
  uint64_t maxSize() const { return maxBytes_; }
  void setMaxSize(uint64_t bytes) { maxBytes_ = bytes; }

  /// The key (64 hex digits) of compiling `irText` into a product of
  /// `kind` under `options` (any canonical text naming them).
  static std::string key(llvm::StringRef kind, llvm::StringRef options,
                         llvm::StringRef irText);

  /// The entry's file.
  std::string entryPath(llvm::StringRef key) const;

  /// The stored bytes of `key`, or nullopt on a miss. A corrupt or foreign
  /// entry is removed and reported as a miss with `rejected` set.
  std::optional<std::string> lookup(llvm::StringRef key,
                                    bool *rejected = nullptr) const;

  /// Stores `bytes` as the entry of `key` (temporary file + rename, so a
  /// concurrent reader never sees half an entry), then trims the folder.
  llvm::Error store(llvm::StringRef key, llvm::StringRef bytes) const;

  /// When the entries exceed the limit, removes the least recently used
  /// until they fit in 90% of it, sparing `keep` (a key); also removes
  /// temporary files a crashed writer left more than an hour ago. Returns
  /// how many entries it removed.
  uint64_t trim(llvm::StringRef keep = {}) const;

  static CompileCacheStats stats();
  static void resetStats();

private:
  std::string directory_;
  uint64_t maxBytes_;
};

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so an existing `path` is never left half-written.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes);

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_COMPILECACHE_H
