//===- Safetensors.cpp - safetensors reading and writing --------*- C++ -*-===//
//
// Reading validates the whole header before any tensor memory is allocated:
//
//   1. the 8-byte little-endian header length (file long enough, length within
//      the file and within SafetensorsLimits::max_header_bytes);
//   2. the header JSON (strict parser, bounded depth, no duplicate keys);
//   3. every entry: exactly dtype/shape/data_offsets, a dtype nn knows, a shape
//      of non-negative integers whose element and byte counts do not overflow,
//      offsets [begin, end] with end - begin == the byte count;
//   4. the offsets together: each within the data region, and all of them
//      tiling it exactly (no overlap, no hole, no trailing bytes).
//
// Only then are the tensors allocated; their total size is the data region's
// size, so a hostile header cannot make nn allocate more than the file holds.
// Tensor bytes are copied with memcpy/pread into 64-byte-aligned storage.
//
// Writing reproduces safetensors.torch.save_file byte for byte: entries laid
// out by dtype in descending order of safetensors' Rust `Dtype` enum, then by
// name; header keys in that same order after "__metadata__" (omitted when
// empty; its members sorted by key); compact JSON padded with spaces to a
// multiple of 8 bytes.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Safetensors.h"
#include "nn/Runtime/Error.h"

#include "Json.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static_assert(std::endian::native == std::endian::little,
              "safetensors stores little-endian data; nn assumes a "
              "little-endian host");

