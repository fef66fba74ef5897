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
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <limits>
#include <map>
#include <string>
#include <tuple>
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

/// Why the kernels cannot compute `op` (an nn.matmul, nn.linear or nn.conv),
/// or null when they can.
const char *whyNoKernel(Operation *op) {
  if (hasEmptyValue(op))
    return "a zero-size operand or result (lowered as loops)";
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

bool isBatchedMatmul(Operation *op);
GemmDims batchedGemmDims(Operation *op);

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
  CallBuilder(OpBuilder &builder, Location loc)
      : b(builder), loc(loc),
        ptrType(LLVM::LLVMPointerType::get(builder.getContext())) {}

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
    (void)callResults(anchor, name, args, {});
  }

  /// As call(), for a callee returning `results`.
  ValueRange callResults(Operation *anchor, StringRef name, ValueRange args,
                         TypeRange results) {
    auto module = anchor->getParentOfType<ModuleOp>();
    auto callee = module.lookupSymbol<func::FuncOp>(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      callee = b.create<func::FuncOp>(
          loc, name, b.getFunctionType(TypeRange(args), results));
      callee.setPrivate();
    }
    return b.create<func::CallOp>(loc, callee, args).getResults();
  }

  OpBuilder &b;
  Location loc;
  Type ptrType;
};

/// The `nn.context` argument of `func`, or null.
Value contextArgument(FunctionOpInterface func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, NNAttr::kContext))
      return func.getArgument(i);
  return nullptr;
}

/// How a packed operand is laid out: by the kernel that reads it, and for a
/// GEMM's B by whether the operand is the transposed weight of nn.linear.
enum class PackKind { linearWeight, matmulRhs, convWeight };

