//===- Artifact.cpp - Loading and running compiled models -----------------===//
//
// Loads the table of ArtifactABI.h, parses and validates its JSON
// description, binds weights and checks every input at the boundary.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Artifact.h"

#include "Cuda/Driver.h"
#include "Cuda/Executable.h"
#include "Cuda/Memory.h"
#include "Json.h"

#include "nn/Runtime/CpuFeatures.h"
#include "nn/Runtime/Cuda.h"
#include "nn/Runtime/CudaImage.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/Kernels.h"

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace nn {
namespace {

/// Refuses code that needs an ISA feature this CPU lacks: running it would
/// die of SIGILL at its first such instruction.
absl::Status checkCpu(const ArtifactDescription &description,
                      const std::string &source) {
  std::vector<std::string> missing =
      missing_cpu_features(description.target_features);
  if (missing.empty())
    return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      source, ": compiled for CPU '", description.target_cpu,
      "', it needs CPU features this machine lacks: ",
      absl::StrJoin(missing, ", "),
      "; compile it for this machine (--target-cpu=host) or for a CPU every "
      "machine it runs on has (e.g. --target-cpu=x86-64-v3)"));
}

/// The pointer an entry point takes for bound state `t`: its data, or null
/// for an embedded tensor left to the artifact's own copy.
void *stateArgument(const Tensor &t) {
  return t.defined() ? const_cast<void *>(t.raw_data()) : nullptr;
}

/// Whether `a` and `b` have data in common: the same storage, or byte
/// ranges that meet (tensors over caller memory, Tensor::from_blob).
bool overlaps(const Tensor &a, const Tensor &b) {
  if (a.shares_storage(b))
    return true;
  if (!a.defined() || !b.defined() || !a.storage() || !b.storage() ||
      a.device() != b.device())
    return false;
  const char *pa = static_cast<const char *>(a.storage()->data());
  const char *pb = static_cast<const char *>(b.storage()->data());
  return pa < pb + b.nbytes() && pb < pa + a.nbytes();
}

std::string describe(const Shape &shape, DType dtype) {
  return absl::StrCat(shape_str(shape), " ", std::string(dtype_name(dtype)));
}

/// Checks one tensor crossing the boundary against its description: its
/// shape and dtype, and that it is on the CPU or on `device`, where forward
/// runs.
absl::Status checkTensor(const char *role, const TensorInfo &info,
                         const Tensor &tensor, Device device) {
  if (!tensor.defined() || tensor.is_symbolic())
    return absl::InvalidArgumentError(absl::StrCat(
        role, " '", info.name, "': expected ", describe(info.shape, info.dtype),
        ", got a tensor without data"));
  if (tensor.shape() != info.shape || tensor.dtype() != info.dtype)
    return absl::InvalidArgumentError(absl::StrCat(
        role, " '", info.name, "': expected ", describe(info.shape, info.dtype),
        ", got ", describe(tensor.shape(), tensor.dtype())));
  if (!tensor.device().is_cpu() && tensor.device() != device)
    return absl::InvalidArgumentError(absl::StrCat(
        role, " '", info.name, "' is on ", tensor.device().str(),
        "; the model runs on ", device.str(), " and takes tensors on ",
        device.is_cpu() ? "the CPU" : "the CPU or " + device.str()));
  return absl::OkStatus();
}

/// The device address of a tensor on a GPU.
cuda::detail::CUdeviceptr deviceAddress(const Tensor &t) {
  return reinterpret_cast<cuda::detail::CUdeviceptr>(t.storage()->data());
}

/// `call`'s result, with an nn::Error it throws (out of GPU memory, a
/// driver failure) as a status of `code`: the artifact's API reports
/// errors as statuses.
template <typename Fn>
absl::Status catchErrors(const std::string &what, Fn &&call,
                         absl::StatusCode code = absl::StatusCode::kInternal) {
  try {
    return call();
  } catch (const Error &e) {
    return absl::Status(code, absl::StrCat(what, ": ", e.what()));
  }
}

