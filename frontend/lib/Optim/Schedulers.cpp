//===- Schedulers.cpp - torch.optim.lr_scheduler's formulas ---------------===//
//
// Each get_lr() is the one of torch/optim/lr_scheduler.py: from the groups'
// current learning rates, recursively, except where PyTorch's is a closed
// form (MultiStepLR counts milestones; StepLR and the others multiply).
//
//===----------------------------------------------------------------------===//

#include "nn/Optim/Schedulers.h"

#include "nn/Runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace nn::optim {

namespace {

std::vector<double> currentLrs(const Optimizer &optimizer) {
  std::vector<double> lrs;
  for (const OptimizerParamGroup &group : optimizer.param_groups())
    lrs.push_back(group.options().get_lr());
  return lrs;
}

} // namespace

LRScheduler::LRScheduler(Optimizer &optimizer)
    : optimizer_(optimizer), base_lrs_(currentLrs(optimizer)),
      last_lr_(base_lrs_) {}

void LRScheduler::step() {
  ++last_epoch_;
  last_lr_ = get_lr();
  for (size_t i = 0; i < last_lr_.size(); ++i)
    optimizer_.param_groups()[i].options().set_lr(last_lr_[i]);
}

StepLR::StepLR(Optimizer &optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  if (step_size <= 0)
    throw Error("StepLR: step_size must be positive, got " +
                std::to_string(step_size));
}

std::vector<double> StepLR::get_lr() const {
  std::vector<double> lrs = currentLrs(optimizer_);
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0)
    return lrs;
  for (double &lr : lrs)
    lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer &optimizer, std::vector<int64_t> milestones,
                         double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)),
      gamma_(gamma) {}

std::vector<double> MultiStepLR::get_lr() const {
  std::vector<double> lrs = currentLrs(optimizer_);
  // A milestone listed k times multiplies by gamma^k at that epoch.
  int64_t hits =
      std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  for (double &lr : lrs)
    lr *= std::pow(gamma_, static_cast<double>(hits));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer &optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {}

std::vector<double> ExponentialLR::get_lr() const {
  std::vector<double> lrs = currentLrs(optimizer_);
  if (last_epoch_ == 0)
    return lrs;
  for (double &lr : lrs)
    lr *= gamma_;
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer &optimizer, int64_t T_max,
                                     double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  if (T_max <= 0)
    throw Error("CosineAnnealingLR: T_max must be positive, got " +
                std::to_string(T_max));
}

std::vector<double> CosineAnnealingLR::get_lr() const {
  std::vector<double> lrs = currentLrs(optimizer_);
  if (last_epoch_ == 0)
    return lrs;
  const double pi = M_PI;
  double e = static_cast<double>(last_epoch_), T = static_cast<double>(T_max_);
  for (size_t i = 0; i < lrs.size(); ++i) {
    double &lr = lrs[i];
    if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0)
      lr = lr + (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    else
      lr = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) *
               (lr - eta_min_) +
           eta_min_;
  }
  return lrs;
}

LinearLR::LinearLR(Optimizer &optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer), start_factor_(start_factor),
      end_factor_(end_factor), total_iters_(total_iters) {
  if (start_factor <= 0 || start_factor > 1 || end_factor < 0 || end_factor > 1)
    throw Error("LinearLR: start_factor must be in (0, 1] and end_factor in "
                "[0, 1]");
  // PyTorch applies the start factor when the scheduler is made.
  for (OptimizerParamGroup &group : optimizer.param_groups())
    group.options().set_lr(group.options().get_lr() * start_factor);
  last_lr_ = currentLrs(optimizer);
}

std::vector<double> LinearLR::get_lr() const {
  std::vector<double> lrs = currentLrs(optimizer_);
  if (last_epoch_ > total_iters_)
    return lrs;
  double factor = 1 + (end_factor_ - start_factor_) /
                          (total_iters_ * start_factor_ +
                           (last_epoch_ - 1) * (end_factor_ - start_factor_));
  for (double &lr : lrs)
    lr *= factor;
  return lrs;
}

} // namespace nn::optim
