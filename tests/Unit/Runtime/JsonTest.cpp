//===- JsonTest.cpp - Tests for the runtime's strict JSON -----------------===//
//
// The parser accepts exactly RFC 8259 (numbers, strings with escapes and
// UTF-8, nesting, member order) and reports every rejection with its byte
// offset; the writer produces compact text with serde_json's escaping.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

namespace nn::json {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

/// Parses text that must be valid.
Value parseOk(std::string_view text, const ParseOptions &options = {}) {
  ParseError error;
  std::optional<Value> value = parse(text, error, options);
  EXPECT_TRUE(value.has_value()) << text << ": " << error.toString();
  return value ? std::move(*value) : Value();
}

/// Parses text that must be rejected and returns the error.
ParseError parseError(std::string_view text, const ParseOptions &options = {}) {
  ParseError error;
  std::optional<Value> value = parse(text, error, options);
  EXPECT_FALSE(value.has_value()) << text << " was accepted";
  return error;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

TEST(RuntimeJsonTest, ParsesLiterals) {
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk("true").getBool());
  EXPECT_FALSE(parseOk("false").getBool());
}

TEST(RuntimeJsonTest, AllowsWhitespaceAroundTheValue) {
  EXPECT_TRUE(parseOk(" \t\r\n[ 1 , 2 ] \n").isArray());
}

TEST(RuntimeJsonTest, KeepsIntegersExact) {
  Value v = parseOk("[9007199254740993, -9223372036854775808, "
                    "9223372036854775807, -0]");
  const Array &a = v.getArray();
  EXPECT_EQ(a[0].getInteger(), 9007199254740993);
  EXPECT_EQ(a[1].getInteger(), INT64_MIN);
  EXPECT_EQ(a[2].getInteger(), INT64_MAX);
  EXPECT_EQ(a[3].getInteger(), 0);
}

TEST(RuntimeJsonTest, IntegerBeyondInt64IsADouble) {
  Value v = parseOk("18446744073709551615");
  EXPECT_FALSE(v.isInteger());
  EXPECT_EQ(v.getDouble(), 18446744073709551615.0);
}

TEST(RuntimeJsonTest, FractionOrExponentIsNotAnInteger) {
  EXPECT_FALSE(parseOk("1.0").isInteger());
  EXPECT_FALSE(parseOk("1e2").isInteger());
  EXPECT_EQ(parseOk("1e2").getDouble(), 100.0);
  EXPECT_EQ(parseOk("-2.5E-1").getDouble(), -0.25);
}

TEST(RuntimeJsonTest, RejectsLeadingZeros) {
  ParseError e = parseError("[01]");
  EXPECT_EQ(e.toString(),
            "at byte 1: invalid number: leading zeros are not allowed");
}

TEST(RuntimeJsonTest, RejectsMalformedNumbers) {
  EXPECT_EQ(parseError("+1").message, "unexpected '+' (expected a JSON value)");
  EXPECT_EQ(parseError("1.").message,
            "invalid number: expected a digit after '.'");
  EXPECT_EQ(parseError(".5").message, "unexpected '.' (expected a JSON value)");
  EXPECT_EQ(parseError("1e").message,
            "invalid number: expected a digit in the exponent");
  EXPECT_EQ(parseError("-").message, "invalid number: expected a digit");
}

TEST(RuntimeJsonTest, RejectsNaNAndInfinity) {
  EXPECT_EQ(parseError("NaN").code, ParseError::Code::Syntax);
  EXPECT_EQ(parseError("Infinity").code, ParseError::Code::Syntax);
  EXPECT_EQ(parseError("-Infinity").message,
            "invalid number: expected a digit");
}

TEST(RuntimeJsonTest, RejectsNumberThatOverflowsDouble) {
  ParseError e = parseError("[1e400]");
  EXPECT_EQ(e.toString(), "at byte 1: number out of range");
}

TEST(RuntimeJsonTest, NumberThatUnderflowsIsZero) {
  EXPECT_EQ(parseOk("1e-400").getDouble(), 0.0);
  EXPECT_TRUE(std::signbit(parseOk("-1e-400").getDouble()));
}

TEST(RuntimeJsonTest, RejectsMisspelledLiteral) {
  EXPECT_EQ(parseError("[nul]").toString(),
            "at byte 1: invalid literal (expected true, false or null)");
}

//===----------------------------------------------------------------------===//
// Strings
//===----------------------------------------------------------------------===//

TEST(RuntimeJsonTest, DecodesSimpleEscapes) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\b\f\n\r\t")").getString(),
            "a\"b\\c/d\b\f\n\r\t");
}

