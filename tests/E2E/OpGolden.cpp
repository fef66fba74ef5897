//===- OpGolden.cpp - Per-op tests against PyTorch goldens ----------------===//

#include "OpGolden.h"

#include <cstring>

#include <cmath>

namespace nn::testing {

std::string caseName(const ::testing::TestParamInfo<OpCase> &info) {
  return info.param.name;
}

std::string traceError(const std::vector<TensorSpec> &specs,
                       const std::function<Outputs(const Inputs &)> &fn) {
  Module root("Root");
  try {
    trace(root, specs, fn);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

void expectSameBits(const Tensor &actual, const Tensor &expected,
                    const std::string &what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  EXPECT_EQ(
      std::memcmp(actual.raw_data(), expected.raw_data(), actual.nbytes()), 0)
      << what << " differs";
}

void expectClose(const Tensor &actual, const Tensor &expected,
                 const Tolerance &tolerance, const std::string &what) {
  ASSERT_EQ(shape_str(actual.shape()), shape_str(expected.shape())) << what;
  ASSERT_EQ(dtype_name(actual.dtype()), dtype_name(expected.dtype())) << what;
  int64_t mismatches = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.item_as_double(i), e = expected.item_as_double(i);
    bool equal = a == e || (std::isnan(a) && std::isnan(e));
    double diff = std::abs(a - e);
    if (!equal && !(diff <= tolerance.atol + tolerance.rtol * std::abs(e))) {
      if (first < 0)
        first = i;
      ++mismatches;
    }
    if (!std::isnan(diff))
      worst = std::max(worst, diff);
  }
  EXPECT_EQ(mismatches, 0) << what << ": " << mismatches << " of "
                           << actual.numel()
                           << " elements differ; first at flat index " << first
                           << " (nn "
                           << (first >= 0 ? actual.item_as_double(first) : 0)
                           << ", PyTorch "
                           << (first >= 0 ? expected.item_as_double(first) : 0)
                           << "); largest difference " << worst;
}

Golden loadGolden(const OpCase &c) {
  std::string path = std::string(NN_SOURCE_DIR) +
                     "/tests/reference/goldens/ops/" + c.family + "/" + c.name +
                     ".safetensors";
  auto file = load_safetensors(path);
  if (!file.ok())
    throw Error(path + ": " + std::string(file.status().message()));
  Golden golden;
  for (int i = 0;; ++i) {
    const Tensor *t = file->tensors.find("input." + std::to_string(i));
    if (!t)
      break;
    golden.inputs.push_back(*t);
  }
  for (int i = 0;; ++i) {
    const Tensor *t = file->tensors.find("output." + std::to_string(i));
    if (!t)
      break;
    golden.outputs.push_back(*t);
  }
  return golden;
}

void expectMatchesGolden(const OpCase &c, const CompileOptions &options) {
  Golden golden = loadGolden(c);
  Inputs &inputs = golden.inputs;
  std::vector<Tensor> &expected = golden.outputs;
  ASSERT_FALSE(expected.empty())
      << c.family << "/" << c.name << " has no output.0";

  std::vector<TensorSpec> specs;
  for (const Tensor &t : inputs)
    specs.emplace_back(t.shape(), t.dtype());
  Module root(c.name);
  TracedModule traced = trace(root, specs, c.fn);
  auto artifact = compile(traced, options);
  auto outputs = artifact->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    expectClose((*outputs)[i], expected[i], c.tolerance,
                c.name + " output." + std::to_string(i));
}

} // namespace nn::testing