/// Packs state-only kernel operands once, in @prepare (made by
/// nn-hoist-state-computations), into buffers of the artifact's context,
/// where the kernel calls of forward read them packed. Without a @prepare
/// nothing is packed ahead and every call packs its operands itself.
///
/// The context's slots are the dense ones (@prepare's results, which the
/// other functions read as `nn.context_slot` arguments), then the packed
/// ones. Which dense slots stay is known only once every kernel is lowered:
/// one that nothing reads any more (a batch-norm-folded weight that only
/// feeds a packing) is dropped, and the packed slots' numbers follow the
/// dense slots that stay. So while the patterns run, a packed slot is only
/// its index among the packed slots, and its buffer is a placeholder: an
/// `unrealized_conversion_cast` to `!llvm.ptr` marked `nn.packed_slot`, of
/// the context and the byte count in @prepare (where nn_rt_context_buffer
/// allocates it), of the context elsewhere (where it is loaded from the
/// context). finish() numbers every slot once and replaces the placeholders.
class Packer {
public:
  /// Finds @prepare and checks that the module's context is the one
  /// nn-hoist-state-computations leaves (one dense slot per @prepare result,
  /// each read as its result's type, no packed slots yet), then gives every
  /// public function a context argument: @prepare fills the slots, the
  /// others read them (translateToArtifactIR passes it; unused ones are
  /// removed by finish()). Without a @prepare there is nothing to check.
  LogicalResult init(ModuleOp module) {
    prepare = module.lookupSymbol<func::FuncOp>("prepare");
    if (!prepare)
      return success();
    if (!prepare.getBody().hasOneBlock())
      return prepare.emitError()
             << "@prepare has " << prepare.getBody().getBlocks().size()
             << " blocks; packing appends to the one block "
                "nn-hoist-state-computations makes";
    denseSlots = prepare.getNumResults();
    auto slots = module->getAttrOfType<IntegerAttr>(NNAttr::kContextSlots);
    if ((slots ? slots.getInt() : 0) != denseSlots)
      return module.emitError()
             << NNAttr::kContextSlots << " is " << (slots ? slots.getInt() : 0)
             << " but @prepare has " << denseSlots
             << " results: the context has slots that are not @prepare's "
                "(packed already?)";
    auto bytes =
        module->getAttrOfType<DenseI64ArrayAttr>(NNAttr::kContextBytes);
    int64_t sizes = bytes ? bytes.size() : 0;
    if (sizes != denseSlots)
      return module.emitError()
             << NNAttr::kContextBytes << " has " << sizes << " sizes for the "
             << denseSlots << " results of @prepare";
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func == prepare)
        continue;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        Attribute attr = func.getArgAttr(i, NNAttr::kContextSlot);
        if (!attr)
          continue;
        auto slot = llvm::dyn_cast<IntegerAttr>(attr);
        if (!slot || slot.getInt() < 0 || slot.getInt() >= denseSlots)
          return func.emitError()
                 << "argument " << i << " of @" << func.getSymName() << " has "
                 << NNAttr::kContextSlot << " = " << attr
                 << ", not the number of one of the " << denseSlots
                 << " results of @prepare";
        Type type = prepare.getResultTypes()[slot.getInt()];
        if (func.getArgumentTypes()[i] != type)
          return func.emitError()
                 << "argument " << i << " of @" << func.getSymName() << " is "
                 << func.getArgumentTypes()[i] << " but reads context slot "
                 << slot.getInt() << ", which @prepare returns as " << type;
        if (func.isDeclaration())
          return func.emitError() << "@" << func.getSymName()
                                  << " reads context slots but has no body";
      }
    }
    auto ptrType = LLVM::LLVMPointerType::get(module.getContext());
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isDeclaration() && !contextArgument(func))
        func.insertArgument(
            func.getNumArguments(), ptrType,
            DictionaryAttr::get(
                module.getContext(),
                {NamedAttribute(
                    StringAttr::get(module.getContext(), NNAttr::kContext),
                    UnitAttr::get(module.getContext()))}),
            func.getLoc());
    return success();
  }

  /// The value in @prepare that equals `operand` (a value seen by a kernel
  /// call in another function) on every call: the same state argument when
  /// forward never writes it, or the @prepare result forward reads from a
  /// context slot. Null when there is none (an input, an intermediate,
  /// state forward writes).
  Value sourceInPrepare(Value operand) {
    auto arg = llvm::dyn_cast_or_null<BlockArgument>(operand);
    if (!prepare || !arg)
      return nullptr;
    auto func = llvm::dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || func == prepare || !func.isPublic())
      return nullptr;
    unsigned index = arg.getArgNumber();
    // init() checked the slot.
    if (auto slot =
            func.getArgAttrOfType<IntegerAttr>(index, NNAttr::kContextSlot))
      return prepare.getBody().front().getTerminator()->getOperand(
          slot.getInt());
    auto name = func.getArgAttrOfType<StringAttr>(index, NNAttr::kState);
    // State forward writes (declared writable) changes after bind.
    auto writable =
        func.getArgAttrOfType<BoolAttr>(index, "bufferization.writable");
    if (!name || (writable && writable.getValue()))
      return nullptr;
    for (unsigned i = 0, e = prepare.getNumArguments(); i < e; ++i)
      if (prepare.getArgAttrOfType<StringAttr>(i, NNAttr::kState) == name)
        return prepare.getArgument(i);
    return nullptr;
  }

  /// The packed form of `operand` for `kind` and `layout`, read from
  /// forward's context at the rewriter's insertion point, or null when it
  /// cannot be packed ahead. On first use of (operand, kind, layout),
  /// `pack(cb, source, buffer)` emits the packing into @prepare: it may call
  /// the size function and must return the byte count it needs before
  /// `buffer` is used; the packer allocates the slot's buffer in between.
  template <typename SizeFn, typename PackFn>
  Value packed(PatternRewriter &rewriter, Location loc, Value operand,
               PackKind kind, StringRef layout, SizeFn size, PackFn pack) {
    Value source = sourceInPrepare(operand);
    if (!source)
      return nullptr;
    auto func = llvm::cast<func::FuncOp>(
        llvm::cast<BlockArgument>(operand).getOwner()->getParentOp());
    Value context = contextArgument(func);
    Value prepareContext = contextArgument(prepare);
    if (!context || !prepareContext)
      return nullptr;
    auto key = std::make_tuple(source.getAsOpaquePointer(),
                               static_cast<int>(kind), layout.str());
    auto [it, inserted] = packedSlots.try_emplace(key, packedSlots.size());
    if (inserted) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(prepare.getBody().front().getTerminator());
      CallBuilder cb(rewriter, loc);
      Value bytes = size(cb);
      pack(cb, source,
           slotBuffer(rewriter, loc, {prepareContext, bytes}, it->second));
    }
    return slotBuffer(rewriter, loc, {context}, it->second);
  }

  /// Drops the dense slots no function reads any more, numbers the slots and
  /// puts the packed slots' buffers in place of their placeholders, records
  /// the slot count and drops the context argument of functions that read
  /// no slot.
  void finish(ModuleOp module) {
    if (!prepare)
      return;
    int64_t firstPacked = dropUnreadDenseSlots(module);
    SmallVector<UnrealizedConversionCastOp> placeholders;
    module.walk([&](UnrealizedConversionCastOp cast) {
      if (cast->hasAttr(NNAttr::kPackedSlot))
        placeholders.push_back(cast);
    });
    for (UnrealizedConversionCastOp cast : placeholders) {
      auto slot = static_cast<int32_t>(
          firstPacked +
          cast->getAttrOfType<IntegerAttr>(NNAttr::kPackedSlot).getInt());
      OpBuilder b(cast);
      CallBuilder cb(b, cast.getLoc());
      Value context = cast.getOperand(0), buffer;
      if (cast.getNumOperands() == 2) // @prepare's, with the byte count
        buffer = cb.callResults(cast, "nn_rt_context_buffer",
                                {context, cb.i64(slot), cast.getOperand(1)},
                                {cb.ptrType})[0];
      else
        buffer = b.create<LLVM::LoadOp>(
            cast.getLoc(), cb.ptrType,
            b.create<LLVM::GEPOp>(cast.getLoc(), cb.ptrType, cb.ptrType,
                                  context, ArrayRef<LLVM::GEPArg>{slot}));
      cast.getResult(0).replaceAllUsesWith(buffer);
      cast.erase();
    }
    module->setAttr(
        NNAttr::kContextSlots,
        Builder(module.getContext())
            .getI64IntegerAttr(firstPacked +
                               static_cast<int64_t>(packedSlots.size())));
    for (auto func : module.getOps<func::FuncOp>())
      if (func != prepare)
        if (Value context = contextArgument(func); context && context.use_empty())
          func.eraseArgument(llvm::cast<BlockArgument>(context).getArgNumber());
  }

