//===- Json.h - Strict JSON DOM, parser and writer (private) ----*- C++ -*-===//
//
// The runtime's JSON: safetensors headers and the descriptions of compiled
// artifacts. The runtime links no LLVM, so this is its own small
// implementation of RFC 8259, strict in everything it reads:
//
//   - numbers follow the RFC grammar exactly (no leading zeros, no "+", no
//     NaN/Infinity); an integer literal that fits int64 is kept exactly;
//   - strings must be valid UTF-8 (no overlong forms, no encoded surrogates,
//     nothing above U+10FFFF), control characters must be escaped, and
//     \uXXXX escapes must pair surrogates correctly;
//   - objects keep their members in document order and reject duplicate keys;
//   - nothing but whitespace may follow the value;
//   - nesting deeper than ParseOptions::maxDepth is refused.
//
// The parser is iterative (an explicit stack), so hostile input cannot
// exhaust the call stack; every error carries the byte offset where it was
// found. It reports what it reads to a Handler, in document order; the DOM
// (parse() returning a Value) is one such handler. Readers of large
// documents (safetensors headers) use their own, keep only what they need,
// and refuse a document as soon as it goes wrong, so memory follows what is
// kept rather than the size of a tree of the text. The writer is iterative too
// and produces compact output with the same string escaping as Rust's
// serde_json, which is what safetensors uses.
//
// This header is private to runtime/lib (and its unit tests).
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_LIB_JSON_H
#define NN_RUNTIME_LIB_JSON_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nn::json {

class Value;
/// A JSON array.
using Array = std::vector<Value>;
/// A JSON object: members in document (or insertion) order.
using Object = std::vector<std::pair<std::string, Value>>;

enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };

/// "null", "bool", "number", "string", "array" or "object".
std::string_view kindName(Kind kind);

/// A JSON number: the double value, plus the exact int64 when the literal was
/// an integer (no fraction, no exponent) within int64's range.
struct Number {
  double value = 0;
  int64_t integer = 0;
  bool isInteger = false;

  friend bool operator==(const Number &a, const Number &b) {
    return a.isInteger == b.isInteger &&
           (a.isInteger ? a.integer == b.integer : a.value == b.value);
  }
};

/// One JSON value (a tree of them for arrays and objects).
class Value {
public:
  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : data(b) {}
  Value(int v) : Value(static_cast<int64_t>(v)) {}
  Value(int64_t v) : data(Number{static_cast<double>(v), v, true}) {}
  Value(uint64_t v);
  Value(double v) : data(Number{v, 0, false}) {}
  Value(Number n) : data(n) {}
  Value(std::string s) : data(std::move(s)) {}
  Value(std::string_view s) : data(std::string(s)) {}
  Value(const char *s) : data(std::string(s)) {}
  Value(json::Array a) : data(std::move(a)) {}
  Value(json::Object o) : data(std::move(o)) {}

  Kind kind() const { return static_cast<Kind>(data.index()); }
  bool isNull() const { return kind() == Kind::Null; }
  bool isBool() const { return kind() == Kind::Bool; }
  bool isNumber() const { return kind() == Kind::Number; }
  bool isString() const { return kind() == Kind::String; }
  bool isArray() const { return kind() == Kind::Array; }
  bool isObject() const { return kind() == Kind::Object; }
  /// True for a number that holds an exact int64.
  bool isInteger() const {
    return isNumber() && std::get<Number>(data).isInteger;
  }

  /// Accessors; each requires the matching kind (std::bad_variant_access
  /// otherwise). Check the kind first.
  bool getBool() const { return std::get<bool>(data); }
  const Number &getNumber() const { return std::get<Number>(data); }
  double getDouble() const { return getNumber().value; }
  /// The exact integer, or nullopt when this is not an integral number.
  std::optional<int64_t> getInteger() const {
    if (!isInteger())
      return std::nullopt;
    return getNumber().integer;
  }
  const std::string &getString() const { return std::get<std::string>(data); }
  const json::Array &getArray() const { return std::get<json::Array>(data); }
  json::Array &getArray() { return std::get<json::Array>(data); }
  const json::Object &getObject() const { return std::get<json::Object>(data); }
  json::Object &getObject() { return std::get<json::Object>(data); }

  /// The member `key` of an object (first match), or nullptr when absent or
  /// when this is not an object. Linear in the number of members.
  const Value *find(std::string_view key) const;

  friend bool operator==(const Value &a, const Value &b);

private:
  std::variant<std::monostate, bool, Number, std::string, json::Array,
               json::Object>
      data;
};

struct ParseOptions {
  /// Arrays and objects nested deeper than this are refused; "[]" has depth 1.
  /// Copying and destroying a Value recurse once per level, so this also
  /// bounds the stack those need.
  int maxDepth = 64;
};

struct ParseError {
  enum class Code {
    Syntax,       ///< Not JSON (includes bad numbers and bad strings).
    TooDeep,      ///< Nesting beyond ParseOptions::maxDepth.
    DuplicateKey, ///< An object has the same key twice.
    Rejected,     ///< A Handler callback returned false.
  };
  Code code = Code::Syntax;
  /// Byte offset into the parsed text where the problem was found.
  size_t offset = 0;
  /// What is wrong, without the offset: "expected ':' after object key".
  std::string message;
  /// For DuplicateKey: the key, and the depth of its object (1 = top level).
  std::string key;
  int depth = 0;

  /// "at byte 12: expected ':' after object key"
  std::string toString() const;
};

/// Receives a document as the parser reads it: containers opening and
/// closing, object keys and scalars, in document order (a SAX interface).
/// A callback returns false to stop the parse; parse() then fails with
/// ParseError::Code::Rejected at the offset of the key, value or closing
/// bracket at hand, and the handler keeps its own account of why.
class Handler {
public:
  virtual ~Handler() = default;
  virtual bool beginArray() = 0;
  virtual bool endArray() = 0;
  virtual bool beginObject() = 0;
  virtual bool endObject() = 0;
  /// The key of the next member of the innermost object (already checked to
  /// be new in it).
  virtual bool key(std::string key) = 0;
  /// A null, bool, number or string.
  virtual bool scalar(Value value) = 0;
};

/// Parses `text` as one JSON value, reporting it to `handler`. Returns false
/// and fills `error` when the text is not JSON or the handler refuses it.
bool parse(std::string_view text, Handler &handler, ParseError &error,
           const ParseOptions &options = {});

/// Parses `text` as one JSON value. On failure returns nullopt and fills
/// `error`.
std::optional<Value> parse(std::string_view text, ParseError &error,
                           const ParseOptions &options = {});

/// Same, as a StatusOr: InvalidArgument "invalid JSON at byte N: ...".
absl::StatusOr<Value> parse(std::string_view text,
                            const ParseOptions &options = {});

/// Compact JSON text for `value` ({"a":[1,2.5,"x"]}). Non-finite numbers are
/// written as null, as serde_json does. Strings are written byte for byte
/// apart from escapes; callers that need valid output must give valid UTF-8
/// (see isValidUtf8).
std::string write(const Value &value);

/// Appends `s` as a quoted JSON string with serde_json's escaping: \" \\ \b
/// \f \n \r \t, other control characters as \u00xx, everything else as is.
void writeString(std::string &out, std::string_view s);

/// True when `s` is well-formed UTF-8 (the same rules the parser applies).
bool isValidUtf8(std::string_view s);

} // namespace nn::json

#endif // NN_RUNTIME_LIB_JSON_H
