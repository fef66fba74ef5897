//===- LowerKernelOps.cpp - nn_kernel ops on memrefs to kernel calls ------===//
//
// Implements nn-lower-kernel-ops (see Passes.td): after one-shot
// bufferization, every nn_kernel op becomes the call of its nn_kernels
// function (nn/Runtime/Kernels.h), its operands passed as KernelABI.def
// types them (CallBuilder.cpp), and the model's context, until now a
// `!nn_kernel.context`, becomes the `!llvm.ptr` the artifact passes.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "nn/Conversion/Passes.h"
#include "nn/Kernel/KernelDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::nn {
#define GEN_PASS_DEF_LOWERKERNELOPSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;
namespace kernel = mlir::nn::kernel;

static_assert(static_cast<int32_t>(kernel::Activation::relu) == abi::kActRelu &&
                  static_cast<int32_t>(kernel::Activation::clamp) ==
                      abi::kActClamp &&
                  static_cast<int32_t>(kernel::Activation::leaky_relu) ==
                      abi::kActLeakyRelu &&
                  static_cast<int32_t>(kernel::Activation::none) ==
                      abi::kActNone,
              "nn_kernel's activations are NN_RT_ACT_*");

namespace {

bool isPacked(Value value) {
  return llvm::isa<kernel::PackedType>(value.getType());
}

/// The pointers nn_kernel.packed ops were lowered to, by their results.
using PackedPointers = llvm::DenseMap<Value, Value>;

/// The arguments of a convolution's geometry: C, H, W, O, KH, KW, then
/// `weight` when given, then the strides, paddings, dilations, OH and OW.
SmallVector<Value> convGeometry(CallBuilder &cb, ArrayRef<int64_t> input,
                                ArrayRef<int64_t> weight, ArrayRef<int64_t> out,
                                ArrayRef<int64_t> stride,
                                ArrayRef<int64_t> padding,
                                ArrayRef<int64_t> dilation,
                                std::optional<Value> weightPtr) {
  SmallVector<Value> args = {cb.i64(input[0]),  cb.i64(input[1]),
                             cb.i64(input[2]),  cb.i64(weight[0]),
                             cb.i64(weight[2]), cb.i64(weight[3])};
  if (weightPtr)
    args.push_back(*weightPtr);
  for (int64_t v : {stride[0], stride[1], padding[0], padding[1], dilation[0],
                    dilation[1], out[0], out[1]})
    args.push_back(cb.i64(v));
  return args;
}

void lower(CallBuilder &cb, kernel::GemmOp op, const PackedPointers &packed) {
  ArrayRef<int64_t> c = kernel::operandShape(op.getInit()),
                    a = kernel::operandShape(op.getA());
  int64_t M = c[0], N = c[1], K = op.getTransposeA() ? a[0] : a[1];
  auto [aPtr, aStrides] = cb.pointer(op.getA());
  if (op.getTransposeA())
    std::swap(aStrides[0], aStrides[1]);
  Value epilogue = cb.epilogue(op, op.getEpilogueAttr(), op.getAddends());
  Value cPtr = cb.pointer(op.getInit()).first;
  if (isPacked(op.getB())) {
    cb.call(op, abi::Function::nn_rt_sgemm_packed_b,
            {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
             packed.lookup(op.getB()), cPtr, cb.i64(N), cb.i32(0), epilogue});
    return;
  }
  auto [bPtr, bStrides] = cb.pointer(op.getB());
  if (std::optional<ArrayRef<int64_t>> windows = op.getBRowWindows()) {
    cb.call(op, abi::Function::nn_rt_sgemm_b_windows,
            {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
             bPtr, bStrides[0], bStrides[1],
             cb.i64(static_cast<int64_t>(windows->size())),
             cb.i64Array(op, *windows), cPtr, cb.i64(N), cb.i32(0), epilogue});
    return;
  }
  if (op.getTransposeB())
    std::swap(bStrides[0], bStrides[1]);
  cb.call(op, abi::Function::nn_rt_sgemm,
          {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
           bPtr, bStrides[0], bStrides[1], cPtr, cb.i64(N), cb.i32(0),
           epilogue});
}

void lower(CallBuilder &cb, kernel::PackGemmBOp op, Value context) {
  ArrayRef<int64_t> b = kernel::operandShape(op.getSource());
  int64_t K = op.getTransposeB() ? b[1] : b[0],
          N = op.getTransposeB() ? b[0] : b[1];
  Value bytes = cb.call(op, abi::Function::nn_rt_sgemm_pack_b_size,
                        {cb.i64(K), cb.i64(N)})[0];
  Value buffer = cb.call(op, abi::Function::nn_rt_context_buffer,
                         {context, cb.i64(op.getSlot()), bytes})[0];
  auto [ptr, strides] = cb.pointer(op.getSource());
  if (op.getTransposeB())
    std::swap(strides[0], strides[1]);
  cb.call(op, abi::Function::nn_rt_sgemm_pack_b,
          {cb.i64(K), cb.i64(N), ptr, strides[0], strides[1], buffer});
}

void lower(CallBuilder &cb, kernel::Conv2dOp op, const PackedPointers &packed) {
  ArrayRef<int64_t> in = kernel::operandShape(op.getInput()),
                    w = kernel::operandShape(op.getWeight()),
                    out = kernel::operandShape(op.getInit());
  ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                    dilation = op.getDilation();
  Value inPtr = cb.pointer(op.getInput()).first;
  Value wPtr = isPacked(op.getWeight()) ? packed.lookup(op.getWeight())
                                        : cb.pointer(op.getWeight()).first;
  Value epilogue = cb.epilogue(op, op.getEpilogueAttr(), op.getAddends());
  Value outPtr = cb.pointer(op.getInit()).first;
  if (op.getDepthwise()) {
    cb.call(op, abi::Function::nn_rt_conv2d_depthwise_nchw,
            {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]), inPtr,
             cb.i64(w[2]), cb.i64(w[3]), wPtr, cb.i64(stride[0]),
             cb.i64(stride[1]), cb.i64(padding[0]), cb.i64(padding[1]),
             cb.i64(dilation[0]), cb.i64(dilation[1]), cb.i64(out[2]),
             cb.i64(out[3]), outPtr, epilogue});
    return;
  }
  SmallVector<Value> args = {cb.i64(in[0])};
  args.append(convGeometry(cb, in.drop_front(), w, out.drop_front(2), stride,
                           padding, dilation, std::nullopt));
  // nn_rt_conv2d_nchw(N, C, H, W, in, O, KH, KW, w, ...): the geometry's
  // C, H, W and O, KH, KW, with the pointers in between.
  args.insert(args.begin() + 4, inPtr);
  args.insert(args.begin() + 8, wPtr);
  args.push_back(outPtr);
  args.push_back(epilogue);
  cb.call(op,
          isPacked(op.getWeight()) ? abi::Function::nn_rt_conv2d_nchw_packed
                                   : abi::Function::nn_rt_conv2d_nchw,
          args);
}

