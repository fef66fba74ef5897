//===- ModelGoldenTest.cpp - The seed models against PyTorch --------------===//
//
// Each seed model of examples/models/SeedModels.h against what PyTorch 1.13
// says about its twin (tests/reference/generate_module_goldens.py wrote
// goldens/modules/<Model>.json and the state_dict): state_dict keys, shapes
// and dtypes, named_parameters (with requires_grad), named_buffers,
// named_modules and the printed repr must be identical, PyTorch's weights
// must load strictly and read back bit for bit, and the model must trace.
// The other direction (PyTorch loading what nn saved) is the ctest
// ModuleInterop.PyTorchLoadsNNModels.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "models/SeedModels.h"

#include "Json.h" // the runtime's private JSON reader

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace nn;
using ::testing::HasSubstr;

namespace {

using nn::testing::names;

const std::string kGoldens = NN_SOURCE_DIR "/tests/reference/goldens";

json::Value readGolden(const std::string &model) {
  std::ifstream file(kGoldens + "/modules/" + model + ".json");
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<json::Value> golden = json::parse(text.str());
  if (!golden.ok())
    throw Error(model + ".json: " + std::string(golden.status().message()));
  return *std::move(golden);
}

std::vector<std::string> strings(const json::Value &array) {
  std::vector<std::string> out;
  for (const json::Value &item : array.getArray())
    out.push_back(item.getString());
  return out;
}

class ModelGoldenTest : public ::testing::TestWithParam<models::ModelCase> {
protected:
  void SetUp() override {
    model = GetParam().make(0);
    golden = readGolden(GetParam().name);
  }
  const json::Value &field(const char *key) {
    const json::Value *value = golden.find(key);
    if (!value)
      throw Error(GetParam().name + ".json has no \"" + key + "\"");
    return *value;
  }
  std::shared_ptr<Module> model;
  json::Value golden;
};

TEST_P(ModelGoldenTest, StateDictHasPyTorchsKeysShapesAndDtypes) {
  std::vector<std::string> expected;
  for (const json::Value &entry : field("state_dict").getArray()) {
    std::string shape;
    for (const json::Value &d : entry.find("shape")->getArray())
      shape += (shape.empty() ? "" : "x") + std::to_string(*d.getInteger());
    expected.push_back(entry.find("name")->getString() + " " +
                       (shape.empty() ? "scalar" : shape) + " " +
                       entry.find("dtype")->getString());
  }
  std::vector<std::string> actual;
  for (const auto &[name, t] : model->state_dict())
    actual.push_back(name + " " + shape_str(t.shape()) + " " +
                     std::string(dtype_safetensors_name(t.dtype())));
  EXPECT_EQ(actual, expected);
}

TEST_P(ModelGoldenTest, NamedParametersArePyTorchs) {
  std::vector<std::string> expected, actual;
  for (const json::Value &entry : field("named_parameters").getArray())
    expected.push_back(
        entry.find("name")->getString() +
        (entry.find("requires_grad")->getBool() ? "" : " frozen"));
  for (const auto &[name, p] : model->named_parameters())
    actual.push_back(name + (p.requires_grad() ? "" : " frozen"));
  EXPECT_EQ(actual, expected);
}

TEST_P(ModelGoldenTest, NamedBuffersArePyTorchs) {
  EXPECT_EQ(names(model->named_buffers()), strings(field("named_buffers")));
}

TEST_P(ModelGoldenTest, NamedModulesArePyTorchs) {
  EXPECT_EQ(names(model->named_modules()), strings(field("named_modules")));
}

TEST_P(ModelGoldenTest, ReprIsPyTorchs) {
  std::ostringstream os;
  os << *model;
  EXPECT_EQ(os.str(), field("repr").getString());
}

TEST_P(ModelGoldenTest, PyTorchWeightsLoadStrictlyBitForBit) {
  std::string path = kGoldens + "/" + field("weights").getString();
  auto loaded = load(*model, path, /*strict=*/true);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto file = load_safetensors(path);
  ASSERT_TRUE(file.ok()) << file.status();
  for (const auto &[name, t] : model->state_dict()) {
    const Tensor &expected = file->tensors.at(name);
    ASSERT_EQ(t.nbytes(), expected.nbytes()) << name;
    EXPECT_EQ(std::memcmp(t.raw_data(), expected.raw_data(), t.nbytes()), 0)
        << name;
  }
}

/// The MLIR type of a tensor of `shape` and `dtype`: "tensor<2x16xf32>".
std::string tensorType(const Shape &shape, DType dtype) {
  static const std::map<DType, std::string> kElement = {
      {DType::f32, "f32"},   {DType::f64, "f64"}, {DType::f16, "f16"},
      {DType::bf16, "bf16"}, {DType::i64, "i64"}, {DType::i32, "i32"},
      {DType::i8, "i8"},     {DType::u8, "ui8"},  {DType::boolean, "i1"}};
  std::string type = "tensor<";
  for (int64_t d : shape)
    type += std::to_string(d) + "x";
  return type + kElement.at(dtype) + ">";
}

/// How many times `pattern` occurs in `text`.
ptrdiff_t count(const std::string &text, const std::string &pattern) {
  std::regex re(pattern);
  return std::distance(std::sregex_iterator(text.begin(), text.end(), re),
                       std::sregex_iterator());
}

TEST_P(ModelGoldenTest, TracesEveryStateEntryAndTheInputs) {
  model->eval();
  std::string ir = GetParam().trace(model).to_string();
  // Every state_dict entry is declared once, by its name, with its shape
  // and dtype; a tied one names the symbol it is tied to.
  for (const auto &[name, tensor] : model->state_dict()) {
    std::string declared =
        "@\"?" + std::regex_replace(name, std::regex("\\."), "\\.") +
        "\"? : " + tensorType(tensor.shape(), tensor.dtype());
    EXPECT_EQ(count(ir, "nn\\.(parameter|buffer) " + declared), 1)
        << name << " as " << tensorType(tensor.shape(), tensor.dtype())
        << " in\n"
        << ir;
  }
  // Non-persistent buffers are traced too, so at least as many symbols.
  EXPECT_GE(count(ir, "nn\\.(parameter|buffer) @"),
            static_cast<ptrdiff_t>(model->state_dict().size()));
  // One forward, taking the example inputs in order.
  std::string signature = "func\\.func @forward\\(";
  for (size_t i = 0; i < GetParam().inputs.size(); ++i) {
    const TensorSpec &spec = GetParam().inputs[i];
    signature += std::string(i ? ", " : "") + "%arg" + std::to_string(i) +
                 ": " + tensorType(spec.shape, spec.dtype) + "( \\{[^}]*\\})?";
  }
  EXPECT_EQ(count(ir, signature + "\\)"), 1) << signature << " in\n" << ir;
}

INSTANTIATE_TEST_SUITE_P(SeedModels, ModelGoldenTest,
                         ::testing::ValuesIn(models::seed_models()),
                         [](const auto &info) { return info.param.name; });

//===----------------------------------------------------------------------===//
// What particular models are there to show
//===----------------------------------------------------------------------===//

class SeedModelTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(SeedModelTest, TiedModelStaysTiedAfterLoadingPyTorchWeights) {
  models::TiedModel model;
  ASSERT_TRUE(load(model, kGoldens + "/modules/TiedModel.safetensors").ok());
  EXPECT_TRUE(model->decoder->weight.shares_storage(model->encoder->weight));
}

TEST_F(SeedModelTest, DynamicNetUnrollsItsLoopOverTwoSharedLayers) {
  models::DynamicNet model(5);
  std::string ir = trace(model, {TensorSpec({2, 8})}).to_string();
  std::regex linear("nn\\.linear");
  EXPECT_EQ(std::distance(std::sregex_iterator(ir.begin(), ir.end(), linear),
                          std::sregex_iterator()),
            7); // input, 5 middle, output
  std::regex parameter("nn\\.parameter @");
  EXPECT_EQ(std::distance(std::sregex_iterator(ir.begin(), ir.end(), parameter),
                          std::sregex_iterator()),
            8); // 4 layers, weight and bias each
}

TEST_F(SeedModelTest, PositionalEncodingKeepsItsIntegerBufferThroughTo) {
  models::PositionalEncoding model;
  model->to(DType::f16);
  EXPECT_EQ(model->pe.dtype(), DType::f16);
  EXPECT_EQ(model->position_ids.dtype(), DType::i64);
  EXPECT_EQ(model->position_ids.data_ptr<int64_t>()[7], 7);
}

TEST_F(SeedModelTest, PositionalEncodingIsCloseToPyTorchsBeforeLoading) {
  models::PositionalEncoding model;
  auto file =
      load_safetensors(kGoldens + "/modules/PositionalEncoding.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  const Tensor &pe = file->tensors.at("pe");
  for (int64_t i = 0; i < pe.numel(); ++i)
    ASSERT_NEAR(model->pe.item_as_double(i), pe.item_as_double(i), 1e-6) << i;
}

TEST_F(SeedModelTest, MultiHeadModelReturnsOneOutputPerHead) {
  models::MultiHeadModel model;
  std::string ir = trace(model, {TensorSpec({2, 16})}).to_string();
  EXPECT_THAT(ir, HasSubstr("-> (tensor<2x10xf32>, tensor<2x1xf32>)"));
}

} // namespace