namespace nn {

namespace {

constexpr size_t kLengthPrefixBytes = 8;

/// safetensors' Rust `Dtype` enum (0.4.x) in declaration order. The on-disk
/// layout sorts by this order, descending.
constexpr std::string_view kSafetensorsDtypeOrder[] = {
    "BOOL", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "I16", "U16", "F16",
    "BF16", "I32", "U32", "F32",     "F64",     "I64", "U64"};

/// Position of a safetensors dtype name in the Rust enum; -1 if unknown.
int safetensorsDtypeRank(std::string_view name) {
  for (size_t i = 0; i < std::size(kSafetensorsDtypeOrder); ++i)
    if (kSafetensorsDtypeOrder[i] == name)
      return static_cast<int>(i);
  return -1;
}

/// A JSON string literal for messages: "fc1.weight", with escapes.
std::string jsonQuoted(std::string_view s) {
  std::string out;
  json::writeString(out, s);
  return out;
}

/// A JSON value for messages, cut short when long.
std::string brief(const json::Value &value) {
  std::string text = json::write(value);
  if (text.size() > 40)
    text = text.substr(0, 37) + "...";
  return text;
}

std::string shapeText(const Shape &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

uint64_t readLittleEndian64(std::string_view bytes) {
  uint64_t value;
  std::memcpy(&value, bytes.data(), sizeof(value));
  return value;
}

/// One validated header entry.
struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin;
  uint64_t end;
};

/// A validated header: entries in header order and the metadata.
struct Layout {
  std::vector<Entry> entries;
  Metadata metadata;
  uint64_t dataStart = 0; // file offset of the data region
};

/// Builds errors that start with the file's name.
class Reporter {
public:
  explicit Reporter(std::string_view source) : source(source) {}
  template <typename... Args>
  absl::Status operator()(const absl::FormatSpec<Args...> &format,
                          const Args &...args) const {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", absl::StrFormat(format, args...)));
  }

private:
  std::string source;
};

std::string pickleAdvice() {
  return "nn never reads pickle. Export the weights with safetensors "
         "instead: safetensors.torch.save_file(model.state_dict(), "
         "\"model.safetensors\")";
}

/// Refuses PyTorch pickles: a zip archive (torch.save since 1.6) or a raw
/// pickle stream (legacy torch.save), unless the bytes are plausibly a
/// safetensors file (a length prefix that fits, then '{'). `head` holds the
/// first bytes of the file (up to 9), `fileSize` its full size.
absl::Status checkNotPickle(std::string_view head, uint64_t fileSize,
                            const Reporter &report) {
  if (head.size() >= kLengthPrefixBytes + 1) {
    uint64_t headerLength = readLittleEndian64(head);
    if (headerLength > 0 && headerLength <= fileSize - kLengthPrefixBytes &&
        head[kLengthPrefixBytes] == '{')
      return absl::OkStatus();
  }
  if (head.substr(0, 4) == std::string_view("PK\x03\x04", 4))
    return report("this is a zip archive as torch.save writes (a PyTorch "
                  "pickle), not a safetensors file; %s",
                  pickleAdvice());
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
      head[1] >= 1 && head[1] <= 5)
    return report("this is a Python pickle stream (protocol %d), as legacy "
                  "torch.save writes, not a safetensors file; %s",
                  static_cast<int>(head[1]), pickleAdvice());
  return absl::OkStatus();
}

/// Validates the length prefix; returns the header length.
absl::StatusOr<uint64_t> checkLengthPrefix(std::string_view head,
                                           uint64_t fileSize,
                                           const SafetensorsLimits &limits,
                                           const Reporter &report) {
  if (fileSize < kLengthPrefixBytes)
    return report("file is %d bytes, too short for the 8-byte header length",
                  fileSize);
  uint64_t headerLength = readLittleEndian64(head);
  if (headerLength > limits.max_header_bytes)
    return report("header length %d exceeds the limit of %d bytes",
                  headerLength, limits.max_header_bytes);
  if (headerLength > fileSize - kLengthPrefixBytes)
    return report("header length %d runs past the end of the file (file is "
                  "%d bytes, so at most %d bytes of header fit)",
                  headerLength, fileSize, fileSize - kLengthPrefixBytes);
  return headerLength;
}

/// Reads a JSON value as a non-negative int64.
std::optional<uint64_t> nonNegativeInteger(const json::Value &value) {
  std::optional<int64_t> integer = value.getInteger();
  if (!integer || *integer < 0)
    return std::nullopt;
  return static_cast<uint64_t>(*integer);
}

/// A tensor entry as read, before the checks that need all of it.
struct RawEntry {
  std::string name;
  std::optional<std::string> dtype;
  std::optional<Shape> shape;
  std::optional<std::pair<uint64_t, uint64_t>> offsets;
};

/// Checks an entry on its own, once all of it is read (its offsets against
/// the data region's size, but not against the other entries).
absl::StatusOr<Entry> finishEntry(RawEntry raw, uint64_t dataSize,
                                  const Reporter &report) {
  const std::string &name = raw.name;
  if (!raw.dtype)
    return report("tensor %s is missing the \"dtype\" field", jsonQuoted(name));
  if (!raw.shape)
    return report("tensor %s is missing the \"shape\" field", jsonQuoted(name));
  if (!raw.offsets)
    return report("tensor %s is missing the \"data_offsets\" field",
                  jsonQuoted(name));
  Entry entry;
  entry.name = std::move(raw.name);
  entry.shape = std::move(*raw.shape);
  const std::string &dtypeName = *raw.dtype;
  std::optional<DType> dtype = dtype_from_safetensors_name(dtypeName);
  if (!dtype) {
    if (safetensorsDtypeRank(dtypeName) >= 0)
      return report("tensor %s has dtype %s, which nn does not support",
                    jsonQuoted(entry.name), jsonQuoted(dtypeName));
    return report("tensor %s has unknown dtype %s", jsonQuoted(entry.name),
                  jsonQuoted(dtypeName));
  }
  entry.dtype = *dtype;

  int64_t numel = 1;
  for (int64_t dim : entry.shape)
    if (__builtin_mul_overflow(numel, dim, &numel))
      return report("tensor %s shape %s has more elements than a 64-bit "
                    "count can hold",
                    jsonQuoted(entry.name), shapeText(entry.shape));
  uint64_t byteSize;
  size_t elementSize = dtype_size(entry.dtype);
  if (__builtin_mul_overflow(static_cast<uint64_t>(numel), elementSize,
                             &byteSize))
    return report("tensor %s byte size (%d elements of shape %s x %d bytes "
                  "per %s) overflows 64 bits",
                  jsonQuoted(entry.name), numel, shapeText(entry.shape),
                  elementSize, dtypeName);

  auto [begin, end] = *raw.offsets;
  if (begin > end)
    return report("tensor %s data_offsets [%d,%d] begin after end",
                  jsonQuoted(entry.name), begin, end);
  if (end - begin != byteSize)
    return report("tensor %s data_offsets [%d,%d] span %d bytes, but shape %s "
                  "of %s needs %d bytes",
                  jsonQuoted(entry.name), begin, end, end - begin,
                  shapeText(entry.shape), dtypeName, byteSize);
  if (end > dataSize)
    return report("tensor %s data_offsets [%d,%d] run past the end of the "
                  "data region (%d bytes)",
                  jsonQuoted(entry.name), begin, end, dataSize);
  entry.begin = begin;
  entry.end = end;
  return entry;
}

/// Reads a header as the JSON parser goes. It keeps only what the file will
/// become (entries and metadata) and refuses at the first value that cannot
/// belong to a safetensors header, so memory follows the entries kept and
/// never a tree of the text: a header holds nothing deeper than an entry's
/// shape and data_offsets lists (depth 3), a shape at most max_rank
/// dimensions, metadata at most max_metadata_entries strings.
class HeaderReader final : public json::Handler {
public:
  HeaderReader(uint64_t dataSize, const SafetensorsLimits &limits,
               const Reporter &report)
      : dataSize(dataSize), limits(limits), report(report) {}