void lower(CallBuilder &cb, kernel::MaxPool2dOp op) {
  ArrayRef<int64_t> in = kernel::operandShape(op.getInput()),
                    out = kernel::operandShape(op.getInit());
  ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                    padding = op.getPadding(), dilation = op.getDilation();
  cb.call(op, abi::Function::nn_rt_max_pool2d_nchw,
          {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]),
           cb.pointer(op.getInput()).first, cb.i64(kernel[0]),
           cb.i64(kernel[1]), cb.i64(stride[0]), cb.i64(stride[1]),
           cb.i64(padding[0]), cb.i64(padding[1]), cb.i64(dilation[0]),
           cb.i64(dilation[1]), cb.i64(out[2]), cb.i64(out[3]),
           cb.pointer(op.getInit()).first});
}

void lower(CallBuilder &cb, kernel::PackConv2dWeightOp op, Value context) {
  ArrayRef<int64_t> w = kernel::operandShape(op.getSource());
  SmallVector<int64_t> out = op.getOutputSize();
  auto geometry = [&](std::optional<Value> weightPtr) {
    return convGeometry(cb, op.getInputSize(), w, out, op.getStride(),
                        op.getPadding(), op.getDilation(), weightPtr);
  };
  Value bytes = cb.call(op, abi::Function::nn_rt_conv2d_pack_weight_size,
                        geometry(std::nullopt))[0];
  Value buffer = cb.call(op, abi::Function::nn_rt_context_buffer,
                         {context, cb.i64(op.getSlot()), bytes})[0];
  SmallVector<Value> args = geometry(cb.pointer(op.getSource()).first);
  args.push_back(buffer);
  cb.call(op, abi::Function::nn_rt_conv2d_pack_weight, args);
}

