//===- Artifact.h - A compiled model, loaded and runnable -------*- C++ -*-===//
//
// An Artifact wraps the table of ArtifactABI.h, whether it came from a shared
// object (Artifact::load, dlopen) or from the JIT. It parses the description,
// binds weights by state_dict name, and runs forward with every input checked
// at the boundary (name, dtype, shape).
//
//   auto artifact = nn::Artifact::load("model.so");       // StatusOr
//   auto weights = nn::load_safetensors("model.safetensors");
//   artifact.value()->bind(weights->tensors);              // Status
//   auto outputs = artifact.value()->run({input});         // StatusOr
//
// bind() must precede run(); after that, run() may be called from many
// threads at once. bind() also runs the artifact's prepare step, which
// computes once what depends on the state alone (batch-norm folded into
// the weights, weights packed for the kernels) into the artifact's context.
// Those values are a snapshot: after updating a bound tensor in place
// (copy_, an optimizer step, writing through data_ptr), call prepare() (or
// bind() again) before the next run. nn::CompiledModule does this for you. A
// training forward with dropout takes the state of a counter-based generator
// that run() supplies and advances (see RngState).
//
// On a GPU: Artifact::load(path, nn::Device::cuda(i)) runs forward there,
// from the kernels a model compiled for CUDA carries (nn-compile
// --target=cuda; nn/Runtime/CudaImage.h). bind() and prepare() copy the
// state to the GPU (a tensor already there is used in place); inputs and
// outputs may be on the host or on that GPU: host inputs are copied in,
// host outputs copied back before run returns, and a run whose outputs are
// on the GPU returns once its kernels are queued on the default stream,
// as a PyTorch module on a GPU does.
//
// Heavy ops run in the micro-kernels of nn/Runtime/Kernels.h on
// nn_rt_set_num_threads(n) threads (1 by default); run() passes that count on
// to a loaded .so, which carries its own copy of the kernels.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_ARTIFACT_H
#define NN_RUNTIME_ARTIFACT_H

#include "nn/Runtime/ArtifactABI.h"
#include "nn/Runtime/ArtifactDescription.h"
#include "nn/Runtime/StateDict.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nn {

/// The state of the counter-based generator a compiled forward draws its
/// random numbers from (training dropout): Philox4x32-10 under key `seed`,
/// counters from `offset` on.
struct RngState {
  uint64_t seed = 0;
  uint64_t offset = 0;
  bool operator==(const RngState &other) const {
    return seed == other.seed && offset == other.offset;
  }
};

class Artifact {
public:
  /// dlopens a compiled model (.so) and checks its table and description,
  /// and that this CPU has every ISA feature the code was compiled to use
  /// (FailedPrecondition naming the missing ones otherwise). `path` is a
  /// file path: "model.so" is the file in the current folder. On `device` a
  /// GPU, forward runs there; that needs a CUDA driver, the GPU, and a model
  /// compiled for CUDA for an architecture that GPU runs (an error names
  /// whichever is missing: "no CUDA driver found: ...", "device 1 requested,
  /// 1 device present", "compiled for sm_90; GPU 0 (...) is sm_80").
  static absl::StatusOr<std::shared_ptr<Artifact>>
  load(const std::string &path, Device device = Device::cpu());
  /// Wraps a table from any source; `owner` keeps its code alive. `source`
  /// names it in error messages.
  static absl::StatusOr<std::shared_ptr<Artifact>>
  from_table(const nn_artifact_v2 *table, std::shared_ptr<void> owner,
             std::string source);
  /// As above, running forward on GPU `device` from `cuda_image`, the bytes
  /// of nn/Runtime/CudaImage.h (nn::compile for a GPU); load()'s errors.
  static absl::StatusOr<std::shared_ptr<Artifact>>
  from_table(const nn_artifact_v2 *table, std::shared_ptr<void> owner,
             std::string source, Device device, std::string_view cuda_image);

  ~Artifact();
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const ArtifactDescription &description() const { return description_; }
  /// Where forward runs: the CPU, or the GPU load() was given.
  Device device() const { return device_; }
  const std::string &description_json() const { return json_; }

