//===- main.cpp - Train a small CNN on the 8x8 digits, beside PyTorch -----===//
//
// scikit-learn's handwritten digits (1797 8x8 images; digits.py reads the
// data file Debian's python3-sklearn ships and writes it as safetensors with
// the split, the initial weights, every epoch's batch order and PyTorch's own
// run). This program trains the same CNN from the same weights in the same
// order with nn::TrainStep (forward, cross-entropy, backward and the SGD
// update, compiled), evaluates the test set after each epoch with the
// compiled forward, and prints both runs side by side:
//
//   epoch 1/8 [#############################################] loss 2.2282 ...
//
// It exits 1 when the test accuracy ends below 95% or the first steps'
// losses leave float tolerance of PyTorch's.
//
//   nn-train-digits DATA_DIR       (DATA_DIR: where digits.py wrote)
//
//===----------------------------------------------------------------------===//

#include "nn/Train.h"
#include "nn/nn.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace {

// As in digits.py.
constexpr int64_t kEpochs = 8, kBatch = 32, kTrain = 1440;
constexpr double kLr = 0.05, kMomentum = 0.9;
/// The steps whose losses must match PyTorch's within float tolerance; later
/// ones drift apart as any two float summation orders do (and are shown).
constexpr int64_t kMatchedSteps = 20;

/// The CNN (digits.py's digits_net): same layers, same state_dict names.
nn::Sequential digitsNet() {
  using namespace nn;
  return Sequential({{"0", Conv2d(Conv2dOptions(1, 16, 3).padding(1))},
                     {"1", ReLU()},
                     {"2", MaxPool2d(MaxPool2dOptions(2))},
                     {"3", Conv2d(Conv2dOptions(16, 32, 3).padding(1))},
                     {"4", ReLU()},
                     {"5", MaxPool2d(MaxPool2dOptions(2))},
                     {"6", Flatten()},
                     {"7", Linear(128, 64)},
                     {"8", ReLU()},
                     {"9", Linear(64, 10)}});
}

nn::SafetensorsContents load(const std::string &path) {
  auto contents = nn::load_safetensors(path);
  if (!contents.ok())
    throw nn::Error(std::string(contents.status().message()) +
                    " (run digits.py DATA_DIR first)");
  return *std::move(contents);
}

/// Rows `indices[first, first + count)` of `data` (rows along dim 0).
nn::Tensor gather(const nn::Tensor &data, const int64_t *indices,
                  int64_t count) {
  nn::Shape shape = data.shape();
  int64_t rowBytes = data.nbytes() / shape[0];
  shape[0] = count;
  nn::Tensor out = nn::Tensor::zeros(shape, data.dtype());
  auto *to = static_cast<char *>(out.raw_data());
  const auto *from = static_cast<const char *>(data.raw_data());
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(to + i * rowBytes, from + indices[i] * rowBytes, rowBytes);
  return out;
}

/// The fraction of rows of `logits` whose argmax is `labels`'.
double accuracy(const nn::Tensor &logits, const nn::Tensor &labels) {
  int64_t rows = logits.shape()[0], classes = logits.shape()[1], right = 0;
  const float *l = logits.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r)
    right += std::max_element(l + r * classes, l + (r + 1) * classes) -
                 (l + r * classes) ==
             labels.data_ptr<int64_t>()[r];
  return double(right) / double(rows);
}

