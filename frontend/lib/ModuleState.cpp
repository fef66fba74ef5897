//===- ModuleState.cpp - state_dict, load_state_dict and to(dtype) --------===//
//
// The state of a module tree as PyTorch has it: state_dict() in PyTorch's
// key order with tied tensors under every name, an all-or-nothing
// load_state_dict() that reports every problem at once, and conversions
// (to(dtype), to(device)) done in place so ties stay tied.
//
//===----------------------------------------------------------------------===//

#include "nn/Frontend/Module.h"
#include "nn/Runtime/Cuda.h"

#include <cstring>
#include <sstream>
#include <unordered_map>

namespace nn {

/// A tensor's identity: its storage (what ties share), or the Tensor object
/// for a symbolic tensor, which has none.
static const void *identityOf(const Tensor &tensor) {
  return tensor.storage() ? static_cast<const void *>(tensor.storage().get())
                          : static_cast<const void *>(&tensor);
}

std::vector<Tensor *> Module::own_tensor_slots() {
  std::vector<Tensor *> result;
  for (auto *slots : {&parameters_, &buffers_})
    for (TensorSlot &slot : *slots)
      if (slot.tensor && slot.tensor->defined())
        result.push_back(slot.tensor);
  return result;
}

//===----------------------------------------------------------------------===//
// state_dict
//===----------------------------------------------------------------------===//

void Module::collect_state(StateDict &out, const std::string &prefix) const {
  // Parameters, then persistent buffers, then children, recursively along
  // every path, as torch.nn.Module.state_dict.
  for (const TensorSlot &slot : parameters_)
    if (slot.tensor && slot.tensor->defined())
      out.insert(prefix + slot.name, *slot.tensor);
  for (const TensorSlot &slot : buffers_)
    if (slot.tensor && slot.tensor->defined() && slot.persistent)
      out.insert(prefix + slot.name, *slot.tensor);
  for (const auto &[name, child] : children_)
    child->collect_state(out, prefix + name + ".");
}

StateDict Module::state_dict() const {
  StateDict result;
  collect_state(result, "");
  return result;
}

//===----------------------------------------------------------------------===//
// load_state_dict
//===----------------------------------------------------------------------===//

static bool sameBytes(const Tensor &a, const Tensor &b) {
  return a.nbytes() == b.nbytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

LoadResult Module::load_state_dict(const StateDict &state, bool strict) {
  StateDict own = state_dict();
  LoadResult result;
  std::vector<std::string> problems;
  // One copy per storage: the first key that reaches it. A tied tensor's
  // other keys must bring the same bytes.
  std::unordered_map<const void *, std::pair<std::string, const Tensor *>>
      sources;
  std::vector<std::pair<Tensor, const Tensor *>> copies;
  for (const auto &[name, tensor] : own) {
    const Tensor *source = state.find(name);
    if (!source) {
      result.missing_keys.push_back(name);
    } else if (!source->defined() || !source->storage()) {
      problems.push_back("no data for " + name + ": the checkpoint holds " +
                         source->to_string());
    } else if (source->shape() != tensor.shape()) {
      problems.push_back("size mismatch for " + name +
                         ": copying a param with shape " +
                         shape_str(source->shape()) +
                         " from checkpoint, the shape in current model is " +
                         shape_str(tensor.shape()));
    } else if (source->dtype() != tensor.dtype()) {
      problems.push_back("dtype mismatch for " + name +
                         ": copying a param of dtype " +
                         std::string(dtype_name(source->dtype())) +
                         " from checkpoint, the dtype in current model is " +
                         std::string(dtype_name(tensor.dtype())));
    } else {
      auto [it, first] = sources.try_emplace(identityOf(tensor), name, source);
      if (first)
        copies.emplace_back(tensor, source);
      else if (!sameBytes(*it->second.second, *source))
        problems.push_back("tied tensors " + it->second.first + " and " + name +
                           " share storage in the model, but the "
                           "checkpoint holds different values for them");
    }
  }
  for (const auto &[name, tensor] : state)
    if (!own.contains(name))
      result.unexpected_keys.push_back(name);

  bool keysFail = strict && (!result.missing_keys.empty() ||
                             !result.unexpected_keys.empty());
  if (keysFail || !problems.empty()) {
    std::ostringstream os;
    os << "Error(s) in loading state_dict for " << name_ << ":";
    auto list = [&](const char *what, const std::vector<std::string> &keys) {
      if (keys.empty())
        return;
      os << "\n\t" << what << ": ";
      for (size_t i = 0; i < keys.size(); ++i)
        os << (i ? ", " : "") << '"' << keys[i] << '"';
      os << ".";
    };
    if (strict) {
      list("Missing key(s) in state_dict", result.missing_keys);
      list("Unexpected key(s) in state_dict", result.unexpected_keys);
    }
    for (const std::string &problem : problems)
      os << "\n\t" << problem << ".";
    throw Error(os.str());
  }
  // Everything checked: copy into the existing storages, so ties and
  // artifacts bound to these tensors see the new values.
  for (auto &[target, source] : copies)
    target.copy_(*source);
  return result;
}

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

/// Converts first (each storage once), then assigns, so a failure leaves
/// the module as it was and tied slots get one shared result; requires_grad
/// carries over and the gradient is converted too.
void Module::convert_slots(
    const std::function<bool(const Tensor &)> &wanted,
    const std::function<Tensor(const Tensor &)> &convert) {
  std::unordered_map<const void *, Tensor> converted;
  std::vector<std::pair<Tensor *, const void *>> targets;
  for (auto &[path, module] : named_modules()) {
    for (Tensor *slot : module->own_tensor_slots()) {
      if (!slot->storage() || !wanted(*slot))
        continue;
      const void *id = identityOf(*slot);
      targets.emplace_back(slot, id);
      auto [it, first] = converted.try_emplace(id);
      if (!first)
        continue;
      Tensor result = convert(*slot);
      result.set_requires_grad(slot->requires_grad());
      if (slot->grad().defined())
        result.set_grad(convert(slot->grad()));
      it->second = std::move(result);
    }
  }
  for (auto &[slot, id] : targets)
    *slot = converted.at(id);
}

Module &Module::to(DType dtype) {
  if (!is_floating_point(dtype))
    throw Error(name_ + ".to(" + std::string(dtype_name(dtype)) +
                "): modules convert only to floating point dtypes "
                "(float32, float64, float16, bfloat16)");
  convert_slots(
      [&](const Tensor &t) {
        return is_floating_point(t.dtype()) && t.dtype() != dtype;
      },
      [&](const Tensor &t) { return t.to(dtype); });
  return *this;
}

Module &Module::to(Device device) {
  try {
    cuda::check_device(device);
    convert_slots([&](const Tensor &t) { return t.device() != device; },
                  [&](const Tensor &t) { return t.to(device); });
  } catch (const Error &e) {
    throw Error(name_ + ".to(" + device.str() + "): " + e.what());
  }
  return *this;
}

} // namespace nn
