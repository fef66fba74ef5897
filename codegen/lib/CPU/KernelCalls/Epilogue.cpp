//===- Epilogue.cpp - Which ops the kernels take, and their epilogues -----===//
//
// Part of convert-nn-to-kernel (KernelCalls.h).
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;

RankedTensorType kernel_calls::staticF32(Value value, int64_t rank) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      (rank >= 0 && type.getRank() != rank))
    return nullptr;
  return type;
}

bool kernel_calls::isDepthwise(ConvOp conv) {
  auto input = staticF32(conv.getInput(), 4);
  auto weight = staticF32(conv.getWeight(), 4);
  auto groups = static_cast<int64_t>(conv.getGroups());
  return input && weight && groups > 1 && groups == input.getDimSize(1) &&
         weight.getDimSize(0) == input.getDimSize(1) &&
         weight.getDimSize(1) == 1;
}

namespace {

/// Whether a value of `op` has no elements (a zero dimension): the kernels
/// assume at least one of each; the loops handle none (PyTorch's answer: an
/// empty result, or zeros and the bias when the summed dimension is empty).
bool hasEmptyValue(Operation *op) {
  auto empty = [](Value v) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    return type && type.hasStaticShape() && type.getNumElements() == 0;
  };
  return llvm::any_of(op->getOperands(), empty) ||
         llvm::any_of(op->getResults(), empty);
}

} // namespace

const char *kernel_calls::whyNoKernel(Operation *op) {
  if (hasEmptyValue(op))
    return "a zero-size operand or result (lowered as loops)";
  if (auto matmul = llvm::dyn_cast<MatmulOp>(op)) {
    auto lhs = staticF32(matmul.getLhs());
    if (!lhs || lhs.getRank() < 2 || !staticF32(matmul.getRhs(), 2) ||
        !staticF32(matmul.getResult(), lhs.getRank()))
      return "needs static f32 operands: [..., K] x [K, N]";
    return nullptr;
  }
  if (auto linear = llvm::dyn_cast<LinearOp>(op)) {
    auto input = staticF32(linear.getInput());
    if (!input || input.getRank() < 1 || !staticF32(linear.getWeight(), 2) ||
        !staticF32(linear.getResult()))
      return "needs static f32 operands";
    if (linear.getBias() && !staticF32(linear.getBias(), 1))
      return "needs a static f32 bias";
    return nullptr;
  }
  if (auto conv = llvm::dyn_cast<ConvOp>(op)) {
    if (!staticF32(conv.getInput(), 4) || !staticF32(conv.getWeight(), 4) ||
        !staticF32(conv.getResult(), 4))
      return "needs 2-D static f32 operands";
    if (conv.getGroups() != 1 && !isDepthwise(conv))
      return "grouped convolution that is not depthwise";
    if (conv.getBias() && !staticF32(conv.getBias(), 1))
      return "needs a static f32 bias";
    if (conv.getStride().size() != 2 || conv.getDilation().size() != 2 ||
        (conv.getPadding().size() != 2 && conv.getPadding().size() != 4))
      return "unexpected window attributes";
    return nullptr;
  }
  return "not a matmul, linear or convolution";
}

const char *kernel_calls::whyNoBatchedKernel(Operation *op) {
  if (hasEmptyValue(op))
    return "a zero-size operand or result (lowered as loops)";
  if (auto attention = llvm::dyn_cast<ScaledDotProductAttentionOp>(op))
    if (attention.hasDropout())
      return "attention with dropout (training) has no kernel";
  for (Value v : op->getOperands())
    if (!staticF32(v))
      return "needs static f32 operands";
  auto result = staticF32(op->getResult(0));
  if (!result)
    return "needs a static f32 result";
  if (result.getRank() < 2 || result.getRank() - 2 > abi::kMaxBatchDims)
    return "more batch dimensions than the kernels take";
  return nullptr;
}

bool kernel_calls::isBatchedMatmul(Operation *op) {
  auto matmul = llvm::dyn_cast<MatmulOp>(op);
  return matmul &&
         llvm::cast<RankedTensorType>(matmul.getType()).getRank() > 2 &&
         llvm::cast<RankedTensorType>(matmul.getRhs().getType()).getRank() > 2;
}