private:
  /// A placeholder for the buffer of packed slot `index` (see the class
  /// comment).
  static Value slotBuffer(OpBuilder &b, Location loc, ValueRange operands,
                          int64_t index) {
    auto cast = b.create<UnrealizedConversionCastOp>(
        loc, LLVM::LLVMPointerType::get(b.getContext()), operands);
    cast->setAttr(NNAttr::kPackedSlot, b.getI64IntegerAttr(index));
    return cast.getResult(0);
  }

  /// The (argument, dense slot) pairs of `func`'s `nn.context_slot`
  /// arguments (init() checked them).
  static SmallVector<std::pair<unsigned, int64_t>>
  slotArguments(func::FuncOp func) {
    SmallVector<std::pair<unsigned, int64_t>> args;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (auto slot =
              func.getArgAttrOfType<IntegerAttr>(i, NNAttr::kContextSlot))
        args.emplace_back(i, slot.getInt());
    return args;
  }

  /// Removes the dense slots (@prepare's results, the `nn.context_slot`
  /// arguments) whose argument no function reads now that the kernels read
  /// the packed copy instead: a batch-norm-folded weight read only by a
  /// packed convolution. @prepare still computes the value for its packing,
  /// but as a temporary freed before it returns, not as a context buffer
  /// held with the packed one as long as the model lives. The slots that
  /// stay keep their order; returns how many they are.
  int64_t dropUnreadDenseSlots(ModuleOp module) {
    // init() refused declarations with slot arguments.
    SmallVector<func::FuncOp> readers;
    for (auto func : module.getOps<func::FuncOp>())
      if (func != prepare && !func.isDeclaration())
        readers.push_back(func);
    llvm::BitVector unread(denseSlots, true);
    for (func::FuncOp func : readers)
      for (auto [arg, slot] : slotArguments(func))
        if (!func.getArgument(arg).use_empty())
          unread.reset(slot);
    SmallVector<int64_t> renumbered(denseSlots, -1);
    int64_t kept = 0;
    for (int64_t slot = 0; slot < denseSlots; ++slot)
      if (!unread[slot])
        renumbered[slot] = kept++;
    Builder b(module.getContext());
    for (func::FuncOp func : readers) {
      llvm::BitVector erase(func.getNumArguments());
      for (auto [arg, slot] : slotArguments(func)) {
        if (unread[slot])
          erase.set(arg);
        else
          func.setArgAttr(arg, NNAttr::kContextSlot,
                          b.getI64IntegerAttr(renumbered[slot]));
      }
      func.eraseArguments(erase);
    }
    SmallVector<int64_t> bytes;
    if (auto sizes =
            module->getAttrOfType<DenseI64ArrayAttr>(NNAttr::kContextBytes))
      for (auto [slot, size] : llvm::enumerate(sizes.asArrayRef()))
        if (!unread[slot])
          bytes.push_back(size);
    module->setAttr(NNAttr::kContextBytes, b.getDenseI64ArrayAttr(bytes));
    prepare.getBody().front().getTerminator()->eraseOperands(unread);
    prepare.eraseResults(unread);
    LLVM_DEBUG(llvm::dbgs() << "nn-lower-to-kernel-calls: " << unread.count()
                            << " dense context slots only fed a packing\n");
    return kept;
  }

  func::FuncOp prepare;
  /// @prepare's results as init() found them.
  int64_t denseSlots = 0;
  /// The index among the packed slots of each (source in @prepare,
  /// PackKind, layout) packed so far: a weight read by several calls (tied,
  /// or reused) of one layout is packed once. The layout names what else
  /// decides the packing (a convolution's geometry picks its kernel).
  std::map<std::tuple<const void *, int, std::string>, int64_t> packedSlots;
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
                 OutsideFn outside, const KernelEpilogue &e, Packer &packer) {
  Location loc = contraction->getLoc();
  CallBuilder cb(rewriter, loc);
  auto resultType =
      llvm::cast<RankedTensorType>(contraction->getResult(0).getType());

  if (auto conv = llvm::dyn_cast<ConvOp>(contraction)) {
    // The kernel reads NCHW / OIHW row-major.
    Value input = outside(conv.getInput()), weight = outside(conv.getWeight());
    ArrayRef<int64_t> in = llvm::cast<RankedTensorType>(input.getType()).getShape(),
                      w = llvm::cast<RankedTensorType>(weight.getType()).getShape(),
                      out = resultType.getShape();
    ArrayRef<int64_t> stride = conv.getStride(), padding = conv.getPadding(),
                      dilation = conv.getDilation();
    // The geometry decides the kernel, and so the packed weight's layout.
    auto geometry = [&](CallBuilder &p, std::optional<Value> weightPtr) {
      SmallVector<Value> args = {p.i64(in[1]), p.i64(in[2]), p.i64(in[3]),
                                 p.i64(w[0]),  p.i64(w[2]),  p.i64(w[3])};
      if (weightPtr)
        args.push_back(*weightPtr);
      for (int64_t v : {stride[0], stride[1], padding[0], padding[1],
                        dilation[0], dilation[1], out[2], out[3]})
        args.push_back(p.i64(v));
      return args;
    };
    std::string layout;
    {
      llvm::raw_string_ostream os(layout);
      for (ArrayRef<int64_t> part : {in, out, stride, padding, dilation}) {
        llvm::interleaveComma(part, os);
        os << ';';
      }
    }
    // A state-only weight is packed once by @prepare (depthwise reads its
    // weights as they are).
    Value packed =
        isDepthwise(conv)
            ? Value()
            : packer.packed(
                  rewriter, loc, weight, PackKind::convWeight, layout,
                  [&](CallBuilder &p) {
                    return p.callResults(contraction,
                                         "nn_rt_conv2d_pack_weight_size",
                                         geometry(p, std::nullopt),
                                         {p.b.getI64Type()})[0];
                  },
                  [&](CallBuilder &p, Value source, Value buffer) {
                    Value ptr = p.pointer(p.readView(source, true)).first;
                    SmallVector<Value> args = geometry(p, ptr);
                    args.push_back(buffer);
                    p.call(contraction, "nn_rt_conv2d_pack_weight", args);
                  });
    Value inPtr = cb.pointer(cb.readView(input, true)).first;
    Value wPtr = packed ? packed : cb.pointer(cb.readView(weight, true)).first;
    Value epilogue = cb.epilogue(contraction, e);
    auto [alloc, outPtr] = cb.output(resultType);
    if (isDepthwise(conv))
      cb.call(contraction, "nn_rt_conv2d_depthwise_nchw",
              {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]),
               inPtr, cb.i64(w[2]), cb.i64(w[3]), wPtr, cb.i64(stride[0]),
               cb.i64(stride[1]), cb.i64(padding[0]), cb.i64(padding[1]),
               cb.i64(dilation[0]), cb.i64(dilation[1]), cb.i64(out[2]),
               cb.i64(out[3]), outPtr, epilogue});
    else
      cb.call(contraction,
              packed ? "nn_rt_conv2d_nchw_packed" : "nn_rt_conv2d_nchw",
              {cb.i64(in[0]), cb.i64(in[1]), cb.i64(in[2]), cb.i64(in[3]),
               inPtr, cb.i64(w[0]), cb.i64(w[2]), cb.i64(w[3]), wPtr,
               cb.i64(stride[0]), cb.i64(stride[1]), cb.i64(padding[0]),
               cb.i64(padding[1]), cb.i64(dilation[0]), cb.i64(dilation[1]),
               cb.i64(out[2]), cb.i64(out[3]), outPtr, epilogue});
    return cb.result(alloc, resultType);
  }

  // C[M, N] = A[M, K] x B[K, N].
  Value lhs, rhs;
  bool transposed; // B[k, n] = rhs[n, k] (nn.linear's weight)
  int64_t M, N, K;
  if (auto matmul = llvm::dyn_cast<MatmulOp>(contraction)) {
    lhs = outside(matmul.getLhs()), rhs = outside(matmul.getRhs());
    transposed = false;
    M = resultType.getDimSize(0), N = resultType.getDimSize(1);
    K = llvm::cast<RankedTensorType>(lhs.getType()).getDimSize(1);
  } else {
    auto linear = llvm::cast<LinearOp>(contraction);
    auto input = llvm::cast<RankedTensorType>(linear.getInput().getType());
    K = input.getShape().back(), N = resultType.getShape().back();
    M = input.getNumElements() / K;
    lhs = reshapeRows(rewriter, loc, outside(linear.getInput()),
                      RankedTensorType::get({M, K}, rewriter.getF32Type()));
    rhs = outside(linear.getWeight()), transposed = true;
  }
  /// B's address and strides (swapped for a transposed operand).
  auto bOperand = [&](CallBuilder &p, Value value) {
    auto [ptr, strides] = p.pointer(p.readView(value));
    return transposed ? std::make_tuple(ptr, strides[1], strides[0])
                      : std::make_tuple(ptr, strides[0], strides[1]);
  };
  Value packed = packer.packed(
      rewriter, loc, rhs,
      transposed ? PackKind::linearWeight : PackKind::matmulRhs,
      /*layout=*/"", [&](CallBuilder &p) {
        return p.callResults(contraction, "nn_rt_sgemm_pack_b_size",
                             {p.i64(K), p.i64(N)}, {p.b.getI64Type()})[0];
      },
      [&](CallBuilder &p, Value source, Value buffer) {
        auto [ptr, rs, cs] = bOperand(p, source);
        p.call(contraction, "nn_rt_sgemm_pack_b",
               {p.i64(K), p.i64(N), ptr, rs, cs, buffer});
      });
  auto [aPtr, aStrides] = cb.pointer(cb.readView(lhs));
  Value epilogue = cb.epilogue(contraction, e);
  auto outType = RankedTensorType::get({M, N}, rewriter.getF32Type());
  auto [alloc, cPtr] = cb.output(outType);
  if (packed) {
    cb.call(contraction, "nn_rt_sgemm_packed_b",
            {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
             packed, cPtr, cb.i64(N), cb.i32(0), epilogue});
  } else {
    auto [bPtr, rsB, csB] = bOperand(cb, rhs);
    cb.call(contraction, "nn_rt_sgemm",
            {cb.i64(M), cb.i64(N), cb.i64(K), aPtr, aStrides[0], aStrides[1],
             bPtr, rsB, csB, cPtr, cb.i64(N), cb.i32(0), epilogue});
  }
  return reshapeRows(rewriter, loc, cb.result(alloc, outType), resultType);
}

