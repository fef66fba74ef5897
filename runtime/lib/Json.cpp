//===- Json.cpp - Strict JSON DOM, parser and writer ------------*- C++ -*-===//
//
// An RFC 8259 parser that builds a Value tree with an explicit stack of open
// arrays and objects (no recursion, so depth is bounded by
// ParseOptions::maxDepth and not by the call stack), and a writer that walks
// a tree the same way. See Json.h for the exact rules.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_set>

namespace nn::json {

std::string_view kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "bool";
  case Kind::Number:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "<invalid kind>";
}

Value::Value(uint64_t v) {
  if (v <= static_cast<uint64_t>(INT64_MAX))
    data = Number{static_cast<double>(v), static_cast<int64_t>(v), true};
  else
    data = Number{static_cast<double>(v), 0, false};
}

const Value *Value::find(std::string_view key) const {
  if (!isObject())
    return nullptr;
  for (const auto &[name, value] : getObject())
    if (name == key)
      return &value;
  return nullptr;
}

bool operator==(const Value &a, const Value &b) { return a.data == b.data; }

std::string ParseError::toString() const {
  return absl::StrFormat("at byte %d: %s", offset, message);
}

//===----------------------------------------------------------------------===//
// UTF-8
//===----------------------------------------------------------------------===//

namespace {

/// Decodes one UTF-8 sequence starting at s[pos] (a byte >= 0x80). Returns
/// its length, or 0 with `why` set when the sequence is malformed.
size_t decodeUtf8(std::string_view s, size_t pos, const char *&why) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(pos);
  size_t length;
  uint32_t codePoint;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    codePoint = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    codePoint = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    codePoint = lead & 0x07;
  } else {
    why = (lead == 0xC0 || lead == 0xC1) ? "overlong UTF-8 encoding"
          : (lead >= 0x80 && lead <= 0xBF)
              ? "unexpected UTF-8 continuation byte"
              : "invalid UTF-8 lead byte";
    return 0;
  }
  if (pos + length > s.size()) {
    why = "truncated UTF-8 sequence";
    return 0;
  }
  for (size_t i = 1; i < length; ++i) {
    unsigned char c = byte(pos + i);
    if ((c & 0xC0) != 0x80) {
      why = "truncated UTF-8 sequence";
      return 0;
    }
    codePoint = (codePoint << 6) | (c & 0x3F);
  }
  if ((length == 3 && codePoint < 0x800) ||
      (length == 4 && codePoint < 0x10000)) {
    why = "overlong UTF-8 encoding";
    return 0;
  }
  if (codePoint >= 0xD800 && codePoint <= 0xDFFF) {
    why = "UTF-8 encoded surrogate code point";
    return 0;
  }
  if (codePoint > 0x10FFFF) {
    why = "UTF-8 code point above U+10FFFF";
    return 0;
  }
  return length;
}

void appendUtf8(std::string &out, uint32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

void writeStringImpl(std::string &out, std::string_view s);

/// `s` as a JSON string literal, for error messages.
std::string jsonQuoted(std::string_view s) {
  std::string out;
  writeStringImpl(out, s);
  return out;
}

/// A printable rendering of the byte at an error position.
std::string describeByte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F)
    return absl::StrFormat("'%c'", c);
  return absl::StrFormat("byte 0x%02X", u);
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class Parser {
public:
  Parser(std::string_view text, const ParseOptions &options, Handler &handler,
         ParseError &error)
      : text(text), options(options), handler(handler), error(error) {}

  bool run();

private:
  /// An array or object that is still open.
  struct Frame {
    bool isArray;
    std::unordered_set<std::string> keys; // objects: keys seen so far
  };

  std::string_view text;
  const ParseOptions &options;
  Handler &handler;
  ParseError &error;
  size_t pos = 0;
  std::vector<Frame> stack;

  bool fail(size_t at, std::string message,
            ParseError::Code code = ParseError::Code::Syntax) {
    error.code = code;
    error.offset = at;
    error.message = std::move(message);
    return false;
  }
  bool failUnexpected(const char *expected) {
    if (pos >= text.size())
      return fail(pos, absl::StrFormat("unexpected end of input (expected %s)",
                                       expected));
    return fail(pos, absl::StrFormat("unexpected %s (expected %s)",
                                     describeByte(text[pos]), expected));
  }
  /// The handler returned false for what starts at `at`.
  bool rejected(size_t at) {
    return fail(at, "refused by the reader", ParseError::Code::Rejected);
  }

  void skipWhitespace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool atChar(char c) const { return pos < text.size() && text[pos] == c; }

  bool parseScalar(Value &out);
  bool parseLiteral(std::string_view word, Value value, Value &out);
  bool parseNumber(Value &out);
  bool parseString(std::string &out);
  bool parseHex4(uint32_t &out);
  /// Parses `"key" :` of a member of the innermost object.
  bool parseMemberKey();
  /// At '[' or '{': opens the container and tells the handler.
  bool openContainer(bool isArray);
  /// Just past ']' or '}': closes the innermost container.
  bool closeContainer();
};

