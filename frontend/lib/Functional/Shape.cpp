//===- Shape.cpp - nn::functional: reshaping, slicing, joining and indexing
//---===//
//
// Records the ops of nn/Functional/Shape.h into the current trace. Shape
// checking is the ops' own inference (ir/lib/ShapeOps.cpp); what is done here
// is only what PyTorch's Python/C++ layer does before its kernels: turning
// split sizes and chunk counts into sizes, resolving and clamping slice
// bounds, and checking index dtypes.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Shape.h"
#include "nn/Functional/Elementwise.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

#include <algorithm>
#include <limits>

namespace nn::functional {

using detail::TraceContext;

namespace {

/// The IR values of `tensors`, each named "tensor <i>" in errors.
llvm::SmallVector<mlir::Value>
valuesOf(TraceContext &t, const std::vector<Tensor> &tensors, const char *op) {
  if (tensors.empty())
    t.fail(std::string(op) + ": expected a non-empty list of tensors");
  llvm::SmallVector<mlir::Value> values;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string role = "tensor " + std::to_string(i);
    values.push_back(t.valueOf(tensors[i], op, role.c_str()));
  }
  return values;
}

/// Throws unless `tensor` is an int64 tensor (indices).
void requireIndices(TraceContext &t, const Tensor &tensor, const char *op,
                    const char *role) {
  if (tensor.defined() && tensor.dtype() != DType::i64)
    t.fail(std::string(op) + ": " + role + " must be an int64 tensor, got " +
           std::string(dtype_name(tensor.dtype())));
}

/// `dim` made non-negative when it is in range for `rank`, else unchanged
/// (the op's inference reports it).
int64_t tryNormalize(int64_t dim, int64_t rank) {
  int64_t bound = std::max<int64_t>(rank, 1);
  return dim < 0 && dim >= -bound ? dim + bound : dim;
}

} // namespace

Tensor reshape(const Tensor &input, const Shape &shape) {
  TraceContext &t = TraceContext::current("reshape");
  mlir::Value x = t.valueOf(input, "reshape", "input");
  return t.emit<mlir::nn::ReshapeOp>(x.getType(), x,
                                     t.builder.getDenseI64ArrayAttr(shape));
}

Tensor view(const Tensor &input, const Shape &shape) {
  return reshape(input, shape);
}

Tensor flatten(const Tensor &input, int64_t start_dim, int64_t end_dim) {
  TraceContext &t = TraceContext::current("flatten");
  mlir::Value x = t.valueOf(input, "flatten", "input");
  return t.emit<mlir::nn::FlattenOp>(x.getType(), x,
                                     t.builder.getI64IntegerAttr(start_dim),
                                     t.builder.getI64IntegerAttr(end_dim));
}

Tensor permute(const Tensor &input, const std::vector<int64_t> &dims) {
  TraceContext &t = TraceContext::current("permute");
  mlir::Value x = t.valueOf(input, "permute", "input");
  return t.emit<mlir::nn::PermuteOp>(x.getType(), x,
                                     t.builder.getDenseI64ArrayAttr(dims));
}

Tensor transpose(const Tensor &input, int64_t dim0, int64_t dim1) {
  TraceContext &t = TraceContext::current("transpose");
  mlir::Value x = t.valueOf(input, "transpose", "input");
  return t.emit<mlir::nn::TransposeOp>(x.getType(), x,
                                       t.builder.getI64IntegerAttr(dim0),
                                       t.builder.getI64IntegerAttr(dim1));
}

Tensor squeeze(const Tensor &input) {
  TraceContext &t = TraceContext::current("squeeze");
  mlir::Value x = t.valueOf(input, "squeeze", "input");
  return t.emit<mlir::nn::SqueezeOp>(x.getType(), x, mlir::IntegerAttr());
}

Tensor squeeze(const Tensor &input, int64_t dim) {
  TraceContext &t = TraceContext::current("squeeze");
  mlir::Value x = t.valueOf(input, "squeeze", "input");
  return t.emit<mlir::nn::SqueezeOp>(x.getType(), x,
                                     t.builder.getI64IntegerAttr(dim));
}

Tensor unsqueeze(const Tensor &input, int64_t dim) {
  TraceContext &t = TraceContext::current("unsqueeze");
  mlir::Value x = t.valueOf(input, "unsqueeze", "input");
  return t.emit<mlir::nn::UnsqueezeOp>(x.getType(), x,
                                       t.builder.getI64IntegerAttr(dim));
}

Tensor expand(const Tensor &input, const Shape &shape) {
  TraceContext &t = TraceContext::current("expand");
  mlir::Value x = t.valueOf(input, "expand", "input");
  return t.emit<mlir::nn::ExpandOp>(x.getType(), x,
                                    t.builder.getDenseI64ArrayAttr(shape));
}