/// Checks the values of an index input against what the ops reading it
/// accept: "embed: embedding: input 'input.0' holds index 12 at [1, 3],
/// out of range [0, 10)".
absl::Status checkIndices(const TensorInfo &info, const Tensor &tensor) {
  if (info.index_checks.empty())
    return absl::OkStatus();
  const int64_t *values = static_cast<const int64_t *>(tensor.raw_data());
  for (int64_t i = 0, n = tensor.numel(); i < n; ++i)
    for (const IndexCheck &check : info.index_checks) {
      int64_t v = values[i];
      if ((v >= 0 && v < check.high) || (check.ignore && v == *check.ignore))
        continue;
      // The element's coordinates, row-major.
      std::vector<int64_t> at(tensor.shape().size());
      for (int64_t rest = i, d = static_cast<int64_t>(at.size()) - 1; d >= 0;
           --d) {
        at[d] = rest % tensor.shape()[d];
        rest /= tensor.shape()[d];
      }
      return absl::InvalidArgumentError(absl::StrCat(
          check.where.empty() ? "" : check.where + ": ", check.op, ": input '",
          info.name, "' holds index ", v, " at [", absl::StrJoin(at, ", "),
          "], out of range [0, ", check.high, ")",
          check.ignore ? absl::StrCat(" (ignore_index ", *check.ignore, ")")
                       : ""));
    }
  return absl::OkStatus();
}

} // namespace

/// Refuses an ELF file whose headers point past its end (a truncated or
/// partly written .so), which dlopen would map and then fault on (SIGBUS)
/// instead of reporting. Files that are not ELF are left to dlopen's error.
static absl::Status checkElfExtent(const std::string &file,
                                   const std::string &path) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::OkStatus(); // dlopen names the problem
  struct stat st;
  Elf64_Ehdr header;
  bool readable = ::fstat(fd, &st) == 0 &&
                  ::pread(fd, &header, sizeof header, 0) == sizeof header;
  auto corrupt = [&](const std::string &what) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load compiled model '", path,
                     "': the file is truncated or "
                     "corrupt (",
                     what, ", the file has ", st.st_size, " bytes)"));
  };
  absl::Status status = absl::OkStatus();
  uint64_t size = readable ? static_cast<uint64_t>(st.st_size) : 0;
  auto within = [&](uint64_t offset, uint64_t count, uint64_t each) {
    uint64_t bytes, end;
    return !__builtin_mul_overflow(count, each, &bytes) &&
           !__builtin_add_overflow(offset, bytes, &end) && end <= size;
  };
  if (!readable || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64) {
    // Not a 64-bit ELF file: dlopen's message says what it is.
  } else if (header.e_phentsize != sizeof(Elf64_Phdr) ||
             !within(header.e_phoff, header.e_phnum, sizeof(Elf64_Phdr))) {
    status = corrupt("its program headers lie past its end");
  } else if (header.e_shoff != 0 &&
             !within(header.e_shoff, header.e_shnum, header.e_shentsize)) {
    status = corrupt(absl::StrCat("its section headers end past byte ", size));
  } else {
    for (uint16_t i = 0; i < header.e_phnum && status.ok(); ++i) {
      Elf64_Phdr segment;
      if (::pread(fd, &segment, sizeof segment,
                  static_cast<off_t>(header.e_phoff + i * sizeof segment)) !=
          sizeof segment)
        status = corrupt("a program header cannot be read");
      else if (!within(segment.p_offset, segment.p_filesz, 1))
        status = corrupt(absl::StrCat("segment ", i, " ends at byte ",
                                      segment.p_offset + segment.p_filesz));
    }
  }
  ::close(fd);
  return status;
}

