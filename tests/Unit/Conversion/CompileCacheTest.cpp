//===- CompileCacheTest.cpp - The on-disk compile cache -------------------===//
//
// The store itself (keys, entries, what is refused), then the frontend's
// compile paths through it: a repeated compile is answered from the cache
// (seen in the counters, not in timings), other options miss, and a corrupt
// entry is rebuilt with the right numbers.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/CompileCache.h"
#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/Passes.h"
#include "nn/nn.h"

#include "models/ResNet.h"

#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <utime.h>

using mlir::nn::CompileCache;
using mlir::nn::CompileCacheStats;
using ::testing::HasSubstr;

namespace {

/// A fresh cache folder per test, removed afterwards; NN_CACHE_DIR points
/// at it while the test runs.
class CompileCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nn-cache-test", dir));
    dir_ = std::string(dir);
    if (const char *old = std::getenv("NN_CACHE_DIR"))
      saved_ = old;
    ::setenv("NN_CACHE_DIR", dir_.c_str(), 1);
    ::unsetenv("NN_CACHE_DISABLE");
    CompileCache::resetStats();
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(dir_);
    if (saved_)
      ::setenv("NN_CACHE_DIR", saved_->c_str(), 1);
    else
      ::unsetenv("NN_CACHE_DIR");
  }

  std::string readFile(const std::string &path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  }
  void writeFile(const std::string &path, const std::string &bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
  /// The entry files in the folder.
  std::vector<std::string> entries() {
    std::vector<std::string> found;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir_, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".entry"))
        found.push_back(it->path());
    return found;
  }

  std::string dir_;
  std::optional<std::string> saved_;
};

TEST_F(CompileCacheTest, KeysDependOnKindOptionsAndIR) {
  std::string key = CompileCache::key("so", "optimize=1", "module {}");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, CompileCache::key("so", "optimize=1", "module {}"));
  EXPECT_NE(key, CompileCache::key("jit-object", "optimize=1", "module {}"));
  EXPECT_NE(key, CompileCache::key("so", "optimize=0", "module {}"));
  EXPECT_NE(key, CompileCache::key("so", "optimize=1", "module {} "));
  // Fields are length-prefixed: moving a byte across a boundary changes it.
  EXPECT_NE(CompileCache::key("so", "ab", "c"),
            CompileCache::key("so", "a", "bc"));
}

/// The cache text of the pipeline options with one nn-optimize option set.
static std::string withOptimizeOption(llvm::StringRef option) {
  auto optimize = std::make_shared<mlir::nn::OptimizePipelineOptions>();
  EXPECT_TRUE(mlir::succeeded(optimize->parseFromString(option)));
  mlir::nn::PipelineOptions options;
  options.optimize = optimize;
  return options.cacheText();
}

TEST(PipelineOptionsTest, EveryOptionDecidesTheCacheText) {
  mlir::nn::PipelineOptions defaults;
  std::set<std::string> texts = {defaults.cacheText()};
  // Every nn-optimize option, found through the registered pipeline's own
  // list, so an option added later cannot be left out of the key.
  for (const char *option :
       {"tie-weights=false", "fold-batchnorm=false", "fold-scalar-mul=false",
        "merge-linears=false", "fuse=false"})
    EXPECT_TRUE(texts.insert(withOptimizeOption(option)).second) << option;
  EXPECT_EQ(withOptimizeOption(""), defaults.cacheText());

  mlir::nn::PipelineOptions unoptimized;
  unoptimized.optimize = nullptr;
  EXPECT_TRUE(texts.insert(unoptimized.cacheText()).second);

  mlir::nn::PipelineOptions haswell;
  haswell.target.cpu = "haswell";
  EXPECT_TRUE(texts.insert(haswell.cacheText()).second);

  // Embedded tensors by name, dtype, shape and every byte.
  auto embedding = [](const nn::StateDict &state) {
    mlir::nn::PipelineOptions options;
    options.embed = &state;
    return options.cacheText();
  };
  nn::StateDict a, renamed, reshaped, changed;
  a.insert("w", nn::Tensor::zeros({2, 3}));
  renamed.insert("v", nn::Tensor::zeros({2, 3}));
  reshaped.insert("w", nn::Tensor::zeros({3, 2}));
  changed.insert("w", nn::Tensor::zeros({2, 3}));
  changed.at("w").data_ptr<float>()[5] = 1.0f;
  EXPECT_EQ(embedding(a), embedding(a));
  for (const nn::StateDict *state : {&a, &renamed, &reshaped, &changed})
    EXPECT_TRUE(texts.insert(embedding(*state)).second);
}

