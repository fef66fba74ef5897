//===- OpsLossTest.cpp - loss functions against PyTorch goldens -----------===//
//
// Each case mirrors the one of the same name in tests/reference/ops/loss.py;
// the loops here follow the loops there.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <cmath>
#include <sstream>

namespace nn::testing {
namespace {

std::vector<OpCase> lossCases() {
  std::vector<OpCase> cases;
  auto add = [&](std::string name, std::function<Tensor(const Inputs &)> fn) {
    cases.push_back({"loss", std::move(name),
                     [fn](const Inputs &in) { return Outputs{fn(in)}; }});
  };
  const std::pair<const char *, Reduction> reductions[] = {
      {"mean", kMean}, {"sum", kSum}, {"none", kNone}};

  for (const char *shape : {"7", "3x17", "2x3x5"})
    for (auto [r, reduction] : reductions) {
      add(std::string("mse_") + r + "_" + shape, [reduction](const Inputs &in) {
        return F::mse_loss(in[0], in[1], F::MSELossFuncOptions(reduction));
      });
      add(std::string("l1_") + r + "_" + shape, [reduction](const Inputs &in) {
        return F::l1_loss(in[0], in[1], F::L1LossFuncOptions(reduction));
      });
    }

  for (auto [r, reduction] : reductions) {
    std::string s = r;
    add("nll_" + s + "_5x7", [reduction](const Inputs &in) {
      return F::nll_loss(in[0], in[1],
                         F::NLLLossFuncOptions().reduction(reduction));
    });
    for (const char *name : {"nll_weight_", "nll_ignore_weight_"})
      add(name + s + "_5x7", [reduction](const Inputs &in) {
        return F::nll_loss(
            in[0], in[1],
            F::NLLLossFuncOptions().weight(in[2]).reduction(reduction));
      });
    add("nll_kdim_ignore2_" + s + "_2x3x4x5", [reduction](const Inputs &in) {
      return F::nll_loss(
          in[0], in[1],
          F::NLLLossFuncOptions().ignore_index(2).reduction(reduction));
    });
  }
  add("nll_unbatched_7",
      [](const Inputs &in) { return F::nll_loss(in[0], in[1]); });
  add("nll_all_ignored_mean",
      [](const Inputs &in) { return F::nll_loss(in[0], in[1]); });
  add("nll_all_ignored_sum", [](const Inputs &in) {
    return F::nll_loss(in[0], in[1], F::NLLLossFuncOptions().reduction(kSum));
  });

  for (auto [r, reduction] : reductions) {
    std::string s = r;
    auto ce = [reduction] {
      return F::CrossEntropyFuncOptions().reduction(reduction);
    };
    add("ce_" + s + "_6x11", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1], ce());
    });
    add("ce_weight_ignore_" + s + "_6x11", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1], ce().weight(in[2]));
    });
    add("ce_smoothing_" + s + "_6x11", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1], ce().label_smoothing(0.1));
    });
    add("ce_smoothing_weight_ignore_" + s + "_6x11", [ce](const Inputs &in) {
      return F::cross_entropy(
          in[0], in[1],
          ce().weight(in[2]).ignore_index(0).label_smoothing(0.25));
    });
    add("ce_kdim_smoothing_" + s + "_2x5x3x7", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1], ce().label_smoothing(0.3));
    });
    add("ce_probs_" + s + "_4x9", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1], ce());
    });
    add("ce_probs_weight_smoothing_" + s + "_4x9", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1],
                              ce().weight(in[2]).label_smoothing(0.2));
    });
    add("ce_probs_kdim_" + s + "_2x3x5", [ce](const Inputs &in) {
      return F::cross_entropy(in[0], in[1], ce());
    });
  }
  add("ce_unbatched_13", [](const Inputs &in) {
    return F::cross_entropy(in[0], in[1],
                            F::CrossEntropyFuncOptions().label_smoothing(0.1));
  });
  add("ce_all_ignored_mean",
      [](const Inputs &in) { return F::cross_entropy(in[0], in[1]); });
  add("ce_all_ignored_smoothing_mean", [](const Inputs &in) {
    return F::cross_entropy(in[0], in[1],
                            F::CrossEntropyFuncOptions().label_smoothing(0.1));
  });

  for (auto [r, reduction] : reductions) {
    std::string s = r;
    add("bce_" + s + "_3x7", [reduction](const Inputs &in) {
      return F::binary_cross_entropy(
          in[0], in[1],
          F::BinaryCrossEntropyFuncOptions().reduction(reduction));
    });
    add("bce_weight_" + s + "_3x7", [reduction](const Inputs &in) {
      return F::binary_cross_entropy(
          in[0], in[1],
          F::BinaryCrossEntropyFuncOptions().weight(in[2]).reduction(
              reduction));
    });
    add("bce_logits_" + s + "_4x5", [reduction](const Inputs &in) {
      return F::binary_cross_entropy_with_logits(
          in[0], in[1],
          F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(reduction));
    });
    add("bce_logits_pos_weight_weight_" + s + "_4x5",
        [reduction](const Inputs &in) {
          return F::binary_cross_entropy_with_logits(
              in[0], in[1],
              F::BinaryCrossEntropyWithLogitsFuncOptions()
                  .weight(in[2])
                  .pos_weight(in[3])
                  .reduction(reduction));
        });
  }
  add("bce_edges_sum", [](const Inputs &in) {
    return F::binary_cross_entropy(
        in[0], in[1], F::BinaryCrossEntropyFuncOptions().reduction(kSum));
  });
  add("bce_logits_large_none", [](const Inputs &in) {
    return F::binary_cross_entropy_with_logits(
        in[0], in[1],
        F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kNone));
  });

  for (auto [r, reduction] : reductions) {
    std::string s = r;
    add("smooth_l1_" + s + "_3x17", [reduction](const Inputs &in) {
      return F::smooth_l1_loss(
          in[0], in[1], F::SmoothL1LossFuncOptions().reduction(reduction));
    });
    add("smooth_l1_beta05_" + s + "_2x3x5", [reduction](const Inputs &in) {
      return F::smooth_l1_loss(
          in[0], in[1],
          F::SmoothL1LossFuncOptions().reduction(reduction).beta(0.5));
    });
    add("huber_" + s + "_3x17", [reduction](const Inputs &in) {
      return F::huber_loss(in[0], in[1],
                           F::HuberLossFuncOptions().reduction(reduction));
    });
    add("huber_delta2_" + s + "_2x3x5", [reduction](const Inputs &in) {
      return F::huber_loss(
          in[0], in[1],
          F::HuberLossFuncOptions().reduction(reduction).delta(2));
    });
  }
  const std::pair<const char *, Reduction> klReductions[] = {
      {"mean", kMean},
      {"sum", kSum},
      {"none", kNone},
      {"batchmean", kBatchMean}};
  for (auto [r, reduction] : klReductions)
    add(std::string("kl_div_") + r + "_4x6", [reduction](const Inputs &in) {
      return F::kl_div(in[0], in[1], F::KLDivFuncOptions(reduction));
    });
  add("kl_div_log_target_batchmean_3x5", [](const Inputs &in) {
    return F::kl_div(in[0], in[1],
                     F::KLDivFuncOptions(kBatchMean).log_target(true));
  });
  add("kl_div_zero_target_sum_2x4", [](const Inputs &in) {
    return F::kl_div(in[0], in[1], F::KLDivFuncOptions(kSum));
  });
  add("smooth_l1_beta0_7", [](const Inputs &in) {
    return F::smooth_l1_loss(in[0], in[1],
                             F::SmoothL1LossFuncOptions().beta(0.0));
  });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Loss, OpGoldenTest, ::testing::ValuesIn(lossCases()),
                         caseName);

