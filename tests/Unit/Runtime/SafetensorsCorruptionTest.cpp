//===- SafetensorsCorruptionTest.cpp - Corrupt safetensors files ----------===//
//
// One test per way a safetensors file can be corrupt or hostile. Each builds
// the bytes by hand and asserts the exact error, which always starts with
// the file's name ("bad.safetensors: ...") and says what is wrong.
//
//===----------------------------------------------------------------------===//

#include "SafetensorsTestUtil.h"

#include "nn/Runtime/Safetensors.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nn {
namespace {

using testing::fileImage;
using ::testing::HasSubstr;
using testing::le64;

/// The error parse_safetensors gives for `bytes` (which must be refused).
std::string errorOf(std::string_view bytes,
                    const SafetensorsLimits &limits = {}) {
  auto parsed = parse_safetensors(bytes, "bad.safetensors", limits);
  if (parsed.ok()) {
    ADD_FAILURE() << "the file was accepted";
    return "";
  }
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

/// A header entry for tensor `name`.
std::string entry(std::string_view name, std::string_view dtype,
                  std::string_view shape, std::string_view offsets) {
  return "\"" + std::string(name) + "\":{\"dtype\":\"" + std::string(dtype) +
         "\",\"shape\":" + std::string(shape) +
         ",\"data_offsets\":" + std::string(offsets) + "}";
}

//===----------------------------------------------------------------------===//
// The length prefix
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsCorruptionTest, EmptyFile) {
  EXPECT_EQ(errorOf(""),
            "bad.safetensors: file is 0 bytes, too short for the 8-byte "
            "header length");
}

TEST(RuntimeSafetensorsCorruptionTest, FileShorterThanEightBytes) {
  EXPECT_EQ(errorOf("\x01\x02\x03\x04\x05"),
            "bad.safetensors: file is 5 bytes, too short for the 8-byte "
            "header length");
}

TEST(RuntimeSafetensorsCorruptionTest, HeaderLengthPastEndOfFile) {
  EXPECT_EQ(errorOf(le64(100) + "{}          "),
            "bad.safetensors: header length 100 runs past the end of the file "
            "(file is 20 bytes, so at most 12 bytes of header fit)");
}

TEST(RuntimeSafetensorsCorruptionTest, HeaderLengthAboveLimit) {
  EXPECT_EQ(errorOf(le64(100'000'001) + "{}"),
            "bad.safetensors: header length 100000001 exceeds the limit of "
            "100000000 bytes");
}

TEST(RuntimeSafetensorsCorruptionTest, HeaderLengthOfAllOnes) {
  EXPECT_EQ(errorOf(le64(UINT64_MAX) + "{}"),
            "bad.safetensors: header length 18446744073709551615 exceeds the "
            "limit of 100000000 bytes");
}

TEST(RuntimeSafetensorsCorruptionTest, HeaderLengthAboveCustomLimit) {
  SafetensorsLimits limits;
  limits.max_header_bytes = 8;
  EXPECT_EQ(errorOf(fileImage("{}              "), limits),
            "bad.safetensors: header length 16 exceeds the limit of 8 bytes");
}

//===----------------------------------------------------------------------===//
// The header JSON
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsCorruptionTest, InvalidJson) {
  EXPECT_EQ(errorOf(fileImage(R"({"w":{"dtype":"F32",}})")),
            "bad.safetensors: header is not valid JSON at header byte 20 "
            "(file offset 28): unexpected '}' (expected a string key)");
}

TEST(RuntimeSafetensorsCorruptionTest, TruncatedJson) {
  EXPECT_EQ(errorOf(fileImage(R"({"w":{"dtype")")),
            "bad.safetensors: header is not valid JSON at header byte 13 "
            "(file offset 21): unexpected end of input (expected ':' after "
            "object key)");
}