/// A contraction outside any group, with the consumers its epilogue
/// absorbs (conv → add → relu written as separate ops).
template <typename OpTy>
struct ContractionToKernel : public OpRewritePattern<OpTy> {
  ContractionToKernel(MLIRContext *context, Packer &packer)
      : OpRewritePattern<OpTy>(context), packer(packer) {}
  Packer &packer;
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
    Value result = emitKernel(rewriter, op, same, e, packer);
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
  FusedGroupToKernel(MLIRContext *context, Packer &packer)
      : OpRewritePattern(context), packer(packer) {}
  Packer &packer;
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
    }, e, packer);

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

//===----------------------------------------------------------------------===//
// Batched matmuls and attention (nn_rt_sgemm_batched, nn_rt_attention)
//===----------------------------------------------------------------------===//

/// Value of NN_RT_MAX_BATCH_DIMS (Kernels.h).
constexpr int64_t kMaxBatchDims = 4;

/// An nn.matmul with batch dimensions (a result of rank > 2).
bool isBatchedMatmul(Operation *op) {
  auto matmul = llvm::dyn_cast<MatmulOp>(op);
  return matmul &&
         llvm::cast<RankedTensorType>(matmul.getType()).getRank() > 2;
}

/// [..., M, N]: the batch dims are the images, M the rows, N the columns.
GemmDims batchedGemmDims(Operation *op) {
  int64_t rank = llvm::cast<RankedTensorType>(op->getResult(0).getType())
                     .getRank();
  GemmDims dims;
  for (int64_t d = 0; d + 2 < rank; ++d)
    dims.images.push_back(d);
  dims.rows.push_back(rank - 2);
  dims.cols.push_back(rank - 1);
  return dims;
}

