//===- Serialize.cpp - Saving and loading a module's state ----------------===//
//
// nn::save and nn::load: the runtime's safetensors reader and atomic writer
// around Module::state_dict and Module::load_state_dict.
//
//===----------------------------------------------------------------------===//

#include "nn/Frontend/Serialize.h"

namespace nn {

absl::Status save(const Module &module, const std::string &path,
                  const Metadata &metadata) {
  return save_safetensors(path, module.state_dict(), metadata);
}

absl::StatusOr<LoadResult> load(Module &module, const std::string &path,
                                bool strict, Metadata *metadata) {
  absl::StatusOr<SafetensorsContents> contents = load_safetensors(path);
  if (!contents.ok())
    return contents.status();
  LoadResult result;
  try {
    result = module.load_state_dict(contents->tensors, strict);
  } catch (const Error &error) {
    return absl::InvalidArgumentError(path + ": " + error.what());
  }
  if (metadata)
    *metadata = std::move(contents->metadata);
  return result;
}

} // namespace nn
