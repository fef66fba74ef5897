//===- Schedulers.h - Learning-rate schedules -------------------*- C++ -*-===//
//
// torch.optim.lr_scheduler's StepLR, MultiStepLR, ExponentialLR,
// CosineAnnealingLR and LinearLR: each step() (once per epoch, after the
// optimizer's) sets every group's learning rate as PyTorch's does, with
// PyTorch's recursive ("chainable") formulas, so the values are PyTorch's
// to the last bit. The learning rate is an input of the compiled update:
// nothing recompiles.
//
//   nn::optim::StepLR schedule(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 90; ++epoch) {
//     train(...);
//     schedule.step();
//   }
//
// See https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIM_SCHEDULERS_H
#define NN_OPTIM_SCHEDULERS_H

#include "nn/Optim/Optimizer.h"

#include <vector>

namespace nn::optim {

class LRScheduler {
public:
  virtual ~LRScheduler() = default;
  /// Advances one epoch and sets every group's learning rate.
  void step();
  /// The learning rates last set, by group.
  const std::vector<double> &get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }

protected:
  /// Records each group's initial learning rate, as PyTorch does when a
  /// scheduler is made (epoch 0).
  explicit LRScheduler(Optimizer &optimizer);
  /// The learning rates of epoch last_epoch() from the current ones.
  virtual std::vector<double> get_lr() const = 0;

  Optimizer &optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

/// lr · gamma every step_size epochs.
class StepLR : public LRScheduler {
public:
  StepLR(Optimizer &optimizer, int64_t step_size, double gamma = 0.1);

protected:
  std::vector<double> get_lr() const override;

private:
  int64_t step_size_;
  double gamma_;
};

/// lr · gamma at each milestone epoch (a repeated milestone, once more).
class MultiStepLR : public LRScheduler {
public:
  MultiStepLR(Optimizer &optimizer, std::vector<int64_t> milestones,
              double gamma = 0.1);

protected:
  std::vector<double> get_lr() const override;

private:
  std::vector<int64_t> milestones_;
  double gamma_;
};

/// lr · gamma every epoch.
class ExponentialLR : public LRScheduler {
public:
  ExponentialLR(Optimizer &optimizer, double gamma);

protected:
  std::vector<double> get_lr() const override;

private:
  double gamma_;
};

/// Half a cosine from the initial lr down to eta_min over T_max epochs.
class CosineAnnealingLR : public LRScheduler {
public:
  CosineAnnealingLR(Optimizer &optimizer, int64_t T_max, double eta_min = 0);

protected:
  std::vector<double> get_lr() const override;

private:
  int64_t T_max_;
  double eta_min_;
};

/// lr · factor, the factor going linearly from start_factor to end_factor
/// over total_iters epochs (a warm-up).
class LinearLR : public LRScheduler {
public:
  LinearLR(Optimizer &optimizer, double start_factor = 1.0 / 3,
           double end_factor = 1.0, int64_t total_iters = 5);

protected:
  std::vector<double> get_lr() const override;

private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

} // namespace nn::optim

#endif // NN_OPTIM_SCHEDULERS_H
