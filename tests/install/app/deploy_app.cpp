//===- deploy_app.cpp - A program that only runs compiled models ----------===//
//
//   deploy_app FOLDER
//
// Loads FOLDER/model.so with the runtime alone, binds weights.safetensors,
// runs input.safetensors and checks the output against expected.safetensors.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Safetensors.h"

#include <cmath>
#include <iostream>

static int fail(const std::string &message) {
  std::cerr << "deploy_app: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return fail("usage: deploy_app FOLDER");
  std::string folder = argv[1];
  auto artifact = nn::Artifact::load(folder + "/model.so");
  if (!artifact.ok())
    return fail(std::string(artifact.status().message()));
  auto weights = nn::load_safetensors(folder + "/weights.safetensors");
  auto input = nn::load_safetensors(folder + "/input.safetensors");
  auto expected = nn::load_safetensors(folder + "/expected.safetensors");
  for (const auto *file : {&weights, &input, &expected})
    if (!file->ok())
      return fail(std::string(file->status().message()));
  if (absl::Status bound = (*artifact)->bind(weights->tensors); !bound.ok())
    return fail(std::string(bound.message()));
  auto outputs = (*artifact)->run(input->tensors);
  if (!outputs.ok())
    return fail(std::string(outputs.status().message()));
  const nn::Tensor &got = *outputs->find("output.0");
  const nn::Tensor &want = *expected->tensors.find("output.0");
  if (got.shape() != want.shape())
    return fail("output.0 has shape " + nn::shape_str(got.shape()) +
                ", expected " + nn::shape_str(want.shape()));
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.item_as_double(i), e = want.item_as_double(i);
    if (std::abs(a - e) > 1e-5 + 1.3e-6 * std::abs(e))
      return fail("output.0[" + std::to_string(i) + "] = " + std::to_string(a) +
                  ", expected " + std::to_string(e));
  }
  std::cout << "deploy_app: output.0 matches (" << got.numel() << " values)\n";
  return 0;
}