/// `memref` read through `perm` as the nn_rt_matrix operand of a kernel
/// that walks `shape` ([batch..., rows, cols]): its dims aligned right
/// against `shape`, a missing or size-1 dim broadcast (stride 0).
/// `transpose` swaps rows and columns (keyᵀ).
Value matrixOperand(CallBuilder &cb, Operation *anchor, Value memref,
                    std::optional<ArrayRef<int64_t>> perm,
                    ArrayRef<int64_t> shape, bool transpose = false) {
  auto [ptr, baseStrides] = cb.pointer(memref);
  ArrayRef<int64_t> base = kernel::operandShape(memref);
  SmallVector<int64_t> dims =
      perm ? SmallVector<int64_t>(*perm)
           : llvm::to_vector(llvm::seq<int64_t>(0, base.size()));
  int64_t rank = dims.size(), full = shape.size();
  auto stride = [&](int64_t d) -> Value {
    int64_t t = d - (full - rank);
    if (t < 0 || (base[dims[t]] == 1 && shape[d] != 1))
      return cb.i64(0);
    return baseStrides[dims[t]];
  };
  SmallVector<Value> batch;
  for (int64_t d = 0; d < full - 2; ++d)
    batch.push_back(stride(d));
  Value row = stride(full - 2), col = stride(full - 1);
  if (transpose)
    std::swap(row, col);
  return cb.matrix(anchor, ptr, batch, row, col);
}

