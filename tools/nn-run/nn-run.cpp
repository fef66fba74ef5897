//===- nn-run.cpp - Run a compiled model on safetensors inputs ------------===//
//
//   nn-run model.so [weights.safetensors] inputs.safetensors
//          [-o outputs.safetensors] [--state-out state.safetensors]
//          [--seed N] [--rng-offset N] [--threads N] [--non-strict]
//          [--device cpu|cuda|cuda:N]
//
// Loads a compiled model with the runtime alone (no LLVM, no MLIR), binds
// the weights by state_dict name (a model compiled with --embed-weights
// carries them: the weights file may be left out; a tensor the model does
// not take is an error, as in PyTorch's strict load_state_dict, unless
// --non-strict), runs it on the inputs
// ("input.0", ...),
// prints one line per output and optionally saves them ("output.0", ...).
// A model that draws random numbers (training dropout) draws them from the
// generator state: --seed and --rng-offset when given, else what the
// weights file's metadata says ("nn.rng.seed", "nn.rng.offset": a file
// --state-out wrote), else 0 and 0. --state-out records the state the next
// run starts from (the offset past this run's draws), so a run resumed from
// that file draws what an uninterrupted one would.
//
// A model compiled in training mode writes its buffers as it runs (BatchNorm's
// running_mean, running_var, num_batches_tracked): the artifact binds the
// loaded weights without copying, so after the run they hold the updated
// state, which --state-out saves (every tensor of the weights file, under its
// name), ready to be the weights of the next step.
//
// --threads N runs the model's parallel loops and kernels on N threads (0:
// one per CPU; the default is 1). --device cuda runs forward on GPU 0 (or
// cuda:N), from the kernels of a model compiled with --target=cuda: the
// weights and inputs are copied there and the outputs back.
//
//   nn-run train.so [weights.safetensors] data.safetensors --train-steps N
//          [--state-out state.safetensors]
//
// runs a compiled training step (nn::TrainStep::compile_to_file) N times:
// data.safetensors holds, for each input the step takes ("input.0", the
// targets "input.1", ...), a tensor with one more leading dimension, its
// batches; step k takes batch k modulo their count. The optimizer's
// hyper-parameters ("optimizer.param_groups.0.lr", ...) are read from the
// data file when it has them (rank 0), else the values the step was
// compiled with. Optimizer state the weights file lacks starts at zero (a
// first step), so PyTorch's own state_dict file is a valid start. It prints
// each step's loss; --state-out saves the model's and the optimizer's state
// after the last step, which resumes training as the weights of a later
// run, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/Kernels.h"
#include "nn/Runtime/Safetensors.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>

namespace {

int fail(const std::string &message) {
  std::cerr << "nn-run: " << message << "\n";
  return 1;
}

int fail(const absl::Status &status) {
  return fail(std::string(status.message()));
}

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

/// The inputs of training step `step` (from 0): each input's batch
/// `step` modulo the batches `data` holds, or its rank-0 value, or its
/// default.
absl::StatusOr<nn::StateDict> stepInputs(const nn::ArtifactDescription &d,
                                         const nn::StateDict &data,
                                         int64_t step) {
  nn::StateDict inputs;
  for (const nn::TensorInfo &info : d.inputs) {
    const nn::Tensor *all = data.find(info.name);
    if (!all && info.default_value) {
      nn::Tensor value = nn::Tensor::zeros({}, info.dtype);
      if (info.dtype == nn::DType::f64)
        *value.data_ptr<double>() = *info.default_value;
      else if (info.dtype == nn::DType::f32)
        *value.data_ptr<float>() = static_cast<float>(*info.default_value);
      else
        return absl::InvalidArgumentError("'" + info.name +
                                          "' has a default but is no float");
      inputs.insert(info.name, value);
      continue;
    }
    if (!all)
      return absl::InvalidArgumentError("the data file has no '" + info.name +
                                        "'");
    if (all->shape() == info.shape) { // one value for every step
      inputs.insert(info.name, *all);
      continue;
    }
    nn::Shape batch(all->shape().begin() + (all->shape().empty() ? 0 : 1),
                    all->shape().end());
    if (all->shape().empty() || all->shape()[0] == 0 || batch != info.shape ||
        all->dtype() != info.dtype)
      return absl::InvalidArgumentError(
          "the data file's '" + info.name + "' is " + all->to_string() +
          "; it must be batches of " + nn::shape_str(info.shape) + " " +
          std::string(nn::dtype_name(info.dtype)) + " along a first dimension");
    nn::Tensor one = nn::Tensor::zeros(info.shape, info.dtype);
    int64_t k = step % all->shape()[0];
    std::memcpy(one.raw_data(),
                static_cast<const char *>(all->raw_data()) + k * one.nbytes(),
                one.nbytes());
    inputs.insert(info.name, one);
  }
  return inputs;
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

/// The metadata keys of a state file that hold the generator state.
constexpr const char *kSeedKey = "nn.rng.seed";
constexpr const char *kOffsetKey = "nn.rng.offset";

/// Fills the fields of `rng` the command line left unset from `metadata`.
absl::Status rngFromMetadata(const nn::Metadata &metadata, nn::RngState &rng,
                             bool seedGiven, bool offsetGiven) {
  for (auto [key, given, field] :
       {std::make_tuple(kSeedKey, seedGiven, &rng.seed),
        std::make_tuple(kOffsetKey, offsetGiven, &rng.offset)}) {
    auto it = metadata.find(key);
    if (given || it == metadata.end())
      continue;
    std::optional<uint64_t> value = parseCount<uint64_t>(it->second.c_str());
    if (!value)
      return absl::InvalidArgumentError(
          std::string("the weights file's metadata '") + key +
          "' is not a non-negative integer: '" + it->second + "'");
    *field = *value;
  }
  return absl::OkStatus();
}

/// `metadata` with the generator state a next run starts from, when the
/// model draws random numbers.
nn::Metadata withRng(nn::Metadata metadata, const nn::ArtifactDescription &d,
                     const nn::RngState &next) {
  if (d.rng_draws == 0)
    return metadata;
  metadata[kSeedKey] = std::to_string(next.seed);
  metadata[kOffsetKey] = std::to_string(next.offset);
  return metadata;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> positional;
  std::string outputPath, statePath;
  nn::RngState rng;
  bool seedGiven = false, offsetGiven = false;
  std::optional<int64_t> trainSteps;
  bool strict = true;
  nn::Device device = nn::Device::cpu();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      outputPath = argv[++i];
    else if (std::strcmp(argv[i], "--train-steps") == 0 && i + 1 < argc) {
      const char *text = argv[++i];
      trainSteps = parseCount<int64_t>(text);
      if (!trainSteps)
        return fail(std::string("--train-steps expects a count >= 0, got '") +
                    text + "'");
    } else if (std::strcmp(argv[i], "--state-out") == 0 && i + 1 < argc)
      statePath = argv[++i];
    else if ((std::strcmp(argv[i], "--seed") == 0 ||
              std::strcmp(argv[i], "--rng-offset") == 0) &&
             i + 1 < argc) {
      bool seed = std::strcmp(argv[i], "--seed") == 0;
      uint64_t &target = seed ? rng.seed : rng.offset;
      (seed ? seedGiven : offsetGiven) = true;
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
    } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      try {
        device = nn::Device(argv[++i]);
      } catch (const nn::Error &e) {
        return fail(e.what());
      }
    } else if (std::strcmp(argv[i], "--non-strict") == 0) {
      strict = false;
    } else if (std::strcmp(argv[i], "-h") == 0 ||
               std::strcmp(argv[i], "--help") == 0)
      positional.clear(), i = argc;
    else
      positional.push_back(argv[i]);
  }
  if (positional.size() != 2 && positional.size() != 3)
    return fail("usage: nn-run model.so [weights.safetensors] "
                "inputs.safetensors [-o outputs.safetensors] "
                "[--state-out state.safetensors] [--seed N] [--rng-offset N] "
                "[--threads N] [--train-steps N] [--non-strict] "
                "[--device cpu|cuda|cuda:N]");