TEST_F(CompileCacheTest, StoredBytesComeBack) {
  CompileCache cache(dir_ + "/nested/folder"); // created on first store
  std::string key = CompileCache::key("so", "", "ir");
  EXPECT_FALSE(cache.lookup(key).has_value());
  std::string bytes("\x7f"
                    "ELF\0\1binary",
                    12);
  ASSERT_FALSE(bool(cache.store(key, bytes)));
  bool rejected = true;
  std::optional<std::string> back = cache.lookup(key, &rejected);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, bytes);
  EXPECT_FALSE(rejected);
  CompileCacheStats stats = CompileCache::stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_EQ(stats.rejected, 0u);
}

TEST_F(CompileCacheTest, CorruptTruncatedAndForeignEntriesAreMissesAndRemoved) {
  CompileCache cache(dir_);
  std::string key = CompileCache::key("so", "", "one");
  std::string other = CompileCache::key("so", "", "two");
  std::string bytes(1000, 'x');
  ASSERT_FALSE(bool(cache.store(key, bytes)));
  std::string entry = readFile(cache.entryPath(key));
  ASSERT_EQ(entry.size() > bytes.size(), true);

  auto expectRejected = [&](const std::string &forKey, const std::string &file,
                            const char *what) {
    writeFile(cache.entryPath(forKey), file);
    bool rejected = false;
    EXPECT_FALSE(cache.lookup(forKey, &rejected).has_value()) << what;
    EXPECT_TRUE(rejected) << what;
    EXPECT_FALSE(llvm::sys::fs::exists(cache.entryPath(forKey))) << what;
  };
  std::string flipped = entry;
  flipped[10] ^= 1;
  expectRejected(key, flipped, "a flipped payload byte");
  expectRejected(key, entry.substr(0, entry.size() - 1), "a truncated trailer");
  expectRejected(key, entry.substr(1), "a truncated payload");
  expectRejected(key, "", "an empty file");
  expectRejected(key, std::string(5, '\0'), "a file shorter than a trailer");
  expectRejected(other, entry, "another key's entry");
  EXPECT_EQ(CompileCache::stats().rejected, 6u);

  // The rebuilt entry is good again.
  ASSERT_FALSE(bool(cache.store(key, bytes)));
  EXPECT_EQ(cache.lookup(key).value_or(""), bytes);
}

/// Sets a file's modification time to `secondsAgo` before now.
void age(const std::string &path, int secondsAgo) {
  struct utimbuf times;
  times.actime = times.modtime = ::time(nullptr) - secondsAgo;
  ASSERT_EQ(::utime(path.c_str(), &times), 0) << path;
}

TEST_F(CompileCacheTest, TheLeastRecentlyUsedEntriesAreEvictedPastTheLimit) {
  CompileCache cache(dir_);
  std::string bytes(1000, 'x'); // about 1.1 KB per entry with its trailer
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i)
    keys.push_back(CompileCache::key("so", "", "model " + std::to_string(i)));
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(bool(cache.store(keys[i], bytes)));
    age(cache.entryPath(keys[i]), 300 - 100 * i); // 0 oldest, 2 newest
  }
  // Entry 0 is used again: the hit makes it the most recent.
  ASSERT_TRUE(cache.lookup(keys[0]).has_value());

  // Room for three and a half entries: storing a fourth evicts the least
  // recently used (1), which brings the folder under 90% of the limit.
  uint64_t entrySize = readFile(cache.entryPath(keys[0])).size();
  cache.setMaxSize(3 * entrySize + entrySize / 2);
  ASSERT_FALSE(bool(cache.store(keys[3], bytes)));
  EXPECT_EQ(CompileCache::stats().evicted, 1u);
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(keys[0])));
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryPath(keys[1])));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(keys[2])));
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(keys[3])));

  // The entry just stored is kept even when it alone is over the limit.
  cache.setMaxSize(entrySize / 2);
  ASSERT_FALSE(bool(cache.store(keys[1], bytes)));
  EXPECT_EQ(entries().size(), 1u);
  EXPECT_TRUE(llvm::sys::fs::exists(cache.entryPath(keys[1])));
  EXPECT_EQ(CompileCache::stats().evicted, 4u);

  // Unbounded: nothing goes.
  cache.setMaxSize(0);
  for (int i = 0; i < 4; ++i)
    ASSERT_FALSE(bool(cache.store(keys[i], bytes)));
  EXPECT_EQ(entries().size(), 4u);
  EXPECT_EQ(CompileCache::stats().evicted, 4u);
}

