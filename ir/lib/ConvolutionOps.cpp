//===- ConvolutionOps.cpp - nn convolution, pooling and resampling ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNConvolutionOps.td. As everywhere in the dialect, inference is the
// verifier; messages use PyTorch's op names (conv2d, max_pool2d, ...) and name
// the shapes involved.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::detail;

namespace {

/// "[1, 2]"
std::string listOf(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(values, os, ", ");
  os << "]";
  return s;
}

/// Checks that window attribute `name` has `rank` entries (or, when
/// `allowLowHigh`, 2 × `rank`: low sides then high sides), each ≥ `minValue`.
LogicalResult checkWindowAttr(std::optional<Location> loc, StringRef opName,
                              StringRef name, ArrayRef<int64_t> values,
                              int64_t rank, int64_t minValue,
                              bool allowLowHigh = false) {
  bool sizeOk =
      static_cast<int64_t>(values.size()) == rank ||
      (allowLowHigh && static_cast<int64_t>(values.size()) == 2 * rank);
  if (!sizeOk)
    return emitOptionalError(loc, opName, ": ", name, " must have ", rank,
                             allowLowHigh ? " (or " + std::to_string(2 * rank) +
                                                " low-then-high)"
                                          : std::string(),
                             " entries, got ", listOf(values));
  for (int64_t v : values)
    if (v < minValue)
      return emitOptionalError(loc, opName, ": ", name,
                               " must be >= ", minValue, ", got ",
                               listOf(values));
  return success();
}

/// How PyTorch's documentation names a channels-first layout of `rank`
/// spatial dimensions.
StringRef layoutOf(int64_t rank) {
  return rank == 1   ? "[N, C, L]"
         : rank == 2 ? "[N, C, H, W]"
                     : "[N, C, D, H, W]";
}

/// The op's name as torch.nn.functional spells it for `rank` spatial
/// dimensions: "conv" -> "conv3d".
std::string rankedName(StringRef base, int64_t rank) {
  return (base + Twine(rank) + "d").str();
}

/// Checks `input` is [N, C, spatial...] with `rank` spatial dimensions.
LogicalResult checkChannelsFirst(std::optional<Location> loc, StringRef opName,
                                 RankedTensorType input, int64_t rank) {
  if (input.getRank() != rank + 2)
    return emitOptionalError(loc, opName, ": input must be ", rank + 2, "-D ",
                             layoutOf(rank), ", got ", shapeOf(input));
  return success();
}

/// What nn.conv and nn.conv_transpose check alike: `input` is [N, C,
/// spatial...] with 1 to 3 spatial dimensions, `weight` (laid out as
/// `weightLayout` says) has its rank, groups >= 1, and each window
/// attribute one entry per spatial dimension (`padding` may give low then
/// high sides; `outputPadding` only for the transposed convolution).
/// Returns the op's name for its rank ("conv3d", "conv_transpose1d"), which
/// every further message starts with.
FailureOr<std::string>
checkConvOperands(std::optional<Location> loc, StringRef base,
                  StringRef weightLayout, RankedTensorType input,
                  RankedTensorType weight, int64_t groups,
                  ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                  std::optional<ArrayRef<int64_t>> outputPadding,
                  ArrayRef<int64_t> dilation) {
  if (input.getRank() < 3 || input.getRank() > 5)
    return emitOptionalError(loc, base, ": input must be ", layoutOf(1), ", ",
                             layoutOf(2), " or ", layoutOf(3), ", got ",
                             shapeOf(input));
  int64_t rank = input.getRank() - 2;
  std::string name = rankedName(base, rank);
  if (weight.getRank() != input.getRank())
    return emitOptionalError(loc, name, ": weight must be ", input.getRank(),
                             "-D ", weightLayout, " like the input (input ",
                             shapeOf(input), ", weight ", shapeOf(weight), ")");
  if (groups < 1)
    return emitOptionalError(loc, name, ": groups must be >= 1, got ", groups);
  if (failed(checkWindowAttr(loc, name, "stride", stride, rank, 1)) ||
      failed(checkWindowAttr(loc, name, "padding", padding, rank, 0,
                             /*allowLowHigh=*/true)) ||
      (outputPadding && failed(checkWindowAttr(loc, name, "output_padding",
                                               *outputPadding, rank, 0))) ||
      failed(checkWindowAttr(loc, name, "dilation", dilation, rank, 1)))
    return failure();
  return name;
}

/// torch's pooling_output_shape, computed in 128 bits; nullopt when an
/// attribute is so large that the size does not fit an int64.
std::optional<int64_t> pooledSize(int64_t in, int64_t kernel, int64_t padLo,
                                  int64_t padHi, int64_t stride,
                                  int64_t dilation, bool ceilMode) {
  using Wide = __int128;
  Wide span =
      Wide(in) + padLo + padHi - Wide(dilation) * (Wide(kernel) - 1) - 1;
  if (span < 0)
    return 0;
  Wide out = (span + (ceilMode ? Wide(stride) - 1 : 0)) / stride + 1;
  // The last window must start inside the input or its low padding.
  if (ceilMode && (out - 1) * stride >= Wide(in) + padLo)
    --out;
  if (out > std::numeric_limits<int64_t>::max())
    return std::nullopt;
  return static_cast<int64_t>(out);
}

/// Checks the optional bias is [channels] with the input's element type.
LogicalResult checkBias(std::optional<Location> loc, StringRef opName,
                        Value bias, int64_t channels, RankedTensorType input,
                        RankedTensorType weight) {
  if (!bias)
    return success();
  auto biasType = llvm::cast<RankedTensorType>(bias.getType());
  if (biasType.getRank() != 1 || biasType.getDimSize(0) != channels)
    return emitOptionalError(loc, opName, ": bias must be [", channels,
                             "] to match weight ", shapeOf(weight), ", got ",
                             shapeOf(biasType));
  return sameElementType(loc, opName, "input", input, "bias", biasType);
}

} // namespace

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult
ConvOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                         Adaptor adaptor,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = llvm::cast<RankedTensorType>(adaptor.getWeight().getType());
  FailureOr<std::string> checked = checkConvOperands(
      loc, "conv", "[out, in / groups, kernel...]", input, weight,
      adaptor.getGroups(), adaptor.getStride(), adaptor.getPadding(),
      std::nullopt, adaptor.getDilation());
  if (failed(checked))
    return failure();
  const std::string &name = *checked;
  int64_t rank = input.getRank() - 2, groups = adaptor.getGroups();
  std::string shapes =
      " (input " + shapeOf(input) + ", weight " + shapeOf(weight) + ")";
  int64_t channels = input.getDimSize(1), out = weight.getDimSize(0);
  if (channels % groups != 0)
    return emitOptionalError(loc, name, ": input has ", channels,
                             " channels, not divisible by groups ", groups,
                             shapes);
  if (out % groups != 0)
    return emitOptionalError(loc, name, ": weight has ", out,
                             " output channels, not divisible by groups ",
                             groups, shapes);
  if (weight.getDimSize(1) * groups != channels)
    return emitOptionalError(
        loc, name, ": input has ", channels, " channels, weight expects ",
        weight.getDimSize(1) * groups, " (", weight.getDimSize(1),
        " per group, groups ", groups, ")", shapes);
  auto elementType =
      sameElementType(loc, name, "input", input, "weight", weight);
  if (failed(elementType) ||
      failed(checkBias(loc, name, adaptor.getBias(), out, input, weight)))
    return failure();
  SmallVector<int64_t> lo = padLow(adaptor.getPadding(), rank),
                       hi = padHigh(adaptor.getPadding(), rank);
  SmallVector<int64_t> shape = {input.getDimSize(0), out};
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<int64_t> size = pooledSize(
        input.getDimSize(2 + i), weight.getDimSize(2 + i), lo[i], hi[i],
        adaptor.getStride()[i], adaptor.getDilation()[i], false);
    if (!size)
      return emitOptionalError(loc, name,
                               ": the output size overflows int64 "
                               "in dimension ",
                               2 + i, shapes);
    if (*size < 1)
      return emitOptionalError(loc, name,
                               ": the (dilated) kernel is larger than the "
                               "padded input in dimension ",
                               2 + i, shapes);
    shape.push_back(*size);
  }
  inferredReturnTypes.push_back(RankedTensorType::get(shape, *elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult
ConvTransposeOp::inferReturnTypes(MLIRContext *context,
                                  std::optional<Location> loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = llvm::cast<RankedTensorType>(adaptor.getWeight().getType());
  FailureOr<std::string> checked = checkConvOperands(
      loc, "conv_transpose", "[in, out / groups, kernel...]", input, weight,
      adaptor.getGroups(), adaptor.getStride(), adaptor.getPadding(),
      adaptor.getOutputPadding(), adaptor.getDilation());
  if (failed(checked))
    return failure();
  const std::string &name = *checked;
  int64_t rank = input.getRank() - 2, groups = adaptor.getGroups();
  std::string shapes =
      " (input " + shapeOf(input) + ", weight " + shapeOf(weight) + ")";
  int64_t channels = input.getDimSize(1);
  if (weight.getDimSize(0) != channels)
    return emitOptionalError(loc, name, ": input has ", channels,
                             " channels, weight expects ", weight.getDimSize(0),
                             shapes);
  if (channels % groups != 0)
    return emitOptionalError(loc, name, ": input has ", channels,
                             " channels, not divisible by groups ", groups,
                             shapes);
  int64_t out = weight.getDimSize(1) * groups;
  auto elementType =
      sameElementType(loc, name, "input", input, "weight", weight);
  if (failed(elementType) ||
      failed(checkBias(loc, name, adaptor.getBias(), out, input, weight)))
    return failure();
  SmallVector<int64_t> lo = padLow(adaptor.getPadding(), rank),
                       hi = padHigh(adaptor.getPadding(), rank);
  SmallVector<int64_t> shape = {input.getDimSize(0), out};
  for (int64_t i = 0; i < rank; ++i) {
    int64_t s = adaptor.getStride()[i], d = adaptor.getDilation()[i],
            op = adaptor.getOutputPadding()[i];
    if (op >= s && op >= d)
      return emitOptionalError(
          loc, name, ": output_padding ", listOf(adaptor.getOutputPadding()),
          " must be smaller than stride ", listOf(adaptor.getStride()),
          " or dilation ", listOf(adaptor.getDilation()));
    int64_t size = (input.getDimSize(2 + i) - 1) * s - lo[i] - hi[i] +
                   d * (weight.getDimSize(2 + i) - 1) + op + 1;
    if (size < 1)
      return emitOptionalError(
          loc, name, ": padding ", listOf(adaptor.getPadding()),
          " leaves no output in dimension ", 2 + i, shapes);
    shape.push_back(size);
  }
  inferredReturnTypes.push_back(RankedTensorType::get(shape, *elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The name of a pooling op with `input`'s spatial rank ("max_pool3d"), or
/// a located error when the input is not [N, C, spatial...] with 1 to 3
/// spatial dimensions.
static FailureOr<std::string> poolName(std::optional<Location> loc,
                                       StringRef base, RankedTensorType input) {
  if (input.getRank() < 3 || input.getRank() > 5)
    return emitOptionalError(loc, base, ": input must be ", layoutOf(1), ", ",
                             layoutOf(2), " or ", layoutOf(3), ", got ",
                             shapeOf(input));
  return rankedName(base, input.getRank() - 2);
}

/// Shared by max and average pooling: window attributes, padding at most half
/// the kernel, a non-empty output.
static LogicalResult
inferPool(std::optional<Location> loc, StringRef base, RankedTensorType input,
          ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
          ArrayRef<int64_t> padding, std::optional<ArrayRef<int64_t>> dilation,
          bool ceilMode, SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<std::string> name = poolName(loc, base, input);
  if (failed(name))
    return failure();
  int64_t rank = input.getRank() - 2;
  if (failed(checkWindowAttr(loc, *name, "kernel_size", kernel, rank, 1)) ||
      failed(checkWindowAttr(loc, *name, "stride", stride, rank, 1)) ||
      failed(checkWindowAttr(loc, *name, "padding", padding, rank, 0)) ||
      (dilation &&
       failed(checkWindowAttr(loc, *name, "dilation", *dilation, rank, 1))))
    return failure();
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  for (int64_t i = 0; i < rank; ++i) {
    if (padding[i] > kernel[i] / 2)
      return emitOptionalError(loc, *name, ": padding ", listOf(padding),
                               " must be at most half of kernel_size ",
                               listOf(kernel));
    std::optional<int64_t> size =
        pooledSize(input.getDimSize(2 + i), kernel[i], padding[i], padding[i],
                   stride[i], dilation ? (*dilation)[i] : 1, ceilMode);
    if (!size)
      return emitOptionalError(loc, *name,
                               ": the output size overflows int64 "
                               "(kernel_size ",
                               listOf(kernel), ", dilation ",
                               listOf(dilation.value_or(ArrayRef<int64_t>())),
                               ")");
    if (*size < 1)
      return emitOptionalError(loc, *name, ": kernel_size ", listOf(kernel),
                               " is larger than the padded input ",
                               shapeOf(input));
    shape.push_back(*size);
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult
MaxPoolOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  return inferPool(loc, "max_pool",
                   llvm::cast<RankedTensorType>(adaptor.getInput().getType()),
                   adaptor.getKernel(), adaptor.getStride(),
                   adaptor.getPadding(), adaptor.getDilation(),
                   adaptor.getCeilMode(), inferredReturnTypes);
}

LogicalResult
AvgPoolOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (auto divisor = adaptor.getDivisorOverride()) {
    FailureOr<std::string> name = poolName(loc, "avg_pool", input);
    if (failed(name))
      return failure();
    if (static_cast<int64_t>(*divisor) < 1)
      return emitOptionalError(loc, *name, ": divisor_override must be >= 1, ",
                               "got ", static_cast<int64_t>(*divisor));
  }
  return inferPool(loc, "avg_pool", input, adaptor.getKernel(),
                   adaptor.getStride(), adaptor.getPadding(), std::nullopt,
                   adaptor.getCeilMode(), inferredReturnTypes);
}

LogicalResult AdaptiveAvgPoolOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  FailureOr<std::string> name = poolName(loc, "adaptive_avg_pool", input);
  if (failed(name))
    return failure();
  int64_t rank = input.getRank() - 2;
  if (failed(checkWindowAttr(loc, *name, "output_size", adaptor.getOutputSize(),
                             rank, 1)))
    return failure();
  if (llvm::is_contained(input.getShape().drop_front(2), 0))
    return emitOptionalError(loc, *name, ": input ", shapeOf(input),
                             " has an empty spatial dimension");
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  llvm::append_range(shape, adaptor.getOutputSize());
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// InterpolateOp
//===----------------------------------------------------------------------===//

LogicalResult
InterpolateOp::inferReturnTypes(MLIRContext *context,
                                std::optional<Location> loc, Adaptor adaptor,
                                SmallVectorImpl<Type> &inferredReturnTypes) {
  StringRef name = "interpolate";
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkChannelsFirst(loc, name, input, 2)) ||
      failed(checkWindowAttr(loc, name, "size", adaptor.getSize(), 2, 1)))
    return failure();
  StringRef mode = adaptor.getMode();
  if (mode != "nearest" && mode != "bilinear")
    return emitOptionalError(loc, name,
                             ": mode must be \"nearest\" or "
                             "\"bilinear\", got \"",
                             mode, "\"");
  if (mode == "nearest" && adaptor.getAlignCorners())
    return emitOptionalError(loc, name,
                             ": align_corners only applies to "
                             "mode \"bilinear\"");
  if (auto scales = adaptor.getScales()) {
    if (scales->size() != 2 ||
        llvm::any_of(*scales, [](double s) { return !(s > 0.0); }))
      return emitOptionalError(loc, name,
                               ": scales must be two positive numbers");
  }
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  llvm::append_range(shape, adaptor.getSize());
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, input.getElementType()));
  return success();
}

SmallVector<int64_t> mlir::nn::padLow(ArrayRef<int64_t> padding, int64_t rank) {
  return SmallVector<int64_t>(padding.take_front(rank));
}

SmallVector<int64_t> mlir::nn::padHigh(ArrayRef<int64_t> padding,
                                       int64_t rank) {
  return SmallVector<int64_t>(static_cast<int64_t>(padding.size()) == 2 * rank
                                  ? padding.drop_front(rank)
                                  : padding.take_front(rank));
}

SmallVector<double> mlir::nn::avgPoolDivisors(AvgPoolOp op) {
  ArrayRef<int64_t>
      in = llvm::cast<RankedTensorType>(op.getInput().getType())
               .getShape()
               .drop_front(2),
      out = llvm::cast<RankedTensorType>(op.getType()).getShape().drop_front(2),
      kernel = op.getKernel(), stride = op.getStride(), pad = op.getPadding();
  SmallVector<double> divisors = {1.0};
  for (size_t i = 0; i < in.size(); ++i) {
    SmallVector<double> next;
    for (double cells : divisors)
      for (int64_t o = 0; o < out[i]; ++o) {
        int64_t start = o * stride[i] - pad[i];
        int64_t end = std::min(start + kernel[i], in[i] + pad[i]);
        if (!op.getCountIncludePad())
          start = std::max<int64_t>(start, 0), end = std::min(end, in[i]);
        next.push_back(cells * static_cast<double>(end - start));
      }
    divisors = std::move(next);
  }
  if (auto override = op.getDivisorOverride())
    return SmallVector<double>(divisors.size(), static_cast<double>(*override));
  for (double &d : divisors)
    if (d <= 0) // An empty window sums to 0; PyTorch writes 0 there.
      d = 1.0;
  return divisors;
}

std::pair<int64_t, int64_t> mlir::nn::adaptivePoolWindow(int64_t i, int64_t in,
                                                         int64_t out) {
  return {(i * in) / out, ((i + 1) * in + out - 1) / out};
}

float mlir::nn::interpolationScale(int64_t in, int64_t out, bool alignCorners,
                                   std::optional<double> scale) {
  if (alignCorners)
    return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                   : 0.0f;
  if (scale && *scale > 0.0)
    return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}
