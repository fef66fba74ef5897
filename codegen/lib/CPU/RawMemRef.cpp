//===- RawMemRef.cpp - A memref over an address from outside MLIR ---------===//
//
// See RawMemRef.h.
//
//===----------------------------------------------------------------------===//

#include "RawMemRef.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

Value mlir::nn::buildMemRefFromPointer(OpBuilder &b, Location loc,
                                       MemRefType type, Value base,
                                       Value offset, ValueRange sizes,
                                       ValueRange strides) {
  assert(sizes.size() == size_t(type.getRank()) &&
         strides.size() == size_t(type.getRank()) && "one per dimension");
  LLVMTypeConverter converter(b.getContext());
  Type descType = converter.convertType(type);
  Value desc = b.create<LLVM::UndefOp>(loc, descType);
  desc = b.create<LLVM::InsertValueOp>(loc, desc, base, 0);
  desc = b.create<LLVM::InsertValueOp>(loc, desc, base, 1);
  desc = b.create<LLVM::InsertValueOp>(loc, desc, offset, 2);
  for (auto [field, values] :
       {std::pair<int64_t, ValueRange>{3, sizes}, {4, strides}})
    for (auto [d, v] : llvm::enumerate(values))
      desc = b.create<LLVM::InsertValueOp>(
          loc, desc, v, ArrayRef<int64_t>{field, int64_t(d)});
  return b.create<UnrealizedConversionCastOp>(loc, type, desc).getResult(0);
}

Value mlir::nn::buildMemRefFromPointer(OpBuilder &b, Location loc,
                                       MemRefType type, Value base) {
  assert(type.hasStaticShape() && type.getLayout().isIdentity() &&
         "a contiguous, statically shaped memref");
  auto i64 = [&](int64_t v) {
    return b.create<LLVM::ConstantOp>(loc, b.getI64Type(), v).getResult();
  };
  SmallVector<Value> sizes, strides;
  SmallVector<int64_t> staticStrides = getStridesAndOffset(type).first;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    sizes.push_back(i64(type.getDimSize(d)));
    strides.push_back(i64(staticStrides[d]));
  }
  return buildMemRefFromPointer(b, loc, type, base, i64(0), sizes, strides);
}
