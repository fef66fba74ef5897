//===- CallBuilder.cpp - The operands of a kernel call, and the call ------===//
//
// Part of nn-lower-kernel-ops (KernelCalls.h). Operands cross as
// `!llvm.ptr` built from a memref's aligned base pointer and offset, with
// the strides read from `memref.extract_strided_metadata`, so whatever
// layout bufferization picked is passed through without a copy. The
// structs are built field by field as KernelABI.def lays them out.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

Value CallBuilder::epilogue(Operation *anchor, kernel::EpilogueAttr e,
                            ValueRange addends) {
  if (!e || (addends.empty() && e.getActivation() == kernel::Activation::none))
    return null();
  StructValue s(*this, "nn_rt_epilogue");
  for (auto [i, addend] : llvm::enumerate(addends)) {
    auto set = [&, i = static_cast<int64_t>(i)](StringRef member, Value v) {
      s.set("addends", i, "nn_rt_addend", member, v);
    };
    ArrayRef<int64_t> strides = e.getStrides(i);
    set("data", pointer(addend).first);
    set("image_stride", i64(strides[0]));
    set("row_stride", i64(strides[1]));
    set("col_stride", i64(strides[2]));
  }
  s.set("activation", i32(static_cast<int32_t>(e.getActivation())))
      .set("min", f32(e.getMin().convertToFloat()))
      .set("max", f32(e.getMax().convertToFloat()))
      .set("slope", f32(e.getSlope().convertToFloat()));
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

Value CallBuilder::i64Array(Operation *anchor, ArrayRef<int64_t> values) {
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), values.size());
  Value value = b.create<LLVM::UndefOp>(loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    value = b.create<LLVM::InsertValueOp>(
        loc, value, i64(v), ArrayRef<int64_t>{static_cast<int64_t>(i)});
  return spill(anchor, value);
}

Value CallBuilder::batchSizes(Operation *anchor, ArrayRef<int64_t> batch) {
  SmallVector<int64_t> sizes(abi::kMaxBatchDims - batch.size(), 1);
  sizes.append(batch.begin(), batch.end());
  return i64Array(anchor, sizes);
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
