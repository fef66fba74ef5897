//===- LowerToKernelCalls.cpp - Heavy nn ops to nn_kernels calls ----------===//
//
// Implements nn-lower-to-kernel-calls (see Passes.td): nn.matmul, nn.linear
// and 2-D nn.conv (groups 1, or depthwise), alone or leading an nn.fused
// group, become calls of the runtime's packed micro-kernels
// (nn/Runtime/Kernels.h). One matcher
// (matchEpilogue) decides, for both forms, which consumers the kernel's
// store applies: bias, up to two broadcast adds (a residual), then relu,
// clamp or leaky_relu; what it cannot apply stays pointwise code.
// Operands cross as `!llvm.ptr` built from the aligned base pointer and the
// offset of `bufferization.to_memref`, with the strides read from
// `memref.extract_strided_metadata`, so whatever layout bufferization picks
// is passed through without a copy.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"
#include "nn/IR/NNOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <limits>
#include <optional>

#define DEBUG_TYPE "nn-lower-to-kernel-calls"

namespace mlir::nn {
#define GEN_PASS_DEF_LOWERTOKERNELCALLSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Values of NN_RT_ACT_* and NN_RT_MAX_ADDENDS (Kernels.h).
constexpr int32_t kActNone = 0, kActRelu = 1, kActClamp = 2,
                  kActLeakyRelu = 3;
constexpr size_t kMaxAddends = 2;

/// A statically shaped f32 tensor type (of rank `rank` unless it is -1), or
/// null.
RankedTensorType staticF32(Value value, int64_t rank = -1) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      (rank >= 0 && type.getRank() != rank))
    return nullptr;
  return type;
}

/// True when `conv` is depthwise (groups = input channels = output
/// channels, one [1, KH, KW] filter per channel): nn_rt_conv2d_depthwise_nchw
/// computes it. Channel multipliers > 1 and other groupings are not.
bool isDepthwise(ConvOp conv) {
  auto input = staticF32(conv.getInput(), 4);
  auto weight = staticF32(conv.getWeight(), 4);
  auto groups = static_cast<int64_t>(conv.getGroups());
  return input && weight && groups > 1 && groups == input.getDimSize(1) &&
         weight.getDimSize(0) == input.getDimSize(1) &&
         weight.getDimSize(1) == 1;
}