TEST(RuntimeSafetensorsCorruptionTest, HeaderNotUtf8) {
  EXPECT_EQ(errorOf(fileImage("{\"w\xFF\":{}}")),
            "bad.safetensors: header is not valid JSON at header byte 3 (file "
            "offset 11): invalid UTF-8 in string: invalid UTF-8 lead byte");
}

TEST(RuntimeSafetensorsCorruptionTest, ControlCharacterInName) {
  EXPECT_EQ(errorOf(fileImage("{\"a\tb\":{}}")),
            "bad.safetensors: header is not valid JSON at header byte 3 (file "
            "offset 11): control character U+0009 in string must be escaped");
}

TEST(RuntimeSafetensorsCorruptionTest, GarbageAfterHeaderJson) {
  EXPECT_EQ(errorOf(fileImage("{}  x")),
            "bad.safetensors: header is not valid JSON at header byte 4 (file "
            "offset 12): unexpected 'x' after the JSON value");
}

// The header is read as it is parsed: deep nesting is refused at the first
// container a header cannot hold, long before the parser's depth limit.
TEST(RuntimeSafetensorsCorruptionTest, NestingTooDeep) {
  std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_EQ(errorOf(fileImage("{\"w\":" + deep + "}")),
            "bad.safetensors: entry \"w\" must be a JSON object with dtype, "
            "shape and data_offsets, found array");
  EXPECT_EQ(errorOf(fileImage("{\"w\":{\"shape\":[1," + deep + "]}}")),
            "bad.safetensors: tensor \"w\" shape must be a list of "
            "non-negative integers, but element 1 is [...]");
  EXPECT_EQ(
      errorOf(fileImage("{\"w\":{\"data_offsets\":[0,{\"a\":" + deep + "}]}}")),
      "bad.safetensors: tensor \"w\" data_offsets must be a list of two "
      "non-negative integers [begin, end], found [0,{...}...");
  EXPECT_EQ(errorOf(fileImage("{\"__metadata__\":{\"a\":" + deep + "}}")),
            "bad.safetensors: __metadata__ value for key \"a\" must be a "
            "string, found array");
}

TEST(RuntimeSafetensorsCorruptionTest, NestingDeeperThanCustomLimit) {
  SafetensorsLimits limits;
  limits.max_json_depth = 2;
  EXPECT_EQ(errorOf(fileImage("{\"w\":{\"shape\":[]}}"), limits),
            "bad.safetensors: header JSON nests deeper than 2 levels at "
            "header byte 14 (file offset 22)");
}

TEST(RuntimeSafetensorsCorruptionTest, HeaderNotAnObject) {
  EXPECT_EQ(errorOf(fileImage("[]")),
            "bad.safetensors: header must be a JSON object, found array");
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsCorruptionTest, EntryNotAnObject) {
  EXPECT_EQ(errorOf(fileImage(R"({"w":[0,4]})")),
            "bad.safetensors: entry \"w\" must be a JSON object with dtype, "
            "shape and data_offsets, found array");
}

TEST(RuntimeSafetensorsCorruptionTest, EntryMissingField) {
  EXPECT_EQ(errorOf(fileImage(R"({"w":{"dtype":"F32","shape":[2]}})")),
            "bad.safetensors: tensor \"w\" is missing the \"data_offsets\" "
            "field");
}

TEST(RuntimeSafetensorsCorruptionTest, EntryExtraField) {
  std::string header = R"({"w":{"dtype":"U8","shape":[1],)"
                       R"("data_offsets":[0,1],"offsets":[0,1]}})";
  EXPECT_EQ(errorOf(fileImage(header, "x")),
            "bad.safetensors: tensor \"w\" has an unexpected field "
            "\"offsets\" (allowed: dtype, shape, data_offsets)");
}

TEST(RuntimeSafetensorsCorruptionTest, EntryDuplicateField) {
  std::string header = R"({"w":{"dtype":"U8","dtype":"U8","shape":[1],)"
                       R"("data_offsets":[0,1]}})";
  EXPECT_EQ(errorOf(fileImage(header, "x")),
            "bad.safetensors: header is not valid JSON at header byte 19 "
            "(file offset 27): duplicate key \"dtype\" in object");
}

