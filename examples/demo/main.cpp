//===- main.cpp - nn demo: trace, optimize, compile, run ------------------===//
//
// The demo of the README's first command. SimpleMLP (784-256-256-10, ReLU,
// Dropout) in eval mode with PyTorch-made weights is traced to the nn
// dialect, optimized (the relu fuses into the linear), compiled ahead of time
// to a shared object (beside simple_mlp.mlir, the traced IR), loaded back
// through the runtime alone, run on PyTorch's input, and compared with
// PyTorch's output.
//
//   nn-demo [golden-dir] [output-dir]
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>

namespace {

template <typename T> T orExit(absl::StatusOr<T> value) {
  if (!value.ok()) {
    std::cerr << "nn-demo: " << value.status().message() << "\n";
    std::exit(1);
  }
  return *std::move(value);
}

} // namespace

int main(int argc, char **argv) {
  std::string goldens = argc > 1 ? argv[1] : NN_DEMO_GOLDENS;
  std::string outDir = argc > 2 ? argv[2] : ".";
  try {
    nn::models::SimpleMLP model;
    model->eval();
    auto weights =
        orExit(nn::load_safetensors(goldens + "/weights.safetensors"));
    model->load_state_dict(weights.tensors);
    std::cout << *model << "\n\n";

    auto traced = nn::trace(model, {nn::TensorSpec({64, 784})});
    std::cout << "// ---- nn IR as traced ----\n" << traced.to_string() << "\n";
    // The traced IR on its own, for nn-opt and nn-compile.
    std::ofstream(outDir + "/simple_mlp.mlir") << traced.to_string();
    traced.optimize();
    std::cout << "// ---- nn IR after nn-optimize ----\n"
              << traced.to_string() << "\n";

    std::string so = outDir + "/simple_mlp.so";
    nn::compile_to_file(traced, so, {.optimize = false});
    std::cout << "compiled " << so << "\n";

    // From here on only the runtime is used, as in a deployed program.
    auto artifact = orExit(nn::Artifact::load(so));
    auto status = artifact->bind(weights.tensors);
    if (!status.ok()) {
      std::cerr << "nn-demo: " << status.message() << "\n";
      return 1;
    }
    auto inputs = orExit(nn::load_safetensors(goldens + "/inputs.safetensors"));
    auto expected =
        orExit(nn::load_safetensors(goldens + "/outputs.safetensors"));
    auto outputs = orExit(artifact->run(inputs.tensors));

    const nn::Tensor &got = outputs.at("output.0");
    const nn::Tensor &want = expected.tensors.at("output.0");
    double maxDiff = 0;
    bool close = got.shape() == want.shape();
    for (int64_t i = 0; close && i < got.numel(); ++i) {
      double a = got.item_as_double(i), b = want.item_as_double(i);
      maxDiff = std::max(maxDiff, std::abs(a - b));
      close = std::abs(a - b) <= 1e-5 + 1e-5 * std::abs(b);
    }
    std::cout << "output.0 " << got.to_string()
              << ": max |nn - PyTorch| = " << maxDiff
              << (close ? " (within rtol 1e-5, atol 1e-5)" : " (MISMATCH)")
              << "\n";

    std::vector<double> times;
    for (int i = 0; i < 200; ++i) {
      auto start = std::chrono::steady_clock::now();
      auto result = artifact->run(inputs.tensors);
      auto end = std::chrono::steady_clock::now();
      if (!result.ok())
        return 1;
      if (i >= 20) // warm-up
        times.push_back(
            std::chrono::duration<double, std::micro>(end - start).count());
    }
    std::sort(times.begin(), times.end());
    std::cout << "forward (batch 64): min " << times.front() << " us, median "
              << times[times.size() / 2] << " us over " << times.size()
              << " runs\n";
    return close ? 0 : 1;
  } catch (const nn::Error &e) {
    std::cerr << "nn-demo: " << e.what() << "\n";
    return 1;
  }
}