/// Why the kernels cannot compute `op` (an nn.matmul, nn.linear or nn.conv),
/// or null when they can.
const char *whyNoKernel(Operation *op) {
  if (auto matmul = llvm::dyn_cast<MatmulOp>(op)) {
    if (!staticF32(matmul.getLhs(), 2) || !staticF32(matmul.getRhs(), 2) ||
        !staticF32(matmul.getResult(), 2))
      return "needs 2-D static f32 operands";
    return nullptr;
  }
  if (auto linear = llvm::dyn_cast<LinearOp>(op)) {
    auto input = staticF32(linear.getInput());
    if (!input || input.getRank() < 1 || !staticF32(linear.getWeight(), 2) ||
        !staticF32(linear.getResult()))
      return "needs static f32 operands";
    if (linear.getBias() && !staticF32(linear.getBias(), 1))
      return "needs a static f32 bias";
    if (linear.getActivation() != Activation::none &&
        linear.getActivation() != Activation::relu)
      return "activation has no kernel";
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

/// The dimensions of a contraction's result that its kernel walks as
/// images, GEMM rows and GEMM columns (nn_rt_addend's three strides).
struct GemmDims {
  SmallVector<int64_t, 1> images;
  SmallVector<int64_t, 4> rows, cols;
};

GemmDims gemmDims(Operation *contraction) {
  if (llvm::isa<ConvOp>(contraction)) // [N, O, OH, OW]: Out[O, OH*OW] per image
    return {{0}, {1}, {2, 3}};
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

/// A tensor the kernel adds in its store (nn_rt_addend): its element for
/// (i, m, n) is at i * image + m * row + n * col in its row-major buffer.
struct Addend {
  Value tensor;
  int64_t image = 0, row = 0, col = 0;
};

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

/// What a kernel applies in its store (nn_rt_epilogue): the contraction's
/// own bias and activation, then the pointwise consumers it absorbs.
struct KernelEpilogue {
  SmallVector<Addend, kMaxAddends> addends;
  int32_t activation = kActNone;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  float slope = 0.f;
  /// The absorbed consumers, in order; each one's result feeds only the next.
  SmallVector<Operation *> absorbed;
  /// The value the kernel computes: the last absorbed op's result, or the
  /// contraction's.
  Value result;
};

/// Maps a value seen by the contraction and its consumers to the value the
/// kernel call may use at its insertion point (null: none).
using OutsideFn = function_ref<Value(Value)>;

/// The epilogue of `contraction`: its bias and activation, then the chain of
/// single-use consumers the kernel's store can apply (adds of a tensor
/// `outside` provides, while addend slots remain, then at most one relu,
/// clamp or leaky_relu). The chain stops at the first consumer that does
/// not fit; the caller keeps everything after it.
KernelEpilogue matchEpilogue(Operation *contraction, OutsideFn outside) {
  KernelEpilogue e;
  e.result = contraction->getResult(0);
  if (auto linear = llvm::dyn_cast<LinearOp>(contraction)) {
    if (Value bias = linear.getBias())
      e.addends.push_back({outside(bias), 0, 0, 1});
    if (linear.getActivation() == Activation::relu)
      e.activation = kActRelu;
  } else if (auto conv = llvm::dyn_cast<ConvOp>(contraction)) {
    if (Value bias = conv.getBias())
      e.addends.push_back({outside(bias), 0, 1, 0});
  }

  auto resultType = llvm::cast<RankedTensorType>(e.result.getType());
  GemmDims dims = gemmDims(contraction);
  while (e.activation == kActNone && e.result.hasOneUse()) {
    Operation *user = *e.result.getUsers().begin();
    if (user->getBlock() != contraction->getBlock() ||
        user->getNumResults() != 1 ||
        user->getResult(0).getType() != resultType)
      break;
    if (auto add = llvm::dyn_cast<AddOp>(user)) {
      Value other = add.getLhs() == e.result ? add.getRhs() : add.getLhs();
      if (e.addends.size() == kMaxAddends || other == e.result)
        break;
      Value value = outside(other);
      std::optional<Addend> addend =
          value ? makeAddend(value, resultType, dims) : std::nullopt;
      if (!addend)
        break;
      e.addends.push_back(*addend);
    } else if (llvm::isa<ReluOp>(user)) {
      e.activation = kActRelu;
    } else if (auto clamp = llvm::dyn_cast<ClampOp>(user)) {
      e.activation = kActClamp;
      if (FloatAttr min = clamp.getMinAttr())
        e.min = static_cast<float>(min.getValueAsDouble());
      if (FloatAttr max = clamp.getMaxAttr())
        e.max = static_cast<float>(max.getValueAsDouble());
    } else if (auto leaky = llvm::dyn_cast<LeakyReluOp>(user)) {
      e.activation = kActLeakyRelu;
      e.slope = static_cast<float>(leaky.getNegativeSlope().convertToDouble());
    } else {
      break;
    }
    e.absorbed.push_back(user);
    e.result = user->getResult(0);
  }
  return e;
}

/// Builds the operands of a kernel call.
class CallBuilder {
public:
  CallBuilder(PatternRewriter &rewriter, Location loc)
      : b(rewriter), loc(loc), ptrType(LLVM::LLVMPointerType::get(
                                   rewriter.getContext())) {}

  Value i64(int64_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, b.getI64Type());
  }
  Value i32(int32_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, b.getI32Type());
  }
  Value f32(float v) {
    return b.create<arith::ConstantFloatOp>(loc, APFloat(v), b.getF32Type());
  }
  Value null() { return b.create<LLVM::ZeroOp>(loc, ptrType); }
  Value toI64(Value index) {
    return b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
  }

  /// `tensor` as a read-only memref: of any strides and offset, or
  /// `contiguous` (row-major; bufferization copies into a new buffer when
  /// it cannot prove the tensor's buffer already is).
  Value readView(Value tensor, bool contiguous = false) {
    auto type = llvm::cast<RankedTensorType>(tensor.getType());
    SmallVector<int64_t> dynamic(type.getRank(), ShapedType::kDynamic);
    auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                         dynamic);
    auto memrefType =
        contiguous
            ? MemRefType::get(type.getShape(), type.getElementType())
            : MemRefType::get(type.getShape(), type.getElementType(), layout);
    return b.create<bufferization::ToMemrefOp>(loc, memrefType, tensor,
                                               /*read_only=*/true);
  }

  /// The address of element 0 of `memref` and its strides (in elements).
  std::pair<Value, SmallVector<Value>> pointer(Value memref) {
    auto meta = b.create<memref::ExtractStridedMetadataOp>(loc, memref);
    Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
    Value four = b.create<arith::ConstantIndexOp>(loc, 4);
    Value bytes = b.create<arith::MulIOp>(loc, meta.getOffset(), four);
    Value address = b.create<arith::AddIOp>(loc, base, bytes);
    Value ptr = b.create<LLVM::IntToPtrOp>(loc, ptrType, toI64(address));
    SmallVector<Value> strides;
    for (Value s : meta.getStrides())
      strides.push_back(toI64(s));
    return {ptr, strides};
  }

  /// A fresh, aligned, identity-layout buffer of `type` and its address.
  std::pair<Value, Value> output(RankedTensorType type) {
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value alloc = b.create<memref::AllocOp>(loc, memrefType,
                                            b.getI64IntegerAttr(64));
    Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, alloc);
    return {alloc, b.create<LLVM::IntToPtrOp>(loc, ptrType, toI64(base))};
  }

  /// The tensor a kernel wrote into `alloc`.
  Value result(Value alloc, RankedTensorType type) {
    return b.create<bufferization::ToTensorOp>(loc, type, alloc,
                                               /*restrict=*/true,
                                               /*writable=*/true);
  }

  /// A pointer to an nn_rt_epilogue holding `e`, or a null pointer when `e`
  /// does nothing. The struct lives in a stack slot of `anchor`'s function
  /// (allocated in its entry block, so a call in a loop reuses it), which
  /// keeps the compiled forward re-entrant.
  Value epilogue(Operation *anchor, const KernelEpilogue &e) {
    if (e.addends.empty() && e.activation == kActNone)
      return null();
    Type i64Type = b.getI64Type();
    SmallVector<Type> fields;
    for (size_t i = 0; i < kMaxAddends; ++i)
      fields.append({ptrType, i64Type, i64Type, i64Type});
    fields.append({b.getI32Type(), b.getF32Type(), b.getF32Type(),
                   b.getF32Type()});
    auto type = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
    Value value = b.create<LLVM::UndefOp>(loc, type);
    int64_t field = 0;
    auto set = [&](Value v) {
      value = b.create<LLVM::InsertValueOp>(loc, value, v,
                                            ArrayRef<int64_t>{field++});
    };
    for (size_t i = 0; i < kMaxAddends; ++i) {
      Addend a = i < e.addends.size() ? e.addends[i] : Addend{};
      set(a.tensor ? pointer(readView(a.tensor, /*contiguous=*/true)).first
                   : null());
      set(i64(a.image));
      set(i64(a.row));
      set(i64(a.col));
    }
    set(i32(e.activation));
    set(f32(e.min));
    set(f32(e.max));
    set(f32(e.slope));
    Value slot;
    {
      OpBuilder::InsertionGuard guard(b);
      auto func = anchor->getParentOfType<FunctionOpInterface>();
      b.setInsertionPointToStart(&func.getFunctionBody().front());
      slot = b.create<LLVM::AllocaOp>(loc, ptrType, type, i64(1),
                                      /*alignment=*/8);
    }
    b.create<LLVM::StoreOp>(loc, value, slot);
    return slot;
  }

  /// Declares `name` (no results) in the module on first use and calls it.
  void call(Operation *anchor, StringRef name, ValueRange args) {
    auto module = anchor->getParentOfType<ModuleOp>();
    auto callee = module.lookupSymbol<func::FuncOp>(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      callee = b.create<func::FuncOp>(
          loc, name, b.getFunctionType(TypeRange(args), TypeRange{}));
      callee.setPrivate();
    }
    b.create<func::CallOp>(loc, callee, args);
  }

  PatternRewriter &b;
  Location loc;
  Type ptrType;
};