TEST(RuntimeSafetensorsCorruptionTest, DtypeNotAString) {
  std::string header = R"({"w":{"dtype":4,"shape":[1],"data_offsets":[0,4]}})";
  EXPECT_EQ(errorOf(fileImage(header, "1234")),
            "bad.safetensors: tensor \"w\" dtype must be a string, found "
            "number");
}

TEST(RuntimeSafetensorsCorruptionTest, UnknownDtype) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "F17", "[1]", "[0,4]") + "}", "1234")),
      "bad.safetensors: tensor \"w\" has unknown dtype \"F17\"");
}

TEST(RuntimeSafetensorsCorruptionTest, DtypeNNDoesNotSupport) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "U16", "[2]", "[0,4]") + "}", "1234")),
      "bad.safetensors: tensor \"w\" has dtype \"U16\", which nn does "
      "not support");
}

TEST(RuntimeSafetensorsCorruptionTest, ShapeNotAList) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "F32", "\"2x3\"", "[0,24]") + "}")),
      "bad.safetensors: tensor \"w\" shape must be a list of "
      "non-negative integers, found string");
}

TEST(RuntimeSafetensorsCorruptionTest, ShapeWithNegativeDimension) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "F32", "[2,-3]", "[0,24]") + "}")),
      "bad.safetensors: tensor \"w\" shape must be a list of "
      "non-negative integers, but element 1 is -3");
}

TEST(RuntimeSafetensorsCorruptionTest, ShapeWithFractionalDimension) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "F32", "[2.5]", "[0,10]") + "}")),
      "bad.safetensors: tensor \"w\" shape must be a list of "
      "non-negative integers, but element 0 is 2.5");
}

TEST(RuntimeSafetensorsCorruptionTest, ShapeElementCountOverflows) {
  EXPECT_EQ(
      errorOf(fileImage(
          "{" + entry("w", "U8", "[4294967296,4294967296]", "[0,0]") + "}")),
      "bad.safetensors: tensor \"w\" shape [4294967296,4294967296] has "
      "more elements than a 64-bit count can hold");
}

TEST(RuntimeSafetensorsCorruptionTest, ShapeByteSizeOverflows) {
  // 2^62 elements fit in 64 bits; 2^62 x 4 bytes do not.
  EXPECT_EQ(
      errorOf(fileImage(
          "{" + entry("w", "F32", "[4611686018427387904]", "[0,0]") + "}")),
      "bad.safetensors: tensor \"w\" byte size (4611686018427387904 "
      "elements of shape [4611686018427387904] x 4 bytes per F32) "
      "overflows 64 bits");
}

TEST(RuntimeSafetensorsCorruptionTest, DataOffsetsNotAPair) {
  EXPECT_EQ(errorOf(fileImage("{" + entry("w", "U8", "[1]", "[0]") + "}", "x")),
            "bad.safetensors: tensor \"w\" data_offsets must be a list of two "
            "non-negative integers [begin, end], found [0]");
}

TEST(RuntimeSafetensorsCorruptionTest, DataOffsetsNegative) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "U8", "[1]", "[-1,0]") + "}", "x")),
      "bad.safetensors: tensor \"w\" data_offsets must be a list of two "
      "non-negative integers [begin, end], found [-1,0]");
}

TEST(RuntimeSafetensorsCorruptionTest, DataOffsetsBeginAfterEnd) {
  EXPECT_EQ(errorOf(fileImage("{" + entry("w", "F32", "[2,3]", "[24,0]") + "}",
                              std::string(24, '\0'))),
            "bad.safetensors: tensor \"w\" data_offsets [24,0] begin after "
            "end");
}

TEST(RuntimeSafetensorsCorruptionTest, ByteSizeDiffersFromShapeTimesDtype) {
  EXPECT_EQ(errorOf(fileImage("{" + entry("w", "F32", "[2,3]", "[0,20]") + "}",
                              std::string(20, '\0'))),
            "bad.safetensors: tensor \"w\" data_offsets [0,20] span 20 bytes, "
            "but shape [2,3] of F32 needs 24 bytes");
}

