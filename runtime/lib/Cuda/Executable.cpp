//===- Executable.cpp - Compiled functions run on a GPU -------------------===//

#include "Cuda/Executable.h"

#include "absl/strings/str_format.h"

#include <algorithm>

namespace nn::cuda::detail {

absl::StatusOr<std::unique_ptr<Executable>>
Executable::load(Driver &driver, CachingAllocator &allocator, int device,
                 const std::string &image, std::vector<LaunchPlan> plans) {
  std::unique_ptr<Executable> executable(
      new Executable(driver, allocator, device));
  absl::StatusOr<std::unique_ptr<KernelModule>> module =
      KernelModule::load(driver, device, image);
  if (!module.ok())
    return module.status();
  executable->module_ = std::move(*module);
  for (LaunchPlan &plan : plans) {
    std::string name = plan.function;
    Function &function = executable->functions_[name];
    function.plan = std::move(plan);
    for (const PlanLaunch &launch : function.plan.launches) {
      absl::StatusOr<Kernel> kernel =
          executable->module_->kernel(launch.kernel);
      if (!kernel.ok())
        return kernel.status();
      function.kernels.push_back(*kernel);
    }
    function.constants.assign(function.plan.buffers.size(), 0);
    for (size_t i = 0; i < function.plan.buffers.size(); ++i) {
      const PlanBuffer &buffer = function.plan.buffers[i];
      if (buffer.kind == PlanBuffer::Kind::Argument) {
        function.arguments = std::max(function.arguments, buffer.argument + 1);
        continue;
      }
      if (buffer.kind != PlanBuffer::Kind::Constant || buffer.bytes == 0)
        continue;
      if (buffer.data.size() != static_cast<size_t>(buffer.bytes))
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: constant buffer %d holds %d bytes of %d", name,
                            i, buffer.data.size(), buffer.bytes));
      absl::StatusOr<CUdeviceptr> constant =
          allocator.allocate(buffer.bytes, nullptr);
      if (!constant.ok())
        return constant.status();
      function.constants[i] = *constant;
      if (absl::Status s = driver.check(
              driver.cuMemcpyHtoD(*constant, buffer.data.data(), buffer.bytes),
              absl::StrFormat("cuMemcpyHtoD(%d bytes)", buffer.bytes));
          !s.ok())
        return s;
    }
  }
  return executable;
}

Executable::~Executable() {
  for (auto &[name, function] : functions_)
    for (CUdeviceptr constant : function.constants)
      (void)allocator_.free(constant);
}

const LaunchPlan *Executable::plan(const std::string &function) const {
  auto it = functions_.find(function);
  return it == functions_.end() ? nullptr : &it->second.plan;
}

absl::Status Executable::run(const std::string &name,
                             const std::vector<CUdeviceptr> &arguments,
                             CUstream stream) const {
  auto it = functions_.find(name);
  if (it == functions_.end())
    return absl::NotFoundError(
        absl::StrFormat("the compiled module has no function %s", name));
  const Function &function = it->second;
  if (arguments.size() != function.arguments)
    return absl::InvalidArgumentError(
        absl::StrFormat("%s takes %d arguments (state, inputs and outputs), "
                        "%d given",
                        name, function.arguments, arguments.size()));
  if (absl::Status s = driver_.use(device_); !s.ok())
    return s;

  // The temporaries go back to the allocator when the launches are queued
  // (or one fails).
  struct Temporaries {
    CachingAllocator &allocator;
    std::vector<CUdeviceptr> blocks;
    ~Temporaries() {
      for (CUdeviceptr block : blocks)
        (void)allocator.free(block);
    }
  } temporaries{allocator_, {}};
  const std::vector<PlanBuffer> &buffers = function.plan.buffers;
  std::vector<CUdeviceptr> base(buffers.size(), 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    switch (buffers[i].kind) {
    case PlanBuffer::Kind::Argument:
      base[i] = arguments[buffers[i].argument];
      break;
    case PlanBuffer::Kind::Constant:
      base[i] = function.constants[i];
      break;
    case PlanBuffer::Kind::Temporary: {
      absl::StatusOr<CUdeviceptr> temporary =
          allocator_.allocate(buffers[i].bytes, stream);
      if (!temporary.ok())
        return temporary.status();
      temporaries.blocks.push_back(*temporary);
      base[i] = *temporary;
      break;
    }
    }
  }
  // Each kernel takes its buffers' addresses as one struct of pointers.
  std::vector<CUdeviceptr> params;
  for (size_t l = 0; l < function.plan.launches.size(); ++l) {
    const PlanLaunch &launch = function.plan.launches[l];
    if (launch.iterations == 0)
      continue;
    params.clear();
    for (unsigned b : launch.buffers)
      params.push_back(base[b]);
    void *arguments[] = {params.data()};
    if (absl::Status s =
            detail::launch(driver_, function.kernels[l],
                           {launch.gridSize(), 1, 1}, {kBlockSize, 1, 1},
                           /*sharedBytes=*/0, stream, arguments);
        !s.ok())
      return s;
  }
  return absl::OkStatus();
}

} // namespace nn::cuda::detail
