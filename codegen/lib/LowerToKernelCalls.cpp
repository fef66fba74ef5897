//===- LowerToKernelCalls.cpp - Heavy nn ops to nn_kernels calls ----------===//
//
// Implements nn-lower-to-kernel-calls (see Passes.td): nn.matmul, nn.linear
// and 2-D nn.conv become calls of the runtime's packed micro-kernels
// (nn/Runtime/Kernels.h) with the bias and a ReLU fused into the store.
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
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-lower-to-kernel-calls"

namespace mlir::nn {
#define GEN_PASS_DEF_LOWERTOKERNELCALLSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Values of NN_RT_ACT_* (Kernels.h).
constexpr int32_t kActNone = 0, kActRelu = 1;

/// A statically shaped f32 tensor type of rank `rank`, or null.
RankedTensorType staticF32(Value value, int64_t rank) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getRank() != rank)
    return nullptr;
  return type;
}

/// The single nn.relu that consumes `value` (its only use), or null.
ReluOp singleReluUser(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  return llvm::dyn_cast<ReluOp>(*value.getUsers().begin());
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

/// C[M, N] = A x B with A [M, K] and B given by its pointer and strides.
/// `biasPtr` is null or the bias with strides (bsM, bsN).
Value emitGemm(PatternRewriter &rewriter, Operation *op, Value lhs,
               Value rhsPtr, Value rsB, Value csB, int64_t M, int64_t N,
               int64_t K, Value biasPtr, int64_t bsM, int64_t bsN,
               int32_t act) {
  CallBuilder cb(rewriter, op->getLoc());
  auto [aPtr, aStrides] = cb.pointer(cb.readView(lhs));
  auto outType = RankedTensorType::get({M, N}, rewriter.getF32Type());
  auto [alloc, cPtr] = cb.output(outType);
  cb.call(op, "nn_rt_sgemm",
          {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
           rhsPtr, rsB, csB, cPtr, cb.i64(N), biasPtr ? biasPtr : cb.null(),
           cb.i64(bsM), cb.i64(bsN), cb.i32(0), cb.i32(act)});
  return cb.result(alloc, outType);
}

/// Replaces `op` (and `relu`, its fused consumer, when not null) by `value`.
void replaceWithFused(PatternRewriter &rewriter, Operation *op, ReluOp relu,
                      Value value) {
  if (relu) {
    rewriter.replaceOp(relu, value);
    rewriter.eraseOp(op);
  } else {
    rewriter.replaceOp(op, value);
  }
}

/// Ops inside an nn.fused group belong to the group's single loop nest
/// (convert-nn-to-linalg lowers the group as a whole); a kernel call there
/// would break the group's invariants. Routing whole groups whose epilogue
/// the micro-kernel can apply is the next step.
bool insideFusedGroup(Operation *op) {
  return op->getParentOfType<FusedOp>() != nullptr;
}

struct MatmulToKernel : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (insideFusedGroup(op))
      return rewriter.notifyMatchFailure(op, "inside an nn.fused group");
    auto lhs = staticF32(op.getLhs(), 2), rhs = staticF32(op.getRhs(), 2);
    if (!lhs || !rhs || !staticF32(op.getResult(), 2))
      return rewriter.notifyMatchFailure(op, "needs 2-D static f32 operands");
    ReluOp relu = singleReluUser(op.getResult());
    CallBuilder cb(rewriter, op.getLoc());
    auto [bPtr, bStrides] = cb.pointer(cb.readView(op.getRhs()));
    Value y = emitGemm(rewriter, op, op.getLhs(), bPtr, bStrides[0],
                       bStrides[1], lhs.getDimSize(0), rhs.getDimSize(1),
                       lhs.getDimSize(1), nullptr, 0, 0,
                       relu ? kActRelu : kActNone);
    replaceWithFused(rewriter, op, relu, y);
    return success();
  }
};

