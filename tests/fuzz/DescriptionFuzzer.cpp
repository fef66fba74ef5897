//===- DescriptionFuzzer.cpp - Fuzz target: the description reader -------===//
//
// Any bytes as an artifact's JSON description: parse_artifact_description
// returns a Status or the description, never crashes; what it accepts,
// written again with to_json, reads back equal (the compiler's writer and
// the runtime's reader agree on everything the reader lets through).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/ArtifactDescription.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view json(reinterpret_cast<const char *>(data), size);
  absl::StatusOr<nn::ArtifactDescription> parsed =
      nn::parse_artifact_description(json, "fuzz");
  if (!parsed.ok())
    return 0;
  absl::StatusOr<nn::ArtifactDescription> again =
      nn::parse_artifact_description(nn::to_json(*parsed), "round trip");
  if (!again.ok() || !(*again == *parsed)) {
    std::fprintf(stderr, "broken property: to_json of an accepted description "
                         "reads back equal\n");
    std::abort();
  }
  return 0;
}
