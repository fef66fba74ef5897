//===- write_interop_sample.cpp - Write the interop sample with nn --------===//
//
// Writes the interop sample tensors (InteropSample.h) with
// nn::save_safetensors to the path given as argv[1], for
// tests/reference/check_safetensors_roundtrip.py to read back with the
// Python reader that mirrors safetensors.torch.
//
//===----------------------------------------------------------------------===//

#include "InteropSample.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.safetensors\n", argv[0]);
    return 2;
  }
  absl::Status status =
      nn::save_safetensors(argv[1], nn::testing::interopSampleTensors(),
                           nn::testing::interopSampleMetadata());
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