TEST(RuntimeJsonTest, DecodesUnicodeEscapesToUtf8) {
  EXPECT_EQ(parseOk(R"("\u0041\u00e9\u20AC")").getString(),
            "A\xC3\xA9\xE2\x82\xAC");
}

TEST(RuntimeJsonTest, DecodesSurrogatePairs) {
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").getString(), "\xF0\x9F\x98\x80");
}

TEST(RuntimeJsonTest, DecodesEscapedNul) {
  EXPECT_EQ(parseOk(R"("a\u0000b")").getString(), std::string("a\0b", 3));
}

TEST(RuntimeJsonTest, RejectsLoneHighSurrogate) {
  EXPECT_EQ(parseError(R"(["x\ud800y"])").toString(),
            "at byte 3: high surrogate \\uD800 is not followed by a \\u low "
            "surrogate");
}

TEST(RuntimeJsonTest, RejectsHighSurrogateFollowedByNonSurrogate) {
  EXPECT_EQ(parseError(R"("\ud800\u0041")").message,
            "high surrogate \\uD800 is followed by \\u0041, not a low "
            "surrogate");
}

TEST(RuntimeJsonTest, RejectsLoneLowSurrogate) {
  EXPECT_EQ(parseError(R"("\udc00")").toString(),
            "at byte 1: lone low surrogate \\uDC00");
}

TEST(RuntimeJsonTest, RejectsBadHexInUnicodeEscape) {
  EXPECT_EQ(parseError(R"("\u12G4")").toString(),
            "at byte 5: invalid \\u escape: expected 4 hex digits");
}

TEST(RuntimeJsonTest, RejectsUnknownEscape) {
  EXPECT_EQ(parseError(R"("a\x")").toString(),
            "at byte 2: invalid escape: 'x' after a backslash");
}

TEST(RuntimeJsonTest, RejectsRawControlCharacterInString) {
  EXPECT_EQ(parseError("\"ab\ncd\"").toString(),
            "at byte 3: control character U+000A in string must be escaped");
}

TEST(RuntimeJsonTest, RejectsUnterminatedString) {
  EXPECT_EQ(parseError("[\"abc").toString(), "at byte 1: unterminated string");
}