//===----------------------------------------------------------------------===//
// Layers and trace-time errors
//===----------------------------------------------------------------------===//

/// Traces `fn` on specs shaped like `inputs`, compiles and runs it.
Tensor runTraced(Module &root, const Inputs &inputs,
                 std::function<Tensor(const Inputs &)> fn) {
  std::vector<TensorSpec> specs;
  for (const Tensor &t : inputs)
    specs.emplace_back(t.shape(), t.dtype());
  TracedModule traced =
      trace(root, specs, [&](const Inputs &in) { return Outputs{fn(in)}; });
  auto outputs = compile(traced)->run(inputs);
  if (!outputs.ok())
    throw Error(std::string(outputs.status().message()));
  return (*outputs)[0];
}

TEST(LossLayerTest, ReprIsPyTorchs) {
  auto repr = [](const Module &m) {
    std::ostringstream os;
    os << m;
    return os.str();
  };
  EXPECT_EQ(repr(*CrossEntropyLoss()), "CrossEntropyLoss()");
  EXPECT_EQ(repr(*NLLLoss()), "NLLLoss()");
  EXPECT_EQ(repr(*MSELoss()), "MSELoss()");
  EXPECT_EQ(repr(*L1Loss(kSum)), "L1Loss()");
  EXPECT_EQ(repr(*BCELoss()), "BCELoss()");
  EXPECT_EQ(repr(*BCEWithLogitsLoss()), "BCEWithLogitsLoss()");
  EXPECT_EQ(repr(*SmoothL1Loss(SmoothL1LossOptions().beta(0.5))),
            "SmoothL1Loss()");
  EXPECT_EQ(repr(*HuberLoss()), "HuberLoss()");
  EXPECT_EQ(repr(*KLDivLoss(kBatchMean)), "KLDivLoss()");
}

