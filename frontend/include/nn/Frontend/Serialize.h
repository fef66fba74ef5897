//===- Serialize.h - Saving and loading a module's state --------*- C++ -*-===//
//
// A module's state_dict to and from a safetensors file, byte-compatible with
// safetensors.torch: a file nn::save writes loads into the PyTorch twin with
// load_state_dict(strict=True), and one PyTorch saved loads here.
//
//   nn::save(model, "model.safetensors", {{"epoch", "3"}});
//   auto loaded = nn::load(model, "model.safetensors");   // strict
//   if (!loaded.ok()) std::cerr << loaded.status() << "\n";
//
// Files are untrusted input, so these return absl::Status (as the runtime's
// readers do) instead of throwing. save() is atomic: a temporary file in the
// same folder, fsync, rename; an existing file is never left half-written.
// load() is all-or-nothing like Module::load_state_dict: a file that does not
// fit leaves the module unchanged. Tied tensors are written under every
// name, each with its own bytes, as PyTorch's state_dict() lists them.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_SERIALIZE_H
#define NN_FRONTEND_SERIALIZE_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Runtime/Safetensors.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <string>

namespace nn {

/// Writes module.state_dict() (and `metadata`, the file's "__metadata__") to
/// `path`.
absl::Status save(const Module &module, const std::string &path,
                  const Metadata &metadata = {});

/// Reads `path` and loads it with module.load_state_dict(…, strict). Errors
/// (unreadable or corrupt file, keys that don't fit) start with the path.
/// When `metadata` is given, it receives the file's "__metadata__".
absl::StatusOr<LoadResult> load(Module &module, const std::string &path,
                                bool strict = true,
                                Metadata *metadata = nullptr);

template <typename C>
absl::Status save(const ModuleHolder<C> &module, const std::string &path,
                  const Metadata &metadata = {}) {
  return save(*module, path, metadata);
}

template <typename C>
absl::StatusOr<LoadResult> load(const ModuleHolder<C> &module,
                                const std::string &path, bool strict = true,
                                Metadata *metadata = nullptr) {
  return load(*module, path, strict, metadata);
}

} // namespace nn

#endif // NN_FRONTEND_SERIALIZE_H
