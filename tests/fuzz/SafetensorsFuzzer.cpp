//===- SafetensorsFuzzer.cpp - Fuzz target: the safetensors reader --------===//
//
// Any bytes: parse_safetensors returns a Status or the contents, never
// crashes, and never allocates more tensor memory than the input holds.
// What it accepts must survive a round trip: serialized again and parsed,
// the same names, shapes, dtypes, bytes and metadata come back.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Safetensors.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

void require(bool property, const char *what) {
  if (!property) {
    std::fprintf(stderr, "broken property: %s\n", what);
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  absl::StatusOr<nn::SafetensorsContents> parsed =
      nn::parse_safetensors(bytes, "fuzz.safetensors");
  if (!parsed.ok()) {
    require(!parsed.status().message().empty(), "an error says what it is");
    return 0;
  }
  size_t tensorBytes = 0;
  for (const auto &[name, tensor] : parsed->tensors)
    tensorBytes += tensor.nbytes();
  require(tensorBytes <= size, "tensor memory is bounded by the input");

  std::string again =
      nn::serialize_safetensors(parsed->tensors, parsed->metadata);
  absl::StatusOr<nn::SafetensorsContents> reparsed =
      nn::parse_safetensors(again, "round-trip.safetensors");
  require(reparsed.ok(), "what was read is written readable");
  require(reparsed->metadata == parsed->metadata, "metadata round-trips");
  require(reparsed->tensors.size() == parsed->tensors.size(),
          "every tensor round-trips");
  for (const auto &[name, tensor] : parsed->tensors) {
    const nn::Tensor *back = reparsed->tensors.find(name);
    require(back != nullptr, "names round-trip");
    require(back->shape() == tensor.shape() && back->dtype() == tensor.dtype(),
            "shapes and dtypes round-trip");
    require(tensor.nbytes() == 0 ||
                std::memcmp(back->raw_data(), tensor.raw_data(),
                            tensor.nbytes()) == 0,
            "bytes round-trip");
  }
  return 0;
}
