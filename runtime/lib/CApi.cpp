//===- CApi.cpp - The runtime's C interface (nn/Runtime/CApi.h) -----------===//
//
// A thin layer over nn::Artifact: caller buffers become borrowed tensors
// (Tensor::from_blob), so every check is nn::Artifact's own; C++ exceptions
// and absl statuses become a return code and nn_last_error().
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/CApi.h"

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/Safetensors.h"

#include "absl/strings/str_cat.h"

#include <exception>
#include <string>
#include <vector>

struct nn_artifact {
  std::shared_ptr<nn::Artifact> artifact;
  /// The tensors bound from a file: the artifact shares their storage.
  nn::StateDict weights;
};

namespace {

thread_local std::string lastError;

int fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

/// Runs `body`, turning an exception into a failure.
template <typename Body> int guarded(Body body) {
  try {
    return body();
  } catch (const std::exception &error) {
    return fail(error.what());
  } catch (...) {
    return fail("unknown error");
  }
}

constexpr nn::DType kDTypes[] = {
    nn::DType::f32,  nn::DType::f64, nn::DType::f16,
    nn::DType::bf16, nn::DType::i64, nn::DType::i32,
    nn::DType::i8,   nn::DType::u8,  nn::DType::boolean};

/// `tensors[0, count)` as borrowed tensors, or a message naming the first
/// malformed one ("input 1: ...").
absl::StatusOr<std::vector<nn::Tensor>> borrow(const nn_tensor *tensors,
                                               size_t count, const char *role) {
  std::vector<nn::Tensor> borrowed;
  if (count > 0 && !tensors)
    return absl::InvalidArgumentError(
        absl::StrCat(count, " ", role, "s announced, but the array is null"));
  for (size_t i = 0; i < count; ++i) {
    const nn_tensor &t = tensors[i];
    auto bad = [&](const std::string &what) {
      return absl::InvalidArgumentError(absl::StrCat(role, " ", i, ": ", what));
    };
    if (t.rank < 0 || (t.rank > 0 && !t.shape))
      return bad("a shape of rank " + std::to_string(t.rank) +
                 " needs that many sizes");
    if (static_cast<unsigned>(t.dtype) >= std::size(kDTypes))
      return bad("unknown dtype " + std::to_string(int(t.dtype)));
    nn::DType dtype = kDTypes[t.dtype];
    if (reinterpret_cast<uintptr_t>(t.data) % nn::dtype_size(dtype) != 0)
      return bad("data is not aligned to its " +
                 std::string(nn::dtype_name(dtype)) + " elements");
    nn::Shape shape(t.shape, t.shape + t.rank);
    for (int64_t d : shape)
      if (d < 0)
        return bad("negative size in shape " + nn::shape_str(shape));
    borrowed.push_back(nn::Tensor::from_blob(t.data, shape, dtype));
  }
  return borrowed;
}

} // namespace

extern "C" {

const char *nn_last_error(void) { return lastError.c_str(); }

nn_artifact *nn_artifact_load(const char *path) {
  nn_artifact *result = nullptr;
  guarded([&] {
    if (!path)
      return fail("nn_artifact_load: the path is null");
    auto loaded = nn::Artifact::load(path);
    if (!loaded.ok())
      return fail(std::string(loaded.status().message()));
    result = new nn_artifact{*std::move(loaded), {}};
    return 0;
  });
  return result;
}

int nn_artifact_bind_safetensors(nn_artifact *artifact, const char *path) {
  return guarded([&] {
    if (!artifact || !path)
      return fail("nn_artifact_bind_safetensors: null artifact or path");
    auto contents = nn::load_safetensors(path);
    if (!contents.ok())
      return fail(std::string(contents.status().message()));
    if (absl::Status bound = artifact->artifact->bind(contents->tensors);
        !bound.ok())
      return fail(std::string(bound.message()));
    artifact->weights = std::move(contents->tensors);
    return 0;
  });
}

const char *nn_artifact_describe(const nn_artifact *artifact) {
  return artifact ? artifact->artifact->description_json().c_str() : "";
}

size_t nn_artifact_num_inputs(const nn_artifact *artifact) {
  return artifact ? artifact->artifact->description().inputs.size() : 0;
}

size_t nn_artifact_num_outputs(const nn_artifact *artifact) {
  return artifact ? artifact->artifact->description().outputs.size() : 0;
}

int nn_artifact_run(nn_artifact *artifact, const nn_tensor *inputs,
                    size_t num_inputs, const nn_tensor *outputs,
                    size_t num_outputs) {
  return guarded([&] {
    if (!artifact)
      return fail("nn_artifact_run: the artifact is null");
    auto in = borrow(inputs, num_inputs, "input");
    if (!in.ok())
      return fail(std::string(in.status().message()));
    auto out = borrow(outputs, num_outputs, "output");
    if (!out.ok())
      return fail(std::string(out.status().message()));
    if (absl::Status ran = artifact->artifact->run_into(*in, *out); !ran.ok())
      return fail(std::string(ran.message()));
    return 0;
  });
}

void nn_artifact_free(nn_artifact *artifact) { delete artifact; }

} // extern "C"
