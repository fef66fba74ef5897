//===- InteropTest.cpp - safetensors files written by PyTorch -------------===//
//
// Reads the goldens that tests/reference/generate_goldens.py wrote with
// PyTorch (through tests/reference/safetensors_io.py, which writes what
// safetensors.torch.save_file writes) and checks their contents; then writes
// the same tensors with nn and checks the bytes are identical. The other
// direction (PyTorch reading a file nn wrote) is the ctest
// RuntimeInterop.PythonReadsNNSample.
//
//===----------------------------------------------------------------------===//

#include "InteropSample.h"
#include "SafetensorsTestUtil.h"
#include "TensorTestUtil.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

namespace nn {
namespace {

using test::valuesOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::readFile;

const std::string kGoldens = NN_SOURCE_DIR "/tests/reference/goldens";
const std::string kSample = kGoldens + "/interop/sample.safetensors";

SafetensorsContents loadOrDie(const std::string &path) {
  auto loaded = load_safetensors(path);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? std::move(*loaded) : SafetensorsContents();
}

TEST(RuntimeInteropTest, SampleFromPyTorchListsTensorsInLayoutOrder) {
  SafetensorsContents sample = loadOrDie(kSample);
  EXPECT_THAT(sample.tensors.keys(),
              ElementsAreArray(testing::interopSampleFileOrder()));
  EXPECT_EQ(sample.metadata, (Metadata{{"format", "pt"}}));
}

TEST(RuntimeInteropTest, SampleFromPyTorchHasExpectedDtypesAndShapes) {
  SafetensorsContents sample = loadOrDie(kSample);
  const StateDict &t = sample.tensors;
  ASSERT_EQ(t.size(), 13u);
  EXPECT_EQ(t.at("a_bool").dtype(), DType::boolean);
  EXPECT_EQ(t.at("b_u8").dtype(), DType::u8);
  EXPECT_EQ(t.at("c_i32").dtype(), DType::i32);
  EXPECT_EQ(t.at("c_i32").shape(), (Shape{3, 2}));
  EXPECT_EQ(t.at("d_bf16").dtype(), DType::bf16);
  EXPECT_EQ(t.at("e_f16").dtype(), DType::f16);
  EXPECT_EQ(t.at("e_f16").shape(), (Shape{2, 3}));
  EXPECT_EQ(t.at("empty").shape(), (Shape{0, 3}));
  EXPECT_EQ(t.at("f_f64").dtype(), DType::f64);
  EXPECT_EQ(t.at("g_i64").dtype(), DType::i64);
  EXPECT_EQ(t.at("i_i8").dtype(), DType::i8);
  EXPECT_EQ(t.at("scalar").shape(), Shape{});
  EXPECT_EQ(t.at("\xC3\xBCnicode").shape(), (Shape{1}));
}

TEST(RuntimeInteropTest, SampleFromPyTorchHasExpectedValues) {
  SafetensorsContents sample = loadOrDie(kSample);
  const StateDict &t = sample.tensors;
  EXPECT_THAT(valuesOf(t.at("a_bool")), ElementsAre(1, 0, 1));
  EXPECT_THAT(valuesOf(t.at("b_u8")), ElementsAre(0, 1, 127, 128, 255));
  EXPECT_THAT(valuesOf(t.at("c_i32")), ElementsAre(-3, -2, -1, 0, 1, 2));
  EXPECT_THAT(valuesOf(t.at("d_bf16")),
              ElementsAre(1.0, -3.0, 0.15625, 3.3895313892515355e38));
  EXPECT_THAT(valuesOf(t.at("e_f16")),
              ElementsAre(1.0, -2.0, 0.5, 65504.0, std::ldexp(1.0, -24), 0.0));
  EXPECT_TRUE(std::signbit(t.at("e_f16").item_as_double(5)));
  EXPECT_THAT(valuesOf(t.at("f_f64")), ElementsAre(0.1, -2.5, 1e300));
  const int64_t *i64 = t.at("g_i64").data_ptr<int64_t>();
  EXPECT_THAT(std::vector<int64_t>(i64, i64 + 5),
              ElementsAre(-(int64_t(1) << 40), -1, 0, 1, int64_t(1) << 62));
  EXPECT_THAT(valuesOf(t.at("h_f32")),
              ElementsAre(-1.0, -0.5, 0.0, 0.5, 1.0, 1.5));
  EXPECT_THAT(valuesOf(t.at("i_i8")), ElementsAre(-128, -1, 0, 127));
  EXPECT_THAT(valuesOf(t.at("layers.0.weight")), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(valuesOf(t.at("scalar")), ElementsAre(42.0));
  EXPECT_THAT(valuesOf(t.at("\xC3\xBCnicode")), ElementsAre(7.0));
}

TEST(RuntimeInteropTest, SampleFromPyTorchMatchesTheCxxTensorsBytewise) {
  SafetensorsContents sample = loadOrDie(kSample);
  StateDict expected = testing::interopSampleTensors();
  ASSERT_EQ(sample.tensors.size(), expected.size());
  for (const auto &[name, tensor] : expected) {
    const Tensor &got = sample.tensors.at(name);
    ASSERT_EQ(got.nbytes(), tensor.nbytes()) << name;
    EXPECT_EQ(std::memcmp(got.raw_data(), tensor.raw_data(), tensor.nbytes()),
              0)
        << name;
  }
}

TEST(RuntimeInteropTest, SerializeReproducesThePyTorchSampleByteForByte) {
  std::string written = serialize_safetensors(testing::interopSampleTensors(),
                                              testing::interopSampleMetadata());
  std::string golden = readFile(kSample);
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(written.size(), golden.size());
  EXPECT_TRUE(written == golden)
      << "nn's bytes differ from safetensors.torch's; first difference at "
      << std::mismatch(written.begin(), written.end(), golden.begin(),
                       golden.end())
                 .first -
             written.begin();
}

TEST(RuntimeInteropTest, SimpleMlpWeightsHaveThePyTorchStateDictNames) {
  SafetensorsContents weights =
      loadOrDie(kGoldens + "/simple_mlp/weights.safetensors");
  EXPECT_THAT(weights.tensors.keys(),
              ElementsAre("fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight",
                          "fc3.bias", "fc3.weight"));
  EXPECT_EQ(weights.tensors.at("fc1.weight").shape(), (Shape{256, 784}));
  EXPECT_EQ(weights.tensors.at("fc1.bias").shape(), (Shape{256}));
  EXPECT_EQ(weights.tensors.at("fc2.weight").shape(), (Shape{256, 256}));
  EXPECT_EQ(weights.tensors.at("fc3.weight").shape(), (Shape{10, 256}));
  EXPECT_EQ(weights.tensors.at("fc3.bias").shape(), (Shape{10}));
  for (const auto &[name, tensor] : weights.tensors)
    EXPECT_EQ(tensor.dtype(), DType::f32) << name;
}

TEST(RuntimeInteropTest, SimpleMlpInputsAndOutputsHaveExpectedShapes) {
  SafetensorsContents inputs =
      loadOrDie(kGoldens + "/simple_mlp/inputs.safetensors");
  SafetensorsContents outputs =
      loadOrDie(kGoldens + "/simple_mlp/outputs.safetensors");
  EXPECT_THAT(inputs.tensors.keys(), ElementsAre("input.0"));
  EXPECT_EQ(inputs.tensors.at("input.0").shape(), (Shape{64, 784}));
  EXPECT_THAT(outputs.tensors.keys(), ElementsAre("output.0"));
  EXPECT_EQ(outputs.tensors.at("output.0").shape(), (Shape{64, 10}));
  EXPECT_EQ(outputs.tensors.at("output.0").dtype(), DType::f32);
}

TEST(RuntimeInteropTest, SimpleMlpGoldensReserializeByteForByte) {
  for (const char *file : {"weights", "inputs", "outputs"}) {
    std::string path = kGoldens + "/simple_mlp/" + file + ".safetensors";
    SafetensorsContents contents = loadOrDie(path);
    EXPECT_TRUE(serialize_safetensors(contents.tensors, contents.metadata) ==
                readFile(path))
        << path;
  }
}

} // namespace
} // namespace nn
