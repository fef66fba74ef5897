//===- SafetensorsMemoryTest.cpp - A header's memory, counted -------------===//
//
// A safetensors header is read as it is parsed (no tree of its JSON), so the
// memory a read takes beyond what it returns is bounded by a small multiple
// of the header's length, whatever the header holds: millions of shape
// dimensions, millions of metadata keys, deep nesting, or a million entries.
// The bytes are counted by this binary's malloc (CountingMalloc.cpp).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Safetensors.h"

#include "CountingMalloc.h"
#include "SafetensorsTestUtil.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nn::testing {
namespace {

using ::testing::HasSubstr;

struct Measured {
  absl::StatusOr<SafetensorsContents> result;
  int64_t transient; // bytes held at the peak beyond what the result keeps
};

Measured parseCounted(const std::string &image) {
  int64_t before = liveBytes.load();
  resetPeakBytes();
  Measured measured{parse_safetensors(image, "big.safetensors"), 0};
  int64_t kept = liveBytes.load() - before;
  measured.transient = peakBytes.load() - before - kept;
  return measured;
}

/// Memory beyond the result: at most this many times the header's length.
constexpr int64_t kTransientPerHeaderByte = 3;

TEST(SafetensorsMemoryTest, MillionsOfShapeDimensions) {
  std::string dims = "1";
  for (int i = 1; i < 4'000'000; ++i)
    dims += ",1";
  std::string header =
      R"({"w":{"dtype":"U8","shape":[)" + dims + R"(],"data_offsets":[0,1]}})";
  Measured measured = parseCounted(fileImage(header, "x"));
  EXPECT_THAT(measured.result.status().message(),
              HasSubstr("has more than 1024 dimensions, the limit"));
  EXPECT_LE(measured.transient,
            kTransientPerHeaderByte * int64_t(header.size()));
}

TEST(SafetensorsMemoryTest, MillionsOfMetadataKeys) {
  std::string header = R"({"__metadata__":{"k0":"")";
  for (int i = 1; i < 1'000'000; ++i)
    header += ",\"k" + std::to_string(i) + "\":\"\"";
  header += "}}";
  Measured measured = parseCounted(fileImage(header));
  EXPECT_THAT(measured.result.status().message(),
              HasSubstr("__metadata__ holds more than 65536 entries"));
  EXPECT_LE(measured.transient,
            kTransientPerHeaderByte * int64_t(header.size()));
}

TEST(SafetensorsMemoryTest, DeepNesting) {
  std::string header = R"({"w":{"shape":[)" + std::string(4'000'000, '[') +
                       std::string(4'000'000, ']') + "]}}";
  Measured measured = parseCounted(fileImage(header));
  EXPECT_THAT(measured.result.status().message(),
              HasSubstr("but element 0 is [...]"));
  EXPECT_LE(measured.transient,
            kTransientPerHeaderByte * int64_t(header.size()));
}

// Accepted: what the read keeps is the tensors; parsing them takes little
// more on the way.
TEST(SafetensorsMemoryTest, ManyEntries) {
  constexpr int kTensors = 100'000;
  std::string header = "{";
  for (int i = 0; i < kTensors; ++i)
    header += (i ? ",\"t" : "\"t") + std::to_string(i) +
              R"(":{"dtype":"U8","shape":[1],"data_offsets":[)" +
              std::to_string(i) + "," + std::to_string(i + 1) + "]}";
  header += "}";
  Measured measured =
      parseCounted(fileImage(header, std::string(kTensors, 'x')));
  ASSERT_TRUE(measured.result.ok()) << measured.result.status();
  EXPECT_EQ(measured.result->tensors.size(), size_t(kTensors));
  EXPECT_LE(measured.transient,
            kTransientPerHeaderByte * int64_t(header.size()));
}

} // namespace
} // namespace nn::testing