absl::StatusOr<std::shared_ptr<Artifact>>
Artifact::load(const std::string &path, Device device) {
  // A path without a slash is a file in the current folder, as everywhere
  // else a file is named, not a name for dlopen to search the library path
  // for. RTLD_LOCAL: two models loaded at once never see each other's
  // symbols.
  const std::string file =
      path.find('/') == std::string::npos ? "./" + path : path;
  if (absl::Status s = checkElfExtent(file, path); !s.ok())
    return s;
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return absl::NotFoundError(
        absl::StrCat("cannot load compiled model '", path, "': ", dlerror()));
  std::shared_ptr<void> owner(handle, [](void *h) { dlclose(h); });
  auto getter = reinterpret_cast<nn_get_artifact_v2_fn>(
      dlsym(handle, NN_ARTIFACT_ENTRY_POINT));
  if (!getter && dlsym(handle, NN_ARTIFACT_ENTRY_POINT_V1))
    return absl::FailedPreconditionError(absl::StrCat(
        "'", path,
        "' was compiled for artifact ABI version 1 (it "
        "exports " NN_ARTIFACT_ENTRY_POINT_V1 "); this runtime reads version ",
        NN_ARTIFACT_ABI_VERSION, ": compile it again with this nn"));
  if (!getter)
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "' is not an nn compiled model: it does not "
                     "export " NN_ARTIFACT_ENTRY_POINT));
  absl::StatusOr<std::shared_ptr<Artifact>> artifact =
      from_table(getter(), std::move(owner), path);
  // The .so carries its own copy of nn_kernels: run() hands it this
  // process's thread count (nn_rt_set_num_threads).
  if (!artifact.ok())
    return artifact;
  (*artifact)->set_num_threads_ = reinterpret_cast<void (*)(int32_t)>(
      dlsym(handle, "nn_rt_set_num_threads"));
  if (device.is_cuda()) {
    auto getter = reinterpret_cast<nn_get_cuda_image_v1_fn>(
        dlsym(handle, NN_CUDA_IMAGE_ENTRY_POINT));
    std::optional<std::string_view> image;
    uint64_t size = 0;
    if (const char *bytes = getter ? getter(&size) : nullptr)
      image = std::string_view(bytes, size);
    if (absl::Status s = (*artifact)->loadGpu(image, device); !s.ok())
      return s;
  }
  return artifact;
}

absl::StatusOr<std::shared_ptr<Artifact>>
Artifact::from_table(const nn_artifact_v2 *table, std::shared_ptr<void> owner,
                     std::string source) {
  if (!table)
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the artifact table is null"));
  if (table->abi_version != NN_ARTIFACT_ABI_VERSION)
    return absl::FailedPreconditionError(
        absl::StrCat(source, ": artifact ABI version ", table->abi_version,
                     ", this runtime reads version ", NN_ARTIFACT_ABI_VERSION));
  if (!table->description_json || !table->create_context ||
      !table->destroy_context || !table->forward || !table->prepare)
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the artifact table has null entries"));
  std::shared_ptr<Artifact> artifact(new Artifact());
  artifact->source_ = std::move(source);
  artifact->owner_ = std::move(owner);
  artifact->table_ = table;
  artifact->json_ = table->description_json;
  absl::StatusOr<ArtifactDescription> description =
      parse_artifact_description(artifact->json_, artifact->source_);
  if (!description.ok())
    return description.status();
  artifact->description_ = std::move(*description);
  if (absl::Status cpu = checkCpu(artifact->description_, artifact->source_);
      !cpu.ok())
    return cpu;
  artifact->context_ = table->create_context();
  if (!artifact->context_)
    return absl::ResourceExhaustedError(
        absl::StrCat(artifact->source_, ": create_context failed"));
  return artifact;
}

/// The GPU half of an artifact loaded on a GPU.
struct Artifact::Gpu {
  std::unique_ptr<cuda::detail::Executable> executable;
  /// The forward's plan (the executable's).
  const cuda::LaunchPlan *plan = nullptr;
  /// The state the plan takes, on the GPU, in its order; each shares the
  /// bound tensor's storage when that is on the GPU already.
  std::vector<Tensor> state;
  /// Per state argument, the value the artifact embeds for it, uploaded
  /// once (undefined where it embeds none): what runs when none is bound.
  std::vector<Tensor> embedded;
  /// The positions in `state` of the state the kernels write.
  std::vector<size_t> written;
};

absl::StatusOr<std::shared_ptr<Artifact>>
Artifact::from_table(const nn_artifact_v2 *table, std::shared_ptr<void> owner,
                     std::string source, Device device,
                     std::string_view cuda_image) {
  absl::StatusOr<std::shared_ptr<Artifact>> artifact =
      from_table(table, std::move(owner), std::move(source));
  if (artifact.ok() && device.is_cuda())
    if (absl::Status s = (*artifact)->loadGpu(cuda_image, device); !s.ok())
      return s;
  return artifact;
}