/// `value` read through a chain of nn.permute / nn.transpose: dimension i
/// of `value` is dimension dims[i] of `base`, the first value in the chain
/// that is not such a view. The kernels take strides, so reading `base`
/// with permuted strides replaces the copy the view would otherwise be
/// (attention's head split).
struct PermutedView {
  Value base;
  SmallVector<int64_t> dims;
};

/// The permutation of an nn.permute or nn.transpose (result dim i is input
/// dim perm[i]), or nullopt for other ops.
std::optional<SmallVector<int64_t>> viewPermutation(Operation *op) {
  if (!op)
    return std::nullopt;
  auto rankOf = [](Value v) {
    return llvm::cast<RankedTensorType>(v.getType()).getRank();
  };
  auto normalize = [](int64_t d, int64_t rank) { return d < 0 ? d + rank : d; };
  if (auto permute = llvm::dyn_cast<PermuteOp>(op)) {
    int64_t rank = rankOf(permute.getInput());
    SmallVector<int64_t> perm;
    for (int64_t d : permute.getDims())
      perm.push_back(normalize(d, rank));
    return perm;
  }
  if (auto transpose = llvm::dyn_cast<TransposeOp>(op)) {
    int64_t rank = rankOf(transpose.getInput());
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[normalize(transpose.getDim0(), rank)],
              perm[normalize(transpose.getDim1(), rank)]);
    return perm;
  }
  return std::nullopt;
}

