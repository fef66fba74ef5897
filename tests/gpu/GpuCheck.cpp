//===- GpuCheck.cpp - The op-set goldens on a GPU, from prebuilt kernels --===//
//
//   nn-gpu-check <cases-dir> <goldens-dir> [--only <family>/<name>]
//                [--device cuda:N]
//
// Runs on a machine with a GPU and without LLVM or MLIR: it links the
// runtime alone. <cases-dir> holds what CudaKernelGpuCheckExport wrote
// where a compiler is (scripts/gpu-check.sh prepare): cases.txt, one line
// "<family> <name> <rtol> <atol>" per op-set case, and
// <family>/<name>.cuda, the case's GPU half (nn/Runtime/CudaImage.h). Each
// case runs through nn::Artifact on the GPU, on the golden's inputs
// (<goldens-dir>/ops/<family>/<name>.safetensors), and its outputs must
// match PyTorch's within the case's tolerances, as the CPU suite's do.
// Prints one line per case and a summary; exits 1 when any case fails.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/Safetensors.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

struct Case {
  std::string family, name;
  double rtol = 1.3e-6, atol = 1e-5;
  std::string id() const { return family + "/" + name; }
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw nn::Error("cannot read " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// The artifact description of a case whose inputs and outputs are the
/// golden's input.N and output.N, with no state.
std::string describe(const nn::StateDict &golden) {
  auto entries = [&](const char *prefix) {
    std::vector<std::string> list;
    for (int i = 0;; ++i) {
      std::string name = prefix + std::to_string(i);
      const nn::Tensor *t = golden.find(name);
      if (!t)
        return list;
      list.push_back(absl::StrCat(
          R"({"name":")", name, R"(","shape":[)",
          absl::StrJoin(t->shape(), ","), R"(],"dtype":")",
          std::string(nn::dtype_safetensors_name(t->dtype())), "\"}"));
    }
  };
  return absl::StrCat(R"({"abi_version":2,"state":[],"inputs":[)",
                      absl::StrJoin(entries("input."), ","), R"(],"outputs":[)",
                      absl::StrJoin(entries("output."), ","), "]}");
}

// The CPU entry points of a table that only describes: forward runs on the
// GPU.
void *createContext() {
  static char context;
  return &context;
}
void destroyContext(void *) {}
int32_t noCpuForward(void *, void *const *) { return 1; }
int32_t nothingToPrepare(void *, void *const *) { return 0; }

/// "" when `actual` matches `expected` as the op tests compare (NaN equals
/// NaN), else what differs.
std::string compare(const nn::Tensor &actual, const nn::Tensor &expected,
                    const Case &c) {
  if (actual.shape() != expected.shape() || actual.dtype() != expected.dtype())
    return "got " + actual.to_string() + ", expected " + expected.to_string();
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.item_as_double(i), e = expected.item_as_double(i);
    bool equal = a == e || (std::isnan(a) && std::isnan(e));
    if (!equal && !(std::abs(a - e) <= c.atol + c.rtol * std::abs(e))) {
      first = first < 0 ? i : first;
      ++mismatches;
    }
  }
  if (mismatches == 0)
    return "";
  return absl::StrCat(mismatches, " of ", actual.numel(),
                      " elements differ; first at flat index ", first, " (nn ",
                      actual.item_as_double(first), ", PyTorch ",
                      expected.item_as_double(first), ")");
}

/// Runs one case; "" or why it fails.
std::string run(const Case &c, const std::string &cases,
                const std::string &goldens, nn::Device device) {
  auto golden = nn::load_safetensors(goldens + "/ops/" + c.family + "/" +
                                     c.name + ".safetensors");
  if (!golden.ok())
    return std::string(golden.status().message());
  std::string json = describe(golden->tensors);
  nn_artifact_v2 table = {
      NN_ARTIFACT_ABI_VERSION, json.c_str(), createContext,
      destroyContext,          noCpuForward, nothingToPrepare};
  std::string image = readFile(cases + "/" + c.id() + ".cuda");
  auto artifact =
      nn::Artifact::from_table(&table, nullptr, c.id(), device, image);
  if (!artifact.ok())
    return std::string(artifact.status().message());
  if (absl::Status bound = (*artifact)->bind({}); !bound.ok())
    return std::string(bound.message());
  std::vector<nn::Tensor> inputs;
  for (const nn::TensorInfo &info : (*artifact)->description().inputs)
    inputs.push_back(golden->tensors.at(info.name));
  auto outputs = (*artifact)->run(inputs);
  if (!outputs.ok())
    return std::string(outputs.status().message());
  for (size_t i = 0; i < outputs->size(); ++i) {
    std::string name = "output." + std::to_string(i);
    if (std::string error = compare((*outputs)[i], golden->tensors.at(name), c);
        !error.empty())
      return name + ": " + error;
  }
  return "";
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> positional;
  std::string only;
  nn::Device device = nn::Device::cuda();
  try {
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
        only = argv[++i];
      else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc)
        device = nn::Device(argv[++i]);
      else
        positional.push_back(argv[i]);
    }
    if (positional.size() != 2) {
      std::cerr << "usage: nn-gpu-check <cases-dir> <goldens-dir> "
                   "[--only <family>/<name>] [--device cuda:N]\n";
      return 2;
    }
    std::istringstream manifest(readFile(positional[0] + "/cases.txt"));
    std::vector<Case> cases;
    for (Case c; manifest >> c.family >> c.name >> c.rtol >> c.atol;)
      if (only.empty() || only == c.id())
        cases.push_back(c);
    int failed = 0;
    for (const Case &c : cases) {
      std::string error;
      try {
        error = run(c, positional[0], positional[1], device);
      } catch (const nn::Error &e) {
        error = e.what();
      }
      std::cout << (error.empty() ? "ok   " : "FAIL ") << c.id()
                << (error.empty() ? "" : ": " + error) << "\n";
      failed += !error.empty();
    }
    std::cout << cases.size() - failed << " of " << cases.size()
              << " cases match PyTorch on " << device.str() << "\n";
    return failed == 0 && !cases.empty() ? 0 : 1;
  } catch (const nn::Error &e) {
    std::cerr << "nn-gpu-check: " << e.what() << "\n";
    return 1;
  }
}