TEST_F(CompileCacheTest, TheTrimRemovesOnlyStaleTemporaryFiles) {
  CompileCache cache(dir_);
  std::string key = CompileCache::key("so", "", "ir");
  std::string stale = cache.entryPath(key) + ".tmp-deadbeef";
  std::string fresh = cache.entryPath(key) + ".tmp-cafebabe";
  writeFile(stale, "half an entry");
  writeFile(fresh, "being written");
  age(stale, 2 * 3600);
  cache.trim();
  EXPECT_FALSE(llvm::sys::fs::exists(stale));
  EXPECT_TRUE(llvm::sys::fs::exists(fresh)); // a writer may still own it
}

TEST_F(CompileCacheTest, TheLimitComesFromTheEnvironment) {
  auto limitFor = [](const char *text) {
    ::setenv("NN_CACHE_MAX_SIZE", text, 1);
    uint64_t limit = CompileCache::maxSizeFromEnvironment();
    ::unsetenv("NN_CACHE_MAX_SIZE");
    return limit;
  };
  constexpr uint64_t kDefault = uint64_t(1) << 30;
  EXPECT_EQ(CompileCache::maxSizeFromEnvironment(), kDefault);
  EXPECT_EQ(limitFor("12345"), 12345u);
  EXPECT_EQ(limitFor("64K"), 64u << 10);
  EXPECT_EQ(limitFor("500m"), 500u << 20);
  EXPECT_EQ(limitFor("2G"), uint64_t(2) << 30);
  EXPECT_EQ(limitFor("0"), 0u);
  // Unreadable values fall back to the default rather than to unbounded.
  EXPECT_EQ(limitFor("lots"), kDefault);
  EXPECT_EQ(limitFor("5T"), kDefault);
  EXPECT_EQ(limitFor("5MB"), kDefault);
  EXPECT_EQ(limitFor("-1"), kDefault);
  EXPECT_EQ(limitFor("99999999999999999999G"), kDefault);
  EXPECT_EQ(CompileCache(dir_).maxSize(), kDefault);
}

TEST_F(CompileCacheTest, FolderComesFromTheEnvironment) {
  EXPECT_EQ(CompileCache::directoryFromEnvironment().value_or(""), dir_);
  ::setenv("NN_CACHE_DISABLE", "1", 1);
  EXPECT_FALSE(CompileCache::directoryFromEnvironment().has_value());
  ::setenv("NN_CACHE_DISABLE", "0", 1);
  EXPECT_TRUE(CompileCache::directoryFromEnvironment().has_value());
  ::unsetenv("NN_CACHE_DISABLE");

  ::unsetenv("NN_CACHE_DIR");
  std::optional<std::string> xdg, home;
  if (const char *v = std::getenv("XDG_CACHE_HOME"))
    xdg = v;
  if (const char *v = std::getenv("HOME"))
    home = v;
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(CompileCache::directoryFromEnvironment().value_or(""), "/xdg/nn");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(CompileCache::directoryFromEnvironment().value_or(""),
            "/home/someone/.cache/nn");
  ::unsetenv("HOME");
  EXPECT_FALSE(CompileCache::directoryFromEnvironment().has_value());
  if (xdg)
    ::setenv("XDG_CACHE_HOME", xdg->c_str(), 1);
  if (home)
    ::setenv("HOME", home->c_str(), 1);
  ::setenv("NN_CACHE_DIR", dir_.c_str(), 1);
}

/// The ResNet seed model's compiled output on one input.
class FrontendCacheTest : public CompileCacheTest {
protected:
  void SetUp() override {
    CompileCacheTest::SetUp();
    nn::manual_seed(0);
    model_ = nn::models::ResNet();
    model_->eval();
    input_ = nn::Tensor::zeros({2, 3, 8, 8});
    nn::init::uniform_(input_, -1.0, 1.0);
  }
  std::vector<float> run(const nn::CompileOptions &options = {}) {
    auto artifact =
        nn::compile(nn::trace(model_, {nn::TensorSpec({2, 3, 8, 8})}), options);
    nn::Tensor y = artifact->run({input_}).value().at(0);
    return std::vector<float>(y.data_ptr<float>(),
                              y.data_ptr<float>() + y.numel());
  }
  nn::models::ResNet model_{nullptr};
  nn::Tensor input_;
};

