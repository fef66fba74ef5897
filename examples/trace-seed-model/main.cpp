//===- main.cpp - Print a seed model's traced nn IR -----------------------===//
//
// nn-trace-seed-model <Model> [--train] prints the nn IR of the seed model
// <Model> (examples/models/SeedModels.h), built with seed 0 and traced on its
// example inputs in eval mode (training mode with --train). The lit inputs
// under tests/Transforms/Inputs/ are made with it:
//
//   build/bin/nn-trace-seed-model ResNet > tests/Transforms/Inputs/resnet-eval.mlir
//
//===----------------------------------------------------------------------===//

#include "models/SeedModels.h"

#include <cstring>
#include <iostream>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::strcmp(argv[2], "--train"))) {
    std::cerr << "usage: nn-trace-seed-model <Model> [--train]\n";
    return 2;
  }
  for (const nn::models::ModelCase &c : nn::models::seed_models()) {
    if (c.name != argv[1])
      continue;
    std::shared_ptr<nn::Module> model = c.make(0);
    if (argc == 3)
      model->train();
    else
      model->eval();
    std::cout << c.trace(model).to_string();
    return 0;
  }
  std::cerr << "nn-trace-seed-model: no seed model named '" << argv[1]
            << "'\n";
  return 1;
}
