/*===- CApi.h - Running compiled models from C ---------------------*- C
-*-===*\
|*                                                                            *|
|* The runtime's C interface: load a compiled model (.so), bind its weights  *|
|* from a safetensors file, run it on caller-owned buffers. Every call makes *|
|* the checks nn::Artifact makes (names, shapes, dtypes, index ranges, the   *|
|* CPU's features); a failing call returns NULL or non-zero and             *|
|* nn_last_error() says why, naming the tensor and both shapes.             *|
|*                                                                            *|
|*   nn_artifact *model = nn_artifact_load("mlp.so");                         *|
|*   if (!model || nn_artifact_bind_safetensors(model, "mlp.safetensors"))    *|
|*     fprintf(stderr, "%s\n", nn_last_error());                              *|
|*   int64_t in_shape[] = {64, 784}, out_shape[] = {64, 10};                  *|
|*   nn_tensor in = {x, in_shape, 2, NN_F32}, out = {y, out_shape, 2, NN_F32};*|
|*   if (nn_artifact_run(model, &in, 1, &out, 1))                             *|
|*     fprintf(stderr, "%s\n", nn_last_error());                              *|
|*   nn_artifact_free(model);                                                 *|
|*                                                                            *|
|* Tensors are contiguous and row-major, aligned to their element size, and  *|
|* are read and written in place (no copies). One artifact may run on many   *|
|* threads at once; binding must not overlap a run.                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef NN_RUNTIME_CAPI_H
#define NN_RUNTIME_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NN_C_API __attribute__((visibility("default")))
#else
#define NN_C_API
#endif

typedef struct nn_artifact nn_artifact;

/* Element types, in safetensors' names. */
typedef enum nn_dtype {
  NN_F32,
  NN_F64,
  NN_F16,
  NN_BF16,
  NN_I64,
  NN_I32,
  NN_I8,
  NN_U8,
  NN_BOOL
} nn_dtype;

/* A tensor the caller owns. */
typedef struct nn_tensor {
  void *data;
  const int64_t *shape;
  int32_t rank;
  nn_dtype dtype;
} nn_tensor;

/* What the last failing call on this thread said; "" if none failed. */
NN_C_API const char *nn_last_error(void);

/* Loads a compiled model; NULL on failure. A path without a slash is a
 * file in the current folder. */
NN_C_API nn_artifact *nn_artifact_load(const char *path);

/* Binds every tensor the model needs, by state_dict name, from a
 * safetensors file (PyTorch's own state_dict files bind); the artifact keeps
 * the file's tensors. Returns 0 on success. */
NN_C_API int nn_artifact_bind_safetensors(nn_artifact *artifact,
                                          const char *path);

/* The model's JSON description (nn/Runtime/ArtifactABI.h): its inputs,
 * outputs and state with names, shapes and dtypes. Valid while the artifact
 * lives. */
NN_C_API const char *nn_artifact_describe(const nn_artifact *artifact);

/* How many inputs and outputs run() takes. */
NN_C_API size_t nn_artifact_num_inputs(const nn_artifact *artifact);
NN_C_API size_t nn_artifact_num_outputs(const nn_artifact *artifact);

/* Runs the model on `inputs` (in the description's order) and writes
 * `outputs`, which the caller allocated with the described shapes. Returns
 * 0 on success. */
NN_C_API int nn_artifact_run(nn_artifact *artifact, const nn_tensor *inputs,
                             size_t num_inputs, const nn_tensor *outputs,
                             size_t num_outputs);

/* Unloads the model. NULL is accepted. */
NN_C_API void nn_artifact_free(nn_artifact *artifact);

#ifdef __cplusplus
}
#endif

#endif /* NN_RUNTIME_CAPI_H */