Tensor broadcast_to(const Tensor &input, const Shape &shape) {
  return expand(input, shape);
}

Tensor zeros(const Shape &shape, DType dtype) {
  TraceContext &t = TraceContext::current("zeros");
  mlir::Value zero =
      t.scalar(0.0, detail::elementType(*t.builder.getContext(), dtype));
  return expand(t.wrap(zero), shape);
}

Tensor cat(const std::vector<Tensor> &tensors, int64_t dim) {
  TraceContext &t = TraceContext::current("cat");
  auto values = valuesOf(t, tensors, "cat");
  return t.emit<mlir::nn::CatOp>(values[0].getType(), mlir::ValueRange(values),
                                 t.builder.getI64IntegerAttr(dim));
}

Tensor concat(const std::vector<Tensor> &tensors, int64_t dim) {
  return cat(tensors, dim);
}

Tensor stack(const std::vector<Tensor> &tensors, int64_t dim) {
  TraceContext &t = TraceContext::current("stack");
  auto values = valuesOf(t, tensors, "stack");
  return t.emit<mlir::nn::StackOp>(values[0].getType(),
                                   mlir::ValueRange(values),
                                   t.builder.getI64IntegerAttr(dim));
}

std::vector<Tensor> split(const Tensor &input,
                          const std::vector<int64_t> &split_sizes,
                          int64_t dim) {
  TraceContext &t = TraceContext::current("split");
  mlir::Value x = t.valueOf(input, "split", "input");
  llvm::SmallVector<mlir::Type> guesses(std::max<size_t>(split_sizes.size(), 1),
                                        x.getType());
  return t.emitAll<mlir::nn::SplitOp>(
      guesses, x, t.builder.getDenseI64ArrayAttr(split_sizes),
      t.builder.getI64IntegerAttr(dim));
}

std::vector<Tensor> split(const Tensor &input, int64_t split_size,
                          int64_t dim) {
  TraceContext &t = TraceContext::current("split");
  int64_t d = tryNormalize(dim, input.dim());
  if (input.dim() == 0 || d < 0 || d >= input.dim())
    return split(input, std::vector<int64_t>{split_size}, dim); // op reports
  int64_t size = input.size(d);
  if (split_size <= 0 && size > 0)
    t.fail("split: split_size must be positive, got " +
           std::to_string(split_size) + " (input " + shape_str(input.shape()) +
           ")");
  // As torch.split: full pieces, then the remainder; one empty piece for an
  // empty dimension.
  std::vector<int64_t> sizes;
  for (int64_t offset = 0; offset < size; offset += split_size)
    sizes.push_back(std::min(split_size, size - offset));
  if (sizes.empty())
    sizes.push_back(0);
  return split(input, sizes, dim);
}

std::vector<Tensor> chunk(const Tensor &input, int64_t chunks, int64_t dim) {
  TraceContext &t = TraceContext::current("chunk");
  if (chunks <= 0)
    t.fail("chunk: chunks must be positive, got " + std::to_string(chunks) +
           " (input " + shape_str(input.shape()) + ")");
  int64_t d = tryNormalize(dim, input.dim());
  if (input.dim() == 0 || d < 0 || d >= input.dim())
    return split(input, std::vector<int64_t>{0}, dim); // the op reports
  int64_t size = input.size(d);
  // torch.chunk: pieces of ceil(size / chunks), so possibly fewer of them.
  int64_t piece = std::max<int64_t>((size + chunks - 1) / chunks, 1);
  return split(input, piece, dim);
}

Tensor slice(const Tensor &input, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step) {
  TraceContext &t = TraceContext::current("slice");
  mlir::Value x = t.valueOf(input, "slice", "input");
  int64_t d = tryNormalize(dim, input.dim());
  int64_t first = start.value_or(0);
  int64_t last = end.value_or(std::numeric_limits<int64_t>::max());
  if (input.dim() > 0 && d >= 0 && d < input.dim() && step > 0) {
    // As PyTorch's slice: negative bounds count from the end, then both are
    // clamped to [0, size] with end >= start.
    int64_t size = input.size(d);
    if (first < 0)
      first += size;
    if (last < 0)
      last += size;
    first = std::clamp<int64_t>(first, 0, size);
    last = std::clamp<int64_t>(last, first, size);
  }
  return t.emit<mlir::nn::SliceOp>(
      x.getType(), x, t.builder.getI64IntegerAttr(dim),
      t.builder.getI64IntegerAttr(first), t.builder.getI64IntegerAttr(last),
      t.builder.getI64IntegerAttr(step));
}

