//===- KernelDialect.h - The nn_kernel dialect ------------------*- C++ -*-===//
//
// Micro-kernel calls as destination-passing ops, the state write and the
// artifact description (KernelOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef NN_KERNEL_KERNELDIALECT_H
#define NN_KERNEL_KERNELDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// #nn_kernel.artifact holds the runtime's description
// (nn/Runtime/ArtifactDescription.h, included where it is read or built);
// uniquing the attribute hashes it.
namespace nn {
struct ArtifactDescription;
llvm::hash_code hash_value(const ArtifactDescription &description);
} // namespace nn

#include "nn/Kernel/KernelDialect.h.inc"
#include "nn/Kernel/KernelEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "nn/Kernel/KernelTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/Kernel/KernelAttrs.h.inc"

#define GET_OP_CLASSES
#include "nn/Kernel/KernelOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace nn::kernel {

/// The shape of a kernel op's operand: a tensor's or memref's, or the
/// unpacked shape of a `!nn_kernel.packed` weight.
ArrayRef<int64_t> operandShape(Value value);

/// The shape of `value` read through `perm` (dimension i is dimension
/// perm[i] of `value`, as the ops' `*_perm` attributes say; none: as it
/// is).
SmallVector<int64_t> permutedShape(Value value,
                                   std::optional<ArrayRef<int64_t>> perm);

/// The module attribute that carries the artifact's description from
/// nn-describe-artifact to the artifact table.
inline constexpr StringLiteral kArtifactAttrName = "nn_kernel.artifact";

/// The description `module` carries, or null.
ArtifactAttr getArtifact(ModuleOp module);
void setArtifact(ModuleOp module, ::nn::ArtifactDescription description);

/// Registers the ops' bufferization (BufferizableOpInterface, as linalg's
/// destination-passing ops bufferize).
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace nn::kernel
} // namespace mlir

#endif // NN_KERNEL_KERNELDIALECT_H