/// `value` reshaped between [d0, ..., dn] and [d0 * ... * dn-1, dn] (either
/// direction, `type` being the target): nn.linear's leading dimensions are
/// the GEMM's rows. A rank-1 side is one row.
Value reshapeRows(PatternRewriter &rewriter, Location loc, Value value,
                  RankedTensorType type) {
  auto from = llvm::cast<RankedTensorType>(value.getType());
  if (from.getRank() == type.getRank())
    return value;
  bool expand = type.getRank() > from.getRank();
  // The rank of the side that is not the GEMM's [rows, cols].
  int64_t rank = from.getRank() == 2 ? type.getRank() : from.getRank();
  SmallVector<ReassociationIndices> groups;
  if (rank == 1) {
    groups.push_back({0, 1});
  } else {
    ReassociationIndices leading;
    for (int64_t i = 0; i + 1 < rank; ++i)
      leading.push_back(i);
    groups = {leading, {rank - 1}};
  }
  if (expand)
    return rewriter.create<tensor::ExpandShapeOp>(loc, type, value, groups);
  return rewriter.create<tensor::CollapseShapeOp>(loc, type, value, groups);
}

/// Emits the kernel call that computes `contraction` (its operands mapped
/// through `outside`) with the epilogue `e`, at the rewriter's insertion
/// point; returns the result, of the contraction's type.
Value emitKernel(PatternRewriter &rewriter, Operation *contraction,
                 OutsideFn outside, const KernelEpilogue &e) {
  Location loc = contraction->getLoc();
  CallBuilder cb(rewriter, loc);
  auto resultType =
      llvm::cast<RankedTensorType>(contraction->getResult(0).getType());

  if (auto conv = llvm::dyn_cast<ConvOp>(contraction)) {
    // The kernel reads NCHW / OIHW row-major.
    Value input = outside(conv.getInput()), weight = outside(conv.getWeight());
    Value inPtr = cb.pointer(cb.readView(input, true)).first;
    Value wPtr = cb.pointer(cb.readView(weight, true)).first;
    Value epilogue = cb.epilogue(contraction, e);
    auto [alloc, outPtr] = cb.output(resultType);
    ArrayRef<int64_t> in = llvm::cast<RankedTensorType>(input.getType()).getShape(),
                      w = llvm::cast<RankedTensorType>(weight.getType()).getShape(),
                      out = resultType.getShape();
    ArrayRef<int64_t> stride = conv.getStride(), padding = conv.getPadding(),
                      dilation = conv.getDilation();
    if (isDepthwise(conv))
      cb.call(contraction, "nn_rt_conv2d_depthwise_nchw",
              {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]),
               inPtr, cb.i64(w[2]), cb.i64(w[3]), wPtr, cb.i64(stride[0]),
               cb.i64(stride[1]), cb.i64(padding[0]), cb.i64(padding[1]),
               cb.i64(dilation[0]), cb.i64(dilation[1]), cb.i64(out[2]),
               cb.i64(out[3]), outPtr, epilogue});
    else
      cb.call(contraction, "nn_rt_conv2d_nchw",
              {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]),
               inPtr, cb.i64(w[0]), cb.i64(w[2]), cb.i64(w[3]), wPtr,
               cb.i64(stride[0]), cb.i64(stride[1]), cb.i64(padding[0]),
               cb.i64(padding[1]), cb.i64(dilation[0]), cb.i64(dilation[1]),
               cb.i64(out[2]), cb.i64(out[3]), outPtr, epilogue});
    return cb.result(alloc, resultType);
  }

  // C[M, N] = A[M, K] x B[K, N].
  Value lhs, bPtr, rsB, csB;
  int64_t M, N, K;
  if (auto matmul = llvm::dyn_cast<MatmulOp>(contraction)) {
    lhs = outside(matmul.getLhs());
    auto [ptr, strides] = cb.pointer(cb.readView(outside(matmul.getRhs())));
    bPtr = ptr, rsB = strides[0], csB = strides[1];
    M = resultType.getDimSize(0), N = resultType.getDimSize(1);
    K = llvm::cast<RankedTensorType>(lhs.getType()).getDimSize(1);
  } else {
    auto linear = llvm::cast<LinearOp>(contraction);
    auto input = llvm::cast<RankedTensorType>(linear.getInput().getType());
    K = input.getShape().back(), N = resultType.getShape().back();
    M = input.getNumElements() / K;
    lhs = reshapeRows(rewriter, loc, outside(linear.getInput()),
                      RankedTensorType::get({M, K}, rewriter.getF32Type()));
    // B[k, n] = weight[n, k]: the weight's strides swapped.
    auto [ptr, strides] = cb.pointer(cb.readView(outside(linear.getWeight())));
    bPtr = ptr, rsB = strides[1], csB = strides[0];
  }
  auto [aPtr, aStrides] = cb.pointer(cb.readView(lhs));
  Value epilogue = cb.epilogue(contraction, e);
  auto outType = RankedTensorType::get({M, N}, rewriter.getF32Type());
  auto [alloc, cPtr] = cb.output(outType);
  cb.call(contraction, "nn_rt_sgemm",
          {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
           bPtr, rsB, csB, cPtr, cb.i64(N), cb.i32(0), epilogue});
  return reshapeRows(rewriter, loc, cb.result(alloc, outType), resultType);
}