bool Parser::parseLiteral(std::string_view word, Value value, Value &out) {
  if (text.substr(pos, word.size()) != word)
    return fail(pos, "invalid literal (expected true, false or null)");
  pos += word.size();
  out = std::move(value);
  return true;
}

/// The power of ten of the leading significant digit of a valid, nonzero
/// JSON number literal (saturating): 2 for "123.4", -3 for "0.0012e0".
int64_t decimalMagnitude(std::string_view literal) {
  size_t i = literal[0] == '-' ? 1 : 0;
  size_t intStart = i;
  while (i < literal.size() && literal[i] >= '0' && literal[i] <= '9')
    ++i;
  int64_t magnitude;
  if (literal[intStart] != '0') {
    magnitude = static_cast<int64_t>(i - intStart) - 1;
  } else {
    magnitude = -1;
    if (i < literal.size() && literal[i] == '.')
      for (++i; i < literal.size() && literal[i] == '0'; ++i)
        --magnitude;
  }
  size_t e = literal.find_first_of("eE");
  if (e == std::string_view::npos)
    return magnitude;
  bool negative = literal[e + 1] == '-';
  int64_t exponent = 0;
  for (size_t j = e + 1; j < literal.size(); ++j)
    if (literal[j] >= '0' && literal[j] <= '9')
      exponent = std::min<int64_t>(exponent * 10 + (literal[j] - '0'),
                                   int64_t(1) << 40);
  return magnitude + (negative ? -exponent : exponent);
}

bool Parser::parseNumber(Value &out) {
  size_t start = pos;
  auto isDigit = [&](size_t i) {
    return i < text.size() && text[i] >= '0' && text[i] <= '9';
  };
  if (atChar('-'))
    ++pos;
  if (!isDigit(pos))
    return fail(pos, "invalid number: expected a digit");
  if (text[pos] == '0') {
    ++pos;
    if (isDigit(pos))
      return fail(start, "invalid number: leading zeros are not allowed");
  } else {
    while (isDigit(pos))
      ++pos;
  }
  bool integral = true;
  if (atChar('.')) {
    ++pos;
    integral = false;
    if (!isDigit(pos))
      return fail(pos, "invalid number: expected a digit after '.'");
    while (isDigit(pos))
      ++pos;
  }
  if (atChar('e') || atChar('E')) {
    ++pos;
    integral = false;
    if (atChar('+') || atChar('-'))
      ++pos;
    if (!isDigit(pos))
      return fail(pos, "invalid number: expected a digit in the exponent");
    while (isDigit(pos))
      ++pos;
  }
  const char *first = text.data() + start;
  const char *last = text.data() + pos;
  if (integral) {
    int64_t integer;
    auto [ptr, ec] = std::from_chars(first, last, integer);
    if (ec == std::errc() && ptr == last) {
      out = Value(integer);
      return true;
    }
    // Out of int64 range: kept as a double, not exact.
  }
  double value;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) {
    // Underflow rounds to zero; overflow has no finite value and is refused.
    // Which one it is follows from the decimal magnitude of the literal.
    if (decimalMagnitude(text.substr(start, pos - start)) > 0)
      return fail(start, "number out of range");
    value = *first == '-' ? -0.0 : 0.0;
  } else if (ec != std::errc() || ptr != last) {
    return fail(start, "invalid number");
  }
  out = Value(value);
  return true;
}

bool Parser::parseHex4(uint32_t &out) {
  if (pos + 4 > text.size())
    return fail(pos, "invalid \\u escape: expected 4 hex digits");
  out = 0;
  for (size_t i = 0; i < 4; ++i) {
    char c = text[pos + i];
    uint32_t digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return fail(pos + i, "invalid \\u escape: expected 4 hex digits");
    out = out * 16 + digit;
  }
  pos += 4;
  return true;
}