PermutedView peelPermutes(Value value) {
  auto rank = llvm::cast<RankedTensorType>(value.getType()).getRank();
  PermutedView view{value, llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  while (auto perm = viewPermutation(view.base.getDefiningOp())) {
    for (int64_t &d : view.dims)
      d = (*perm)[d];
    view.base = view.base.getDefiningOp()->getOperand(0);
  }
  return view;
}

/// `value` as a view of the tensor it was cut from, when it is a piece of
/// nn.split or an nn.reshape that only splits dimensions of such a piece
/// (attention's q, k and v out of one in-projection): an extract_slice, then
/// an expand_shape, which bufferize to strided views. Without this,
/// convert-nn-to-linalg would copy the strided piece into a contiguous
/// tensor (it must, for an arbitrary reshape), which a kernel reading
/// through strides does not need. Other values are returned as they are.
Value stridedSource(OpBuilder &b, Location loc, Value value) {
  auto pieceOfSplit = [&](Value v) -> Value {
    auto split = v.getDefiningOp<SplitOp>();
    if (!split)
      return nullptr;
    auto input = llvm::cast<RankedTensorType>(split.getInput().getType());
    auto type = llvm::cast<RankedTensorType>(v.getType());
    // I64Attr accessors return uint64_t.
    auto dim = static_cast<int64_t>(split.getDim());
    if (dim < 0)
      dim += input.getRank();
    unsigned index = llvm::cast<OpResult>(v).getResultNumber();
    int64_t offset = 0;
    for (unsigned i = 0; i < index; ++i)
      offset += split.getSplitSizes()[i];
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < input.getRank(); ++d) {
      offsets.push_back(b.getIndexAttr(d == dim ? offset : 0));
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      strides.push_back(b.getIndexAttr(1));
    }
    return b.create<tensor::ExtractSliceOp>(loc, type, split.getInput(),
                                            offsets, sizes, strides);
  };
  if (Value piece = pieceOfSplit(value))
    return piece;
  auto reshape = value.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return value;
  auto from = llvm::cast<RankedTensorType>(reshape.getInput().getType());
  auto to = llvm::cast<RankedTensorType>(reshape.getType());
  if (to.getRank() <= from.getRank())
    return value;
  auto groups = getReassociationIndicesForReshape(from, to);
  Value piece = groups ? pieceOfSplit(reshape.getInput()) : nullptr;
  if (!piece)
    return value;
  return b.create<tensor::ExpandShapeOp>(loc, to, piece, *groups);
}

/// A single-use nn.permute / nn.transpose of `value` that keeps the last
/// dimension last (so the kernel's rows stay contiguous), or null: the
/// kernel can write its result in that order directly (attention's head
/// merge) instead of a copy.
Operation *absorbableOutputPermute(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  Operation *user = *value.getUsers().begin();
  if (user->getBlock() != value.getParentBlock())
    return nullptr;
  auto perm = viewPermutation(user);
  if (!perm || perm->back() != static_cast<int64_t>(perm->size()) - 1)
    return nullptr;
  return user;
}

/// `value` stored in a stack slot of `anchor`'s function entry block (the
/// kernels take their structs by pointer; see CallBuilder::epilogue).
Value spill(CallBuilder &cb, Operation *anchor, Value value) {
  Value slot;
  {
    OpBuilder::InsertionGuard guard(cb.b);
    auto func = anchor->getParentOfType<FunctionOpInterface>();
    cb.b.setInsertionPointToStart(&func.getFunctionBody().front());
    slot = cb.b.create<LLVM::AllocaOp>(cb.loc, cb.ptrType, value.getType(),
                                       cb.i64(1), /*alignment=*/8);
  }
  cb.b.create<LLVM::StoreOp>(cb.loc, value, slot);
  return slot;
}

/// An nn_rt_matrix {ptr, i64 batch_strides[4], i64 row, i64 col} in a stack
/// slot.
Value matrixStruct(CallBuilder &cb, Operation *anchor, Value ptr,
                   ArrayRef<Value> batchStrides, Value row, Value col) {
  Type i64Type = cb.b.getI64Type();
  SmallVector<Type> fields = {cb.ptrType};
  fields.append(kMaxBatchDims + 2, i64Type);
  auto type = LLVM::LLVMStructType::getLiteral(cb.b.getContext(), fields);
  Value value = cb.b.create<LLVM::UndefOp>(cb.loc, type);
  SmallVector<Value> values = {ptr};
  values.append(batchStrides.begin(), batchStrides.end());
  values.append({row, col});
  for (auto [field, v] : llvm::enumerate(values))
    value = cb.b.create<LLVM::InsertValueOp>(
        cb.loc, value, v, ArrayRef<int64_t>{static_cast<int64_t>(field)});
  return spill(cb, anchor, value);
}