/// A contraction outside any group, with the consumers its epilogue
/// absorbs (conv → add → relu written as separate ops).
template <typename OpTy>
struct ContractionToKernel : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op->template getParentOfType<FusedOp>())
      return rewriter.notifyMatchFailure(
          op, "inside an nn.fused group (lowered with its group)");
    if (const char *why = whyNoKernel(op))
      return rewriter.notifyMatchFailure(op, why);
    auto same = [](Value v) { return v; };
    KernelEpilogue e = matchEpilogue(op, same);
    // An addend is defined before the consumer that reads it, maybe after op.
    rewriter.setInsertionPoint(e.absorbed.empty() ? op.getOperation()
                                                  : e.absorbed.back());
    Value result = emitKernel(rewriter, op, same, e);
    rewriter.replaceAllUsesWith(e.result, result);
    for (Operation *consumer : llvm::reverse(e.absorbed))
      rewriter.eraseOp(consumer);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A pointwise nn.fused group computing `ops` (cloned in order), returning
/// `yielded`; `outside` maps every value they read from beyond themselves to
/// a value at the insertion point.
Value buildPointwiseGroup(PatternRewriter &rewriter, Location loc,
                          ArrayRef<Operation *> ops, Value yielded,
                          const IRMapping &outside, Type resultType) {
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
  llvm::SetVector<Value> leaves;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!inside.contains(operand.getDefiningOp()))
        leaves.insert(operand);
  SmallVector<Value> inputs;
  for (Value leaf : leaves)
    inputs.push_back(outside.lookup(leaf));
  auto group = rewriter.create<FusedOp>(loc, resultType, inputs);
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<Location> locs(inputs.size(), loc);
  Block *block = rewriter.createBlock(&group.getBody(), {},
                                      ValueRange(inputs).getTypes(), locs);
  IRMapping mapping;
  for (auto [leaf, arg] : llvm::zip(leaves, block->getArguments()))
    mapping.map(leaf, arg);
  for (Operation *op : ops)
    rewriter.clone(*op, mapping);
  rewriter.create<YieldOp>(loc, mapping.lookup(yielded));
  return group.getResult();
}