Tensor index_select(const Tensor &input, int64_t dim, const Tensor &index) {
  TraceContext &t = TraceContext::current("index_select");
  mlir::Value x = t.valueOf(input, "index_select", "input");
  requireIndices(t, index, "index_select", "index");
  mlir::Value i = t.valueOf(index, "index_select", "index");
  return t.emit<mlir::nn::IndexSelectOp>(x.getType(), x, i,
                                         t.builder.getI64IntegerAttr(dim));
}

Tensor gather(const Tensor &input, int64_t dim, const Tensor &index) {
  TraceContext &t = TraceContext::current("gather");
  mlir::Value x = t.valueOf(input, "gather", "input");
  requireIndices(t, index, "gather", "index");
  mlir::Value i = t.valueOf(index, "gather", "index");
  return t.emit<mlir::nn::GatherOp>(x.getType(), x, i,
                                    t.builder.getI64IntegerAttr(dim));
}

Tensor pad(const Tensor &input, const PadFuncOptions &options) {
  TraceContext &t = TraceContext::current("pad");
  const std::vector<int64_t> &pads = options.pad();
  const std::string &mode = options.mode();
  int64_t rank = input.dim();
  if (pads.size() % 2 != 0)
    t.fail("pad: the padding has " + std::to_string(pads.size()) +
           " values; it needs a (before, after) pair per dimension");
  if (static_cast<int64_t>(pads.size() / 2) > rank)
    t.fail("pad: the padding covers " + std::to_string(pads.size() / 2) +
           " dimensions, but the input has " + std::to_string(rank));
  if (mode != "constant" && mode != "reflect" && mode != "replicate" &&
      mode != "circular")
    t.fail("pad: unknown mode '" + mode +
           "' (constant, reflect, replicate or circular)");
  if (mode != "constant" && options.value() != 0.0)
    t.fail("pad: mode '" + mode + "' takes no value");
  Tensor x = input;
  // Constant mode: negative pads crop (slices), the positive ones are one
  // nn.pad over every dimension.
  std::vector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t k = 0; k < pads.size() / 2; ++k) {
    int64_t dim = rank - 1 - static_cast<int64_t>(k);
    int64_t before = pads[2 * k], after = pads[2 * k + 1], size = x.size(dim);
    if (before == 0 && after == 0)
      continue;
    std::string where = "pad: dimension " + std::to_string(dim) + " (size " +
                        std::to_string(size) + ") padded by (" +
                        std::to_string(before) + ", " + std::to_string(after) +
                        ")";
    if (size + before + after < 0)
      t.fail(where + " would have a negative size");
    if (mode == "constant") {
      if (before < 0 || after < 0)
        x = slice(x, dim, std::max<int64_t>(0, -before),
                  size + std::min<int64_t>(0, after));
      low[dim] = std::max<int64_t>(0, before);
      high[dim] = std::max<int64_t>(0, after);
      continue;
    }
    if (before < 0 || after < 0)
      t.fail(where + ": only constant mode crops");
    if (mode == "reflect" && (before >= size || after >= size))
      t.fail(where + ": reflect padding must be smaller than the size");
    if (mode == "circular" && (before > size || after > size))
      t.fail(where + ": circular padding must be at most the size");
    if (mode == "replicate" && size == 0 && before + after > 0)
      t.fail(where + ": an empty dimension has no edge to replicate");
    // Every output position reads one input position: a constant index.
    std::vector<int64_t> source;
    for (int64_t o = -before; o < size + after; ++o) {
      if (mode == "reflect")
        source.push_back(o < 0 ? -o : o >= size ? 2 * (size - 1) - o : o);
      else if (mode == "replicate")
        source.push_back(std::clamp<int64_t>(o, 0, size - 1));
      else
        source.push_back(((o % size) + size) % size);
    }
    int64_t length = static_cast<int64_t>(source.size());
    x = index_select(x, dim, Tensor::from_vector<int64_t>(source, {length}));
  }
  if (std::all_of(low.begin(), low.end(), [](int64_t v) { return v == 0; }) &&
      std::all_of(high.begin(), high.end(), [](int64_t v) { return v == 0; }))
    return x;
  mlir::Value value = t.valueOf(x, "pad", "input");
  return t.emit<mlir::nn::PadOp>(value.getType(), value,
                                 t.builder.getDenseI64ArrayAttr(low),
                                 t.builder.getDenseI64ArrayAttr(high),
                                 t.builder.getF64FloatAttr(options.value()));
}

