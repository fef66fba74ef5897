//===- NNOpBase.td - Shared op classes of the nn dialect ---*- tablegen -*-===//
//
// The op base class, type constraints and the TableGen classes that ops of
// one shape share (one class, one templated lowering).
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPBASE_TD
#define NN_OPBASE_TD

include "nn/IR/NNBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Elementwise with NumPy broadcasting: each result element is one scalar
/// expression of the operands' elements at the same (broadcast) index. What
/// nn-fuse may put into the epilogue of an nn.fused group, and what codegen
/// evaluates inside one linalg.generic body (mlir::OpTrait::nn::Pointwise).
def NN_Pointwise : NativeOpTrait<"Pointwise"> {
  let cppNamespace = "::mlir::OpTrait::nn";
}

/// The parameters and buffers of the module: what nn.load reads and nn.store
/// writes (mlir::nn::StateResource), so CSE never merges two loads of a
/// buffer across a store.
def NN_StateResource : Resource<"::mlir::nn::StateResource">;

/// The state of the counter-based random generator a random op draws from:
/// `tensor<2xi64>` holding (seed, counter offset). The compiled forward takes
/// it as an argument (marked `nn.rng`) that the runtime supplies and
/// advances on every run, so no random op hides state of its own.
def NN_RngState : Type<
    And<[RankedTensorOf<[I64]>.predicate,
         CPred<"::llvm::cast<::mlir::ShapedType>($_self).getShape() == "
               "::llvm::ArrayRef<int64_t>{2}">]>,
    "tensor<2xi64> random generator state (seed, offset)",
    "::mlir::TensorType">,
  BuildableType<"::mlir::RankedTensorType::get({2}, $_builder.getI64Type())">;

/// Binary elementwise ops with NumPy broadcasting; operands share an element
/// type.
class NN_BroadcastBinaryOp<string mnemonic, string torchName>
    : NN_Op<mnemonic, [Pure, InferTypeOpAdaptor, NN_Pointwise]> {
  let summary = "Elementwise " # mnemonic # " with broadcasting, as torch." # torchName;
  let arguments = (ins NN_Tensor:$lhs, NN_Tensor:$rhs);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  // Broadcast shapes, one element type (OpUtils.h).
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::nn::detail::inferBroadcastBinary(
          loc, "}] # mnemonic # [{", adaptor.getLhs(), adaptor.getRhs(), types);
    }
  }];
}

/// Unary elementwise ops on floating-point tensors; result type = operand type.
class NN_UnaryFloatOp<string mnemonic, string torchName, list<Trait> traits = []>
    : NN_Op<mnemonic, traits # [Pure, SameOperandsAndResultType, NN_Pointwise]> {
  let summary = "Elementwise " # mnemonic # ", as torch.nn.functional." # torchName;
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

#endif // NN_OPBASE_TD