/// The nn_rt_matrix a kernel writes its [batch..., rows, cols] result
/// through: into `init` (row-major), which holds it permuted by `perm`.
Value matrixResult(CallBuilder &cb, Operation *anchor, Value init,
                   std::optional<ArrayRef<int64_t>> perm) {
  ArrayRef<int64_t> stored = kernel::operandShape(init);
  int64_t rank = stored.size();
  SmallVector<int64_t> storedStrides(rank, 1), strides(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    storedStrides[d] = storedStrides[d + 1] * stored[d + 1];
  for (int64_t i = 0; i < rank; ++i)
    strides[perm ? (*perm)[i] : i] = storedStrides[i];
  SmallVector<Value> batch;
  for (int64_t d = 0; d < rank - 2; ++d)
    batch.push_back(cb.i64(strides[d]));
  return cb.matrix(anchor, cb.pointer(init).first, batch,
                   cb.i64(strides[rank - 2]), cb.i64(strides[rank - 1]));
}

void lower(CallBuilder &cb, kernel::BatchMatmulOp op) {
  SmallVector<int64_t> shape = op.getLogicalShape();
  int64_t rank = shape.size();
  int64_t K = kernel::permutedShape(op.getA(), op.getAPerm()).back();
  SmallVector<int64_t> aShape(shape), bShape(shape);
  aShape.back() = K;
  bShape[rank - 2] = K;
  Value aMatrix = matrixOperand(cb, op, op.getA(), op.getAPerm(), aShape);
  Value bMatrix = matrixOperand(cb, op, op.getB(), op.getBPerm(), bShape);
  Value epilogue = cb.epilogue(op, op.getEpilogueAttr(), op.getAddends());
  Value cMatrix = matrixResult(cb, op, op.getInit(), op.getOutPerm());
  cb.call(op, abi::Function::nn_rt_sgemm_batched,
          {cb.batchSizes(op, ArrayRef<int64_t>(shape).drop_back(2)),
           cb.i64(shape[rank - 2]), cb.i64(shape[rank - 1]), cb.i64(K), aMatrix,
           bMatrix, cMatrix, cb.i32(0), epilogue});
}

void lower(CallBuilder &cb, kernel::AttentionOp op) {
  SmallVector<int64_t> shape = op.getLogicalShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> key =
      kernel::permutedShape(op.getKey(), op.getKeyPerm());
  int64_t L = shape[rank - 2], Ev = shape[rank - 1], S = key[key.size() - 2],
          E = key.back();
  SmallVector<int64_t> qShape(shape), kShape(shape), vShape(shape),
      maskShape(shape);
  qShape.back() = E;
  kShape[rank - 2] = S, kShape.back() = E;
  vShape[rank - 2] = S;
  maskShape.back() = S;
  Value q = matrixOperand(cb, op, op.getQuery(), op.getQueryPerm(), qShape);
  Value k = matrixOperand(cb, op, op.getKey(), op.getKeyPerm(), kShape);
  Value v = matrixOperand(cb, op, op.getValue(), op.getValuePerm(), vShape);
  Value mask = op.getMask() ? matrixOperand(cb, op, op.getMask(),
                                            op.getMaskPerm(), maskShape)
                            : cb.null();
  Value out = matrixResult(cb, op, op.getInit(), op.getOutPerm());
  cb.call(op, abi::Function::nn_rt_attention,
          {cb.batchSizes(op, ArrayRef<int64_t>(shape).drop_back(2)), cb.i64(L),
           cb.i64(S), cb.i64(E), cb.i64(Ev), q, k, v, mask, out,
           cb.f32(op.getScale().convertToFloat()),
           cb.i32(op.getCausal() ? 1 : 0)});
}

struct LowerKernelOpsPass
    : public mlir::nn::impl::LowerKernelOpsPassBase<LowerKernelOpsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The calls declare the kernels as KernelABI.def types them: a symbol
    // of one of their names that is something else is refused up front.
    if (failed(abi::verifyDeclarations(module)))
      return signalPassFailure();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (llvm::isa<kernel::KernelDialect>(op->getDialect()))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (llvm::any_of(op->getOperandTypes(),
                       [](Type t) { return llvm::isa<TensorType>(t); })) {
        op->emitOpError("is still on tensors: nn-lower-kernel-ops runs after "
                        "bufferization");
        return signalPassFailure();
      }
    auto ptrType = LLVM::LLVMPointerType::get(&getContext());
    // The context becomes the pointer the artifact passes.
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      SmallVector<Type> inputs(func.getArgumentTypes());
      bool changed = false;
      for (auto [i, arg] : llvm::enumerate(func.getArguments()))
        if (llvm::isa<kernel::ContextType>(arg.getType())) {
          arg.setType(ptrType);
          inputs[i] = ptrType;
          changed = true;
        }
      if (changed)
        func.setType(
            FunctionType::get(&getContext(), inputs, func.getResultTypes()));
    }
    // A packed weight is defined before the ops that read it; it goes last.
    PackedPointers packed;
    SmallVector<Operation *> packedOps;
    for (Operation *op : ops) {
      OpBuilder b(op);
      CallBuilder cb(b, op->getLoc());
      llvm::TypeSwitch<Operation *, void>(op)
          .Case([&](kernel::PackedOp read) {
            Value slot = b.create<LLVM::GEPOp>(
                read.getLoc(), ptrType, ptrType, read.getCtx(),
                ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(read.getSlot())});
            packed[read.getResult()] =
                b.create<LLVM::LoadOp>(read.getLoc(), ptrType, slot);
            packedOps.push_back(read);
          })
          .Case(
              [&](kernel::PackGemmBOp pack) { lower(cb, pack, pack.getCtx()); })
          .Case([&](kernel::PackConv2dWeightOp pack) {
            lower(cb, pack, pack.getCtx());
          })
          .Case<kernel::GemmOp, kernel::Conv2dOp>(
              [&](auto kernelOp) { lower(cb, kernelOp, packed); })
          .Case<kernel::BatchMatmulOp, kernel::AttentionOp,
                kernel::MaxPool2dOp>(
              [&](auto kernelOp) { lower(cb, kernelOp); });
      if (!llvm::isa<kernel::PackedOp>(op))
        op->erase();
    }
    for (Operation *op : packedOps)
      op->erase();
  }
};

} // namespace
