//===- OpsLSTMTest.cpp - LSTM against PyTorch's nn.LSTM -------------------===//
//
// Each case mirrors the one of the same name in tests/reference/ops/lstm.py:
// the golden holds the input (and the initial state h0, c0), then the
// PyTorch layer's state_dict in its order. The test loads that state into
// nn::LSTM by its own state_dict keys (so names, order and shapes must be
// PyTorch's), traces forward, compiles, runs and compares output, h_n and
// c_n.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <sstream>

namespace nn::testing {
namespace {

struct LSTMCase {
  std::string name;
  LSTMOptions options;
  bool withState = false;
};

void PrintTo(const LSTMCase &c, std::ostream *os) { *os << c.name; }

std::string lstmCaseName(const ::testing::TestParamInfo<LSTMCase> &info) {
  return info.param.name;
}

class LSTMGoldenTest : public ::testing::TestWithParam<LSTMCase> {};

/// A recurrent layer's golden: its first `data` inputs are the layer's
/// inputs, the rest the layer's state in its state_dict's order, which is
/// loaded into `layer`. Returns the inputs and their specs, or fails.
void loadGolden(Module &layer, const std::string &name, int data,
                SafetensorsContents &golden, Inputs &inputs,
                std::vector<TensorSpec> &specs) {
  auto read = load_safetensors(std::string(NN_SOURCE_DIR) +
                               "/tests/reference/goldens/ops/lstm/" + name +
                               ".safetensors");
  ASSERT_TRUE(read.ok()) << read.status();
  golden = *std::move(read);
  auto input = [&](int i) {
    const Tensor *t = golden.tensors.find("input." + std::to_string(i));
    return t ? *t : Tensor();
  };
  int next = data;
  StateDict state;
  for (const std::string &key : layer.state_dict().keys()) {
    Tensor t = input(next++);
    ASSERT_TRUE(t.defined()) << "golden lacks the state for " << key;
    state.insert(key, t);
  }
  ASSERT_FALSE(input(next).defined())
      << "golden has more state than nn::" << layer.name();
  layer.load_state_dict(state);
  layer.eval();
  for (int i = 0; i < data; ++i) {
    inputs.push_back(input(i));
    specs.emplace_back(input(i).shape());
  }
}

TEST_P(LSTMGoldenTest, MatchesPyTorch) {
  const LSTMCase &c = GetParam();
  LSTM lstm(c.options);
  SafetensorsContents golden;
  Inputs inputs;
  std::vector<TensorSpec> specs;
  ASSERT_NO_FATAL_FAILURE(
      loadGolden(*lstm, c.name, c.withState ? 3 : 1, golden, inputs, specs));
  TracedModule traced = trace(*lstm, specs, [&](const Inputs &in) {
    auto hx = c.withState
                  ? std::optional<std::tuple<Tensor, Tensor>>({in[1], in[2]})
                  : std::nullopt;
    auto [output, hc] = lstm(in[0], hx);
    return Outputs{output, std::get<0>(hc), std::get<1>(hc)};
  });
  auto outputs = compile(traced)->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const char *names[] = {"output", "h_n", "c_n"};
  for (int i = 0; i < 3; ++i)
    expectClose((*outputs)[i], golden.tensors.at("output." + std::to_string(i)),
                {}, c.name + " " + names[i]);
}

std::vector<LSTMCase> lstmCases() {
  const std::pair<const char *, LSTMOptions> configs[] = {
      {"l1", LSTMOptions(5, 7)},
      {"l1_batch_first", LSTMOptions(5, 7).batch_first(true)},
      {"l2", LSTMOptions(4, 6).num_layers(2)},
      {"l2_batch_first", LSTMOptions(4, 6).num_layers(2).batch_first(true)},
      {"l1_no_bias", LSTMOptions(3, 5).bias(false)},
      {"l2_bidirectional", LSTMOptions(4, 5).num_layers(2).bidirectional(true)},
      {"l1_bidirectional_batch_first",
       LSTMOptions(3, 4).bidirectional(true).batch_first(true)},
      {"l2_dropout_eval", LSTMOptions(4, 6).num_layers(2).dropout(0.5)},
      {"l1_proj", LSTMOptions(5, 7).proj_size(3)},
      {"l2_bidirectional_proj_batch_first", LSTMOptions(4, 6)
                                                .num_layers(2)
                                                .proj_size(2)
                                                .bidirectional(true)
                                                .batch_first(true)},
  };
  std::vector<LSTMCase> cases;
  for (const auto &[name, options] : configs) {
    cases.push_back({std::string("LSTM_") + name, options, false});
    cases.push_back({std::string("LSTM_") + name + "_state", options, true});
  }
  cases.push_back(
      {"LSTM_unbatched_state", LSTMOptions(3, 4).num_layers(2), true});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(LSTM, LSTMGoldenTest, ::testing::ValuesIn(lstmCases()),
                         lstmCaseName);

//===----------------------------------------------------------------------===//
// The layer's API
//===----------------------------------------------------------------------===//

std::string repr(const Module &m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

TEST(LSTMTest, ReprIsPyTorchs) {
  EXPECT_EQ(repr(*LSTM(10, 20)), "LSTM(10, 20)");
  EXPECT_EQ(repr(*LSTM(LSTMOptions(10, 20).num_layers(2).batch_first(true))),
            "LSTM(10, 20, num_layers=2, batch_first=True)");
  EXPECT_EQ(
      repr(*LSTM(
          LSTMOptions(3, 4).bias(false).dropout(0.25).bidirectional(true))),
      "LSTM(3, 4, bias=False, dropout=0.25, bidirectional=True)");
}

TEST(LSTMTest, ParametersHavePyTorchsNamesOrderAndInit) {
  manual_seed(0);
  LSTM lstm(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  std::vector<std::string> names;
  for (const auto &[name, p] : lstm->named_parameters())
    names.push_back(name + " " + shape_str(p.shape()));
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "weight_ih_l0 16x3", "weight_hh_l0 16x4", "bias_ih_l0 16",
                "bias_hh_l0 16", "weight_ih_l0_reverse 16x3",
                "weight_hh_l0_reverse 16x4", "bias_ih_l0_reverse 16",
                "bias_hh_l0_reverse 16", "weight_ih_l1 16x8",
                "weight_hh_l1 16x4", "bias_ih_l1 16", "bias_hh_l1 16",
                "weight_ih_l1_reverse 16x8", "weight_hh_l1_reverse 16x4",
                "bias_ih_l1_reverse 16", "bias_hh_l1_reverse 16"}));
  EXPECT_EQ(lstm->flat_weights().size(), 16u);
  for (const Tensor &p : lstm->flat_weights())
    for (int64_t i = 0; i < p.numel(); ++i) {
      EXPECT_LE(std::abs(p.item_as_double(i)), 0.5); // 1/√4
    }
}

TEST(LSTMTest, ProjectionWeightsHavePyTorchsNamesOrderAndShapes) {
  // As torch.nn.LSTM(5, 7, num_layers=2, proj_size=3, bidirectional=True)
  // lists them.
  LSTM lstm(LSTMOptions(5, 7).num_layers(2).proj_size(3).bidirectional(true));
  std::vector<std::string> names;
  for (const auto &[name, p] : lstm->state_dict())
    names.push_back(name + " " + shape_str(p.shape()));
  EXPECT_EQ(names, (std::vector<std::string>{"weight_ih_l0 28x5",
                                             "weight_hh_l0 28x3",
                                             "bias_ih_l0 28",
                                             "bias_hh_l0 28",
                                             "weight_hr_l0 3x7",
                                             "weight_ih_l0_reverse 28x5",
                                             "weight_hh_l0_reverse 28x3",
                                             "bias_ih_l0_reverse 28",
                                             "bias_hh_l0_reverse 28",
                                             "weight_hr_l0_reverse 3x7",
                                             "weight_ih_l1 28x6",
                                             "weight_hh_l1 28x3",
                                             "bias_ih_l1 28",
                                             "bias_hh_l1 28",
                                             "weight_hr_l1 3x7",
                                             "weight_ih_l1_reverse 28x6",
                                             "weight_hh_l1_reverse 28x3",
                                             "bias_ih_l1_reverse 28",
                                             "bias_hh_l1_reverse 28",
                                             "weight_hr_l1_reverse 3x7"}));
  EXPECT_EQ(repr(*lstm),
            "LSTM(5, 7, proj_size=3, num_layers=2, bidirectional=True)");
  // Every weight, the projection too, is U(±1/√hidden_size).
  for (const Tensor &p : lstm->flat_weights())
    for (int64_t i = 0; i < p.numel(); ++i)
      EXPECT_LE(std::abs(p.item_as_double(i)), 1.0 / std::sqrt(7.0));
}

TEST(LSTMTest, CloneCopiesTheWeights) {
  LSTM lstm(LSTMOptions(3, 4));
  auto copy = std::dynamic_pointer_cast<LSTMImpl>(lstm->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(repr(*copy), "LSTM(3, 4)");
  EXPECT_FALSE(copy->flat_weights()[0].shares_storage(lstm->flat_weights()[0]));
}

TEST(LSTMTest, BadOptionsAndInputsSayWhatIsWrong) {
  EXPECT_THROW(LSTM(LSTMOptions(3, 4).dropout(1.5)), Error);
  EXPECT_THROW(LSTM(LSTMOptions(3, 4).num_layers(0)), Error);
  auto constructionError = [](LSTMOptions options) -> std::string {
    try {
      LSTM lstm(options);
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(constructionError(LSTMOptions(3, 4).proj_size(-1)),
            "LSTM: proj_size should be a positive integer or zero to disable "
            "projections, got -1");
  EXPECT_EQ(constructionError(LSTMOptions(3, 4).proj_size(4)),
            "LSTM: proj_size has to be smaller than hidden_size, got 4 and 4");
  LSTM lstm(LSTMOptions(3, 4).num_layers(2));
  auto message = [&](std::vector<TensorSpec> specs) -> std::string {
    try {
      trace(*lstm, specs, [&](const Inputs &in) {
        auto hx =
            in.size() == 3
                ? std::optional<std::tuple<Tensor, Tensor>>({in[1], in[2]})
                : std::nullopt;
        return Outputs{std::get<0>(lstm(in[0], hx))};
      });
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  };
  // The LSTM is the traced root here, hence "<root>:" where a submodule
  // would give its path ("lstm:").
  EXPECT_EQ(message({TensorSpec({5, 2, 7})}),
            "<root>: LSTM: input.size(-1) must be equal to input_size. "
            "Expected 3, got 7 (input 5x2x7, weight_ih_l0 16x3)");
  EXPECT_EQ(message({TensorSpec({5, 2, 3}), TensorSpec({1, 2, 4}),
                     TensorSpec({2, 2, 4})}),
            "<root>: LSTM: Expected hidden[0] size 2x2x4, got 1x2x4");
  EXPECT_EQ(
      message({TensorSpec({5, 2, 3, 1})}),
      "<root>: LSTM: Expected input to be 2-D or 3-D but received 4-D tensor");
  // With proj_size, h0 has proj_size features and c0 hidden_size.
  lstm = LSTM(LSTMOptions(3, 4).num_layers(2).proj_size(2));
  EXPECT_EQ(message({TensorSpec({5, 2, 3}), TensorSpec({2, 2, 4}),
                     TensorSpec({2, 2, 4})}),
            "<root>: LSTM: Expected hidden[0] size 2x2x2, got 2x2x4");
  EXPECT_EQ(message({TensorSpec({5, 2, 3}), TensorSpec({2, 2, 2}),
                     TensorSpec({2, 2, 2})}),
            "<root>: LSTM: Expected hidden[1] size 2x2x4, got 2x2x2");
}

//===----------------------------------------------------------------------===//
// GRU
//===----------------------------------------------------------------------===//

struct GRUCase {
  std::string name;
  GRUOptions options;
  bool withState = false;
};

void PrintTo(const GRUCase &c, std::ostream *os) { *os << c.name; }

class GRUGoldenTest : public ::testing::TestWithParam<GRUCase> {};

// As LSTMGoldenTest: the golden holds x (and h0), then PyTorch's state.
TEST_P(GRUGoldenTest, MatchesPyTorch) {
  const GRUCase &c = GetParam();
  GRU gru(c.options);
  SafetensorsContents golden;
  Inputs inputs;
  std::vector<TensorSpec> specs;
  ASSERT_NO_FATAL_FAILURE(
      loadGolden(*gru, c.name, c.withState ? 2 : 1, golden, inputs, specs));
  TracedModule traced = trace(*gru, specs, [&](const Inputs &in) {
    auto [output, h] = gru(in[0], c.withState ? in[1] : Tensor());
    return Outputs{output, h};
  });
  auto outputs = compile(traced)->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const char *names[] = {"output", "h_n"};
  for (int i = 0; i < 2; ++i)
    expectClose((*outputs)[i], golden.tensors.at("output." + std::to_string(i)),
                {}, c.name + " " + names[i]);
}

std::vector<GRUCase> gruCases() {
  const std::pair<const char *, GRUOptions> configs[] = {
      {"l1", GRUOptions(5, 7)},
      {"l2_batch_first", GRUOptions(4, 6).num_layers(2).batch_first(true)},
      {"l1_no_bias", GRUOptions(3, 5).bias(false)},
      {"l2_bidirectional", GRUOptions(4, 5).num_layers(2).bidirectional(true)},
  };
  std::vector<GRUCase> cases;
  for (const auto &[name, options] : configs) {
    cases.push_back({std::string("GRU_") + name, options, false});
    cases.push_back({std::string("GRU_") + name + "_state", options, true});
  }
  cases.push_back(
      {"GRU_unbatched_state", GRUOptions(3, 4).num_layers(2), true});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(GRU, GRUGoldenTest, ::testing::ValuesIn(gruCases()),
                         [](const ::testing::TestParamInfo<GRUCase> &info) {
                           return info.param.name;
                         });

TEST(GRUTest, ReprNamesAndErrorsArePyTorchs) {
  EXPECT_EQ(repr(*GRU(10, 20)), "GRU(10, 20)");
  EXPECT_EQ(repr(*GRU(GRUOptions(3, 4)
                          .num_layers(2)
                          .bias(false)
                          .dropout(0.25)
                          .bidirectional(true))),
            "GRU(3, 4, num_layers=2, bias=False, dropout=0.25, "
            "bidirectional=True)");
  GRU gru(GRUOptions(3, 4).num_layers(2));
  std::vector<std::string> names;
  for (const auto &[name, p] : gru->named_parameters())
    names.push_back(name + " " + shape_str(p.shape()));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "weight_ih_l0 12x3", "weight_hh_l0 12x4",
                       "bias_ih_l0 12", "bias_hh_l0 12", "weight_ih_l1 12x4",
                       "weight_hh_l1 12x4", "bias_ih_l1 12", "bias_hh_l1 12"}));
  for (const Tensor &p : gru->parameters())
    for (int64_t i = 0; i < p.numel(); ++i)
      EXPECT_LE(std::abs(p.item_as_double(i)), 0.5); // 1/√4
  auto message = [&](std::vector<TensorSpec> specs) -> std::string {
    try {
      trace(*gru, specs, [&](const Inputs &in) {
        return Outputs{
            std::get<0>(gru(in[0], in.size() == 2 ? in[1] : Tensor()))};
      });
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message({TensorSpec({5, 2, 7})}),
            "<root>: GRU: input.size(-1) must be equal to input_size. "
            "Expected 3, got 7 (input 5x2x7, weight_ih_l0 12x3)");
  EXPECT_EQ(message({TensorSpec({5, 2, 3}), TensorSpec({1, 2, 4})}),
            "<root>: GRU: Expected hidden size 2x2x4, got 1x2x4");
  EXPECT_THROW(GRU(GRUOptions(3, 4).dropout(1.5)), Error);
}

} // namespace
} // namespace nn::testing