absl::Status Artifact::loadGpu(std::optional<std::string_view> bytes,
                               Device device) {
  if (!bytes)
    return absl::FailedPreconditionError(absl::StrCat(
        "'", source_,
        "' holds no CUDA kernels: it was compiled for the CPU alone; "
        "compile it with nn-compile --target=cuda to run it on ",
        device.str()));
  if (description_.has_rng)
    return absl::UnimplementedError(
        absl::StrCat("'", source_,
                     "' draws random numbers (training dropout), which the "
                     "CUDA backend does not run yet"));
  absl::StatusOr<cuda::detail::Driver *> driver = cuda::detail::driver();
  if (!driver.ok())
    return driver.status();
  const int index = device.index();
  if (absl::Status s = (*driver)->checkDevice(index); !s.ok())
    return s;
  absl::StatusOr<cuda::CudaImage> image =
      cuda::parse_cuda_image(*bytes, source_);
  if (!image.ok())
    return image.status();
  if (!image->plan("forward"))
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ": its CUDA image has no forward"));

  // A cubin runs on its architecture's later minor versions; PTX is
  // compiled by the driver for any later GPU.
  cuda::DeviceProperties gpu;
  if (absl::Status s = catchErrors(source_,
                                   [&] {
                                     gpu = cuda::get_device_properties(index);
                                     return absl::OkStatus();
                                   });
      !s.ok())
    return s;
  cuda::ComputeCapability compiled = cuda::parse_cuda_arch(image->arch);
  auto atLeast = [&](int major, int minor) {
    return gpu.major > major || (gpu.major == major && gpu.minor >= minor);
  };
  const std::string *code = nullptr;
  if (gpu.major == compiled.major && gpu.minor >= compiled.minor &&
      !image->cubin.empty())
    code = &image->cubin;
  else if (atLeast(compiled.major, compiled.minor) && !image->ptx.empty())
    code = &image->ptx;
  if (!code)
    return absl::FailedPreconditionError(
        absl::StrCat("'", source_, "' was compiled for ", image->arch, "; GPU ",
                     index, " (", gpu.name, ") is ", gpu.arch(),
                     ": compile it with --cuda-arch=", gpu.arch()));

  auto loaded = std::make_unique<Gpu>();
  if (absl::Status s = catchErrors(
          source_,
          [&] {
            absl::StatusOr<std::unique_ptr<cuda::detail::Executable>>
                executable = cuda::detail::Executable::load(
                    **driver, cuda::detail::allocatorFor(index), index, *code,
                    std::move(image->plans));
            if (!executable.ok())
              return executable.status();
            loaded->executable = std::move(*executable);
            return absl::OkStatus();
          });
      !s.ok())
    return absl::Status(s.code(),
                        absl::StrCat(source_, ": loading its kernels on ",
                                     device.str(), ": ", s.message()));
  loaded->plan = loaded->executable->plan("forward");
  const std::vector<std::string> &names = loaded->plan->state;
  for (const std::string &name : loaded->plan->writtenState)
    loaded->written.push_back(std::find(names.begin(), names.end(), name) -
                              names.begin());
  loaded->embedded.resize(names.size());
  for (const cuda::PlanBuffer &buffer : loaded->plan->buffers) {
    if (buffer.kind != cuda::PlanBuffer::Kind::Argument ||
        buffer.data.empty() || buffer.argument >= loaded->embedded.size())
      continue;
    if (absl::Status s = catchErrors(
            absl::StrCat(source_, ": uploading the embedded '",
                         names[buffer.argument], "' to ", device.str()),
            [&] {
              // Only read: to() copies it to the GPU.
              loaded->embedded[buffer.argument] =
                  Tensor::from_blob(const_cast<char *>(buffer.data.data()),
                                    {static_cast<int64_t>(buffer.data.size())},
                                    DType::u8)
                      .to(device);
              return absl::OkStatus();
            },
            absl::StatusCode::kResourceExhausted);
        !s.ok())
      return s;
  }
  device_ = device;
  gpu_ = std::move(loaded);
  return absl::OkStatus();
}

