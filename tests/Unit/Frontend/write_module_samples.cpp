//===- write_module_samples.cpp - Save every seed model with nn -----------===//
//
// Builds each model of examples/models/SeedModels.h (seed 1234, so values
// differ from the PyTorch goldens) and saves its state with nn::save to
// DIR/<Model>.safetensors, metadata {"format": "pt", "model": <Model>}, for
// `generate_module_goldens.py --load-nn DIR` to load into the PyTorch twins
// strictly.
//
//===----------------------------------------------------------------------===//

#include "models/SeedModels.h"

#include <cstdio>
#include <filesystem>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const nn::models::ModelCase &c : nn::models::seed_models()) {
    std::shared_ptr<nn::Module> model = c.make(1234);
    absl::Status status = nn::save(*model, dir + "/" + c.name + ".safetensors",
                                   {{"format", "pt"}, {"model", c.name}});
    if (!status.ok()) {
      std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
      return 1;
    }
  }
  return 0;
}