  /// Binds every state entry of the description to the tensor of that name
  /// (or alias) in `state`; an embedded entry that `state` lacks keeps the
  /// artifact's own copy. Fails listing every missing name and every shape
  /// or dtype mismatch with both sides, and, when `strict` (as PyTorch's
  /// load_state_dict(strict=True)), every tensor of `state` the model does
  /// not take. Storage is shared, not copied: later in-place updates of
  /// those tensors are seen by run().
  absl::Status bind(const StateDict &state, bool strict = false);
  /// The names in `state` that no state entry of the description is named
  /// or aliased by, in `state`'s order: what a strict bind() refuses
  /// (PyTorch's unexpected_keys).
  std::vector<std::string> unexpected_state(const StateDict &state) const;
  /// Whether bind() and its prepare step succeeded: run() refuses before.
  bool is_bound() const { return bound_; }
  /// The tensors bound, by their description names: those given to bind()
  /// (shared) and those it created (starts_at_zero). A training step
  /// updates them in place; save them to resume.
  const StateDict &bound_state() const { return named_state_; }
  /// Recomputes the state-derived values (see the file comment) from the
  /// bound tensors' current contents. Must not run concurrently with run().
  /// On failure the artifact is unbound until a later prepare() succeeds.
  absl::Status prepare();
  /// How many times prepare succeeded (bind() included).
  uint64_t prepare_count() const { return prepares_; }

  /// Runs forward on positional inputs. A forward that draws random numbers
  /// (description().has_rng) draws them from `rng` when given, else from the
  /// artifact's own generator, which each such run advances (atomically) by
  /// the forward's draws: every run gets fresh numbers. Artifacts without
  /// random ops ignore `rng`.
  absl::StatusOr<std::vector<Tensor>>
  run(const std::vector<Tensor> &inputs,
      std::optional<RngState> rng = std::nullopt) const;
  /// As run(inputs, rng), writing into `outputs`: caller-owned tensors of
  /// the described shapes and dtypes, reused across runs so no output is
  /// allocated (or faulted in) per call. None may share storage with an
  /// input, the bound state or another output.
  absl::Status run_into(const std::vector<Tensor> &inputs,
                        std::vector<Tensor> &outputs,
                        std::optional<RngState> rng = std::nullopt) const;
  /// Runs forward on named inputs ("input.0", ...); every input must be
  /// present and nothing else. Outputs are named as in the description.
  absl::StatusOr<StateDict>
  run(const StateDict &inputs,
      std::optional<RngState> rng = std::nullopt) const;

  /// Restarts the artifact's generator at (seed, offset 0). Artifacts start
  /// at seed 0; nn::compile seeds them from nn's default generator, so
  /// nn::manual_seed before compiling reproduces the runs.
  void manual_seed(uint64_t seed) { set_rng_state({seed, 0}); }
  /// The state the next run without an explicit state draws from.
  RngState rng_state() const;
  void set_rng_state(RngState state);

private:
  Artifact() = default;
  /// The GPU half of an artifact loaded on a GPU (defined in Artifact.cpp).
  struct Gpu;
  /// Loads the bytes of a CUDA image (nullopt: the artifact has none) on
  /// `device` into gpu_.
  absl::Status loadGpu(std::optional<std::string_view> image, Device device);
  /// Copies the bound state the GPU's forward takes to the GPU.
  absl::Status prepareGpu();
  /// Runs the GPU's forward on checked inputs.
  absl::Status invokeGpu(const std::vector<Tensor> &inputs,
                         std::vector<Tensor> &outputs) const;
  /// What run and run_into check first: bound, and every input as the
  /// description says (name, dtype, shape, device, index ranges).
  absl::Status checkInputs(const std::vector<Tensor> &inputs) const;
  /// Checks the outputs and runs forward on checked inputs.
  absl::Status invoke(const std::vector<Tensor> &inputs,
                      std::vector<Tensor> &outputs,
                      std::optional<RngState> rng) const;
  std::string source_;
  std::shared_ptr<void> owner_;
  const nn_artifact_v2 *table_ = nullptr;
  void *context_ = nullptr;
  std::string json_;
  ArtifactDescription description_;
  std::vector<Tensor> state_;
  StateDict named_state_;
  bool has_binding_ = false; // bind() found every tensor
  bool bound_ = false;       // ... and prepare() succeeded on them
  uint64_t prepares_ = 0;
  /// The artifact's generator; run() is const and may run on many threads.
  mutable std::mutex rng_mutex_;
  mutable RngState rng_;
  Device device_ = Device::cpu();
  std::unique_ptr<Gpu> gpu_;
  /// The loaded .so's own nn_rt_set_num_threads (its copy of the kernels).
  void (*set_num_threads_)(int32_t) = nullptr;
};

} // namespace nn

#endif // NN_RUNTIME_ARTIFACT_H
