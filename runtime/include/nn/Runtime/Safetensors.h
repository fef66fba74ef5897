//===- Safetensors.h - safetensors reading and writing ----------*- C++ -*-===//
//
// The safetensors format, byte-compatible with safetensors.torch: an 8-byte
// little-endian header length N, N bytes of JSON (padded with spaces to a
// multiple of 8), then the tensor data. Tensors are laid out as
// safetensors.torch lays them out: by dtype, in descending order of
// safetensors' Rust `Dtype` enum (for nn's dtypes: I64, F64, F32, I32, BF16,
// F16, I8, U8, BOOL), then by name; the header lists them in that order,
// after "__metadata__" (omitted when empty, its keys sorted).
//
// Reading trusts nothing: every field of the header is validated (lengths,
// JSON, nesting depth, dtypes, shapes with overflow-checked products, offsets
// that must tile the data region exactly, names) before any tensor memory is
// allocated, and the tensor memory allocated never exceeds the file's size
// (the parsed header itself is bounded by the header length, which
// SafetensorsLimits caps). A PyTorch pickle (.pt/.pth, a zip archive or a
// pickle stream) is refused: nn never reads pickle.
//
// Every error message starts with the file's name (`source`, or the path)
// and says what is wrong: "w.safetensors: tensor \"fc1.weight\" data_offsets
// [0,20] span 20 bytes, but shape [2,3] of F32 needs 24 bytes".
//
// Writing is atomic: a temporary file in the same folder (locked while it is
// written), fsync, rename. An existing file is never left half-written, and
// the temporary files of saves killed before their rename are removed by the
// next save of the same file. Tied tensors (one Storage under two names) are
// written once per name.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_SAFETENSORS_H
#define NN_RUNTIME_SAFETENSORS_H

#include "nn/Runtime/StateDict.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <map>
#include <string>
#include <string_view>

namespace nn {

using Metadata = std::map<std::string, std::string>;

struct SafetensorsContents {
  StateDict tensors; // in the file's header order
  Metadata metadata; // the "__metadata__" object, empty when absent
};

/// Upper bounds on what a reader accepts. The header is read as it is
/// parsed, keeping only the entries and metadata it describes (no tree of the
/// JSON text), so with these limits the memory a header takes is a small
/// multiple of its length: see docs/robustness.md.
struct SafetensorsLimits {
  uint64_t max_header_bytes = 100'000'000; // safetensors' own limit
  size_t max_tensors = 1'000'000;
  size_t max_rank = 1024;
  size_t max_metadata_entries = 65'536;
  int max_json_depth = 64;
};

/// Parses a complete file image. `source` names the file in error messages.
absl::StatusOr<SafetensorsContents>
parse_safetensors(std::string_view bytes, std::string_view source = "<memory>",
                  const SafetensorsLimits &limits = {});

/// Reads and parses `path`.
absl::StatusOr<SafetensorsContents>
load_safetensors(const std::string &path, const SafetensorsLimits &limits = {});

/// The bytes safetensors.torch.save_file would write for these tensors.
/// Tensors must have storage (not symbolic).
std::string serialize_safetensors(const StateDict &tensors,
                                  const Metadata &metadata = {});

/// Writes atomically (temporary file in the same folder, fsync, rename), and
/// first removes the temporary files earlier saves of `path` left when they
/// were killed (those no save holds locked).
absl::Status save_safetensors(const std::string &path, const StateDict &tensors,
                              const Metadata &metadata = {});

} // namespace nn

#endif // NN_RUNTIME_SAFETENSORS_H
