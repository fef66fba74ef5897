//===- nn-run.cpp - Run a compiled model on safetensors inputs ------------===//
//
//   nn-run model.so [weights.safetensors] inputs.safetensors
//          [-o outputs.safetensors] [--state-out state.safetensors]
//          [--seed N] [--rng-offset N] [--threads N]
//
// Loads a compiled model with the runtime alone (no LLVM, no MLIR), binds
// the weights by state_dict name (a model compiled with --embed-weights
// carries them: the weights file may be left out), runs it on the inputs
// ("input.0", ...),
// prints one line per output and optionally saves them ("output.0", ...).
// A model that draws random numbers (training dropout) draws them from the
// generator state (--seed, --rng-offset; 0 and 0 by default).
//
// A model compiled in training mode writes its buffers as it runs (BatchNorm's
// running_mean, running_var, num_batches_tracked): the artifact binds the
// loaded weights without copying, so after the run they hold the updated
// state, which --state-out saves (every tensor of the weights file, under its
// name), ready to be the weights of the next step.
//
// --threads N runs the model's parallel loops and kernels on N threads (0:
// one per CPU; the default is 1).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Kernels.h"
#include "nn/Runtime/Safetensors.h"

#include <algorithm>
#include <charconv>
#include <optional>
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

/// All of `text` as a base-10 integer >= 0 that fits T, or nothing.
template <typename T> std::optional<T> parseCount(const char *text) {
  T value{};
  const char *end = text + std::strlen(text);
  auto [last, error] = std::from_chars(text, end, value);
  if (error != std::errc() || last != end || value < T(0))
    return std::nullopt;
  return value;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> positional;
  std::string outputPath, statePath;
  nn::RngState rng;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      outputPath = argv[++i];
    else if (std::strcmp(argv[i], "--state-out") == 0 && i + 1 < argc)
      statePath = argv[++i];
    else if ((std::strcmp(argv[i], "--seed") == 0 ||
              std::strcmp(argv[i], "--rng-offset") == 0) &&
             i + 1 < argc) {
      uint64_t &target =
          std::strcmp(argv[i], "--seed") == 0 ? rng.seed : rng.offset;
      const char *text = argv[++i];
      std::optional<uint64_t> value = parseCount<uint64_t>(text);
      if (!value)
        return fail(std::string(argv[i - 1]) +
                    " needs a non-negative integer, got '" + text + "'");
      target = *value;
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      const char *text = argv[++i];
      std::optional<int32_t> threads = parseCount<int32_t>(text);
      if (!threads)
        return fail(std::string("--threads expects a count >= 0, got '") +
                    text + "'");
      // Artifact::run passes this process's count on to the model.
      nn_rt_set_num_threads(*threads);
    }
    else if (std::strcmp(argv[i], "-h") == 0 ||
             std::strcmp(argv[i], "--help") == 0)
      positional.clear(), i = argc;
    else
      positional.push_back(argv[i]);
  }
  if (positional.size() != 2 && positional.size() != 3)
    return fail("usage: nn-run model.so [weights.safetensors] "
                "inputs.safetensors [-o outputs.safetensors] "
                "[--state-out state.safetensors] [--seed N] [--rng-offset N] "
                "[--threads N]");

  auto artifact = nn::Artifact::load(positional[0]);
  if (!artifact.ok())
    return fail(artifact.status());
  // Without a weights file, what the model embeds is all it has.
  absl::StatusOr<nn::SafetensorsContents> weights = nn::SafetensorsContents();
  if (positional.size() == 3)
    weights = nn::load_safetensors(positional[1]);
  if (!weights.ok())
    return fail(weights.status());
  if (auto bound = (*artifact)->bind(weights->tensors); !bound.ok())
    return fail(bound);
  auto inputs = nn::load_safetensors(positional.back());
  if (!inputs.ok())
    return fail(inputs.status());
  auto outputs = (*artifact)->run(inputs->tensors, rng);
  if (!outputs.ok())
    return fail(outputs.status());
  for (const auto &[name, tensor] : *outputs)
    summarize(name, tensor);
  if (!outputPath.empty())
    if (auto saved = nn::save_safetensors(outputPath, *outputs); !saved.ok())
      return fail(saved);
  if (!statePath.empty())
    if (auto saved = nn::save_safetensors(statePath, weights->tensors,
                                          weights->metadata);
        !saved.ok())
      return fail(saved);
  return 0;
}