absl::Status Artifact::prepareGpu() {
  const std::vector<std::string> &names = gpu_->plan->state;
  std::vector<Tensor> state(names.size());
  std::vector<std::string> missing;
  for (size_t i = 0; i < names.size(); ++i) {
    const Tensor *bound = named_state_.find(names[i]);
    if (!bound && gpu_->embedded[i].defined()) {
      state[i] = gpu_->embedded[i];
      continue;
    }
    if (!bound) {
      missing.push_back(names[i]);
      continue;
    }
    if (bound->device() == device_) {
      state[i] = *bound;
      continue;
    }
    // Refresh the copy made before, or make one.
    Tensor copy = i < gpu_->state.size() ? gpu_->state[i] : Tensor();
    if (absl::Status s = catchErrors(
            absl::StrCat(source_, ": copying '", names[i], "' to ",
                         device_.str()),
            [&] {
              if (!copy.defined() || copy.device() != device_ ||
                  copy.shares_storage(*bound) || copy.shape() != bound->shape())
                copy = bound->to(device_);
              else
                copy.copy_(*bound);
              return absl::OkStatus();
            },
            absl::StatusCode::kResourceExhausted);
        !s.ok())
      return s;
    state[i] = std::move(copy);
  }
  if (!missing.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        source_, ": its CUDA kernels read state it was not given: ",
        absl::StrJoin(missing, ", ")));
  gpu_->state = std::move(state);
  return absl::OkStatus();
}

absl::Status Artifact::invokeGpu(const std::vector<Tensor> &inputs,
                                 std::vector<Tensor> &outputs) const {
  return catchErrors(
      absl::StrCat(source_, " on ", device_.str()), [&]() -> absl::Status {
        std::vector<cuda::detail::CUdeviceptr> args;
        args.reserve(gpu_->state.size() + inputs.size() + outputs.size());
        for (const Tensor &t : gpu_->state)
          args.push_back(deviceAddress(t));
        // Inputs on the host are copied in; outputs on the host get a
        // buffer on the GPU, copied back once the kernels have run.
        std::vector<Tensor> staged;
        for (const Tensor &input : inputs) {
          if (input.device() == device_) {
            args.push_back(deviceAddress(input));
            continue;
          }
          staged.push_back(input.to(device_));
          args.push_back(deviceAddress(staged.back()));
        }
        std::vector<std::pair<Tensor *, Tensor>> back;
        for (Tensor &output : outputs) {
          if (output.device() == device_) {
            args.push_back(deviceAddress(output));
            continue;
          }
          back.emplace_back(
              &output, Tensor::zeros(output.shape(), output.dtype(), device_));
          args.push_back(deviceAddress(back.back().second));
        }
        if (absl::Status s = gpu_->executable->run("forward", args); !s.ok())
          return s;
        for (auto &[output, onGpu] : back)
          output->copy_(onGpu);
        // State the kernels wrote (train-mode running statistics) goes back
        // to the bound tensor it was copied from.
        for (size_t i : gpu_->written) {
          const Tensor *bound = named_state_.find(gpu_->plan->state[i]);
          if (bound && !bound->shares_storage(gpu_->state[i])) {
            Tensor host = *bound;
            host.copy_(gpu_->state[i]);
          }
        }
        return absl::OkStatus();
      });
}

Artifact::~Artifact() {
  if (context_)
    table_->destroy_context(context_);
}

std::vector<std::string>
Artifact::unexpected_state(const StateDict &state) const {
  std::set<std::string_view> taken;
  for (const StateInfo &info : description_.state) {
    taken.insert(info.name);
    taken.insert(info.aliases.begin(), info.aliases.end());
  }
  std::vector<std::string> unexpected;
  for (const auto &[name, tensor] : state)
    if (!taken.count(name))
      unexpected.push_back(name);
  return unexpected;
}