struct LinearToKernel : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    if (insideFusedGroup(op))
      return rewriter.notifyMatchFailure(op, "inside an nn.fused group");
    auto input = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    auto result = llvm::dyn_cast<RankedTensorType>(op.getType());
    if (!input || !result || !input.hasStaticShape() ||
        !result.hasStaticShape() || !input.getElementType().isF32() ||
        input.getRank() < 1 || !staticF32(op.getWeight(), 2))
      return rewriter.notifyMatchFailure(op, "needs static f32 operands");
    if (op.getBias() && !staticF32(op.getBias(), 1))
      return rewriter.notifyMatchFailure(op, "needs a static f32 bias");
    ReluOp relu = op.getActivation() == Activation::none
                      ? singleReluUser(op.getResult())
                      : nullptr;
    bool isRelu = relu || op.getActivation() == Activation::relu;
    if (op.getActivation() != Activation::none &&
        op.getActivation() != Activation::relu)
      return rewriter.notifyMatchFailure(op, "activation has no kernel");

    Location loc = op.getLoc();
    int64_t K = input.getShape().back(), N = result.getShape().back();
    int64_t M = input.getNumElements() / K;
    // The input as [M, K] (a rank-1 input is one row).
    Value lhs = op.getInput();
    auto flatType = RankedTensorType::get({M, K}, rewriter.getF32Type());
    if (input.getRank() == 1) {
      lhs = rewriter.create<tensor::ExpandShapeOp>(
          loc, flatType, lhs, ArrayRef<ReassociationIndices>{{0, 1}});
    } else if (input.getRank() > 2) {
      ReassociationIndices leading;
      for (int64_t i = 0; i < input.getRank() - 1; ++i)
        leading.push_back(i);
      lhs = rewriter.create<tensor::CollapseShapeOp>(
          loc, flatType, lhs,
          ArrayRef<ReassociationIndices>{leading, {input.getRank() - 1}});
    }
    CallBuilder cb(rewriter, loc);
    // B[k, n] = weight[n, k]: the weight's strides swapped.
    auto [wPtr, wStrides] = cb.pointer(cb.readView(op.getWeight()));
    Value biasPtr;
    int64_t bsN = 0;
    if (Value bias = op.getBias()) {
      biasPtr = cb.pointer(cb.readView(bias, /*contiguous=*/true)).first;
      bsN = 1;
    }
    Value y = emitGemm(rewriter, op, lhs, wPtr, wStrides[1], wStrides[0], M,
                       N, K, biasPtr, 0, bsN, isRelu ? kActRelu : kActNone);
    if (result.getRank() != 2) {
      if (result.getRank() == 1) {
        y = rewriter.create<tensor::CollapseShapeOp>(
            loc, result, y, ArrayRef<ReassociationIndices>{{0, 1}});
      } else {
        ReassociationIndices leading;
        for (int64_t i = 0; i < result.getRank() - 1; ++i)
          leading.push_back(i);
        y = rewriter.create<tensor::ExpandShapeOp>(
            loc, result, y,
            ArrayRef<ReassociationIndices>{leading, {result.getRank() - 1}});
      }
    }
    replaceWithFused(rewriter, op, relu, y);
    return success();
  }
};

struct ConvToKernel : public OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (insideFusedGroup(op))
      return rewriter.notifyMatchFailure(op, "inside an nn.fused group");
    auto input = staticF32(op.getInput(), 4);
    auto weight = staticF32(op.getWeight(), 4);
    auto result = staticF32(op.getResult(), 4);
    if (!input || !weight || !result)
      return rewriter.notifyMatchFailure(op, "needs 2-D static f32 operands");
    if (op.getGroups() != 1)
      return rewriter.notifyMatchFailure(op, "grouped convolution");
    if (op.getBias() && !staticF32(op.getBias(), 1))
      return rewriter.notifyMatchFailure(op, "needs a static f32 bias");
    ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                      dilation = op.getDilation();
    if (stride.size() != 2 || dilation.size() != 2 ||
        (padding.size() != 2 && padding.size() != 4))
      return rewriter.notifyMatchFailure(op, "unexpected window attributes");
    ReluOp relu = singleReluUser(op.getResult());

    Location loc = op.getLoc();
    CallBuilder cb(rewriter, loc);
    // The kernel reads NCHW / OIHW row-major.
    Value inPtr = cb.pointer(cb.readView(op.getInput(), true)).first;
    Value wPtr = cb.pointer(cb.readView(op.getWeight(), true)).first;
    Value biasPtr = cb.null();
    if (Value bias = op.getBias())
      biasPtr = cb.pointer(cb.readView(bias, true)).first;
    auto [alloc, outPtr] = cb.output(result);
    ArrayRef<int64_t> in = input.getShape(), w = weight.getShape(),
                      out = result.getShape();
    cb.call(op, "nn_rt_conv2d_nchw",
            {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]), inPtr,
             cb.i64(w[0]), cb.i64(w[2]), cb.i64(w[3]), wPtr, biasPtr,
             cb.i64(stride[0]), cb.i64(stride[1]), cb.i64(padding[0]),
             cb.i64(padding[1]), cb.i64(dilation[0]), cb.i64(dilation[1]),
             cb.i64(out[2]), cb.i64(out[3]), outPtr,
             cb.i32(relu ? kActRelu : kActNone)});
    replaceWithFused(rewriter, op, relu, cb.result(alloc, result));
    return success();
  }
};

struct LowerToKernelCallsPass
    : public nn::impl::LowerToKernelCallsPassBase<LowerToKernelCallsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MatmulToKernel, LinearToKernel, ConvToKernel>(&getContext());
    GreedyRewriteConfig config;
    config.maxIterations = 1;
    // Each op is rewritten once; no folding of unrelated ops.
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
  }
};

} // namespace