TEST(LossLayerTest, ClassWeightIsABufferInTheStateDict) {
  CrossEntropyLoss weighted(CrossEntropyLossOptions().weight(
      Tensor::from_vector<float>({1, 2, 3}, {3})));
  EXPECT_EQ(weighted->state_dict().keys(), std::vector<std::string>{"weight"});
  EXPECT_TRUE(CrossEntropyLoss()->state_dict().keys().empty());
  auto clone =
      std::dynamic_pointer_cast<CrossEntropyLossImpl>(weighted->clone());
  ASSERT_TRUE(clone);
  EXPECT_FALSE(clone->weight.shares_storage(weighted->weight));
}

TEST(LossLayerTest, LayersMatchTheirFunctionals) {
  // The ce_weight_ignore_mean_6x11 golden through the layer, its weight a
  // buffer of the traced model.
  auto golden = load_safetensors(std::string(NN_SOURCE_DIR) +
                                 "/tests/reference/goldens/ops/loss/"
                                 "ce_weight_ignore_mean_6x11.safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  CrossEntropyLoss criterion(
      CrossEntropyLossOptions().weight(golden->tensors.at("input.2")));
  Tensor loss =
      runTraced(*criterion,
                {golden->tensors.at("input.0"), golden->tensors.at("input.1")},
                [&](const Inputs &in) { return criterion(in[0], in[1]); });
  expectClose(loss, golden->tensors.at("output.0"), {}, "CrossEntropyLoss");

  MSELoss mse(kSum);
  Tensor x = Tensor::from_vector<float>({1, 2, 3}, {3});
  Tensor y = Tensor::from_vector<float>({0, 4, 3}, {3});
  EXPECT_EQ(runTraced(*mse, {x, y},
                      [&](const Inputs &in) { return mse(in[0], in[1]); })
                .item_as_double(0),
            5.0);
  L1Loss l1;
  EXPECT_EQ(
      runTraced(*l1, {x, y}, [&](const Inputs &in) { return l1(in[0], in[1]); })
          .item_as_double(0),
      1.0);
}

TEST(LossLayerTest, ALargeMeanIsAccurateToFloatRounding) {
  // 1.6M equal squares, the worst case for float32 sums (every rounding
  // errs the same way): one accumulator over all of them was 1.7e-2 off.
  // Summed as 512 partial sums of 3,136 terms, then those, it is 1.7e-5
  // off (PyTorch's cascade, about 1e-7); the bound is that of the two
  // levels, (3136 + 512)·eps/4 ≈ 5e-5.
  Tensor x = Tensor::zeros({8, 64, 56, 56});
  float *data = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i)
    data[i] = 0.1f;
  Tensor y = Tensor::zeros({8, 64, 56, 56});
  MSELoss mse;
  double loss = runTraced(*mse, {x, y}, [&](const Inputs &in) {
                  return mse(in[0], in[1]);
                }).item_as_double(0);
  double exact = double(0.1f * 0.1f);
  EXPECT_NEAR(loss, exact, 5e-5 * exact);
  // The same for a plain mean of everything (nn.mean, nn.sum).
  Identity identity;
  double mean = runTraced(*identity, {x}, [&](const Inputs &in) {
                  return F::mean(in[0]);
                }).item_as_double(0);
  EXPECT_NEAR(mean, double(0.1f), 5e-5 * 0.1);
}

/// Expects `message` to end with `expected` (after the module path).
void expectError(const std::string &message, const std::string &expected) {
  EXPECT_EQ(message, "<root>: " + expected);
}

/// traceError for a function of one result.
std::string traceError(const std::vector<TensorSpec> &specs,
                       const std::function<Tensor(const Inputs &)> &fn) {
  return testing::traceError(specs,
                             [&](const Inputs &in) { return Outputs{fn(in)}; });
}