absl::Status Artifact::bind(const StateDict &state, bool strict) {
  std::vector<std::string> unexpected;
  if (strict)
    unexpected = unexpected_state(state);
  std::vector<std::string> missing, mismatched;
  std::vector<Tensor> bound;
  StateDict named;
  for (const StateInfo &info : description_.state) {
    const Tensor *tensor = state.find(info.name);
    for (size_t i = 0; !tensor && i < info.aliases.size(); ++i)
      tensor = state.find(info.aliases[i]);
    Tensor created;
    if (!tensor && info.starts_at_zero) {
      // An optimizer's state before its first step: the artifact's own.
      created = Tensor::zeros(info.shape, info.dtype);
      tensor = &created;
    }
    if (!tensor) {
      // An embedded tensor not given is read from the artifact's own copy
      // (a null pointer tells the entry points so).
      if (!info.embedded)
        missing.push_back(info.name);
      else if (info.argument)
        bound.emplace_back();
      continue;
    }
    named.insert(info.name, *tensor);
    if (absl::Status s = checkTensor(info.is_buffer ? "buffer" : "parameter",
                                     info, *tensor, device_);
        !s.ok()) {
      mismatched.push_back(std::string(s.message()));
      continue;
    }
    if (info.argument)
      bound.push_back(*tensor);
  }
  if (!missing.empty() || !mismatched.empty() || !unexpected.empty()) {
    std::string message = absl::StrCat("cannot bind the weights of ", source_);
    if (!missing.empty())
      absl::StrAppend(&message, "; missing: ", absl::StrJoin(missing, ", "));
    if (!mismatched.empty())
      absl::StrAppend(&message, "; ", absl::StrJoin(mismatched, "; "));
    if (!unexpected.empty())
      absl::StrAppend(&message,
                      "; unexpected: ", absl::StrJoin(unexpected, ", "));
    return absl::InvalidArgumentError(message);
  }
  state_ = std::move(bound);
  named_state_ = std::move(named);
  has_binding_ = true;
  return prepare();
}

absl::Status Artifact::prepare() {
  // Until prepare succeeds the context may hold values of no binding (or
  // half of one): run() refuses.
  bound_ = false;
  if (!has_binding_)
    return absl::FailedPreconditionError(absl::StrCat(
        source_, ": weights are not bound; call bind() before prepare()"));
  if (gpu_) {
    // The GPU's forward has no prepare step: it reads the state itself.
    if (absl::Status s = prepareGpu(); !s.ok())
      return s;
  } else {
    std::vector<void *> args;
    args.reserve(state_.size());
    for (const Tensor &t : state_)
      args.push_back(stateArgument(t));
    if (set_num_threads_)
      set_num_threads_(nn_rt_get_num_threads());
    if (int32_t rc = table_->prepare(context_, args.data()); rc != 0)
      return absl::InternalError(
          absl::StrCat(source_, ": prepare failed with code ", rc));
  }
  bound_ = true;
  ++prepares_;
  return absl::OkStatus();
}

RngState Artifact::rng_state() const {
  std::lock_guard<std::mutex> lock(rng_mutex_);
  return rng_;
}

void Artifact::set_rng_state(RngState state) {
  std::lock_guard<std::mutex> lock(rng_mutex_);
  rng_ = state;
}

absl::StatusOr<std::vector<Tensor>>
Artifact::run(const std::vector<Tensor> &inputs,
              std::optional<RngState> rng) const {
  // Inputs first: a wrong call allocates nothing.
  if (absl::Status s = checkInputs(inputs); !s.ok())
    return s;
  // Outputs go where the inputs are: on the GPU when any input is.
  Device where = Device::cpu();
  for (const Tensor &input : inputs)
    if (input.device() == device_)
      where = device_;
  std::vector<Tensor> outputs;
  outputs.reserve(description_.outputs.size());
  for (const TensorInfo &info : description_.outputs) {
    try {
      outputs.push_back(Tensor::zeros(info.shape, info.dtype, where));
    } catch (const Error &e) {
      return absl::ResourceExhaustedError(absl::StrCat(
          source_, ": cannot allocate output '", info.name, "': ", e.what()));
    }
  }
  if (absl::Status s = invoke(inputs, outputs, rng); !s.ok())
    return s;
  return outputs;
}

absl::Status Artifact::run_into(const std::vector<Tensor> &inputs,
                                std::vector<Tensor> &outputs,
                                std::optional<RngState> rng) const {
  if (absl::Status s = checkInputs(inputs); !s.ok())
    return s;
  return invoke(inputs, outputs, rng);
}

absl::Status Artifact::checkInputs(const std::vector<Tensor> &inputs) const {
  if (!bound_)
    return absl::FailedPreconditionError(absl::StrCat(
        source_, has_binding_
                     ? ": the last prepare failed; run() needs a prepare() "
                       "that succeeds"
                     : ": weights are not bound; call bind() before run()"));
  if (inputs.size() != description_.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrCat(source_, " takes ", description_.inputs.size(),
                     " inputs, got ", inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s =
            checkTensor("input", description_.inputs[i], inputs[i], device_);
        !s.ok())
      return s;
    // Kernels do not check indices: those of an input on the GPU are
    // checked on a copy.
    const TensorInfo &info = description_.inputs[i];
    if (info.index_checks.empty())
      continue;
    if (absl::Status s = catchErrors(
            source_,
            [&] { return checkIndices(info, inputs[i].to(Device::cpu())); });
        !s.ok())
      return s;
  }
  return absl::OkStatus();
}