Tensor embedding(const Tensor &input, const Tensor &weight,
                 const EmbeddingFuncOptions &options) {
  TraceContext &t = TraceContext::current("embedding");
  requireIndices(t, input, "embedding", "input");
  mlir::Value ids = t.valueOf(input, "embedding", "input");
  mlir::Value w = t.valueOf(weight, "embedding", "weight");
  mlir::IntegerAttr padding;
  if (options.padding_idx() && weight.dim() == 2) {
    int64_t p = *options.padding_idx(), rows = weight.size(0);
    if (p >= rows || p < -rows)
      t.fail("embedding: padding_idx " + std::to_string(p) +
             " must be within num_embeddings " + std::to_string(rows) +
             " (weight " + shape_str(weight.shape()) + ")");
    // The row whose gradient is zero, as PyTorch normalizes it.
    padding = t.builder.getI64IntegerAttr(p < 0 ? p + rows : p);
  }
  return t.emit<mlir::nn::EmbeddingOp>(w.getType(), ids, w, padding);
}

namespace {

/// Fails unless `input` has at least `rank` dims and `factor` is positive.
void checkShuffle(TraceContext &t, const char *op, const Tensor &input,
                  int64_t rank, const char *factorName, int64_t factor) {
  if (factor <= 0)
    t.fail(std::string(op) + ": " + factorName + " must be positive, got " +
           std::to_string(factor));
  if (input.dim() < rank)
    t.fail(std::string(op) + ": input must have at least " +
           std::to_string(rank) + " dims, got " + shape_str(input.shape()));
}

/// `input` ([*, C, H, W], `lead` dims in *) with its last three dims split
/// into `split`, those permuted by `tail`, and reshaped to [*] + `out`.
Tensor regroupTail(const Tensor &input, Shape split,
                   std::initializer_list<int64_t> tail, Shape out) {
  const Shape &shape = input.shape();
  const int64_t lead = input.dim() - 3;
  Shape leading(shape.begin(), shape.begin() + lead);
  split.insert(split.begin(), leading.begin(), leading.end());
  out.insert(out.begin(), leading.begin(), leading.end());
  std::vector<int64_t> order;
  for (int64_t d = 0; d < lead; ++d)
    order.push_back(d);
  for (int64_t d : tail)
    order.push_back(lead + d);
  return reshape(permute(reshape(input, split), order), out);
}

} // namespace

Tensor pixel_shuffle(const Tensor &input, int64_t upscale_factor) {
  TraceContext &t = TraceContext::current("pixel_shuffle");
  const int64_t r = upscale_factor;
  checkShuffle(t, "pixel_shuffle", input, 3, "upscale_factor", r);
  Shape shape = input.shape();
  const int64_t lead = input.dim() - 3, c = shape[lead], h = shape[lead + 1],
                w = shape[lead + 2];
  if (c % (r * r) != 0)
    t.fail("pixel_shuffle: the channels of input " + shape_str(shape) +
           " must be divisible by upscale_factor² = " + std::to_string(r * r));
  // [*, C, r, r, H, W] -> [*, C, H, r, W, r]
  return regroupTail(input, {c / (r * r), r, r, h, w}, {0, 3, 1, 4, 2},
                     {c / (r * r), h * r, w * r});
}

Tensor pixel_unshuffle(const Tensor &input, int64_t downscale_factor) {
  TraceContext &t = TraceContext::current("pixel_unshuffle");
  const int64_t r = downscale_factor;
  checkShuffle(t, "pixel_unshuffle", input, 3, "downscale_factor", r);
  Shape shape = input.shape();
  const int64_t lead = input.dim() - 3, c = shape[lead], h = shape[lead + 1],
                w = shape[lead + 2];
  if (h % r != 0 || w % r != 0)
    t.fail("pixel_unshuffle: the height and width of input " +
           shape_str(shape) + " must be divisible by downscale_factor " +
           std::to_string(r));
  // [*, C, H, r, W, r] -> [*, C, r, r, H, W]
  return regroupTail(input, {c, h / r, r, w / r, r}, {0, 2, 4, 1, 3},
                     {c * r * r, h / r, w / r});
}

Tensor channel_shuffle(const Tensor &input, int64_t groups) {
  TraceContext &t = TraceContext::current("channel_shuffle");
  checkShuffle(t, "channel_shuffle", input, 3, "groups", groups);
  Shape shape = input.shape();
  if (shape[1] % groups != 0)
    t.fail("channel_shuffle: the channels of input " + shape_str(shape) +
           " must be divisible by groups " + std::to_string(groups));
  Shape split = shape;
  split[1] = shape[1] / groups;
  split.insert(split.begin() + 1, groups);
  return reshape(transpose(reshape(input, split), 1, 2), shape);
}

} // namespace nn::functional