TEST(LossErrorTest, ShapeMismatchesNameBothShapes) {
  expectError(
      traceError({TensorSpec({3, 4}), TensorSpec({4, 3})},
                 [](const Inputs &in) { return F::mse_loss(in[0], in[1]); }),
      "mse_loss: input 3x4 and target 4x3 must have the same shape");
  expectError(
      traceError({TensorSpec({3, 4}), TensorSpec({4}, DType::i64)},
                 [](const Inputs &in) { return F::nll_loss(in[0], in[1]); }),
      "nll_loss: target must be 3 for input 3x4, got 4");
  expectError(
      traceError(
          {TensorSpec({3, 4}), TensorSpec({3}, DType::i64), TensorSpec({5})},
          [](const Inputs &in) {
            return F::cross_entropy(in[0], in[1],
                                    F::CrossEntropyFuncOptions().weight(in[2]));
          }),
      "nll_loss: weight must be [4] (one per class of input 3x4), got 5");
  expectError(traceError({TensorSpec({3, 4}), TensorSpec({3, 5})},
                         [](const Inputs &in) {
                           return F::cross_entropy(in[0], in[1]);
                         }),
              "cross_entropy: probability target 3x5 must have the shape of "
              "input 3x4");
  expectError(
      traceError({TensorSpec({3, 4}), TensorSpec({3}, DType::i64)},
                 [](const Inputs &in) {
                   return F::cross_entropy(
                       in[0], in[1],
                       F::CrossEntropyFuncOptions().label_smoothing(1.5));
                 }),
      "cross_entropy: label_smoothing must be between 0.0 and 1.0, got "
      "1.500000");
  expectError(traceError({TensorSpec({3, 4}), TensorSpec({3, 1})},
                         [](const Inputs &in) {
                           return F::binary_cross_entropy(in[0], in[1]);
                         }),
              "binary_cross_entropy: input 3x4 and target 3x1 must have the "
              "same shape");
  expectError(
      traceError({TensorSpec({5}), TensorSpec({5, 1})},
                 [](const Inputs &in) {
                   return F::binary_cross_entropy_with_logits(in[0], in[1]);
                 }),
      "binary_cross_entropy_with_logits: input 5 and target 5x1 must have "
      "the same shape");
  expectError(traceError({TensorSpec({5}), TensorSpec({5})},
                         [](const Inputs &in) {
                           return F::smooth_l1_loss(
                               in[0], in[1],
                               F::SmoothL1LossFuncOptions().beta(-1));
                         }),
              "smooth_l1_loss: beta must be non-negative, got -1.000000");
  expectError(traceError({TensorSpec({5}), TensorSpec({5})},
                         [](const Inputs &in) {
                           return F::huber_loss(
                               in[0], in[1],
                               F::HuberLossFuncOptions().delta(0));
                         }),
              "huber_loss: delta must be positive, got 0.000000");
  expectError(
      traceError({TensorSpec({2, 3}), TensorSpec({3, 2})},
                 [](const Inputs &in) { return F::huber_loss(in[0], in[1]); }),
      "huber_loss: input 2x3 and target 3x2 must have the same shape");
  expectError(traceError({TensorSpec({2, 3}), TensorSpec({2, 3})},
                         [](const Inputs &in) {
                           return F::mse_loss(
                               in[0], in[1], F::MSELossFuncOptions(kBatchMean));
                         }),
              "mse_loss: reduction batchmean is kl_div's alone");
  expectError(
      traceError({TensorSpec({2, 3}), TensorSpec({2, 3})},
                 [](const Inputs &in) {
                   return F::binary_cross_entropy_with_logits(
                       in[0], in[1],
                       F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(
                           kBatchMean));
                 }),
      "binary_cross_entropy_with_logits: reduction batchmean is "
      "kl_div's alone");
  expectError(
      traceError({TensorSpec({2, 3}), TensorSpec({3})},
                 [](const Inputs &in) { return F::kl_div(in[0], in[1]); }),
      "kl_div: input 2x3 and target 3 must have the same shape");
}

/// BCEWithLogitsLoss holds weight and pos_weight as buffers, as PyTorch's
/// does, and through the layer gives its functional's golden.
TEST(LossLayerTest, BCEWithLogitsLossWeightsAreBuffers) {
  auto golden = load_safetensors(std::string(NN_SOURCE_DIR) +
                                 "/tests/reference/goldens/ops/loss/"
                                 "bce_logits_pos_weight_weight_mean_4x5."
                                 "safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const auto &t = golden->tensors;
  BCEWithLogitsLoss criterion(BCEWithLogitsLossOptions()
                                  .weight(t.at("input.2"))
                                  .pos_weight(t.at("input.3")));
  EXPECT_EQ(criterion->state_dict().keys(),
            (std::vector<std::string>{"weight", "pos_weight"}));
  EXPECT_TRUE(BCEWithLogitsLoss()->state_dict().keys().empty());
  Tensor loss =
      runTraced(*criterion, {t.at("input.0"), t.at("input.1")},
                [&](const Inputs &in) { return criterion(in[0], in[1]); });
  expectClose(loss, t.at("output.0"), {}, "BCEWithLogitsLoss");

  BCELoss bce(BCELossOptions().weight(Tensor::from_vector<float>({2}, {1})));
  EXPECT_EQ(bce->state_dict().keys(), std::vector<std::string>{"weight"});
  // -2·(0.5·log 0.5 + 0.5·log 0.5) = 2 log 2.
  Tensor half = Tensor::from_vector<float>({0.5f}, {1});
  EXPECT_NEAR(runTraced(*bce, {half, half},
                        [&](const Inputs &in) { return bce(in[0], in[1]); })
                  .item_as_double(0),
              2 * std::log(2.0), 1e-6);
}

} // namespace

std::vector<OpCase> lossOpCases() { return lossCases(); }

} // namespace nn::testing