/// An nn.fused group led by a contraction: the contraction and the prefix
/// of its epilogue the kernel's store applies become one kernel call; the
/// rest (gelu, sigmoid, a chain reading other epilogue values, ...) stays a
/// pointwise group over the kernel's result, one loop nest as before.
struct FusedGroupToKernel : public OpRewritePattern<FusedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusedOp op,
                                PatternRewriter &rewriter) const override {
    Operation *anchor = op.getAnchor();
    if (!anchor)
      return rewriter.notifyMatchFailure(op, "no contraction in the group");
    if (const char *why = whyNoKernel(anchor))
      return rewriter.notifyMatchFailure(op, why);
    Block &body = op.getBody().front();
    Value yielded = op.getYielded();
    if (yielded.getParentBlock() != &body || llvm::isa<BlockArgument>(yielded))
      return rewriter.notifyMatchFailure(op, "the group returns an input");

    IRMapping outside;
    for (auto [arg, input] : llvm::zip(body.getArguments(), op.getInputs()))
      outside.map(arg, input);
    KernelEpilogue e = matchEpilogue(
        anchor, [&](Value v) { return outside.lookupOrNull(v); });
    LLVM_DEBUG(llvm::dbgs() << "nn-lower-to-kernel-calls: group at "
                            << op.getLoc() << " keeps " << e.absorbed.size()
                            << " consumers in the kernel's store\n");
    rewriter.setInsertionPoint(op);
    Value result = emitKernel(rewriter, anchor, [&](Value v) {
      return outside.lookupOrNull(v);
    }, e);

    SmallVector<Operation *> rest;
    for (Operation &inner : body.without_terminator())
      if (&inner != anchor && !llvm::is_contained(e.absorbed, &inner))
        rest.push_back(&inner);
    if (!rest.empty()) {
      outside.map(e.result, result);
      result = buildPointwiseGroup(rewriter, op.getLoc(), rest, yielded,
                                   outside, op.getType());
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerToKernelCallsPass
    : public nn::impl::LowerToKernelCallsPassBase<LowerToKernelCallsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ContractionToKernel<MatmulOp>, ContractionToKernel<LinearOp>,
                 ContractionToKernel<ConvOp>, FusedGroupToKernel>(
        &getContext());
    GreedyRewriteConfig config;
    config.maxIterations = 1;
    // Each op is rewritten once; no folding of unrelated ops.
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
  }
};

} // namespace