TEST(RuntimeSafetensorsCorruptionTest, DataOffsetsPastDataRegion) {
  EXPECT_EQ(errorOf(fileImage("{" + entry("w", "F32", "[2,3]", "[0,24]") + "}",
                              std::string(16, '\0'))),
            "bad.safetensors: tensor \"w\" data_offsets [0,24] run past the "
            "end of the data region (16 bytes)");
}

TEST(RuntimeSafetensorsCorruptionTest, HugeTensorIsRefusedBeforeAllocation) {
  // A terabyte claimed by a file of a few bytes: refused from the header
  // alone (an allocation of that size would fail or exhaust memory).
  EXPECT_EQ(
      errorOf(fileImage(
          "{" + entry("w", "U8", "[1000000000000]", "[0,1000000000000]") + "}",
          "tiny")),
      "bad.safetensors: tensor \"w\" data_offsets [0,1000000000000] run "
      "past the end of the data region (4 bytes)");
}

//===----------------------------------------------------------------------===//
// Offsets together
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsCorruptionTest, OverlappingTensors) {
  std::string header = "{" + entry("a", "F32", "[6]", "[0,24]") + "," +
                       entry("b", "F32", "[6]", "[16,40]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, std::string(40, '\0'))),
            "bad.safetensors: tensors \"a\" (data_offsets [0,24]) and \"b\" "
            "(data_offsets [16,40]) overlap");
}

TEST(RuntimeSafetensorsCorruptionTest, TwoTensorsOnTheSameBytes) {
  std::string header = "{" + entry("a", "F32", "[6]", "[0,24]") + "," +
                       entry("b", "I32", "[6]", "[0,24]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, std::string(24, '\0'))),
            "bad.safetensors: tensors \"a\" (data_offsets [0,24]) and \"b\" "
            "(data_offsets [0,24]) overlap");
}

TEST(RuntimeSafetensorsCorruptionTest, HoleBetweenTensors) {
  std::string header = "{" + entry("a", "F32", "[6]", "[0,24]") + "," +
                       entry("b", "F32", "[6]", "[32,56]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, std::string(56, '\0'))),
            "bad.safetensors: bytes [24,32) of the data region belong to no "
            "tensor (a hole between \"a\" and \"b\")");
}

TEST(RuntimeSafetensorsCorruptionTest, HoleBeforeFirstTensor) {
  std::string header = "{" + entry("b", "F32", "[6]", "[8,32]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, std::string(32, '\0'))),
            "bad.safetensors: bytes [0,8) of the data region belong to no "
            "tensor (a hole before \"b\")");
}

TEST(RuntimeSafetensorsCorruptionTest, TrailingBytesAfterLastTensor) {
  std::string header = "{" + entry("w", "F32", "[6]", "[0,24]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, std::string(32, '\0'))),
            "bad.safetensors: 8 trailing bytes after the last tensor (tensor "
            "data ends at byte 24 of the 32-byte data region)");
}

TEST(RuntimeSafetensorsCorruptionTest, DataWithoutAnyTensor) {
  EXPECT_EQ(errorOf(fileImage("{}", "junk")),
            "bad.safetensors: 4 trailing bytes after the last tensor (tensor "
            "data ends at byte 0 of the 4-byte data region)");
}

//===----------------------------------------------------------------------===//
// Names, counts, metadata
//===----------------------------------------------------------------------===//

TEST(RuntimeSafetensorsCorruptionTest, DuplicateTensorName) {
  std::string header = "{" + entry("w", "U8", "[1]", "[0,1]") + "," +
                       entry("w", "U8", "[1]", "[1,2]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, "ab")),
            "bad.safetensors: duplicate tensor name \"w\" in header at header "
            "byte 53 (file offset 61)");
}

