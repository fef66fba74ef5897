//===- compile_app.cpp - A program that traces and compiles with nn -------===//
//
//   compile_app FOLDER
//
// Writes FOLDER/model.so (compiled ahead of time), weights.safetensors,
// input.safetensors and expected.safetensors (the same model run by the JIT)
// for deploy_app to check.
//
//===----------------------------------------------------------------------===//

#include "nn/nn.h"

#include <iostream>

struct NetImpl : nn::Module {
  NetImpl() : Module("Net") {
    fc1 = register_module("fc1", nn::Linear(12, 32));
    fc2 = register_module("fc2", nn::Linear(32, 5));
  }
  nn::Tensor forward(const nn::Tensor &x) { return fc2(nn::F::relu(fc1(x))); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
NN_MODULE(Net);

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: compile_app FOLDER\n";
    return 2;
  }
  std::string folder = argv[1];
  try {
    nn::manual_seed(1);
    Net model;
    model->eval();
    std::vector<float> values(4 * 12);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = float(int(i % 9) - 4) / 4;
    nn::Tensor x = nn::Tensor::from_vector(values, {4, 12});

    auto traced = nn::trace(model, {nn::TensorSpec({4, 12})});
    nn::compile_to_file(traced, folder + "/model.so");
    nn::Tensor expected = nn::compile(traced)->run({x}).value()[0];

    nn::StateDict input, output;
    input.insert("input.0", x);
    output.insert("output.0", expected);
    for (auto [file, tensors] :
         {std::pair{"/weights.safetensors", model->state_dict()},
          std::pair{"/input.safetensors", input},
          std::pair{"/expected.safetensors", output}})
      if (absl::Status saved = nn::save_safetensors(folder + file, tensors);
          !saved.ok()) {
        std::cerr << "compile_app: " << saved.message() << "\n";
        return 1;
      }
  } catch (const nn::Error &error) {
    std::cerr << "compile_app: " << error.what() << "\n";
    return 1;
  }
  std::cout << "compile_app: wrote " << folder << "/model.so\n";
  return 0;
}