void progress(int64_t epoch, int64_t done, int64_t total, bool tty) {
  if (!tty)
    return;
  std::string bar(done, '#');
  bar.resize(total, '.');
  std::fprintf(stdout, "\repoch %lld/%lld [%s]", (long long)epoch,
               (long long)kEpochs, bar.c_str());
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: nn-train-digits DATA_DIR (where digits.py wrote)\n";
    return 2;
  }
  std::string dir = argv[1];
  try {
    nn::SafetensorsContents data = load(dir + "/digits.safetensors");
    nn::SafetensorsContents initial = load(dir + "/initial.safetensors");
    nn::SafetensorsContents pytorch = load(dir + "/pytorch.safetensors");
    const nn::Tensor &trainX = data.tensors.at("train_x"),
                     &trainY = data.tensors.at("train_y"),
                     &testX = data.tensors.at("test_x"),
                     &testY = data.tensors.at("test_y"),
                     &order = data.tensors.at("order");
    const nn::Tensor &theirLoss = pytorch.tensors.at("loss"),
                     &theirAccuracy = pytorch.tensors.at("accuracy");

    nn::Sequential model = digitsNet();
    model->load_state_dict(initial.tensors);
    nn::optim::SGD optimizer(model->parameters(),
                             nn::optim::SGDOptions(kLr).momentum(kMomentum));
    nn::CrossEntropyLoss lossFn;
    nn::TrainStep step(model, lossFn, {nn::TensorSpec({kBatch, 1, 8, 8})},
                       {nn::TensorSpec({kBatch}, nn::DType::i64)}, optimizer);
    nn::CompiledModule evaluate(model, {nn::TensorSpec(testX.shape())});

    const int64_t steps = kTrain / kBatch;
    const bool tty = isatty(STDOUT_FILENO);
    std::printf(
        "%d training and %d test images, batch %lld, SGD lr %g momentum %g\n",
        int(trainY.numel()), int(testY.numel()), (long long)kBatch, kLr,
        kMomentum);
    std::printf("%-9s %-10s %-10s %-13s %s\n", "", "nn loss", "PyTorch",
                "nn test acc%", "PyTorch");
    double worstEarly = 0, trainSeconds = 0, finalAccuracy = 0;
    bool matched = true;
    for (int64_t epoch = 1; epoch <= kEpochs; ++epoch) {
      model->train();
      double sum = 0, theirSum = 0;
      auto start = std::chrono::steady_clock::now();
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t *batch =
            order.data_ptr<int64_t>() + (epoch - 1) * kTrain + s * kBatch;
        nn::Tensor loss =
            step(gather(trainX, batch, kBatch), gather(trainY, batch, kBatch));
        int64_t k = (epoch - 1) * steps + s;
        double ours = loss.item_as_double(0),
               theirs = theirLoss.item_as_double(k);
        sum += ours;
        theirSum += theirs;
        if (k < kMatchedSteps) {
          // torch.testing's float32 tolerance; the loss sums 32 rows of
          // gradients-of-gradients later, so it is checked early only.
          double difference = std::abs(ours - theirs);
          worstEarly = std::max(worstEarly, difference);
          matched &= difference <= 1e-5 + 1.3e-6 * std::abs(theirs);
        }
        progress(epoch, s + 1, steps, tty);
      }
      auto end = std::chrono::steady_clock::now();
      if (epoch > 1) // the first epoch compiles
        trainSeconds += std::chrono::duration<double>(end - start).count();
      model->eval();
      finalAccuracy = accuracy(evaluate({testX})[0], testY);
      if (tty)
        std::printf("\r%*s\r", int(steps + 20), "");
      std::printf("epoch %-3lld %-10.4f %-10.4f %-13.1f %.1f\n",
                  (long long)epoch, sum / steps, theirSum / steps,
                  100 * finalAccuracy,
                  100 * theirAccuracy.item_as_double(epoch - 1));
    }
    std::printf("first %lld steps: max |nn loss - PyTorch loss| = %.3g (%s)\n",
                (long long)kMatchedSteps, worstEarly,
                matched ? "within rtol 1.3e-6, atol 1e-5" : "MISMATCH");
    std::printf("%.2f ms per training step (epochs 2-%lld; PyTorch eager, one "
                "thread: %.2f ms)\n",
                1000 * trainSeconds / double((kEpochs - 1) * steps),
                (long long)kEpochs,
                pytorch.tensors.at("ms_per_step").item_as_double(0));
    if (finalAccuracy < 0.95) {
      std::printf("test accuracy %.1f%% is below 95%%\n", 100 * finalAccuracy);
      return 1;
    }
    return matched ? 0 : 1;
  } catch (const nn::Error &e) {
    std::cerr << "nn-train-digits: " << e.what() << "\n";
    return 1;
  }
}