TEST_F(FrontendCacheTest, ARepeatedCompileIsAnsweredFromTheCache) {
  std::vector<float> first = run();
  CompileCacheStats stats = CompileCache::stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_EQ(stats.hits, 0u);
  EXPECT_EQ(entries().size(), 1u);

  // A second trace of the same model: same IR, same options.
  EXPECT_EQ(run(), first);
  stats = CompileCache::stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.stores, 1u);

  // Other options, another entry.
  nn::CompileOptions noFuse;
  noFuse.optimize_options.fuse = false;
  std::vector<float> unfused = run(noFuse);
  stats = CompileCache::stats();
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.stores, 2u);
  EXPECT_EQ(entries().size(), 2u);
  ASSERT_EQ(unfused.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_NEAR(unfused[i], first[i], 1e-5 + 1e-4 * std::abs(first[i]));

  // Asked not to, the cache is neither read nor written.
  nn::CompileOptions uncached;
  uncached.cache = false;
  EXPECT_EQ(run(uncached), first);
  EXPECT_EQ(CompileCache::stats().hits, 1u);
  EXPECT_EQ(CompileCache::stats().stores, 2u);
}

TEST_F(FrontendCacheTest, ACorruptEntryIsRebuiltNotLoaded) {
  std::vector<float> first = run();
  std::vector<std::string> files = entries();
  ASSERT_EQ(files.size(), 1u);
  // Garbage where the object's code was, trailer intact.
  std::string entry = readFile(files[0]);
  for (size_t i = 0; i < entry.size() / 2; ++i)
    entry[i] = static_cast<char>(0xcc);
  writeFile(files[0], entry);

  EXPECT_EQ(run(), first);
  CompileCacheStats stats = CompileCache::stats();
  EXPECT_EQ(stats.rejected, 1u);
  EXPECT_EQ(stats.stores, 2u);
  EXPECT_EQ(stats.hits, 0u);
  // ... and the rebuilt entry serves the next compile.
  EXPECT_EQ(run(), first);
  EXPECT_EQ(CompileCache::stats().hits, 1u);
}

TEST_F(FrontendCacheTest, SharedObjectsAreCachedToo) {
  nn::TracedModule traced = nn::trace(model_, {nn::TensorSpec({2, 3, 8, 8})});
  std::string a = dir_ + "/a.so", b = dir_ + "/b.so";
  nn::compile_to_file(traced, a);
  EXPECT_EQ(CompileCache::stats().stores, 1u);
  nn::compile_to_file(traced, b);
  EXPECT_EQ(CompileCache::stats().hits, 1u);
  EXPECT_EQ(readFile(a), readFile(b));
  auto loaded = nn::Artifact::load(b);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
}

TEST_F(FrontendCacheTest, NNCompileAndCompileToFileShareEntries) {
  // nn::compile_to_file and nn-compile run one pipeline under one key: the
  // traced text compiled through nn-compile's path finds the entry the
  // frontend stored.
  nn::TracedModule traced = nn::trace(model_, {nn::TensorSpec({2, 3, 8, 8})});
  nn::compile_to_file(traced, dir_ + "/a.so");
  ASSERT_EQ(CompileCache::stats().stores, 1u);

  mlir::DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  auto module =
      mlir::parseSourceString<mlir::ModuleOp>(traced.to_string(), &context);
  ASSERT_TRUE(module);
  CompileCache cache(dir_);
  mlir::nn::CacheReport report;
  ASSERT_TRUE(mlir::succeeded(mlir::nn::compileToSharedObject(
      *module, dir_ + "/b.so", mlir::nn::PipelineOptions(), &cache, &report)));
  EXPECT_EQ(report.outcome, mlir::nn::CacheOutcome::Hit);
  EXPECT_EQ(readFile(dir_ + "/a.so"), readFile(dir_ + "/b.so"));
}

TEST_F(FrontendCacheTest, EmbeddedWeightsAreKeyedByTheirValues) {
  // The key is taken before the weights are embedded: their bytes are in it.
  nn::TracedModule traced = nn::trace(model_, {nn::TensorSpec({2, 3, 8, 8})});
  nn::CompileOptions embed;
  embed.embed_weights = true;
  nn::compile_to_file(traced, dir_ + "/a.so", embed);
  nn::compile_to_file(traced, dir_ + "/b.so", embed);
  EXPECT_EQ(CompileCache::stats().hits, 1u);

  nn::Tensor weight = model_->named_parameters().front().second;
  weight.data_ptr<float>()[0] += 1.0f;
  nn::compile_to_file(traced, dir_ + "/c.so", embed);
  EXPECT_EQ(CompileCache::stats().hits, 1u);
  EXPECT_EQ(CompileCache::stats().stores, 2u);
  EXPECT_NE(readFile(dir_ + "/a.so"), readFile(dir_ + "/c.so"));
}

} // namespace