bool Parser::parseString(std::string &out) {
  // At the opening quote.
  size_t start = pos++;
  out.clear();
  while (true) {
    if (pos >= text.size())
      return fail(start, "unterminated string");
    auto c = static_cast<unsigned char>(text[pos]);
    if (c == '"') {
      ++pos;
      return true;
    }
    if (c < 0x20)
      return fail(pos, absl::StrFormat("control character U+%04X in string "
                                       "must be escaped",
                                       c));
    if (c >= 0x80) {
      const char *why = nullptr;
      size_t length = decodeUtf8(text, pos, why);
      if (!length)
        return fail(pos, absl::StrFormat("invalid UTF-8 in string: %s", why));
      out.append(text.substr(pos, length));
      pos += length;
      continue;
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      ++pos;
      continue;
    }
    // An escape sequence.
    size_t escapeStart = pos++;
    if (pos >= text.size())
      return fail(start, "unterminated string");
    char e = text[pos++];
    switch (e) {
    case '"':
      out += '"';
      break;
    case '\\':
      out += '\\';
      break;
    case '/':
      out += '/';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'u': {
      uint32_t unit;
      if (!parseHex4(unit))
        return false;
      if (unit >= 0xDC00 && unit <= 0xDFFF)
        return fail(escapeStart,
                    absl::StrFormat("lone low surrogate \\u%04X", unit));
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        if (text.substr(pos, 2) != "\\u")
          return fail(escapeStart,
                      absl::StrFormat("high surrogate \\u%04X is not followed "
                                      "by a \\u low surrogate",
                                      unit));
        pos += 2;
        uint32_t low;
        if (!parseHex4(low))
          return false;
        if (low < 0xDC00 || low > 0xDFFF)
          return fail(escapeStart,
                      absl::StrFormat("high surrogate \\u%04X is followed by "
                                      "\\u%04X, not a low surrogate",
                                      unit, low));
        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
      }
      appendUtf8(out, unit);
      break;
    }
    default:
      return fail(escapeStart,
                  absl::StrFormat("invalid escape: %s after a backslash",
                                  describeByte(e)));
    }
  }
}

bool Parser::parseMemberKey() {
  if (!atChar('"'))
    return failUnexpected("a string key");
  size_t keyStart = pos;
  std::string key;
  if (!parseString(key))
    return false;
  if (!stack.back().keys.insert(key).second) {
    error.key = key;
    error.depth = static_cast<int>(stack.size());
    return fail(keyStart,
                absl::StrFormat("duplicate key %s in object", jsonQuoted(key)),
                ParseError::Code::DuplicateKey);
  }
  if (!handler.key(std::move(key)))
    return rejected(keyStart);
  skipWhitespace();
  if (!atChar(':'))
    return failUnexpected("':' after object key");
  ++pos;
  skipWhitespace();
  return true;
}

bool Parser::openContainer(bool isArray) {
  if (static_cast<int>(stack.size()) >= options.maxDepth)
    return fail(
        pos, absl::StrFormat("nesting deeper than %d levels", options.maxDepth),
        ParseError::Code::TooDeep);
  if (!(isArray ? handler.beginArray() : handler.beginObject()))
    return rejected(pos);
  stack.push_back(Frame{isArray, {}});
  ++pos;
  skipWhitespace();
  return true;
}

bool Parser::closeContainer() {
  bool isArray = stack.back().isArray;
  stack.pop_back();
  if (!(isArray ? handler.endArray() : handler.endObject()))
    return rejected(pos - 1);
  return true;
}

bool Parser::parseScalar(Value &out) {
  switch (text[pos]) {
  case 'n':
    return parseLiteral("null", Value(), out);
  case 't':
    return parseLiteral("true", Value(true), out);
  case 'f':
    return parseLiteral("false", Value(false), out);
  case '"': {
    std::string s;
    if (!parseString(s))
      return false;
    out = Value(std::move(s));
    return true;
  }
  default:
    if (text[pos] == '-' || (text[pos] >= '0' && text[pos] <= '9'))
      return parseNumber(out);
    return failUnexpected("a JSON value");
  }
}

bool Parser::run() {
  skipWhitespace();
  while (true) {
    // The value at pos: open a container, or read a scalar.
    if (pos >= text.size())
      return failUnexpected("a JSON value");
    bool complete;
    if (text[pos] == '[' || text[pos] == '{') {
      bool isArray = text[pos] == '[';
      if (!openContainer(isArray))
        return false;
      complete = atChar(isArray ? ']' : '}');
      if (complete) {
        ++pos;
        if (!closeContainer())
          return false;
      } else if (!isArray && !parseMemberKey()) {
        return false;
      }
    } else {
      size_t start = pos;
      Value scalar;
      if (!parseScalar(scalar))
        return false;
      if (!handler.scalar(std::move(scalar)))
        return rejected(start);
      complete = true;
    }
    if (!complete)
      continue;

    // After a complete value: close containers as their closing brackets
    // come, until one expects another element.
    while (true) {
      skipWhitespace();
      if (stack.empty()) {
        if (pos != text.size())
          return fail(pos, absl::StrFormat("unexpected %s after the JSON value",
                                           describeByte(text[pos])));
        return true;
      }
      bool isArray = stack.back().isArray;
      if (atChar(',')) {
        ++pos;
        skipWhitespace();
        if (!isArray && !parseMemberKey())
          return false;
        break;
      }
      if (atChar(isArray ? ']' : '}')) {
        ++pos;
        if (!closeContainer())
          return false;
        continue;
      }
      return failUnexpected(isArray ? "',' or ']' after an array element"
                                    : "',' or '}' after an object member");
    }
  }
}

