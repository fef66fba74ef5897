/*===- ArtifactABI.h - The C ABI of a compiled nn model ----------*- C -*-===*\
|*                                                                            *|
|* A compiled model (a shared object, or code JIT-compiled in process)        *|
|* exports one function, nn_get_artifact_v2, returning this table. All        *|
|* tensors cross the boundary as pointers to contiguous row-major data whose  *|
|* names, shapes and dtypes the JSON description lists:                       *|
|*                                                                            *|
|*   {"abi_version": 2,                                                       *|
|*    "state":   [{"name": "fc1.weight", "kind": "parameter",                 *|
|*                 "shape": [256, 784], "dtype": "F32",                       *|
|*                 "persistent": true, "requires_grad": true,                 *|
|*                 "aliases": ["head.weight"], "argument": true}, ...],       *|
|*    "inputs":  [{"name": "input.0", "shape": [64, 784], "dtype": "F32"}],   *|
|*    "outputs": [{"name": "output.0", "shape": [64, 10], "dtype": "F32"}],   *|
|*    "rng":     {"name": "rng", "shape": [2], "dtype": "I64",                *|
|*                "draws": 50176},                                            *|
|*    "workspace_bytes": 1048576,                                             *|
|*    "target":  {"cpu": "haswell", "features": ["avx", "avx2", "fma", ...]}} *|
|*                                                                            *|
|* nn/Runtime/ArtifactDescription.h holds the description as a typed struct, *|
|* with the one writer (the compiler's) and the one reader (the runtime's).   *|
|* Fields come in the order above; a reader ignores fields it does not know.  *|
|*                                                                            *|
|* "workspace_bytes" (optional) is the arena forward takes from the calling   *|
|* thread's workspace for its planned intermediates. "target" (optional)      *|
|* names the CPU the code was generated for and every ISA feature it may      *|
|* use (LLVM's names, see nn/Runtime/CpuFeatures.h); a loader refuses the     *|
|* artifact on a CPU that lacks any of them, before running any of its code.  *|
|*                                                                            *|
|* "aliases" (optional) lists the other state_dict names of a tied tensor; it *|
|* binds by any of them. "embedded": true (optional) marks state whose value  *|
|* the artifact carries (non-persistent buffers, --embed-weights): the caller *|
|* may pass a null pointer for it, and the entry points then read their own   *|
|* copy. "starts_at_zero": true (optional) marks state a caller not given it  *|
|* creates as zeros (a training step's optimizer state before its first       *|
|* step). "rng" (optional) is present when forward draws random numbers       *|
|* (training dropout): the caller passes the generator state int64[2] =       *|
|* {seed, base} and advances base by "draws" after each run, so runs get      *|
|* fresh numbers and a seed reproduces the sequence. An I64 input that ops    *|
|* index with has "index_checks" (optional): [{"op": "embedding", "high": 10, *|
|* "ignore": -100, "where": "embed"}, ...]; the caller refuses any value      *|
|* outside [0, high) other than "ignore" before calling forward, which does   *|
|* not check indices. A rank-0 input may have "default": 0.01, the value a    *|
|* caller without one of its own passes (a training step's learning rate).    *|
|* prepare(ctx, state_args) reads state_args = [state whose "argument" is     *|
|* true (the default)...] and computes into the context everything forward    *|
|* needs that depends on the state alone (batch-norm folded into weights,     *|
|* weights packed into the kernels' tile layout); it returns 0 on success.    *|
|* The caller runs it after binding the state and again whenever a bound      *|
|* tensor changes (a new binding, or an in-place update such as an            *|
|* optimizer step or load_state_dict), and never runs forward before it       *|
|* has succeeded. prepare must not run while a forward on the same context    *|
|* does. State that forward writes (train-mode batch-norm statistics) never   *|
|* feeds prepare, so forward's own writes need no new prepare.                *|
|* forward(ctx, args) reads args = [state whose "argument" is true (the       *|
|* default)..., inputs..., rng (when present), outputs...] in that order and  *|
|* writes the outputs; it returns 0 on success. It only reads the context     *|
|* and keeps no global mutable state, so one artifact serves many threads.    *|
|*                                                                            *|
|* A model compiled for CUDA (nn-compile --target=cuda) also exports          *|
|*   const char *nn_get_cuda_image_v1(uint64_t *size);                        *|
|* which returns its GPU half, the kernels and their launch plans, as bytes   *|
|* (nn/Runtime/CudaImage.h), and stores their count in *size. Its forward     *|
|* plan takes the state its "state" list names (the nn.state names), then    *|
|* the inputs and outputs, as device addresses; it has no prepare step.       *|
|*                                                                            *|
|* Version 2 added prepare (version 1 computed those values on every call).   *|
|* The table's first five fields are laid out as in version 1, so a reader    *|
|* can tell the versions apart by abi_version.                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef NN_RUNTIME_ARTIFACTABI_H
#define NN_RUNTIME_ARTIFACTABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NN_ARTIFACT_ABI_VERSION 2
#define NN_ARTIFACT_ENTRY_POINT "nn_get_artifact_v2"
/* What version 1 artifacts export; only used to name them when refusing. */
#define NN_ARTIFACT_ENTRY_POINT_V1 "nn_get_artifact_v1"

typedef struct nn_artifact_v2 {
  uint32_t abi_version;
  const char *description_json;
  void *(*create_context)(void);
  void (*destroy_context)(void *context);
  int32_t (*forward)(void *context, void *const *args);
  int32_t (*prepare)(void *context, void *const *state_args);
} nn_artifact_v2;

typedef const nn_artifact_v2 *(*nn_get_artifact_v2_fn)(void);

#define NN_CUDA_IMAGE_ENTRY_POINT "nn_get_cuda_image_v1"
typedef const char *(*nn_get_cuda_image_v1_fn)(uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* NN_RUNTIME_ARTIFACTABI_H */