  auto artifact = nn::Artifact::load(positional[0], device);
  if (!artifact.ok())
    return fail(artifact.status());
  // Without a weights file, what the model embeds is all it has.
  absl::StatusOr<nn::SafetensorsContents> weights = nn::SafetensorsContents();
  if (positional.size() == 3)
    weights = nn::load_safetensors(positional[1]);
  if (!weights.ok())
    return fail(weights.status());
  // As PyTorch's strict load_state_dict, what is missing and what the model
  // does not take are both errors, reported together.
  if (auto bound = (*artifact)->bind(weights->tensors, strict); !bound.ok()) {
    bool unexpected =
        strict && !(*artifact)->unexpected_state(weights->tensors).empty();
    return fail(std::string(bound.message()) +
                (unexpected ? " (--non-strict ignores what the model does "
                              "not take)"
                            : ""));
  }
  if (auto read =
          rngFromMetadata(weights->metadata, rng, seedGiven, offsetGiven);
      !read.ok())
    return fail(read);
  const nn::ArtifactDescription &d = (*artifact)->description();
  auto inputs = nn::load_safetensors(positional.back());
  if (!inputs.ok())
    return fail(inputs.status());
  if (trainSteps) {
    // The step writes the parameters and the optimizer state it updates:
    // prepare runs again before the next step reads them.
    for (int64_t k = 0; k < *trainSteps; ++k) {
      auto step = stepInputs(d, inputs->tensors, k);
      if (!step.ok())
        return fail(step.status());
      if (k > 0)
        if (auto prepared = (*artifact)->prepare(); !prepared.ok())
          return fail(prepared);
      auto outputs = (*artifact)->run(*step, rng);
      if (!outputs.ok())
        return fail(outputs.status());
      rng.offset += d.rng_draws;
      const nn::Tensor &loss = outputs->at(d.outputs[0].name);
      std::cout << "step " << k + 1 << " loss " << loss.item_as_double(0)
                << "\n";
    }
    if (!statePath.empty())
      if (auto saved =
              nn::save_safetensors(statePath, (*artifact)->bound_state(),
                                   withRng(weights->metadata, d, rng));
          !saved.ok())
        return fail(saved);
    return 0;
  }
  auto outputs = (*artifact)->run(inputs->tensors, rng);
  if (!outputs.ok())
    return fail(outputs.status());
  for (const auto &[name, tensor] : *outputs)
    summarize(name, tensor);
  if (!outputPath.empty())
    if (auto saved = nn::save_safetensors(outputPath, *outputs); !saved.ok())
      return fail(saved);
  if (!statePath.empty()) {
    nn::RngState next{rng.seed, rng.offset + d.rng_draws};
    if (auto saved = nn::save_safetensors(statePath, weights->tensors,
                                          withRng(weights->metadata, d, next));
        !saved.ok())
      return fail(saved);
  }
  return 0;
}
