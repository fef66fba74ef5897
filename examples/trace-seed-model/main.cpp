//===- main.cpp - Print a seed model's traced nn IR -----------------------===//
//
// nn-trace-seed-model <Model> [options] prints the nn IR of the seed model
// <Model> (examples/models/SeedModels.h), built with seed 0 and traced on its
// example inputs in eval mode. The lit inputs under tests/Transforms/Inputs/
// are made with it:
//
//   build/bin/nn-trace-seed-model ResNet >
//   tests/Transforms/Inputs/resnet-eval.mlir
//
// Options:
//   --train                     trace in training mode
//   --debug-info                print locations (each op's module path)
//   --restrict-input LIMIT      a forward pre-hook on the root clamps input.0
//                               to [-LIMIT, LIMIT]
//   --scale-output PATH=FACTOR  a forward hook on submodule PATH replaces
//                               its output by output * FACTOR
//   --capture NAME=PATH         a capture hook makes PATH's output the extra
//                               output NAME (features["NAME"] = output)
//   --remove-hooks              register the hooks, then remove every handle
//                               before tracing (the trace must be the plain
//                               one)
//   --input-shape 2x5x31        trace input.0 with this shape instead
//   --input-dtype F64           ... and this dtype (safetensors spelling)
//
// The hooks mirror the PyTorch twins' in
// tests/reference/generate_zoo_goldens.py, whose goldens
// tests/E2E/aot_seed_model.py compares with. A trace error (nn::Error) is
// printed and exits 1.
//
//===----------------------------------------------------------------------===//

#include "models/SeedModels.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace {

int usage() {
  std::cerr << "usage: nn-trace-seed-model <Model> [--train] [--debug-info] "
               "[--restrict-input LIMIT] [--scale-output PATH=FACTOR] "
               "[--capture NAME=PATH] [--remove-hooks] [--input-shape DxD...] "
               "[--input-dtype DTYPE]\n";
  return 2;
}

/// "a=b" split at the first '='; false when there is none or a side is empty.
bool splitPair(const std::string &text, std::string &first,
               std::string &second) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return false;
  first = text.substr(0, eq);
  second = text.substr(eq + 1);
  return true;
}

/// A whole-string double; false on trailing junk.
bool parseDouble(const std::string &text, double &value) {
  char *end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

/// "2x5x31" → {2, 5, 31}; false on anything else.
bool parseShape(const std::string &text, nn::Shape &shape) {
  std::stringstream in(text);
  std::string dim;
  shape.clear();
  while (std::getline(in, dim, 'x')) {
    char *end = nullptr;
    long long d = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || end != dim.c_str() + dim.size() || d < 0)
      return false;
    shape.push_back(d);
  }
  return !text.empty() && text.back() != 'x';
}

struct Options {
  std::string model;
  bool train = false;
  bool debugInfo = false;
  std::optional<double> restrictInput;
  std::vector<std::pair<std::string, double>> scaleOutputs;  // path, factor
  std::vector<std::pair<std::string, std::string>> captures; // name, path
  bool removeHooks = false;
  std::optional<nn::Shape> inputShape;
  std::optional<nn::DType> inputDType;
};

/// Parses argv; prints what is wrong and returns false on a bad command line.
bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc) {
        std::cerr << "nn-trace-seed-model: " << arg << " needs a value\n";
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string v, a, b;
    if (arg == "--train") {
      o.train = true;
    } else if (arg == "--debug-info") {
      o.debugInfo = true;
    } else if (arg == "--remove-hooks") {
      o.removeHooks = true;
    } else if (arg == "--restrict-input") {
      double limit;
      if (!value(v))
        return false;
      if (!parseDouble(v, limit) || !(limit > 0)) {
        std::cerr << "nn-trace-seed-model: --restrict-input wants a positive "
                     "number, got '"
                  << v << "'\n";
        return false;
      }
      o.restrictInput = limit;
    } else if (arg == "--scale-output") {
      double factor;
      if (!value(v))
        return false;
      if (!splitPair(v, a, b) || !parseDouble(b, factor)) {
        std::cerr << "nn-trace-seed-model: --scale-output wants PATH=FACTOR, "
                     "got '"
                  << v << "'\n";
        return false;
      }
      o.scaleOutputs.emplace_back(a, factor);
    } else if (arg == "--capture") {
      if (!value(v))
        return false;
      if (!splitPair(v, a, b)) {
        std::cerr << "nn-trace-seed-model: --capture wants NAME=PATH, got '"
                  << v << "'\n";
        return false;
      }
      o.captures.emplace_back(a, b);
    } else if (arg == "--input-shape") {
      nn::Shape shape;
      if (!value(v))
        return false;
      if (!parseShape(v, shape)) {
        std::cerr << "nn-trace-seed-model: --input-shape wants sizes joined "
                     "by 'x' (2x5x31), got '"
                  << v << "'\n";
        return false;
      }
      o.inputShape = shape;
    } else if (arg == "--input-dtype") {
      if (!value(v))
        return false;
      o.inputDType = nn::dtype_from_safetensors_name(v);
      if (!o.inputDType) {
        std::cerr << "nn-trace-seed-model: unknown dtype '" << v
                  << "' (F32, F64, I64, ...)\n";
        return false;
      }
    } else if (!arg.empty() && arg[0] != '-' && o.model.empty()) {
      o.model = arg;
    } else {
      std::cerr << "nn-trace-seed-model: unexpected argument '" << arg << "'\n";
      return false;
    }
  }
  return !o.model.empty();
}

/// Registers the hooks `o` asks for; returns their handles.
std::vector<nn::RemovableHandle> registerHooks(nn::Module &root,
                                               const Options &o) {
  std::vector<nn::RemovableHandle> handles;
  if (o.restrictInput) {
    double limit = *o.restrictInput;
    handles.push_back(root.register_forward_pre_hook(
        [limit](nn::Module &, const nn::TensorList &in) {
          nn::TensorList out = in;
          out[0] = nn::F::clamp(in[0], -limit, limit);
          return out;
        }));
  }
  for (const auto &[path, factor] : o.scaleOutputs)
    handles.push_back(root.get_submodule(path)->register_forward_hook(
        [factor = factor](nn::Module &, const nn::TensorList &,
                          const nn::Tensor &out) { return out * factor; }));
  for (const auto &[name, path] : o.captures)
    handles.push_back(root.get_submodule(path)->register_capture_hook(name));
  return handles;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, o))
    return usage();
  for (const nn::models::ModelCase &c : nn::models::seed_models()) {
    if (c.name != o.model)
      continue;
    std::vector<nn::TensorSpec> specs = c.inputs;
    if (o.inputShape)
      specs[0].shape = *o.inputShape;
    if (o.inputDType)
      specs[0].dtype = *o.inputDType;
    try {
      std::shared_ptr<nn::Module> model = c.make(0);
      model->train(o.train);
      std::vector<nn::RemovableHandle> handles = registerHooks(*model, o);
      if (o.removeHooks)
        for (nn::RemovableHandle &handle : handles)
          handle.remove();
      // A text file ends with a newline (nn-opt prints one too).
      std::cout << c.trace_on(model, specs).to_string(o.debugInfo) << "\n";
    } catch (const nn::Error &e) {
      std::cerr << "nn-trace-seed-model: " << c.name << ": " << e.what()
                << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "nn-trace-seed-model: no seed model named '" << o.model << "'\n";
  return 1;
}
