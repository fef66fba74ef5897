//===- Shape.h - Reshaping, slicing, joining, indexing ----------*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows. Signatures follow torch (and libtorch where it differs in C++):
// dims may be negative (counting from the end), shapes may hold one -1.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_SHAPE_H
#define NN_FUNCTIONAL_SHAPE_H

#include "nn/Options/Embedding.h"
#include "nn/Runtime/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace nn::functional {

/// torch.reshape: the same elements in `shape` (one entry may be -1).
Tensor reshape(const Tensor &input, const Shape &shape);
/// Tensor.view; tensors are values here, so it is reshape.
Tensor view(const Tensor &input, const Shape &shape);
/// torch.flatten: merges start_dim..end_dim (inclusive).
Tensor flatten(const Tensor &input, int64_t start_dim = 0,
               int64_t end_dim = -1);
/// torch.permute: result dimension i is input dimension dims[i].
Tensor permute(const Tensor &input, const std::vector<int64_t> &dims);
/// torch.transpose: swaps dim0 and dim1.
Tensor transpose(const Tensor &input, int64_t dim0, int64_t dim1);
/// torch.squeeze: removes every size-1 dimension.
Tensor squeeze(const Tensor &input);
/// torch.squeeze(input, dim): removes `dim` if its size is 1.
Tensor squeeze(const Tensor &input, int64_t dim);
/// torch.unsqueeze: inserts a size-1 dimension at `dim`.
Tensor unsqueeze(const Tensor &input, int64_t dim);
/// Tensor.expand: size-1 dimensions broadcast to `shape` (-1 keeps a size).
Tensor expand(const Tensor &input, const Shape &shape);
/// torch.broadcast_to; the same as expand.
Tensor broadcast_to(const Tensor &input, const Shape &shape);
/// torch.zeros(shape, dtype): a constant of the trace.
Tensor zeros(const Shape &shape, DType dtype = DType::f32);
/// torch.cat along an existing dimension.
Tensor cat(const std::vector<Tensor> &tensors, int64_t dim = 0);
/// torch.concat, an alias of cat.
Tensor concat(const std::vector<Tensor> &tensors, int64_t dim = 0);
/// torch.stack along a new dimension.
Tensor stack(const std::vector<Tensor> &tensors, int64_t dim = 0);
/// torch.split(input, split_size, dim): pieces of split_size, the last one
/// smaller when it does not divide the dimension.
std::vector<Tensor> split(const Tensor &input, int64_t split_size,
                          int64_t dim = 0);
/// torch.split(input, split_sizes, dim): pieces of the given sizes.
std::vector<Tensor> split(const Tensor &input,
                          const std::vector<int64_t> &split_sizes,
                          int64_t dim = 0);
/// torch.chunk: `chunks` pieces of ceil(size / chunks) (possibly fewer
/// pieces, as in PyTorch).
std::vector<Tensor> chunk(const Tensor &input, int64_t chunks, int64_t dim = 0);
/// input[..., start:end:step] along `dim`, as libtorch's Tensor::slice:
/// negative start/end count from the end, out-of-range ones are clamped,
/// step must be positive.
Tensor slice(const Tensor &input, int64_t dim = 0,
             std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1);
/// torch.index_select with an i64 index (1-D or scalar). Indices are not
/// checked when the compiled model runs.
Tensor index_select(const Tensor &input, int64_t dim, const Tensor &index);
/// torch.gather with an i64 index of the input's rank. Indices are not
/// checked when the compiled model runs.
Tensor gather(const Tensor &input, int64_t dim, const Tensor &index);
/// F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode("reflect"))
struct PadFuncOptions {
  /* implicit */ PadFuncOptions(std::vector<int64_t> pad)
      : pad_(std::move(pad)) {}
  /// (before, after) pairs from the last dimension backwards: {1, 2} pads
  /// the last dim, {1, 2, 3, 4} the last two. Negative values crop
  /// (constant mode only).
  NN_ARG(std::vector<int64_t>, pad);
  /// "constant", "reflect" (mirrored without the edge), "replicate" (the
  /// edge repeated) or "circular" (wrapped around).
  NN_ARG(std::string, mode) = "constant";
  /// The fill of constant mode.
  NN_ARG(double, value) = 0.0;
};
/// torch.nn.functional.pad. Reflect pads must be smaller than the
/// dimension, circular ones at most its size.
Tensor pad(const Tensor &input, const PadFuncOptions &options);

/// torch.nn.functional.embedding: rows of `weight` picked by i64 `input`.
/// Indices are not checked when the compiled model runs.
Tensor embedding(const Tensor &input, const Tensor &weight,
                 const EmbeddingFuncOptions &options = {});

/// torch.nn.functional.pixel_shuffle: [*, C·r², H, W] -> [*, C, H·r, W·r],
/// channel c·r² + i·r + j to row offset i, column offset j.
Tensor pixel_shuffle(const Tensor &input, int64_t upscale_factor);
/// The inverse of pixel_shuffle: [*, C, H·r, W·r] -> [*, C·r², H, W].
Tensor pixel_unshuffle(const Tensor &input, int64_t downscale_factor);
/// torch.nn.functional.channel_shuffle (ShuffleNet): [N, g·k, *] with the
/// channels read as [g, k] and written as [k, g].
Tensor channel_shuffle(const Tensor &input, int64_t groups);

} // namespace nn::functional

#endif // NN_FUNCTIONAL_SHAPE_H