namespace {

/// The dimensions of a contraction's result that its kernel walks as
/// images, GEMM rows and GEMM columns (nn_rt_addend's three strides).
struct GemmDims {
  SmallVector<int64_t, 1> images;
  SmallVector<int64_t, 4> rows, cols;
};

/// [..., M, N]: the batch dims are the images, M the rows, N the columns.
GemmDims batchedGemmDims(Operation *op) {
  int64_t rank =
      llvm::cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  GemmDims dims;
  for (int64_t d = 0; d + 2 < rank; ++d)
    dims.images.push_back(d);
  dims.rows.push_back(rank - 2);
  dims.cols.push_back(rank - 1);
  return dims;
}

GemmDims gemmDims(Operation *contraction) {
  if (llvm::isa<ConvOp>(contraction)) // [N, O, OH, OW]: Out[O, OH*OW] per image
    return {{0}, {1}, {2, 3}};
  if (isBatchedMatmul(contraction)) // [..., M, N]: one GEMM per batch index
    return batchedGemmDims(contraction);
  // matmul and linear: the leading dimensions are flattened into rows.
  int64_t rank =
      llvm::cast<RankedTensorType>(contraction->getResult(0).getType())
          .getRank();
  GemmDims dims;
  for (int64_t d = 0; d + 1 < rank; ++d)
    dims.rows.push_back(d);
  dims.cols.push_back(rank - 1);
  return dims;
}

/// The one stride that walks `dims` of `shape` (flattened row-major) through
/// an operand of strides `strides` (0 where it broadcasts), or nullopt when
/// no single stride does (e.g. broadcast along one of two flattened dims).
std::optional<int64_t> flatStride(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> dims) {
  std::optional<int64_t> stride;
  int64_t inner = 1; // elements of `dims` inside the current one
  for (int64_t d : llvm::reverse(dims)) {
    if (shape[d] == 1)
      continue; // its stride is never used
    if (!stride)
      stride = strides[d];
    else if (strides[d] != *stride * inner)
      return std::nullopt;
    inner *= shape[d];
  }
  return stride.value_or(0);
}

/// `tensor` (broadcast to `result` as nn's elementwise ops do: aligned
/// right, size-1 dims repeated) as an addend of a kernel whose result
/// dimensions map to images, rows and columns as `dims` says; nullopt when
/// it is not a static f32 tensor or its layout needs more than one stride
/// per group.
std::optional<Addend> makeAddend(Value tensor, RankedTensorType result,
                                 const GemmDims &dims) {
  auto type = staticF32(tensor);
  if (!type || type.getRank() > result.getRank())
    return std::nullopt;
  // The row-major strides of the tensor padded to the result's rank.
  int64_t rank = result.getRank(), pad = rank - type.getRank();
  SmallVector<int64_t> strides(rank, 0);
  int64_t next = 1;
  for (int64_t d = rank - 1; d >= pad; --d) {
    int64_t size = type.getDimSize(d - pad);
    if (size != 1 && size != result.getDimSize(d))
      return std::nullopt;
    strides[d] = size == 1 ? 0 : next;
    next *= size;
  }
  auto image = flatStride(result.getShape(), strides, dims.images);
  auto row = flatStride(result.getShape(), strides, dims.rows);
  auto col = flatStride(result.getShape(), strides, dims.cols);
  if (!image || !row || !col)
    return std::nullopt;
  return Addend{tensor, *image, *row, *col};
}

} // namespace

KernelEpilogue kernel_calls::matchEpilogue(Operation *contraction,
                                           OutsideFn outside) {
  KernelEpilogue e;
  e.result = contraction->getResult(0);
  if (auto linear = llvm::dyn_cast<LinearOp>(contraction)) {
    if (Value bias = linear.getBias())
      e.addends.push_back({outside(bias), 0, 0, 1});
  } else if (auto conv = llvm::dyn_cast<ConvOp>(contraction)) {
    if (Value bias = conv.getBias())
      e.addends.push_back({outside(bias), 0, 1, 0});
  }

  auto resultType = llvm::cast<RankedTensorType>(e.result.getType());
  GemmDims dims = gemmDims(contraction);
  while (e.activation == abi::kActNone && e.result.hasOneUse()) {
    Operation *user = *e.result.getUsers().begin();
    if (user->getBlock() != contraction->getBlock() ||
        user->getNumResults() != 1 ||
        user->getResult(0).getType() != resultType)
      break;
    if (auto add = llvm::dyn_cast<AddOp>(user)) {
      Value other = add.getLhs() == e.result ? add.getRhs() : add.getLhs();
      if (static_cast<int64_t>(e.addends.size()) == abi::kMaxAddends ||
          other == e.result)
        break;
      Value value = outside(other);
      std::optional<Addend> addend =
          value ? makeAddend(value, resultType, dims) : std::nullopt;
      if (!addend)
        break;
      e.addends.push_back(*addend);
    } else if (llvm::isa<ReluOp>(user)) {
      e.activation = abi::kActRelu;
    } else if (auto clamp = llvm::dyn_cast<ClampOp>(user)) {
      e.activation = abi::kActClamp;
      if (FloatAttr min = clamp.getMinAttr())
        e.min = static_cast<float>(min.getValueAsDouble());
      if (FloatAttr max = clamp.getMaxAttr())
        e.max = static_cast<float>(max.getValueAsDouble());
    } else if (auto leaky = llvm::dyn_cast<LeakyReluOp>(user)) {
      e.activation = abi::kActLeakyRelu;
      e.slope = static_cast<float>(leaky.getNegativeSlope().convertToDouble());
    } else {
      break;
    }
    e.absorbed.push_back(user);
    e.result = user->getResult(0);
  }
  return e;
}

kernel::EpilogueAttr kernel_calls::epilogueAttr(MLIRContext *context,
                                                const KernelEpilogue &e) {
  if (e.addends.empty() && e.activation == abi::kActNone)
    return nullptr;
  SmallVector<int64_t> strides;
  for (const Addend &a : e.addends)
    strides.append({a.image, a.row, a.col});
  return kernel::EpilogueAttr::get(
      context, strides, static_cast<kernel::Activation>(e.activation),
      APFloat(e.min), APFloat(e.max), APFloat(e.slope));
}

SmallVector<Value> kernel_calls::addendValues(const KernelEpilogue &e) {
  SmallVector<Value> values;
  for (const Addend &a : e.addends)
    values.push_back(a.tensor);
  return values;
}
