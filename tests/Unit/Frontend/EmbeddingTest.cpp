//===- EmbeddingTest.cpp - nn::Embedding ----------------------------------===//
//
// Parameters, initialization and printing as torch.nn.Embedding; the
// expected strings are what PyTorch 1.13 prints for the same options.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <sstream>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using nn::testing::repr;

std::vector<std::string> shapes(const StateDict &state) {
  std::vector<std::string> out;
  for (const std::string &key : state.keys())
    out.push_back(key + ":" + shape_str(state.at(key).shape()));
  return out;
}

/// embed → head with head.weight = embed.weight, as in tied language models.
struct TiedEmbeddingLMImpl : Module {
  TiedEmbeddingLMImpl(int64_t vocab, int64_t dim) : Module("TiedEmbeddingLM") {
    embed = register_module("embed", Embedding(vocab, dim));
    head = register_module("head", Linear(dim, vocab));
    head->weight = embed->weight;
  }
  Tensor forward(const Tensor &tokens) { return head(embed(tokens)); }
  Embedding embed{nullptr};
  Linear head{nullptr};
};
NN_MODULE(TiedEmbeddingLM);

class EmbeddingTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(EmbeddingTest, StateDictIsWeight) {
  Embedding embed(EmbeddingOptions(10, 3).padding_idx(0));
  EXPECT_THAT(shapes(embed->state_dict()), ElementsAre("weight:10x3"));
}

TEST_F(EmbeddingTest, ReprMatchesPyTorch) {
  EXPECT_EQ(repr(*Embedding(EmbeddingOptions(10, 3).padding_idx(0))),
            "Embedding(10, 3, padding_idx=0)");
  EXPECT_EQ(repr(*Embedding(5, 2)), "Embedding(5, 2)");
}

TEST_F(EmbeddingTest, NegativePaddingIdxCountsFromTheEnd) {
  Embedding embed(EmbeddingOptions(10, 3).padding_idx(-1));
  EXPECT_EQ(repr(*embed), "Embedding(10, 3, padding_idx=9)");
  for (int64_t j = 0; j < 3; ++j)
    EXPECT_EQ(embed->weight.item_as_double(9 * 3 + j), 0.0);
}

TEST_F(EmbeddingTest, PaddingRowIsZeroAndTheRestStandardNormal) {
  Embedding embed(EmbeddingOptions(2000, 5).padding_idx(7));
  double sum = 0, squares = 0;
  int64_t n = 0;
  for (int64_t i = 0; i < 2000; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double v = embed->weight.item_as_double(i * 5 + j);
      if (i == 7) {
        EXPECT_EQ(v, 0.0);
        continue;
      }
      sum += v;
      squares += v * v;
      ++n;
    }
  double mean = sum / n, std = std::sqrt(squares / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(std, 1.0, 0.05);
}

TEST_F(EmbeddingTest, SameSeedSameWeights) {
  manual_seed(3);
  Embedding a(4, 3);
  manual_seed(3);
  Embedding b(4, 3);
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(a->weight.item_as_double(i), b->weight.item_as_double(i));
}

TEST_F(EmbeddingTest, PaddingIdxOutOfRangeIsRefused) {
  EXPECT_THAT([] { Embedding(EmbeddingOptions(4, 3).padding_idx(4)); },
              ::testing::ThrowsMessage<Error>(::testing::StrEq(
                  "Embedding: padding_idx 4 must be within num_embeddings 4")));
}

TEST_F(EmbeddingTest, TiedHeadSharesTheEmbeddingWeight) {
  TiedEmbeddingLM model(17, 8);
  EXPECT_THAT(
      shapes(model->state_dict()),
      ElementsAre("embed.weight:17x8", "head.weight:17x8", "head.bias:17"));
  std::vector<std::string> params;
  for (const auto &[name, t] : model->named_parameters())
    params.push_back(name);
  EXPECT_THAT(params, ElementsAre("embed.weight", "head.bias"));
  EXPECT_EQ(repr(*model), "TiedEmbeddingLM(\n"
                          "  (embed): Embedding(17, 8)\n"
                          "  (head): Linear(in_features=8, out_features=17, "
                          "bias=True)\n"
                          ")");
}

TEST_F(EmbeddingTest, TracesToOneLookup) {
  Embedding embed(10, 3);
  std::string ir = trace(embed, {TensorSpec({2, 7}, DType::i64)}).to_string();
  EXPECT_THAT(ir, HasSubstr("nn.embedding %arg0, %0 : (tensor<2x7xi64>, "
                            "tensor<10x3xf32>) -> tensor<2x7x3xf32>"));
}

TEST_F(EmbeddingTest, FloatIndicesAreRefused) {
  Embedding embed(10, 3);
  EXPECT_THAT(
      [&] {
        trace(embed, {TensorSpec({2, 7})});
      },
      ::testing::ThrowsMessage<Error>(::testing::StrEq(
          "<root>: embedding: input must be an int64 tensor, got "
          "float32")));
}

} // namespace