/// The batch sizes of a kernel (`batch`, padded with leading 1s to
/// NN_RT_MAX_BATCH_DIMS) as an i64 array in a stack slot.
Value batchSizes(CallBuilder &cb, Operation *anchor, ArrayRef<int64_t> batch) {
  auto type = LLVM::LLVMArrayType::get(cb.b.getI64Type(), kMaxBatchDims);
  Value value = cb.b.create<LLVM::UndefOp>(cb.loc, type);
  int64_t pad = kMaxBatchDims - static_cast<int64_t>(batch.size());
  for (int64_t i = 0; i < kMaxBatchDims; ++i)
    value = cb.b.create<LLVM::InsertValueOp>(
        cb.loc, value, cb.i64(i < pad ? 1 : batch[i - pad]),
        ArrayRef<int64_t>{i});
  return spill(cb, anchor, value);
}

/// `tensor` as the nn_rt_matrix operand of a kernel that walks `shape`
/// ([batch..., rows, cols]): its dims aligned right against `shape`, a
/// missing or size-1 dim broadcast (stride 0) as nn.matmul and attention's
/// mask do, read through nn.permute / nn.transpose without a copy.
/// `transpose` swaps rows and columns (keyᵀ).
Value matrixOperand(CallBuilder &cb, Operation *anchor, Value tensor,
                    ArrayRef<int64_t> shape, bool transpose = false) {
  PermutedView view = peelPermutes(tensor);
  view.base = stridedSource(cb.b, cb.loc, view.base);
  auto [ptr, baseStrides] = cb.pointer(cb.readView(view.base));
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank(), full = shape.size();
  // The stride of dimension d of `shape`.
  auto stride = [&](int64_t d) -> Value {
    int64_t t = d - (full - rank);
    if (t < 0 || (type.getDimSize(t) == 1 && shape[d] != 1))
      return cb.i64(0);
    return baseStrides[view.dims[t]];
  };
  SmallVector<Value> batch;
  for (int64_t i = 0; i < kMaxBatchDims; ++i) {
    int64_t d = i - (kMaxBatchDims - (full - 2));
    batch.push_back(d < 0 ? cb.i64(0) : stride(d));
  }
  Value row = stride(full - 2), col = stride(full - 1);
  if (transpose)
    std::swap(row, col);
  return matrixStruct(cb, anchor, ptr, batch, row, col);
}

/// A kernel's result of type `resultType` in a fresh buffer laid out in the
/// order of `permute` (an nn.permute / nn.transpose of the result, or null:
/// row-major).
struct MatrixResult {
  /// The nn_rt_matrix the kernel writes through.
  Value matrix;
  /// The buffer and its type (the permute's when there is one).
  Value alloc;
  RankedTensorType type;
};

MatrixResult matrixResult(CallBuilder &cb, Operation *anchor,
                          RankedTensorType resultType, Operation *permute) {
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  auto bufferType = resultType;
  if (permute) {
    perm = *viewPermutation(permute);
    bufferType = llvm::cast<RankedTensorType>(permute->getResult(0).getType());
  }
  // Row-major strides of the buffer, then of the result's dims in it.
  SmallVector<int64_t> bufferStrides(rank, 1), strides(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    bufferStrides[d] = bufferStrides[d + 1] * bufferType.getDimSize(d + 1);
  for (int64_t i = 0; i < rank; ++i)
    strides[perm[i]] = bufferStrides[i];
  SmallVector<Value> batch;
  for (int64_t i = 0; i < kMaxBatchDims; ++i) {
    int64_t d = i - (kMaxBatchDims - (rank - 2));
    batch.push_back(cb.i64(d < 0 ? 0 : strides[d]));
  }
  auto [alloc, ptr] = cb.output(bufferType);
  Value matrix = matrixStruct(cb, anchor, ptr, batch,
                              cb.i64(strides[rank - 2]),
                              cb.i64(strides[rank - 1]));
  return {matrix, alloc, bufferType};
}

/// Why the batched kernels cannot compute `op` (an nn.matmul with batch
/// dims or an nn.scaled_dot_product_attention), or null when they can.
const char *whyNoBatchedKernel(Operation *op) {
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
  if (result.getRank() < 2 || result.getRank() - 2 > kMaxBatchDims)
    return "more batch dimensions than the kernels take";
  return nullptr;
}

/// nn.matmul with batch dimensions: one nn_rt_sgemm_batched over views of
/// its operands (a broadcast operand has batch stride 0, a transposed one
/// swapped strides), with the epilogue the 2-D form gets (each batch index
/// is an image of the addends) and a head-merging permute written in place.
struct BatchedMatmulToKernel : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!isBatchedMatmul(op))
      return rewriter.notifyMatchFailure(op, "2-D (nn_rt_sgemm's)");
    if (op->getParentOfType<FusedOp>())
      return rewriter.notifyMatchFailure(
          op, "inside an nn.fused group (lowered with its group)");
    if (const char *why = whyNoBatchedKernel(op))
      return rewriter.notifyMatchFailure(op, why);
    auto same = [](Value v) { return v; };
    KernelEpilogue e = matchEpilogue(op, same);
    Operation *permute = absorbableOutputPermute(e.result);
    rewriter.setInsertionPoint(permute             ? permute
                               : e.absorbed.empty() ? op.getOperation()
                                                    : e.absorbed.back());
    CallBuilder cb(rewriter, op.getLoc());
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size(), K = llvm::cast<RankedTensorType>(
                                         op.getLhs().getType())
                                         .getShape()
                                         .back();
    SmallVector<int64_t> lhsShape(shape), rhsShape(shape);
    lhsShape.back() = K;
    rhsShape[rank - 2] = K;
    Value a = matrixOperand(cb, op, op.getLhs(), lhsShape);
    Value b = matrixOperand(cb, op, op.getRhs(), rhsShape);
    Value epilogue = cb.epilogue(op, e);
    MatrixResult c = matrixResult(cb, op, resultType, permute);
    cb.call(op, "nn_rt_sgemm_batched",
            {batchSizes(cb, op, shape.drop_back(2)), cb.i64(shape[rank - 2]),
             cb.i64(shape[rank - 1]), cb.i64(K), a, b, c.matrix, cb.i32(0),
             epilogue});
    rewriter.replaceAllUsesWith(permute ? permute->getResult(0) : e.result,
                                cb.result(c.alloc, c.type));
    if (permute)
      rewriter.eraseOp(permute);
    for (Operation *consumer : llvm::reverse(e.absorbed))
      rewriter.eraseOp(consumer);
    rewriter.eraseOp(op);
    return success();
  }
};

