//===- E2ETestUtil.h - Inputs shared by the end-to-end tests ----*- C++ -*-===//
//
// Seeded random tensors, the SimpleMLP goldens PyTorch wrote
// (tests/reference/goldens/simple_mlp), and the process's threads by name.
//
//===----------------------------------------------------------------------===//

#ifndef NN_TESTS_E2E_E2ETESTUTIL_H
#define NN_TESTS_E2E_E2ETESTUTIL_H

#include "nn/nn.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace nn::testing {

/// An f32 tensor of `shape` drawn from N(0, 1) with `seed`.
inline Tensor randomTensor(std::vector<int64_t> shape, uint32_t seed) {
  Tensor t = Tensor::zeros(shape, DType::f32);
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist;
  float *p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = dist(rng);
  return t;
}

/// One of the SimpleMLP golden files ("weights.safetensors", ...); throws
/// nn::Error when it cannot be read.
inline SafetensorsContents loadSimpleMLPGolden(const std::string &name) {
  auto contents = load_safetensors(
      NN_SOURCE_DIR "/tests/reference/goldens/simple_mlp/" + name);
  if (!contents.ok())
    throw Error(std::string(contents.status().message()));
  return *std::move(contents);
}

/// The ids of this process's threads named `name` (the kernels' pool
/// workers are "nn-worker").
inline std::vector<pid_t> threadsNamed(const std::string &name) {
  std::vector<pid_t> ids;
  for (const auto &task :
       std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (std::getline(comm, line) && line == name)
      ids.push_back(std::stoi(task.path().filename().string()));
  }
  return ids;
}

} // namespace nn::testing

#endif // NN_TESTS_E2E_E2ETESTUTIL_H
