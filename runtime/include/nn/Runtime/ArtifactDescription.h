//===- ArtifactDescription.h - A compiled model's description -*- C++ -*-===//
//
// The description every compiled model carries (ArtifactABI.h): its state
// by state_dict name, its inputs and outputs, the generator state it draws
// from, its workspace and the CPU it was compiled for, as one typed struct
// with its JSON form. The compiler reads it off the nn module before
// lowering, carries it as a typed attribute (#nn_kernel.artifact), completes
// it once the module is lowered and writes it with to_json; the runtime
// reads it with parse_artifact_description. Neither writes or reads the
// JSON any other way.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_ARTIFACTDESCRIPTION_H
#define NN_RUNTIME_ARTIFACTDESCRIPTION_H

#include "nn/Runtime/DType.h"
#include "nn/Runtime/Tensor.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nn {

/// A range the values of an integer input must lie in, [0, high) except
/// `ignore`: what an op that indexes with them (embedding, index_select,
/// gather, nll_loss's targets) can read. run() checks it, so an index out of
/// range is an error, as in PyTorch, and never a read out of bounds.
struct IndexCheck {
  std::string op;    // "embedding", "nll_loss", ...
  std::string where; // the op's module path, when known
  int64_t high = 0;
  std::optional<int64_t> ignore;

  bool operator==(const IndexCheck &) const = default;
};

struct TensorInfo {
  std::string name;
  Shape shape;
  DType dtype = DType::f32;
  /// For inputs: the index ranges their values must respect.
  std::vector<IndexCheck> index_checks;
  /// For a rank-0 input that has one (a training step's hyper-parameter,
  /// such as "optimizer.param_groups.0.lr"): the value it was compiled
  /// with, for a caller that has no other (nn-run). run() still needs
  /// every input.
  std::optional<double> default_value;

  bool operator==(const TensorInfo &) const = default;
};

struct StateInfo : TensorInfo {
  bool is_buffer = false;
  bool persistent = true;
  bool requires_grad = true;
  /// The tensor's other state_dict names (tied weights); bind() accepts any.
  std::vector<std::string> aliases;
  /// Whether forward takes it; state the compiled code never reads is still
  /// bound (and checked) by name, but not passed.
  bool argument = true;
  /// Whether the artifact carries its value (a non-persistent buffer, or
  /// every tensor of a model compiled with --embed-weights): bind() then
  /// takes it by name when given and the artifact's copy otherwise.
  bool embedded = false;
  /// Whether bind() creates it as zeros when not given: the optimizer state
  /// of a training step (see nn::TrainStep::compile_to_file) before its
  /// first step.
  bool starts_at_zero = false;

  bool operator==(const StateInfo &) const = default;
};

struct ArtifactDescription {
  std::vector<StateInfo> state; // in argument order (those with `argument`)
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  /// Whether forward takes the generator state (it draws random numbers),
  /// and how many counters one run uses.
  bool has_rng = false;
  uint64_t rng_draws = 0;
  /// The bytes of the arena forward takes from the calling thread's
  /// workspace for its planned intermediates (nn-plan-buffers); 0 when none
  /// or when the artifact does not say.
  int64_t workspace_bytes = 0;
  /// The CPU the code was generated for ("znver4", "haswell", ...) and the
  /// ISA features it may use (nn/Runtime/CpuFeatures.h names); loading
  /// refuses it on a CPU that lacks any. Empty when the artifact does not
  /// say.
  std::string target_cpu;
  std::vector<std::string> target_features;

  bool operator==(const ArtifactDescription &) const = default;
};

/// Parses and checks the JSON description of an artifact (ArtifactABI.h
/// lists its fields): InvalidArgument "<source>: invalid artifact
/// description: ..." naming what is wrong (the tensor, the field).
absl::StatusOr<ArtifactDescription>
parse_artifact_description(std::string_view json, const std::string &source);

/// What a description must hold beyond its JSON's form, checked by
/// parse_artifact_description and by the compiler before it writes one:
/// byte sizes an int64 counts, defaults only on scalars, index checks only on
/// int64 tensors and with a range >= 0, and names unique (state names and
/// their aliases one namespace, inputs another, outputs a third).
/// InvalidArgument "<source>: invalid artifact description: ..." naming the
/// first problem.
absl::Status check_artifact_description(const ArtifactDescription &description,
                                        const std::string &source);

/// The JSON text of `description` as an artifact carries it: compact, the
/// fields in ArtifactABI.h's order, optional ones only when set.
/// parse_artifact_description reads it back equal.
std::string to_json(const ArtifactDescription &description);

} // namespace nn

#endif // NN_RUNTIME_ARTIFACTDESCRIPTION_H