absl::Status Artifact::invoke(const std::vector<Tensor> &inputs,
                              std::vector<Tensor> &outputs,
                              std::optional<RngState> rng) const {
  if (outputs.size() != description_.outputs.size())
    return absl::InvalidArgumentError(
        absl::StrCat(source_, " writes ", description_.outputs.size(),
                     " outputs, got ", outputs.size()));
  // The forward writes outputs while it still reads inputs and state, and
  // every output in full: a shared buffer would be read after it is written.
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorInfo &info = description_.outputs[i];
    if (absl::Status s = checkTensor("output", info, outputs[i], device_);
        !s.ok())
      return s;
    auto shares = [&](const std::vector<Tensor> &others, size_t count) {
      for (size_t k = 0; k < count; ++k)
        if (overlaps(outputs[i], others[k]))
          return true;
      return false;
    };
    if (shares(inputs, inputs.size()) || shares(state_, state_.size()) ||
        shares(outputs, i))
      return absl::InvalidArgumentError(absl::StrCat(
          "output '", info.name,
          "' shares storage with an input, the bound state or another output"));
  }
  if (gpu_)
    return invokeGpu(inputs, outputs);
  // On the stack for models of up to 32 arguments, so a run allocates
  // nothing in steady state (the forward takes its arena from the thread's
  // workspace); SteadyStateAllocationTest counts.
  absl::InlinedVector<void *, 32> args;
  args.reserve(state_.size() + inputs.size() + 1 + outputs.size());
  for (const Tensor &t : state_)
    args.push_back(stateArgument(t));
  for (const Tensor &input : inputs)
    args.push_back(const_cast<void *>(input.raw_data()));
  // The generator state: the caller's, or the artifact's, advanced past
  // this run's draws before the run so concurrent runs never share numbers.
  int64_t rngWords[2] = {0, 0};
  if (description_.has_rng) {
    if (!rng) {
      std::lock_guard<std::mutex> lock(rng_mutex_);
      rng = rng_;
      rng_.offset += description_.rng_draws;
    }
    rngWords[0] = static_cast<int64_t>(rng->seed);
    rngWords[1] = static_cast<int64_t>(rng->offset);
    args.push_back(rngWords);
  }
  for (Tensor &t : outputs)
    args.push_back(t.raw_data());
  if (set_num_threads_)
    set_num_threads_(nn_rt_get_num_threads());
  if (int32_t rc = table_->forward(context_, args.data()); rc != 0)
    return absl::InternalError(
        absl::StrCat(source_, ": forward failed with code ", rc));
  return absl::OkStatus();
}

absl::StatusOr<StateDict> Artifact::run(const StateDict &inputs,
                                        std::optional<RngState> rng) const {
  std::vector<Tensor> positional;
  std::vector<std::string> missing, unexpected;
  for (const TensorInfo &info : description_.inputs) {
    if (const Tensor *t = inputs.find(info.name))
      positional.push_back(*t);
    else
      missing.push_back(info.name);
  }
  for (const auto &[name, tensor] : inputs) {
    bool known = false;
    for (const TensorInfo &info : description_.inputs)
      known |= info.name == name;
    if (!known)
      unexpected.push_back(name);
  }
  if (!missing.empty() || !unexpected.empty()) {
    std::string message = absl::StrCat(source_, ": wrong inputs");
    if (!missing.empty())
      absl::StrAppend(&message, "; missing: ", absl::StrJoin(missing, ", "));
    if (!unexpected.empty())
      absl::StrAppend(&message,
                      "; unexpected: ", absl::StrJoin(unexpected, ", "));
    return absl::InvalidArgumentError(message);
  }
  absl::StatusOr<std::vector<Tensor>> outputs = run(positional, rng);
  if (!outputs.ok())
    return outputs.status();
  StateDict named;
  for (size_t i = 0; i < outputs->size(); ++i)
    named.insert(description_.outputs[i].name, (*outputs)[i]);
  return named;
}

} // namespace nn
