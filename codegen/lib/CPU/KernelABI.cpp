//===- KernelABI.cpp - The kernels' C ABI as MLIR and LLVM types ----------===//

#include "nn/Conversion/CPU/KernelABI.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_abi;

namespace {

struct Signature {
  const char *name;
  Kind result;
  SmallVector<Kind, 20> arguments;
};

const Signature &signature(Function function) {
  static const Signature table[] = {
#define NN_RT_FUNCTION(name, result, ...) {#name, result, {__VA_ARGS__}},
#include "nn/Runtime/KernelABI.def"
  };
  return table[static_cast<size_t>(function)];
}

struct Field {
  const char *structName, *name;
  Kind kind;
  int64_t count;
};

constexpr Field kFields[] = {
#define NN_RT_FIELD(s, field, kind, count) {#s, #field, kind, count},
#include "nn/Runtime/KernelABI.def"
};

/// The MLIR type of a value of kind `kind` (null for Void).
Type mlirType(MLIRContext *context, Kind kind) {
  switch (kind) {
  case Void:
    return nullptr;
  case I32:
    return IntegerType::get(context, 32);
  case I64:
    return IntegerType::get(context, 64);
  case F32:
    return Float32Type::get(context);
  case RangeFn: {
    Type ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = IntegerType::get(context, 64);
    return FunctionType::get(context, {ptr, i64, i64}, {});
  }
  case Addend:
    return structType(context, "nn_rt_addend");
  case FloatPtr:
  case ConstFloatPtr:
  case ConstI64Ptr:
  case VoidPtr:
  case SlotsPtr:
  case EpiloguePtr:
  case MatrixPtr:
  case UnrankedMemRefPtr:
    return LLVM::LLVMPointerType::get(context);
  }
  llvm_unreachable("a kind of KernelABI.def without a type");
}

llvm::Type *llvmType(llvm::LLVMContext &context, Kind kind) {
  switch (kind) {
  case Void:
    return llvm::Type::getVoidTy(context);
  case I32:
    return llvm::Type::getInt32Ty(context);
  case I64:
    return llvm::Type::getInt64Ty(context);
  case F32:
    return llvm::Type::getFloatTy(context);
  case Addend:
    llvm_unreachable("structs are passed by pointer");
  default:
    return llvm::PointerType::get(context, 0);
  }
}

} // namespace

StringRef kernel_abi::name(Function function) {
  return signature(function).name;
}

ArrayRef<Function> kernel_abi::functions() {
  static const Function all[] = {
#define NN_RT_FUNCTION(name, ...) Function::name,
#include "nn/Runtime/KernelABI.def"
  };
  return all;
}

FunctionType kernel_abi::functionType(MLIRContext *context, Function function) {
  const Signature &s = signature(function);
  SmallVector<Type> arguments;
  for (Kind kind : s.arguments)
    arguments.push_back(mlirType(context, kind));
  SmallVector<Type, 1> results;
  if (Type result = mlirType(context, s.result))
    results.push_back(result);
  return FunctionType::get(context, arguments, results);
}

llvm::FunctionType *kernel_abi::functionType(llvm::LLVMContext &context,
                                             Function function) {
  const Signature &s = signature(function);
  SmallVector<llvm::Type *> arguments;
  for (Kind kind : s.arguments)
    arguments.push_back(llvmType(context, kind));
  return llvm::FunctionType::get(llvmType(context, s.result), arguments,
                                 /*isVarArg=*/false);
}

FailureOr<func::FuncOp> kernel_abi::declare(ModuleOp module, Function function,
                                            Location loc) {
  StringRef symbol = name(function);
  FunctionType type = functionType(module.getContext(), function);
  Operation *existing = module.lookupSymbol(symbol);
  if (!existing) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto callee = b.create<func::FuncOp>(loc, symbol, type);
    callee.setPrivate();
    return callee;
  }
  auto callee = llvm::dyn_cast<func::FuncOp>(existing);
  if (!callee)
    return existing->emitError()
           << "'" << symbol << "' is a function of nn_kernels, of type " << type
           << ", but this module defines it as a '" << existing->getName()
           << "'";
  if (callee.getFunctionType() != type)
    return callee.emitError()
           << "'" << symbol << "' is a function of nn_kernels, of type " << type
           << ", but this module declares it as " << callee.getFunctionType();
  return callee;
}

LogicalResult kernel_abi::verifyDeclarations(ModuleOp module) {
  for (Function function : functions())
    if (module.lookupSymbol(name(function)) &&
        failed(declare(module, function, module.getLoc())))
      return failure();
  return success();
}

LLVM::LLVMStructType kernel_abi::structType(MLIRContext *context,
                                            StringRef name) {
  SmallVector<Type> fields;
  for (const Field &field : kFields) {
    if (name != field.structName)
      continue;
    Type type = mlirType(context, field.kind);
    fields.push_back(field.count == 0
                         ? type
                         : LLVM::LLVMArrayType::get(
                               type, static_cast<unsigned>(field.count)));
  }
  if (fields.empty())
    llvm::report_fatal_error("KernelABI.def has no struct " + name);
  return LLVM::LLVMStructType::getLiteral(context, fields);
}

int64_t kernel_abi::fieldIndex(StringRef name, StringRef field) {
  int64_t index = 0;
  for (const Field &f : kFields) {
    if (name != f.structName)
      continue;
    if (field == f.name)
      return index;
    ++index;
  }
  llvm::report_fatal_error("KernelABI.def has no field " + name + "." + field);
}
