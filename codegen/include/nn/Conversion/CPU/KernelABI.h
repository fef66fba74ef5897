//===- KernelABI.h - The kernels' C ABI as MLIR and LLVM types -*- C++ -*-===//
//
// The compiler's side of nn/Runtime/KernelABI.def: the functions compiled
// code calls in nn_kernels, declared with the types the table gives them,
// and the structs it passes them, laid out field by field as the table
// lists them. Nothing in the compiler spells a kernel's signature or a
// struct's layout itself.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_KERNELABI_H
#define NN_CONVERSION_CPU_KERNELABI_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/DerivedTypes.h"

#include <cstdint>

namespace mlir::nn::kernel_abi {

/// The C types of the table (see KernelABI.def for each one's C spelling).
enum Kind {
  Void,
  I32,
  I64,
  F32,
  FloatPtr,
  ConstFloatPtr,
  ConstI64Ptr,
  VoidPtr,
  SlotsPtr,
  EpiloguePtr,
  MatrixPtr,
  RangeFn,
  UnrankedMemRefPtr,
  Addend,
};

/// A function of the table.
enum class Function {
#define NN_RT_FUNCTION(name, ...) name,
#include "nn/Runtime/KernelABI.def"
};

/// The table's constants, as kMaxAddends, kActRelu, ...
#define NN_RT_CONSTANT(name, cname, value) constexpr int64_t k##name = value;
#include "nn/Runtime/KernelABI.def"

/// The symbol of `function`.
StringRef name(Function function);

/// Every function of the table, in its order.
ArrayRef<Function> functions();

/// `function`'s type for func.func/func.call: integers and floats as
/// themselves, pointers as `!llvm.ptr`, an nn_rt_range_fn as the function
/// type of its callee ((!llvm.ptr, i64, i64) -> ()).
FunctionType functionType(MLIRContext *context, Function function);

/// `function`'s type in LLVM IR.
llvm::FunctionType *functionType(llvm::LLVMContext &context, Function function);

/// Declares `function` (private) in `module` unless it already is, at the
/// start of the module (at `loc`); an existing symbol of the name with
/// another type is an error located at it.
FailureOr<func::FuncOp> declare(ModuleOp module, Function function,
                                Location loc);

/// Fails, with declare()'s error, when `module` has a symbol of one of the
/// kernels' names that is not that kernel as the table types it: checked up
/// front by the passes that will declare them.
LogicalResult verifyDeclarations(ModuleOp module);

/// The LLVM dialect type of struct `name` (nn_rt_epilogue, nn_rt_addend,
/// nn_rt_matrix): its fields in the table's order, arrays as `!llvm.array`.
LLVM::LLVMStructType structType(MLIRContext *context, StringRef name);

/// The position of `field` in struct `name` (aborts for a field the table
/// does not list: a compiler bug).
int64_t fieldIndex(StringRef name, StringRef field);

} // namespace mlir::nn::kernel_abi

#endif // NN_CONVERSION_CPU_KERNELABI_H
