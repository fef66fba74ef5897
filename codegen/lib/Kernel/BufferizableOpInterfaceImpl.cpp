//===- BufferizableOpInterfaceImpl.cpp - nn_kernel ops on memrefs ---------===//
//
// One-shot bufferization of the nn_kernel ops, as linalg's destination-
// passing ops bufferize (IREE's ukernel ops do the same): a kernel op
// writes its result into its init's buffer and reads its inputs where they
// are, through any strides; an operand the kernel reads or writes
// row-major whose buffer is not (a slice, a transposed view) is copied
// into a row-major buffer first (an init: written there, then copied back).
//
//===----------------------------------------------------------------------===//

#include "nn/Kernel/KernelDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::nn::kernel;

namespace {

MemRefType rowMajor(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// The buffer of `operand`, row-major when `needsRowMajor` (a copy when it
/// is not already).
FailureOr<Value> bufferOf(RewriterBase &rewriter, OpOperand &operand,
                          bool needsRowMajor,
                          const BufferizationOptions &options) {
  FailureOr<Value> buffer = getBuffer(rewriter, operand.get(), options);
  if (failed(buffer) || !needsRowMajor)
    return buffer;
  auto type = llvm::cast<MemRefType>(buffer->getType());
  if (type.getLayout().isIdentity())
    return buffer;
  return castOrReallocMemRefValue(rewriter, *buffer, rowMajor(type), options);
}

template <typename OpTy>
struct KernelOpInterface
    : public DstBufferizableOpInterfaceExternalModel<KernelOpInterface<OpTy>,
                                                     OpTy> {
  /// The kernel overwrites every element of its init without reading it.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !llvm::cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto kernel = llvm::cast<OpTy>(op);
    Location loc = op->getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    OpOperand &init = kernel.getInitMutable();
    SmallVector<Value> operands;
    Value initBuffer, written;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!llvm::isa<TensorType>(operand.get().getType())) {
        operands.push_back(operand.get());
        continue;
      }
      if (&operand != &init) {
        FailureOr<Value> buffer =
            bufferOf(rewriter, operand, kernel.needsRowMajor(operand), options);
        if (failed(buffer))
          return failure();
        operands.push_back(*buffer);
        continue;
      }
      FailureOr<Value> buffer = getBuffer(rewriter, operand.get(), options);
      if (failed(buffer))
        return failure();
      initBuffer = written = *buffer;
      auto type = llvm::cast<MemRefType>(initBuffer.getType());
      if (kernel.needsRowMajor(operand) && !type.getLayout().isIdentity()) {
        FailureOr<Value> scratch =
            options.createAlloc(rewriter, loc, rowMajor(type), {});
        if (failed(scratch))
          return failure();
        written = *scratch;
      }
      operands.push_back(written);
    }
    Operation *memrefOp = Operation::create(
        loc, op->getName(), TypeRange(), operands,
        op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
        BlockRange(), /*numRegions=*/0);
    rewriter.insert(memrefOp);
    if (written != initBuffer &&
        failed(options.createMemCpy(rewriter, loc, written, initBuffer)))
      return failure();
    replaceOpWithBufferizedValues(rewriter, op, initBuffer);
    return success();
  }
};

/// An op whose effect is outside the tensors it takes (a context slot, the
/// caller's storage): it reads every tensor operand, writes none of them
/// and returns no alias of one.
template <typename Concrete, typename OpTy>
struct ReadsOnlyOpInterface
    : public BufferizableOpInterface::ExternalModel<Concrete, OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
};

/// A packing reads its source (row-major for a convolution's weight) and
/// writes only the context.
template <typename OpTy>
struct PackOpInterface
    : public ReadsOnlyOpInterface<PackOpInterface<OpTy>, OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto pack = llvm::cast<OpTy>(op);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    FailureOr<Value> buffer =
        bufferOf(rewriter, pack.getSourceMutable(),
                 std::is_same_v<OpTy, PackConv2dWeightOp>, options);
    if (failed(buffer))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { pack.getSourceMutable().set(*buffer); });
    return success();
  }
};

/// A state write reads its value and the state argument (which no op
/// before it may then take for its own result) and becomes a copy into the
/// argument's buffer: the caller's storage, written in place.
struct WriteStateOpInterface
    : public ReadsOnlyOpInterface<WriteStateOpInterface, WriteStateOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto write = llvm::cast<WriteStateOp>(op);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    FailureOr<Value> value = getBuffer(rewriter, write.getValue(), options);
    FailureOr<Value> state = getBuffer(rewriter, write.getState(), options);
    if (failed(value) || failed(state) ||
        failed(options.createMemCpy(rewriter, op->getLoc(), *value, *state)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::nn::kernel::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KernelDialect *) {
    GemmOp::attachInterface<KernelOpInterface<GemmOp>>(*context);
    Conv2dOp::attachInterface<KernelOpInterface<Conv2dOp>>(*context);
    MaxPool2dOp::attachInterface<KernelOpInterface<MaxPool2dOp>>(*context);
    BatchMatmulOp::attachInterface<KernelOpInterface<BatchMatmulOp>>(*context);
    AttentionOp::attachInterface<KernelOpInterface<AttentionOp>>(*context);
    PackGemmBOp::attachInterface<PackOpInterface<PackGemmBOp>>(*context);
    PackConv2dWeightOp::attachInterface<PackOpInterface<PackConv2dWeightOp>>(
        *context);
    WriteStateOp::attachInterface<WriteStateOpInterface>(*context);
  });
}
