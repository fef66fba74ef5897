//===- CallBuilder.cpp - The operands of a kernel call, and the call ------===//
//
// Part of nn-lower-to-kernel-calls (KernelCalls.h). Operands cross as
// `!llvm.ptr` built from the aligned base pointer and the offset of
// `bufferization.to_memref`, with the strides read from
// `memref.extract_strided_metadata`, so whatever layout bufferization picks
// is passed through without a copy. The structs are built field by field
// as KernelABI.def lays them out.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;

CallBuilder::CallBuilder(OpBuilder &builder, Location loc)
    : b(builder), loc(loc),
      ptrType(LLVM::LLVMPointerType::get(builder.getContext())) {}

Value CallBuilder::i64(int64_t v) {
  return b.create<arith::ConstantIntOp>(loc, v, b.getI64Type());
}

Value CallBuilder::i32(int32_t v) {
  return b.create<arith::ConstantIntOp>(loc, v, b.getI32Type());
}

Value CallBuilder::f32(float v) {
  return b.create<arith::ConstantFloatOp>(loc, APFloat(v), b.getF32Type());
}

Value CallBuilder::null() { return b.create<LLVM::ZeroOp>(loc, ptrType); }

Value CallBuilder::toI64(Value index) {
  return b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
}

Value CallBuilder::readView(Value tensor, bool contiguous) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> dynamic(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, dynamic);
  auto memrefType =
      contiguous
          ? MemRefType::get(type.getShape(), type.getElementType())
          : MemRefType::get(type.getShape(), type.getElementType(), layout);
  return b.create<bufferization::ToMemrefOp>(loc, memrefType, tensor,
                                             /*read_only=*/true);
}

std::pair<Value, SmallVector<Value>> CallBuilder::pointer(Value memref) {
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

std::pair<Value, Value> CallBuilder::output(RankedTensorType type) {
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value alloc =
      b.create<memref::AllocOp>(loc, memrefType, b.getI64IntegerAttr(64));
  Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, alloc);
  return {alloc, b.create<LLVM::IntToPtrOp>(loc, ptrType, toI64(base))};
}

Value CallBuilder::result(Value alloc, RankedTensorType type) {
  return b.create<bufferization::ToTensorOp>(loc, type, alloc,
                                             /*restrict=*/true,
                                             /*writable=*/true);
}

Value CallBuilder::spill(Operation *anchor, Value value) {
  Value slot;
  {
    OpBuilder::InsertionGuard guard(b);
    auto func = anchor->getParentOfType<FunctionOpInterface>();
    b.setInsertionPointToStart(&func.getFunctionBody().front());
    slot = b.create<LLVM::AllocaOp>(loc, ptrType, value.getType(), i64(1),
                                    /*alignment=*/8);
  }
  b.create<LLVM::StoreOp>(loc, value, slot);
  return slot;
}

namespace {

/// Builds a value of one of KernelABI.def's structs, starting from zeros
/// (a field the compiler does not set is 0), fields set by name.
class StructValue {
public:
  StructValue(CallBuilder &cb, StringRef name)
      : cb(cb), name(name),
        value(cb.b.create<LLVM::ZeroOp>(
            cb.loc, abi::structType(cb.b.getContext(), name))) {}

  /// Sets `field`, or element `index` of an array field, or the field
  /// `member` of that element (a struct).
  StructValue &set(StringRef field, Value v) { return setAt(field, {}, v); }
  StructValue &set(StringRef field, int64_t index, Value v) {
    return setAt(field, {index}, v);
  }
  StructValue &set(StringRef field, int64_t index, StringRef elementStruct,
                   StringRef member, Value v) {
    return setAt(field, {index, abi::fieldIndex(elementStruct, member)}, v);
  }

  Value get() const { return value; }

private:
  StructValue &setAt(StringRef field, ArrayRef<int64_t> rest, Value v) {
    SmallVector<int64_t> position = {abi::fieldIndex(name, field)};
    position.append(rest.begin(), rest.end());
    value = cb.b.create<LLVM::InsertValueOp>(cb.loc, value, v, position);
    return *this;
  }

  CallBuilder &cb;
  StringRef name;
  Value value;
};

} // namespace

Value CallBuilder::epilogue(Operation *anchor, const KernelEpilogue &e) {
  if (e.addends.empty() && e.activation == abi::kActNone)
    return null();
  StructValue s(*this, "nn_rt_epilogue");
  for (auto [i, a] : llvm::enumerate(e.addends)) {
    auto set = [&, i = static_cast<int64_t>(i)](StringRef member, Value v) {
      s.set("addends", i, "nn_rt_addend", member, v);
    };
    set("data", pointer(readView(a.tensor, /*contiguous=*/true)).first);
    set("image_stride", i64(a.image));
    set("row_stride", i64(a.row));
    set("col_stride", i64(a.col));
  }
  s.set("activation", i32(e.activation))
      .set("min", f32(e.min))
      .set("max", f32(e.max))
      .set("slope", f32(e.slope));
  return spill(anchor, s.get());
}

Value CallBuilder::matrix(Operation *anchor, Value ptr,
                          ArrayRef<Value> batchStrides, Value row, Value col) {
  StructValue s(*this, "nn_rt_matrix");
  s.set("data", ptr);
  // Fewer batch dims than the struct holds are its last ones; the leading
  // ones stay 0 (broadcast over a batch size of 1).
  int64_t pad = abi::kMaxBatchDims - static_cast<int64_t>(batchStrides.size());
  for (auto [i, stride] : llvm::enumerate(batchStrides))
    s.set("batch_strides", pad + static_cast<int64_t>(i), stride);
  s.set("row_stride", row).set("col_stride", col);
  return spill(anchor, s.get());
}

Value CallBuilder::batchSizes(Operation *anchor, ArrayRef<int64_t> batch) {
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), abi::kMaxBatchDims);
  Value value = b.create<LLVM::UndefOp>(loc, type);
  int64_t pad = abi::kMaxBatchDims - static_cast<int64_t>(batch.size());
  for (int64_t i = 0; i < abi::kMaxBatchDims; ++i)
    value = b.create<LLVM::InsertValueOp>(
        loc, value, i64(i < pad ? 1 : batch[i - pad]), ArrayRef<int64_t>{i});
  return spill(anchor, value);
}

ValueRange CallBuilder::call(Operation *anchor, abi::Function function,
                             ValueRange args) {
  auto module = anchor->getParentOfType<ModuleOp>();
  // The pass refused a module whose symbol of this name is something else.
  func::FuncOp callee = *abi::declare(module, function, loc);
  assert(llvm::equal(TypeRange(args), callee.getFunctionType().getInputs()) &&
         "the arguments of a kernel call differ from KernelABI.def");
  return b.create<func::CallOp>(loc, callee, args).getResults();
}
