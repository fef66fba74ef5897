//===- nn-run.cpp - Run a compiled model on safetensors inputs ------------===//
//
//   nn-run model.so weights.safetensors inputs.safetensors [-o outputs.safetensors]
//          [--threads N]
//
// Loads a compiled model with the runtime alone (no LLVM, no MLIR), binds
// the weights by state_dict name, runs it on the inputs ("input.0", ...),
// prints one line per output and optionally saves them ("output.0", ...).
// --threads N runs the model's parallel loops and kernels on N threads (0:
// one per CPU; the default is 1).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Kernels.h"
#include "nn/Runtime/Safetensors.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iostream>
#include <limits>

namespace {

int fail(const std::string &message) {
  std::cerr << "nn-run: " << message << "\n";
  return 1;
}

int fail(const absl::Status &status) { return fail(std::string(status.message())); }

/// "output.0: float32 64x10 min -3.1 max 2.7 mean 0.01"
void summarize(const std::string &name, const nn::Tensor &t) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = t.item_as_double(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  std::cout << name << ": " << nn::dtype_name(t.dtype()) << " "
            << nn::shape_str(t.shape());
  if (t.numel() > 0)
    std::cout << " min " << lo << " max " << hi << " mean " << sum / t.numel();
  std::cout << "\n";
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> positional;
  std::string outputPath;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      outputPath = argv[++i];
    else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      const char *text = argv[++i], *end = text + std::strlen(text);
      int32_t threads = 0;
      auto [last, error] = std::from_chars(text, end, threads);
      if (error != std::errc() || last != end || threads < 0)
        return fail(std::string("--threads expects a count >= 0, got '") +
                    text + "'");
      // Artifact::run passes this process's count on to the model.
      nn_rt_set_num_threads(threads);
    }
    else if (std::strcmp(argv[i], "-h") == 0 ||
             std::strcmp(argv[i], "--help") == 0)
      positional.clear(), i = argc;
    else
      positional.push_back(argv[i]);
  }
  if (positional.size() != 3)
    return fail("usage: nn-run model.so weights.safetensors "
                "inputs.safetensors [-o outputs.safetensors] [--threads N]");

  auto artifact = nn::Artifact::load(positional[0]);
  if (!artifact.ok())
    return fail(artifact.status());
  auto weights = nn::load_safetensors(positional[1]);
  if (!weights.ok())
    return fail(weights.status());
  if (auto bound = (*artifact)->bind(weights->tensors); !bound.ok())
    return fail(bound);
  auto inputs = nn::load_safetensors(positional[2]);
  if (!inputs.ok())
    return fail(inputs.status());
  auto outputs = (*artifact)->run(inputs->tensors);
  if (!outputs.ok())
    return fail(outputs.status());
  for (const auto &[name, tensor] : *outputs)
    summarize(name, tensor);
  if (!outputPath.empty())
    if (auto saved = nn::save_safetensors(outputPath, *outputs); !saved.ok())
      return fail(saved);
  return 0;
}