TEST(RuntimeJsonTest, AcceptsValidUtf8) {
  EXPECT_EQ(parseOk("\"\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80\"").getString(),
            "\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(RuntimeJsonTest, RejectsInvalidUtf8Byte) {
  EXPECT_EQ(parseError("\"a\xFF\"").toString(),
            "at byte 2: invalid UTF-8 in string: invalid UTF-8 lead byte");
}

TEST(RuntimeJsonTest, RejectsOverlongUtf8) {
  EXPECT_EQ(parseError("\"\xC0\xAF\"").message,
            "invalid UTF-8 in string: overlong UTF-8 encoding");
  EXPECT_EQ(parseError("\"\xE0\x80\xAF\"").message,
            "invalid UTF-8 in string: overlong UTF-8 encoding");
}

TEST(RuntimeJsonTest, RejectsUtf8EncodedSurrogate) {
  EXPECT_EQ(parseError("\"\xED\xA0\x80\"").message,
            "invalid UTF-8 in string: UTF-8 encoded surrogate code point");
}

TEST(RuntimeJsonTest, RejectsUtf8AboveMaxCodePoint) {
  EXPECT_EQ(parseError("\"\xF4\x90\x80\x80\"").message,
            "invalid UTF-8 in string: UTF-8 code point above U+10FFFF");
}

TEST(RuntimeJsonTest, RejectsTruncatedUtf8) {
  EXPECT_EQ(parseError("\"\xE2\x82\"").message,
            "invalid UTF-8 in string: truncated UTF-8 sequence");
}

TEST(RuntimeJsonTest, RejectsNonAsciiOutsideStrings) {
  EXPECT_EQ(parseError("\xEF\xBB\xBF{}").toString(),
            "at byte 0: unexpected byte 0xEF (expected a JSON value)");
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

TEST(RuntimeJsonTest, ObjectKeepsMemberOrder) {
  Value v = parseOk(R"({"zeta":1,"alpha":2,"mid":3})");
  std::vector<std::string> keys;
  for (const auto &[key, value] : v.getObject())
    keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("zeta", "alpha", "mid"));
  EXPECT_EQ(v.find("alpha")->getInteger(), 2);
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(RuntimeJsonTest, ParsesNestedContainers) {
  Value v = parseOk(R"({"a":[1,[2,{"b":null}],{}],"c":[]})");
  const Array &a = v.find("a")->getArray();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_TRUE(a[1].getArray()[1].find("b")->isNull());
  EXPECT_TRUE(a[2].getObject().empty());
  EXPECT_TRUE(v.find("c")->getArray().empty());
}

TEST(RuntimeJsonTest, RejectsDuplicateKeyWithItsOffset) {
  ParseError e = parseError(R"({"a":1,"b":{"x":1,"x":2}})");
  EXPECT_EQ(e.code, ParseError::Code::DuplicateKey);
  EXPECT_EQ(e.toString(), "at byte 18: duplicate key \"x\" in object");
  EXPECT_EQ(e.key, "x");
  EXPECT_EQ(e.depth, 2);
}

TEST(RuntimeJsonTest, RejectsMissingColon) {
  EXPECT_EQ(parseError(R"({"a" 1})").toString(),
            "at byte 5: unexpected '1' (expected ':' after object key)");
}

TEST(RuntimeJsonTest, RejectsNonStringKey) {
  EXPECT_EQ(parseError("{1:2}").toString(),
            "at byte 1: unexpected '1' (expected a string key)");
}

TEST(RuntimeJsonTest, RejectsTrailingCommaInObject) {
  EXPECT_EQ(parseError(R"({"a":1,})").toString(),
            "at byte 7: unexpected '}' (expected a string key)");
}

TEST(RuntimeJsonTest, RejectsTrailingCommaInArray) {
  EXPECT_EQ(parseError("[1,]").toString(),
            "at byte 3: unexpected ']' (expected a JSON value)");
}

TEST(RuntimeJsonTest, RejectsMissingSeparator) {
  EXPECT_EQ(parseError("[1 2]").toString(),
            "at byte 3: unexpected '2' (expected ',' or ']' after an array "
            "element)");
}

TEST(RuntimeJsonTest, RejectsUnclosedContainer) {
  EXPECT_EQ(parseError(R"({"a":[1)").toString(),
            "at byte 7: unexpected end of input (expected ',' or ']' after "
            "an array element)");
}

TEST(RuntimeJsonTest, RejectsEmptyInput) {
  EXPECT_EQ(parseError("").toString(),
            "at byte 0: unexpected end of input (expected a JSON value)");
  EXPECT_EQ(parseError("   ").toString(),
            "at byte 3: unexpected end of input (expected a JSON value)");
}

TEST(RuntimeJsonTest, RejectsTrailingGarbage) {
  EXPECT_EQ(parseError("{} x").toString(),
            "at byte 3: unexpected 'x' after the JSON value");
  EXPECT_EQ(parseError("1 2").toString(),
            "at byte 2: unexpected '2' after the JSON value");
}

TEST(RuntimeJsonTest, RejectsTrailingNulByte) {
  EXPECT_EQ(parseError(std::string_view("{}\0", 3)).toString(),
            "at byte 2: unexpected byte 0x00 after the JSON value");
}

TEST(RuntimeJsonTest, AcceptsNestingUpToMaxDepth) {
  ParseOptions options;
  options.maxDepth = 5;
  EXPECT_TRUE(parseOk("[[[[[]]]]]", options).isArray());
  EXPECT_TRUE(parseOk(R"({"a":{"b":[[{}]]}})", options).isObject());
}

TEST(RuntimeJsonTest, RejectsNestingBeyondMaxDepth) {
  ParseOptions options;
  options.maxDepth = 5;
  ParseError e = parseError("[[[[[[]]]]]]", options);
  EXPECT_EQ(e.code, ParseError::Code::TooDeep);
  EXPECT_EQ(e.toString(), "at byte 5: nesting deeper than 5 levels");
}

TEST(RuntimeJsonTest, HostileDepthIsRefusedWithoutRecursion) {
  // A million open brackets: refused at the default depth limit, quickly and
  // without exhausting the stack.
  std::string text(1'000'000, '[');
  ParseError e = parseError(text);
  EXPECT_EQ(e.code, ParseError::Code::TooDeep);
  EXPECT_EQ(e.offset, 64u);
}

TEST(RuntimeJsonTest, StatusOrParseReportsOffset) {
  absl::StatusOr<Value> v = parse("[1,,2]");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(v.status().message(),
            "invalid JSON at byte 3: unexpected ',' (expected a JSON value)");
}

//===----------------------------------------------------------------------===//
// Handler
//===----------------------------------------------------------------------===//

/// Writes the events it gets as text, and refuses the key `refusedKey`.
class Recorder final : public Handler {
public:
  std::string events;
  std::string refusedKey = "\x01";

  bool beginArray() override { return add("["); }
  bool endArray() override { return add("]"); }
  bool beginObject() override { return add("{"); }
  bool endObject() override { return add("}"); }
  bool key(std::string key) override {
    return key != refusedKey && add("k:" + key);
  }
  bool scalar(Value value) override { return add(write(value)); }

private:
  bool add(const std::string &event) {
    events += event + " ";
    return true;
  }
};

TEST(RuntimeJsonTest, HandlerGetsTheEventsInDocumentOrder) {
  Recorder recorder;
  ParseError error;
  ASSERT_TRUE(parse(R"({"a":[1,{}],"b":"x"})", recorder, error));
  EXPECT_EQ(recorder.events, "{ k:a [ 1 { } ] k:b \"x\" } ");
}

TEST(RuntimeJsonTest, HandlerRefusalStopsTheParseAtItsOffset) {
  Recorder recorder;
  recorder.refusedKey = "b";
  ParseError error;
  // The refusal comes before the syntax error further on: nothing after it
  // is read.
  EXPECT_FALSE(parse(R"({"a":1, "b":2, ,)", recorder, error));
  EXPECT_EQ(error.code, ParseError::Code::Rejected);
  EXPECT_EQ(error.offset, 8u);
  EXPECT_EQ(recorder.events, "{ k:a 1 ");
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

TEST(RuntimeJsonTest, WritesCompactText) {
  Value v(Object{{"name", Value("w")},
                 {"shape", Value(Array{Value(2), Value(3)})},
                 {"ok", Value(true)},
                 {"none", Value()},
                 {"x", Value(0.5)}});
  EXPECT_EQ(write(v),
            R"({"name":"w","shape":[2,3],"ok":true,"none":null,"x":0.5})");
}

TEST(RuntimeJsonTest, WritesEmptyContainers) {
  EXPECT_EQ(write(Value(Object{})), "{}");
  EXPECT_EQ(write(Value(Array{Value(Array{}), Value(Object{})})), "[[],{}]");
}

TEST(RuntimeJsonTest, EscapesStringsLikeSerdeJson) {
  std::string s = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\xC3\xBC";
  EXPECT_EQ(write(Value(s)),
            "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xC3\xBC\"");
}

TEST(RuntimeJsonTest, WritesEscapedNul) {
  EXPECT_EQ(write(Value(std::string("a\0b", 3))), "\"a\\u0000b\"");
}

TEST(RuntimeJsonTest, WritesNonIntegerDoublesWithAFraction) {
  EXPECT_EQ(write(Value(3.0)), "3.0");
  EXPECT_EQ(write(Value(-0.0)), "-0.0");
  EXPECT_EQ(write(Value(0.1)), "0.1");
  EXPECT_EQ(write(Value(1e300)), "1e+300");
}

TEST(RuntimeJsonTest, WritesNonFiniteAsNull) {
  EXPECT_EQ(write(Value(std::nan(""))), "null");
  EXPECT_EQ(write(Value(HUGE_VAL)), "null");
}

TEST(RuntimeJsonTest, WritesLargeUnsignedAsDouble) {
  EXPECT_EQ(write(Value(uint64_t(42))), "42");
  EXPECT_FALSE(Value(uint64_t(1) << 63).isInteger());
}

TEST(RuntimeJsonTest, WriteThenParseRoundTrips) {
  std::string text =
      R"({"__metadata__":{"format":"pt"},"a\n\u0001":[1,-2,0.25,1e-7,)"
      R"(true,false,null,"\ud83d\ude00",[[{}]],-9223372036854775808]})";
  Value v = parseOk(text);
  std::string written = write(v);
  EXPECT_EQ(parseOk(written), v);
  EXPECT_EQ(write(parseOk(written)), written);
}

TEST(RuntimeJsonTest, WritesDeepTreesWithoutRecursion) {
  Value v(Array{});
  for (int i = 0; i < 1000; ++i)
    v = Value(Array{std::move(v)});
  std::string text = write(v);
  EXPECT_EQ(text, std::string(1001, '[') + std::string(1001, ']'));
}

TEST(RuntimeJsonTest, ValidatesUtf8) {
  EXPECT_TRUE(isValidUtf8("plain"));
  EXPECT_TRUE(isValidUtf8("\xC3\xBC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\xC3"));
  EXPECT_FALSE(isValidUtf8("\xED\xA0\x80"));
  EXPECT_FALSE(isValidUtf8("\x80"));
}

TEST(RuntimeJsonTest, KindNamesAreJsonTypeNames) {
  EXPECT_EQ(kindName(Kind::Object), "object");
  EXPECT_EQ(kindName(parseOk("[]").kind()), "array");
  EXPECT_EQ(kindName(parseOk("1").kind()), "number");
}

} // namespace
} // namespace nn::json