TEST(RuntimeSafetensorsCorruptionTest, NulInTensorName) {
  std::string header = "{" + entry("a\\u0000b", "U8", "[1]", "[0,1]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, "x")),
            "bad.safetensors: tensor name \"a\\u0000b\" contains a NUL "
            "character");
}

TEST(RuntimeSafetensorsCorruptionTest, EmptyTensorName) {
  std::string header = "{" + entry("", "U8", "[1]", "[0,1]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, "x")),
            "bad.safetensors: empty tensor name in header");
}

TEST(RuntimeSafetensorsCorruptionTest, MoreTensorsThanTheLimit) {
  SafetensorsLimits limits;
  limits.max_tensors = 2;
  std::string header = "{\"__metadata__\":{}," +
                       entry("a", "U8", "[1]", "[0,1]") + "," +
                       entry("b", "U8", "[1]", "[1,2]") + "," +
                       entry("c", "U8", "[1]", "[2,3]") + "}";
  EXPECT_EQ(errorOf(fileImage(header, "abc"), limits),
            "bad.safetensors: header lists 3 tensors, more than the limit of "
            "2");
}

TEST(RuntimeSafetensorsCorruptionTest, RankAboveTheLimit) {
  std::string dims = "[1";
  for (int i = 1; i < 1025; ++i)
    dims += ",1";
  dims += "]";
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "U8", dims, "[0,1]") + "}", "x")),
      "bad.safetensors: tensor \"w\" has more than 1024 dimensions, the "
      "limit");
  SafetensorsLimits limits;
  limits.max_rank = 2;
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "U8", "[1,1,1]", "[0,1]") + "}", "x"),
              limits),
      "bad.safetensors: tensor \"w\" has more than 2 dimensions, the limit");
  // At the limit is fine.
  std::string header = "{" + entry("w", "U8", "[1,1]", "[0,1]") + "}";
  EXPECT_TRUE(parse_safetensors(fileImage(header, "x"), "ok", limits).ok());
}

TEST(RuntimeSafetensorsCorruptionTest, MoreMetadataThanTheLimit) {
  SafetensorsLimits limits;
  limits.max_metadata_entries = 2;
  std::string header = R"({"__metadata__":{"a":"1","b":"2","c":"3"}})";
  EXPECT_EQ(errorOf(fileImage(header), limits),
            "bad.safetensors: __metadata__ holds more than 2 entries, the "
            "limit");
  EXPECT_TRUE(
      parse_safetensors(fileImage(R"({"__metadata__":{"a":"1","b":"2"}})"),
                        "ok", limits)
          .ok());
}

TEST(RuntimeSafetensorsCorruptionTest, DataOffsetsLongerThanAPair) {
  EXPECT_EQ(
      errorOf(fileImage("{" + entry("w", "U8", "[1]", "[0,1,2,3]") + "}", "x")),
      "bad.safetensors: tensor \"w\" data_offsets must be a list of two "
      "non-negative integers [begin, end], found [0,1,2...");
}

TEST(RuntimeSafetensorsCorruptionTest, MetadataNotAnObject) {
  EXPECT_EQ(errorOf(fileImage(R"({"__metadata__":["pt"]})")),
            "bad.safetensors: __metadata__ must be an object mapping strings "
            "to strings, found array");
}

TEST(RuntimeSafetensorsCorruptionTest, MetadataValueNotAString) {
  EXPECT_EQ(errorOf(fileImage(R"({"__metadata__":{"format":"pt","n":1}})")),
            "bad.safetensors: __metadata__ value for key \"n\" must be a "
            "string, found number");
}

TEST(RuntimeSafetensorsCorruptionTest, DuplicateMetadata) {
  EXPECT_EQ(errorOf(fileImage(R"({"__metadata__":{},"__metadata__":{}})")),
            "bad.safetensors: header is not valid JSON at header byte 19 "
            "(file offset 27): duplicate key \"__metadata__\" in object");
}

} // namespace
} // namespace nn