/// nn.scaled_dot_product_attention without dropout: one nn_rt_attention
/// (q·kᵀ, the scaled and masked softmax and ·v fused per query block, the
/// scores never written out), reading the head-split views in place and
/// writing a head-merging permute of its result directly.
struct AttentionToKernel
    : public OpRewritePattern<ScaledDotProductAttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaledDotProductAttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (const char *why = whyNoBatchedKernel(op))
      return rewriter.notifyMatchFailure(op, why);
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size();
    auto keyType = llvm::cast<RankedTensorType>(op.getKey().getType());
    int64_t L = shape[rank - 2], Ev = shape[rank - 1];
    int64_t S = keyType.getDimSize(keyType.getRank() - 2);
    int64_t E = keyType.getShape().back();
    SmallVector<int64_t> qShape(shape), kShape(shape), vShape(shape),
        maskShape(shape);
    qShape.back() = E;
    kShape[rank - 2] = S, kShape.back() = E;
    vShape[rank - 2] = S;
    maskShape.back() = S;

    Operation *permute = absorbableOutputPermute(op.getResult());
    rewriter.setInsertionPoint(permute ? permute : op.getOperation());
    CallBuilder cb(rewriter, op.getLoc());
    Value q = matrixOperand(cb, op, op.getQuery(), qShape);
    Value k = matrixOperand(cb, op, op.getKey(), kShape);
    Value v = matrixOperand(cb, op, op.getValue(), vShape);
    Value mask = op.getAttnMask()
                     ? matrixOperand(cb, op, op.getAttnMask(), maskShape)
                     : cb.null();
    MatrixResult out = matrixResult(cb, op, resultType, permute);
    cb.call(op, "nn_rt_attention",
            {batchSizes(cb, op, shape.drop_back(2)), cb.i64(L), cb.i64(S),
             cb.i64(E), cb.i64(Ev), q, k, v, mask, out.matrix,
             cb.f32(static_cast<float>(op.getScaleOrDefault())),
             cb.i32(op.getIsCausal() ? 1 : 0)});
    Value result = cb.result(out.alloc, out.type);
    if (permute) {
      rewriter.replaceOp(permute, result);
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(op, result);
    }
    return success();
  }
};

struct LowerToKernelCallsPass
    : public nn::impl::LowerToKernelCallsPassBase<LowerToKernelCallsPass> {
  void runOnOperation() override {
    Packer packer;
    if (failed(packer.init(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<ContractionToKernel<MatmulOp>, ContractionToKernel<LinearOp>,
                 ContractionToKernel<ConvOp>, FusedGroupToKernel>(
        &getContext(), packer);
    patterns.add<BatchedMatmulToKernel, AttentionToKernel>(&getContext());
    GreedyRewriteConfig config;
    config.maxIterations = 1;
    // Each op is rewritten once; no folding of unrelated ops.
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
    packer.finish(getOperation());
  }
};

} // namespace
