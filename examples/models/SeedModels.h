//===- SeedModels.h - The module-tree seed models, registered ---*- C++ -*-===//
//
// Every model of examples/models/ with a PyTorch twin in
// tests/reference/generate_module_goldens.py, registered once with a seeded
// factory and the input shapes it is traced with, for the golden tests, the
// interop check and anything else that wants a zoo of small models.
//
//   for (const auto &c : nn::models::seed_models()) {
//     std::shared_ptr<nn::Module> model = c.make(/*seed=*/0);
//     nn::TracedModule traced = c.trace(model);
//   }
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_SEEDMODELS_H
#define NN_EXAMPLES_MODELS_SEEDMODELS_H

#include "models/BlockStack.h"
#include "models/ConvNet.h"
#include "models/DynamicNet.h"
#include "models/LSTMClassifier.h"
#include "models/MultiHeadModel.h"
#include "models/MyLinear.h"
#include "models/PositionalEncoding.h"
#include "models/ResNet.h"
#include "models/SimpleMLP.h"
#include "models/TiedModel.h"
#include "models/TransformerStack.h"
#include "models/TwoBranchModel.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace nn::models {

struct ModelCase {
  /// The class name, the golden's file stem and the PyTorch twin's name.
  std::string name;
  /// Seeds the default generator with `seed`, then builds the model.
  std::function<std::shared_ptr<Module>(uint64_t seed)> make;
  /// The model's example inputs.
  std::vector<TensorSpec> inputs;
  /// Traces a model `make` built on `specs`; tests of bad input pass specs
  /// other than `inputs`.
  std::function<TracedModule(const std::shared_ptr<Module> &,
                             const std::vector<TensorSpec> &specs)>
      trace_on;

  /// Runs a model `make` built on (symbolic) inputs: its outputs,
  /// flattened.
  std::function<std::vector<Tensor>(const std::shared_ptr<Module> &,
                                    const std::vector<Tensor> &)>
      call;

  /// Traces a model `make` built, on the model's example inputs.
  TracedModule trace(const std::shared_ptr<Module> &model) const {
    return trace_on(model, inputs);
  }
};

/// Lets gtest print a case by name.
inline std::ostream &operator<<(std::ostream &os, const ModelCase &c) {
  return os << c.name;
}

template <typename Holder, typename... Args>
ModelCase model_case(std::string name, std::vector<TensorSpec> inputs,
                     Args... args) {
  using Impl = typename Holder::Impl;
  return {std::move(name),
          [=](uint64_t seed) -> std::shared_ptr<Module> {
            manual_seed(seed);
            return Holder(args...).ptr();
          },
          inputs,
          [](const std::shared_ptr<Module> &model,
             const std::vector<TensorSpec> &specs) {
            return nn::trace(Holder(std::dynamic_pointer_cast<Impl>(model)),
                             specs);
          },
          [](const std::shared_ptr<Module> &model,
             const std::vector<Tensor> &args) {
            Holder holder(std::dynamic_pointer_cast<Impl>(model));
            std::vector<Tensor> outputs;
            if (!detail::call_forward(holder, args, outputs))
              throw Error(model->name() + ": forward does not take " +
                          std::to_string(args.size()) + " tensors");
            return outputs;
          }};
}

inline const std::vector<ModelCase> &seed_models() {
  static const std::vector<ModelCase> cases = {
      model_case<SimpleMLP>("SimpleMLP", {TensorSpec({2, 784})}),
      model_case<TwoBranchModel>("TwoBranchModel", {TensorSpec({2, 16})}),
      model_case<MultiHeadModel>("MultiHeadModel", {TensorSpec({2, 16})}),
      model_case<BlockStack>("BlockStack", {TensorSpec({2, 16})}),
      model_case<PositionalEncoding>("PositionalEncoding",
                                     {TensorSpec({8, 16})}),
      model_case<TiedModel>("TiedModel", {TensorSpec({2, 16})}),
      model_case<DynamicNet>("DynamicNet", {TensorSpec({2, 8})}),
      model_case<MyLinear>("MyLinear", {TensorSpec({2, 4})}, int64_t(4),
                           int64_t(3), false),
      model_case<LSTMClassifier>("LSTMClassifier", {TensorSpec({2, 5, 8})}),
      model_case<TransformerStack>("TransformerStack",
                                   {TensorSpec({2, 5, 16})}),
      model_case<TiedEmbeddingLM>("TiedEmbeddingLM",
                                  {TensorSpec({2, 7}, DType::i64)}),
      model_case<ResNet>("ResNet", {TensorSpec({2, 3, 8, 8})}),
      model_case<ConvNet>("ConvNet", {TensorSpec({2, 3, 8, 8})}),
  };
  return cases;
}

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_SEEDMODELS_H
