//===- TrainCases.h - DynamicNet's optimizer cases --------------*- C++ -*-===//
//
// The optimizer cases of tests/reference/generate_train_goldens.py, as C++
// twins over the DynamicNet seed model: TrainTest checks them against
// PyTorch, TrainArtifactTest the one-call step against the two-call one.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_E2E_TRAINCASES_H
#define NN_TESTS_E2E_TRAINCASES_H

#include "models/DynamicNet.h"

#include "gtest/gtest.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nn::testing {

struct TrainCase {
  std::string name;
  /// The optimizer over the model's parameters (the C++ twin of the
  /// generator's).
  std::function<std::unique_ptr<optim::Optimizer>(models::DynamicNet &)>
      optimizer;
  std::vector<std::string> frozen;
  /// What is done to the gradients between backward and the step (clipping);
  /// returns the total norm it saw, if it computes one.
  std::function<std::optional<double>(models::DynamicNet &)> clip;
};

/// input_linear's parameters with their own options, the rest with the
/// defaults.
inline std::vector<optim::OptimizerParamGroup>
inputApart(models::DynamicNet &model,
           std::unique_ptr<optim::OptimizerOptions> first) {
  std::vector<Tensor> head, rest;
  for (auto &[name, p] : model->named_parameters())
    (name.rfind("input_linear.", 0) == 0 ? head : rest).push_back(p);
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(head, std::move(first));
  groups.emplace_back(rest);
  return groups;
}

inline std::vector<TrainCase> trainCases() {
  using namespace optim;
  auto sgd = [](SGDOptions o) {
    return [o](models::DynamicNet &m) -> std::unique_ptr<Optimizer> {
      return std::make_unique<SGD>(m->parameters(), o);
    };
  };
  return {
      {"sgd", sgd(SGDOptions(0.1)), {}},
      {"sgd_momentum_decay",
       sgd(SGDOptions(0.1).momentum(0.9).weight_decay(1e-4)),
       {}},
      {"sgd_dampening_maximize",
       sgd(SGDOptions(0.05).momentum(0.8).dampening(0.5).maximize(true)),
       {}},
      {"sgd_nesterov", sgd(SGDOptions(0.1).momentum(0.9).nesterov(true)), {}},
      {"sgd_groups",
       [](models::DynamicNet &m) -> std::unique_ptr<Optimizer> {
         return std::make_unique<SGD>(
             inputApart(m, SGDOptions(0.2).momentum(0.9).clone()),
             SGDOptions(0.01));
       },
       {}},
      {"sgd_frozen",
       sgd(SGDOptions(0.1).momentum(0.9).weight_decay(1e-2)),
       {"input_linear.bias", "output_linear.weight"}},
      {"adam",
       [](models::DynamicNet &m) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Adam>(m->parameters(), AdamOptions(1e-3));
       },
       {}},
      {"adam_amsgrad_decay",
       [](models::DynamicNet &m) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Adam>(
             m->parameters(),
             AdamOptions(1e-2).weight_decay(0.1).amsgrad(true));
       },
       {}},
      {"adamw",
       [](models::DynamicNet &m) -> std::unique_ptr<Optimizer> {
         return std::make_unique<AdamW>(m->parameters(),
                                        AdamWOptions(1e-3).weight_decay(0.01));
       },
       {}},
      {"sgd_clip_grad_norm",
       sgd(SGDOptions(0.1).momentum(0.9)),
       {},
       [](models::DynamicNet &m) -> std::optional<double> {
         return clip_grad_norm_(m->parameters(), 0.5);
       }},
      {"sgd_clip_grad_value",
       sgd(SGDOptions(0.1)),
       {},
       [](models::DynamicNet &m) -> std::optional<double> {
         clip_grad_value_(m->parameters(), 0.02);
         return std::nullopt;
       }},
  };
}

inline std::string
trainCaseName(const ::testing::TestParamInfo<TrainCase> &info) {
  return info.param.name;
}

inline void PrintTo(const TrainCase &c, std::ostream *os) { *os << c.name; }

} // namespace nn::testing

#endif // NN_TESTS_E2E_TRAINCASES_H