  /// Why a callback returned false.
  absl::Status status;
  Layout layout;
  /// Tensor entries in the header, counted on past max_tensors.
  size_t tensorCount = 0;

  bool beginObject() override { return begin(json::Kind::Object); }
  bool beginArray() override { return begin(json::Kind::Array); }
  bool endArray() override { return end(); }
  bool endObject() override { return end(); }
  bool key(std::string key) override;
  bool scalar(json::Value value) override;

private:
  /// What the value being read is.
  enum class Slot {
    Root,
    Skipped,  // past max_tensors: only the count goes on
    Metadata, // the __metadata__ object
    MetadataValue,
    Entry, // a tensor's object
    Dtype,
    Shape,
    DataOffsets,
  };
  uint64_t dataSize;
  const SafetensorsLimits &limits;
  const Reporter &report;
  int depth = 0; // open containers
  Slot slot = Slot::Root;
  RawEntry raw;
  std::string metadataKey;
  json::Array offsets; // data_offsets elements read so far

  bool refuse(absl::Status why) {
    status = std::move(why);
    return false;
  }
  /// The entry's data_offsets are not [begin, end]; `found` shows them.
  bool badOffsets(const std::string &found) {
    return refuse(report("tensor %s data_offsets must be a list of two "
                         "non-negative integers [begin, end], found %s",
                         jsonQuoted(raw.name), found));
  }
  /// A value of `kind` (a scalar, or the start of a container) where `slot`
  /// wants something else.
  bool wrongKind(json::Kind kind, const json::Value *scalar);
  bool begin(json::Kind kind);
  bool end();
  bool shapeElement(const json::Value &value);
};

bool HeaderReader::wrongKind(json::Kind kind, const json::Value *scalar) {
  const std::string &name = raw.name;
  std::string_view kindName = json::kindName(kind);
  std::string value = scalar                      ? brief(*scalar)
                      : kind == json::Kind::Array ? std::string("[...]")
                                                  : std::string("{...}");
  switch (slot) {
  case Slot::Root:
    return refuse(report("header must be a JSON object, found %s", kindName));
  case Slot::Metadata:
    return refuse(report("__metadata__ must be an object mapping strings to "
                         "strings, found %s",
                         kindName));
  case Slot::MetadataValue:
    return refuse(report("__metadata__ value for key %s must be a string, "
                         "found %s",
                         jsonQuoted(metadataKey), kindName));
  case Slot::Entry:
    return refuse(report("entry %s must be a JSON object with dtype, shape "
                         "and data_offsets, found %s",
                         jsonQuoted(name), kindName));
  case Slot::Dtype:
    return refuse(report("tensor %s dtype must be a string, found %s",
                         jsonQuoted(name), kindName));
  case Slot::Shape:
    if (depth == 3)
      return refuse(report("tensor %s shape must be a list of non-negative "
                           "integers, but element %d is %s",
                           jsonQuoted(name), raw.shape->size(), value));
    return refuse(report("tensor %s shape must be a list of non-negative "
                         "integers, found %s",
                         jsonQuoted(name), kindName));
  case Slot::DataOffsets: {
    if (depth != 3)
      return badOffsets(value);
    // An element of the list: show the list so far.
    std::string found = json::write(offsets);
    found.pop_back();
    found += std::string(offsets.empty() ? "" : ",") + value + "...";
    if (found.size() > 40)
      found = found.substr(0, 37) + "...";
    return badOffsets(found);
  }
  case Slot::Skipped:
    break;
  }
  return true;
}

bool HeaderReader::begin(json::Kind kind) {
  ++depth;
  if (slot == Slot::Skipped)
    return true;
  bool isObject = kind == json::Kind::Object;
  if (depth == 1 ||
      (depth == 2 && (slot == Slot::Metadata || slot == Slot::Entry)))
    return isObject || wrongKind(kind, nullptr);
  if (depth == 3 && !isObject) {
    if (slot == Slot::Shape) {
      raw.shape.emplace();
      return true;
    }
    if (slot == Slot::DataOffsets) {
      offsets.clear();
      return true;
    }
  }
  // Nothing else in a header holds a container: the slot says what it wants.
  --depth;
  return wrongKind(kind, nullptr);
}

bool HeaderReader::end() {
  --depth;
  if (slot == Slot::Skipped)
    return true;
  if (depth == 2 && slot == Slot::DataOffsets) {
    std::optional<uint64_t> begin, end;
    if (offsets.size() == 2) {
      begin = nonNegativeInteger(offsets[0]);
      end = nonNegativeInteger(offsets[1]);
    }
    if (!begin || !end)
      return badOffsets(brief(offsets));
    raw.offsets.emplace(*begin, *end);
    slot = Slot::Entry;
    return true;
  }
  if (depth == 2) { // a shape
    slot = Slot::Entry;
    return true;
  }
  if (depth == 1 && slot == Slot::Entry) {
    absl::StatusOr<Entry> entry = finishEntry(std::move(raw), dataSize, report);
    if (!entry.ok())
      return refuse(entry.status());
    layout.entries.push_back(std::move(*entry));
  }
  return true; // the end of __metadata__ or of the header
}

bool HeaderReader::key(std::string key) {
  if (depth == 1) {
    if (key == "__metadata__") {
      slot = slot == Slot::Skipped ? Slot::Skipped : Slot::Metadata;
      return true;
    }
    if (++tensorCount > limits.max_tensors) {
      slot = Slot::Skipped; // count the rest; report when the header ends
      return true;
    }
    if (key.empty())
      return refuse(report("empty tensor name in header"));
    if (key.find('\0') != std::string::npos)
      return refuse(
          report("tensor name %s contains a NUL character", jsonQuoted(key)));
    raw = RawEntry{std::move(key), {}, {}, {}};
    slot = Slot::Entry;
    return true;
  }
  if (slot == Slot::Skipped)
    return true;
  if (slot == Slot::Metadata) {
    if (layout.metadata.size() >= limits.max_metadata_entries)
      return refuse(report("__metadata__ holds more than %d entries, the "
                           "limit",
                           limits.max_metadata_entries));
    metadataKey = std::move(key);
    slot = Slot::MetadataValue;
    return true;
  }
  // A field of an entry.
  if (key == "dtype")
    slot = Slot::Dtype;
  else if (key == "shape")
    slot = Slot::Shape;
  else if (key == "data_offsets")
    slot = Slot::DataOffsets;
  else
    return refuse(report("tensor %s has an unexpected field %s (allowed: "
                         "dtype, shape, data_offsets)",
                         jsonQuoted(raw.name), jsonQuoted(key)));
  return true;
}

bool HeaderReader::scalar(json::Value value) {
  if (slot == Slot::Skipped)
    return true;
  if (depth == 3 && slot == Slot::Shape)
    return shapeElement(value);
  if (depth == 3 && slot == Slot::DataOffsets) {
    if (offsets.size() == 2)
      return wrongKind(value.kind(), &value);
    offsets.push_back(std::move(value));
    return true;
  }
  if (slot == Slot::Dtype && value.isString()) {
    raw.dtype = value.getString();
    slot = Slot::Entry;
    return true;
  }
  if (slot == Slot::MetadataValue && value.isString()) {
    layout.metadata.emplace(std::move(metadataKey), value.getString());
    slot = Slot::Metadata;
    return true;
  }
  return wrongKind(value.kind(), &value);
}

bool HeaderReader::shapeElement(const json::Value &value) {
  std::optional<uint64_t> dim = nonNegativeInteger(value);
  if (!dim)
    return wrongKind(value.kind(), &value);
  if (raw.shape->size() >= limits.max_rank)
    return refuse(report("tensor %s has more than %d dimensions, the limit",
                         jsonQuoted(raw.name), limits.max_rank));
  raw.shape->push_back(static_cast<int64_t>(*dim));
  return true;
}

/// Checks that the entries' byte ranges tile [0, dataSize) exactly.
absl::Status checkTiling(const std::vector<Entry> &entries, uint64_t dataSize,
                         const Reporter &report) {
  std::vector<const Entry *> sorted;
  sorted.reserve(entries.size());
  for (const Entry &entry : entries)
    sorted.push_back(&entry);
  std::stable_sort(
      sorted.begin(), sorted.end(), [](const Entry *a, const Entry *b) {
        return std::tie(a->begin, a->end) < std::tie(b->begin, b->end);
      });
  uint64_t covered = 0;        // bytes [0, covered) belong to tensors
  const Entry *last = nullptr; // the tensor that reaches `covered`
  for (const Entry *entry : sorted) {
    if (entry->begin < covered)
      return report("tensors %s (data_offsets [%d,%d]) and %s (data_offsets "
                    "[%d,%d]) overlap",
                    jsonQuoted(last->name), last->begin, last->end,
                    jsonQuoted(entry->name), entry->begin, entry->end);
    if (entry->begin > covered)
      return report("bytes [%d,%d) of the data region belong to no tensor "
                    "(a hole %s %s)",
                    covered, entry->begin,
                    last ? "between " + jsonQuoted(last->name) + " and"
                         : std::string("before"),
                    jsonQuoted(entry->name));
    if (entry->end > covered || !last) {
      covered = entry->end;
      last = entry;
    }
  }
  if (covered != dataSize)
    return report("%d trailing bytes after the last tensor (tensor data ends "
                  "at byte %d of the %d-byte data region)",
                  dataSize - covered, covered, dataSize);
  return absl::OkStatus();
}

/// Parses and validates the header JSON of a file of `fileSize` bytes.
absl::StatusOr<Layout> parseHeader(std::string_view header, uint64_t fileSize,
                                   const SafetensorsLimits &limits,
                                   const Reporter &report) {
  json::ParseOptions options;
  options.maxDepth = limits.max_json_depth;
  json::ParseError error;
  uint64_t dataStart = kLengthPrefixBytes + header.size();
  HeaderReader reader(fileSize - dataStart, limits, report);
  if (!json::parse(header, reader, error, options)) {
    uint64_t fileOffset = kLengthPrefixBytes + error.offset;
    switch (error.code) {
    case json::ParseError::Code::Rejected:
      return reader.status;
    case json::ParseError::Code::TooDeep:
      return report("header JSON nests deeper than %d levels at header byte "
                    "%d (file offset %d)",
                    limits.max_json_depth, error.offset, fileOffset);
    case json::ParseError::Code::DuplicateKey:
      if (error.depth == 1 && error.key != "__metadata__")
        return report("duplicate tensor name %s in header at header byte %d "
                      "(file offset %d)",
                      jsonQuoted(error.key), error.offset, fileOffset);
      [[fallthrough]];
    case json::ParseError::Code::Syntax:
      return report("header is not valid JSON at header byte %d (file offset "
                    "%d): %s",
                    error.offset, fileOffset, error.message);
    }
    return report("header is not valid JSON: %s", error.toString());
  }
  if (reader.tensorCount > limits.max_tensors)
    return report("header lists %d tensors, more than the limit of %d",
                  reader.tensorCount, limits.max_tensors);
  Layout layout = std::move(reader.layout);
  layout.dataStart = dataStart;
  if (absl::Status status =
          checkTiling(layout.entries, fileSize - dataStart, report);
      !status.ok())
    return status;
  return layout;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// The serialized header (length prefix included) and the tensors in data
/// order.
struct Prepared {
  std::string prefixAndHeader;
  std::vector<std::pair<const std::string *, const Tensor *>> order;
  uint64_t dataSize = 0;
};

absl::StatusOr<Prepared> prepare(const StateDict &tensors,
                                 const Metadata &metadata) {
  Prepared prepared;
  for (const auto &[name, tensor] : tensors) {
    if (name.empty())
      return absl::InvalidArgumentError(
          "cannot save a tensor with an empty name");
    if (name.find('\0') != std::string::npos || !json::isValidUtf8(name))
      return absl::InvalidArgumentError(absl::StrFormat(
          "cannot save tensor %s: names must be UTF-8 without NUL characters",
          jsonQuoted(name)));
    if (name == "__metadata__")
      return absl::InvalidArgumentError(
          "cannot save a tensor named \"__metadata__\": safetensors reserves "
          "that key");
    if (!tensor.defined() || tensor.is_symbolic())
      return absl::InvalidArgumentError(
          absl::StrFormat("cannot save tensor %s: %s has no data",
                          jsonQuoted(name), tensor.to_string()));
    prepared.order.emplace_back(&name, &tensor);
  }
  for (const auto &[key, value] : metadata)
    if (!json::isValidUtf8(key) || !json::isValidUtf8(value))
      return absl::InvalidArgumentError(absl::StrFormat(
          "cannot save metadata %s: keys and values must be UTF-8",
          jsonQuoted(key)));
  auto rank = [](const Tensor *t) {
    return safetensorsDtypeRank(dtype_safetensors_name(t->dtype()));
  };
  std::stable_sort(prepared.order.begin(), prepared.order.end(),
                   [&](const auto &a, const auto &b) {
                     int rankA = rank(a.second), rankB = rank(b.second);
                     if (rankA != rankB)
                       return rankA > rankB;
                     return *a.first < *b.first;
                   });

  json::Object header;
  if (!metadata.empty()) {
    json::Object meta;
    for (const auto &[key, value] : metadata)
      meta.emplace_back(key, json::Value(value));
    header.emplace_back("__metadata__", json::Value(std::move(meta)));
  }
  uint64_t offset = 0;
  for (const auto &[name, tensor] : prepared.order) {
    json::Array shape;
    for (int64_t dim : tensor->shape())
      shape.emplace_back(dim);
    uint64_t size = tensor->nbytes();
    json::Object info;
    info.emplace_back("dtype",
                      json::Value(dtype_safetensors_name(tensor->dtype())));
    info.emplace_back("shape", json::Value(std::move(shape)));
    info.emplace_back("data_offsets",
                      json::Value(json::Array{json::Value(offset),
                                              json::Value(offset + size)}));
    header.emplace_back(*name, json::Value(std::move(info)));
    offset += size;
  }
  prepared.dataSize = offset;

  std::string text = json::write(json::Value(std::move(header)));
  text.append((8 - text.size() % 8) % 8, ' ');
  uint64_t length = text.size();
  prepared.prefixAndHeader.resize(kLengthPrefixBytes);
  std::memcpy(prepared.prefixAndHeader.data(), &length, sizeof(length));
  prepared.prefixAndHeader += text;
  return prepared;
}

//===----------------------------------------------------------------------===//
// File helpers
//===----------------------------------------------------------------------===//

/// "<path>: <what>: <strerror>", with the status code errno maps to
/// (ErrnoToStatus appends the strerror text).
absl::Status errnoStatus(int error, const std::string &path,
                         const std::string &what) {
  return absl::ErrnoToStatus(error, absl::StrFormat("%s: %s", path, what));
}

/// Closes a file descriptor when it goes out of scope.
struct FdCloser {
  int fd = -1;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// True when `path` names the file open as `fd` (not another, not nothing).
bool isFileAt(int fd, const std::string &path) {
  struct stat open, named;
  return ::fstat(fd, &open) == 0 && ::lstat(path.c_str(), &named) == 0 &&
         open.st_dev == named.st_dev && open.st_ino == named.st_ino;
}

/// Removes the temporary files that saves of `base` killed before their
/// rename left in `dir`: ".<base>.tmp.XXXXXX" files that no save holds
/// locked (a save locks its temporary file from creation to rename, and a
/// killed process's locks go with it).
void removeOrphanedTempFiles(const std::string &dir, const std::string &base) {
  std::unique_ptr<DIR, int (*)(DIR *)> folder(::opendir(dir.c_str()),
                                              &::closedir);
  if (!folder)
    return; // the save reports what is wrong with the folder
  std::string prefix = "." + base + ".tmp.";
  constexpr size_t kSuffixLength = 6; // mkstemp's XXXXXX
  while (const dirent *entry = ::readdir(folder.get())) {
    std::string_view name = entry->d_name;
    if (name.size() != prefix.size() + kSuffixLength ||
        !name.starts_with(prefix))
      continue;
    std::string candidate = dir + "/" + std::string(name);
    FdCloser file{::open(candidate.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
    if (file.fd < 0 || ::flock(file.fd, LOCK_EX | LOCK_NB) != 0)
      continue; // gone, not a file, or a save is writing it
    if (isFileAt(file.fd, candidate))
      ::unlink(candidate.c_str());
  }
}

/// Reads exactly `size` bytes at `offset`. `ended` is set when the file was
/// shorter than expected.
absl::Status readAt(int fd, const std::string &path, void *buffer, size_t size,
                    uint64_t offset) {
  auto *out = static_cast<char *>(buffer);
  while (size) {
    ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errnoStatus(errno, path, "read failed");
    }
    if (n == 0)
      return absl::DataLossError(absl::StrFormat(
          "%s: file ended early at byte %d (it changed while being read?)",
          path, offset));
    out += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

/// Writes all of `buffer`; errors name `path` (the target) and `tempPath`.
absl::Status writeAll(int fd, const std::string &path,
                      const std::string &tempPath, const void *buffer,
                      size_t size) {
  const auto *in = static_cast<const char *>(buffer);
  while (size) {
    ssize_t n = ::write(fd, in, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errnoStatus(errno, path, "writing " + tempPath + " failed");
    }
    in += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

bool hasPickleExtension(const std::string &path) {
  auto endsWith = [&](std::string_view suffix) {
    if (path.size() < suffix.size())
      return false;
    for (size_t i = 0; i < suffix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(
              path[path.size() - suffix.size() + i])) != suffix[i])
        return false;
    return true;
  };
  return endsWith(".pt") || endsWith(".pth");
}

/// The permissions a new file gets: the process umask applied to 0666 (read
/// from /proc, since umask() cannot be queried without changing it).
mode_t newFileMode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      unsigned mask = 0;
      if (std::sscanf(line.c_str() + 6, "%o", &mask) == 1)
        return 0666 & ~static_cast<mode_t>(mask);
    }
  }
  return 0644;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

absl::StatusOr<SafetensorsContents>
parse_safetensors(std::string_view bytes, std::string_view source,
                  const SafetensorsLimits &limits) {
  Reporter report(source);
  if (absl::Status status =
          checkNotPickle(bytes.substr(0, 9), bytes.size(), report);
      !status.ok())
    return status;
  absl::StatusOr<uint64_t> headerLength =
      checkLengthPrefix(bytes, bytes.size(), limits, report);
  if (!headerLength.ok())
    return headerLength.status();
  absl::StatusOr<Layout> layout =
      parseHeader(bytes.substr(kLengthPrefixBytes, *headerLength), bytes.size(),
                  limits, report);
  if (!layout.ok())
    return layout.status();

  SafetensorsContents contents;
  contents.metadata = std::move(layout->metadata);
  for (Entry &entry : layout->entries) {
    Tensor tensor = Tensor::zeros(entry.shape, entry.dtype);
    if (entry.end > entry.begin)
      std::memcpy(tensor.raw_data(),
                  bytes.data() + layout->dataStart + entry.begin,
                  entry.end - entry.begin);
    contents.tensors.insert(std::move(entry.name), std::move(tensor));
  }
  return contents;
}

absl::StatusOr<SafetensorsContents>
load_safetensors(const std::string &path, const SafetensorsLimits &limits) {
  FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    return errnoStatus(errno, path, "cannot open");
  struct stat info;
  if (::fstat(file.fd, &info) != 0)
    return errnoStatus(errno, path, "cannot stat");
  if (!S_ISREG(info.st_mode))
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: not a regular file", path));
  Reporter report(path);
  if (hasPickleExtension(path))
    return report("a .pt/.pth file is a PyTorch pickle, not a safetensors "
                  "file; %s",
                  pickleAdvice());
  auto fileSize = static_cast<uint64_t>(info.st_size);

  char head[9] = {};
  size_t headSize = static_cast<size_t>(std::min<uint64_t>(fileSize, 9));
  if (absl::Status status = readAt(file.fd, path, head, headSize, 0);
      !status.ok())
    return status;
  std::string_view headView(head, headSize);
  if (absl::Status status = checkNotPickle(headView, fileSize, report);
      !status.ok())
    return status;
  absl::StatusOr<uint64_t> headerLength =
      checkLengthPrefix(headView, fileSize, limits, report);
  if (!headerLength.ok())
    return headerLength.status();

  std::string header(static_cast<size_t>(*headerLength), '\0');
  if (absl::Status status = readAt(file.fd, path, header.data(), header.size(),
                                   kLengthPrefixBytes);
      !status.ok())
    return status;
  absl::StatusOr<Layout> layout = parseHeader(header, fileSize, limits, report);
  if (!layout.ok())
    return layout.status();
  header = std::string();

  SafetensorsContents contents;
  contents.metadata = std::move(layout->metadata);
  for (Entry &entry : layout->entries) {
    Tensor tensor = Tensor::zeros(entry.shape, entry.dtype);
    if (absl::Status status =
            readAt(file.fd, path, tensor.raw_data(), entry.end - entry.begin,
                   layout->dataStart + entry.begin);
        !status.ok())
      return status;
    contents.tensors.insert(std::move(entry.name), std::move(tensor));
  }
  return contents;
}

std::string serialize_safetensors(const StateDict &tensors,
                                  const Metadata &metadata) {
  absl::StatusOr<Prepared> prepared = prepare(tensors, metadata);
  if (!prepared.ok())
    throw Error("serialize_safetensors: " +
                std::string(prepared.status().message()));
  std::string out = std::move(prepared->prefixAndHeader);
  out.reserve(out.size() + prepared->dataSize);
  for (const auto &[name, tensor] : prepared->order) {
    Tensor host = tensor->to(Device::cpu()); // a GPU's tensor, copied
    out.append(static_cast<const char *>(host.raw_data()), host.nbytes());
  }
  return out;
}

absl::Status save_safetensors(const std::string &path, const StateDict &tensors,
                              const Metadata &metadata) {
  absl::StatusOr<Prepared> prepared = prepare(tensors, metadata);
  if (!prepared.ok())
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s", path, prepared.status().message()));

  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty())
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: not a file name", path));
  // Keep an existing file's permissions; give a new one 0666 & ~umask.
  struct stat existing;
  mode_t mode = ::stat(path.c_str(), &existing) == 0
                    ? (existing.st_mode & 07777)
                    : newFileMode();

  removeOrphanedTempFiles(dir, base);
  std::string tempPath;
  int fd = -1;
  while (fd < 0) {
    tempPath = dir + "/." + base + ".tmp.XXXXXX";
    fd = ::mkstemp(tempPath.data());
    if (fd < 0)
      return errnoStatus(errno, path,
                         "cannot create a temporary file in " + dir);
    // Held until the rename: a concurrent save takes an unlocked temporary
    // file for an orphan. One may have, before this lock: then make another.
    // (Where the file system has no flock, nothing is ever removed.)
    if (::flock(fd, LOCK_EX) == 0 && !isFileAt(fd, tempPath)) {
      ::close(fd);
      fd = -1;
    }
  }
  auto failure = [&](absl::Status status) {
    ::unlink(tempPath.c_str());
    ::close(fd);
    return status;
  };
  if (::fchmod(fd, mode) != 0)
    return failure(
        errnoStatus(errno, path, "cannot set the permissions of " + tempPath));
  const std::string &headerBytes = prepared->prefixAndHeader;
  if (absl::Status status =
          writeAll(fd, path, tempPath, headerBytes.data(), headerBytes.size());
      !status.ok())
    return failure(status);
  for (const auto &[name, tensor] : prepared->order) {
    Tensor host = tensor->to(Device::cpu()); // a GPU's tensor, copied
    if (absl::Status status =
            writeAll(fd, path, tempPath, host.raw_data(), host.nbytes());
        !status.ok())
      return failure(status);
  }
  if (::fsync(fd) != 0)
    return failure(
        errnoStatus(errno, path, "fsync of " + tempPath + " failed"));
  if (::rename(tempPath.c_str(), path.c_str()) != 0)
    return failure(
        errnoStatus(errno, path, "cannot rename " + tempPath + " over it"));
  // The data is on disk (fsync): closing the renamed file cannot lose it.
  ::close(fd);

  // Make the rename itself durable.
  FdCloser dirFile{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dirFile.fd < 0)
    return errnoStatus(errno, path,
                       "saved, but cannot open its folder to fsync it");
  if (::fsync(dirFile.fd) != 0)
    return errnoStatus(errno, path, "saved, but fsync of its folder failed");
  return absl::OkStatus();
}

} // namespace nn