/// Builds the Value tree of a document.
class DomBuilder final : public Handler {
public:
  /// The document, once parse() has succeeded.
  Value result;

  bool beginArray() override { return open(Array()); }
  bool beginObject() override { return open(Object()); }
  bool endArray() override { return close(); }
  bool endObject() override { return close(); }
  bool key(std::string key) override {
    stack.back().pendingKey = std::move(key);
    return true;
  }
  bool scalar(Value value) override { return attach(std::move(value)); }

private:
  struct Open {
    Value container;
    std::string pendingKey; // objects: key of the member being read
  };
  std::vector<Open> stack;

  bool open(Value container) {
    stack.push_back(Open{std::move(container), {}});
    return true;
  }
  bool close() {
    Value done = std::move(stack.back().container);
    stack.pop_back();
    return attach(std::move(done));
  }
  bool attach(Value value) {
    if (stack.empty()) {
      result = std::move(value);
      return true;
    }
    Open &parent = stack.back();
    if (parent.container.isArray())
      parent.container.getArray().push_back(std::move(value));
    else
      parent.container.getObject().emplace_back(std::move(parent.pendingKey),
                                                std::move(value));
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

void writeNumber(std::string &out, const Number &number) {
  if (number.isInteger) {
    out += std::to_string(number.integer);
    return;
  }
  if (!std::isfinite(number.value)) {
    out += "null";
    return;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), number.value);
  std::string_view text(buffer, end - buffer);
  out += text;
  // Keep a non-integer number recognisable as one ("1.0", not "1").
  if (text.find_first_of(".e") == std::string_view::npos)
    out += ".0";
}

} // namespace

bool parse(std::string_view text, Handler &handler, ParseError &error,
           const ParseOptions &options) {
  error = ParseError();
  return Parser(text, options, handler, error).run();
}

std::optional<Value> parse(std::string_view text, ParseError &error,
                           const ParseOptions &options) {
  DomBuilder builder;
  if (!parse(text, builder, error, options))
    return std::nullopt;
  return std::move(builder.result);
}

absl::StatusOr<Value> parse(std::string_view text,
                            const ParseOptions &options) {
  ParseError error;
  std::optional<Value> value = parse(text, error, options);
  if (!value)
    return absl::InvalidArgumentError("invalid JSON " + error.toString());
  return std::move(*value);
}

void writeString(std::string &out, std::string_view s) {
  writeStringImpl(out, s);
}

namespace {
void writeStringImpl(std::string &out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += "\\u00";
        out += hex[static_cast<unsigned char>(c) >> 4];
        out += hex[static_cast<unsigned char>(c) & 0xF];
      } else {
        out += c;
      }
    }
  }
  out += '"';
}
} // namespace

std::string write(const Value &value) {
  std::string out;
  // Each entry is an open container and the index of its next child.
  std::vector<std::pair<const Value *, size_t>> stack;
  const Value *next = &value;
  while (true) {
    if (next) {
      switch (next->kind()) {
      case Kind::Null:
        out += "null";
        break;
      case Kind::Bool:
        out += next->getBool() ? "true" : "false";
        break;
      case Kind::Number:
        writeNumber(out, next->getNumber());
        break;
      case Kind::String:
        writeString(out, next->getString());
        break;
      case Kind::Array:
        out += '[';
        stack.emplace_back(next, 0);
        break;
      case Kind::Object:
        out += '{';
        stack.emplace_back(next, 0);
        break;
      }
      next = nullptr;
    }
    if (stack.empty())
      return out;
    auto &[container, index] = stack.back();
    size_t size = container->isArray() ? container->getArray().size()
                                       : container->getObject().size();
    if (index == size) {
      out += container->isArray() ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (index)
      out += ',';
    if (container->isArray()) {
      next = &container->getArray()[index];
    } else {
      const auto &[key, member] = container->getObject()[index];
      writeString(out, key);
      out += ':';
      next = &member;
    }
    ++index;
  }
}

bool isValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const char *why = nullptr;
    size_t length = decodeUtf8(s, pos, why);
    if (!length)
      return false;
    pos += length;
  }
  return true;
}

} // namespace nn::json
