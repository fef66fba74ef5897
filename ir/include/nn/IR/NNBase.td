//===- NNBase.td - nn dialect definition -------------------*- tablegen -*-===//
//
// The nn dialect: the graph a traced nn::Module forward becomes. Tensors have
// value semantics; parameters and buffers are module-level symbols named by
// their state_dict keys and read with nn.load.
//
//===----------------------------------------------------------------------===//
#ifndef NN_BASE_TD
#define NN_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let summary = "Traced PyTorch-style modules as a tensor graph";
  let description = [{
    The `nn` dialect holds the forward function of a traced module together
    with the module's parameters and buffers. Every parameter and buffer is a
    symbol at the top level of the `builtin.module`, named by its state_dict
    key; functions read them with `nn.load`. Operations take and return
    ranked, statically shaped tensors and mirror `torch.nn.functional`.

    ```mlir
    nn.parameter @"fc1.weight" : tensor<256x784xf32>
    nn.parameter @"fc1.bias" : tensor<256xf32>
    func.func @forward(%x: tensor<2x784xf32>) -> tensor<2x256xf32> {
      %w = nn.load @"fc1.weight" : tensor<256x784xf32>
      %b = nn.load @"fc1.bias" : tensor<256xf32>
      %y = nn.linear %x, %w, %b
          : (tensor<2x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<2x256xf32>
      %r = nn.relu %y : tensor<2x256xf32>
      return %r : tensor<2x256xf32>
    }
    ```
  }];
  let cppNamespace = "::mlir::nn";
  let useDefaultAttributePrinterParser = 1;

  // The attributes the frontend and the passes exchange (`nn.<name>` on
  // ops, function arguments and results). Each has a typed helper
  // (NNDialect::get<Name>AttrHelper()) and the dialect's verifiers check
  // its type and where it appears (NNDialect.cpp); any other `nn.*`
  // attribute is an error.
  let discardableAttrs = (ins
    // Argument or result of a traced function: its name at the boundary
    // ("input.0", "loss", "grad.fc.weight").
    "::mlir::StringAttr":$name,
    // Result of a differentiated function (an argument once bufferization
    // made it an out-parameter): the state_dict key it is the gradient of.
    "::mlir::StringAttr":$grad,
    // Argument: the random generator state, with the number of counter
    // values one call draws.
    "::mlir::IntegerAttr":$rng,
    // Rank-0 argument: the value a caller that does not pass it gets (an
    // optimizer's hyper-parameter).
    "::mlir::FloatAttr":$default,
    // nn.buffer: starts as zeros when not bound (an optimizer's state).
    "::mlir::UnitAttr":$starts_at_zero,
    // Argument after nn-lower-state-to-arguments: the state_dict key of the
    // parameter or buffer it carries.
    "::mlir::StringAttr":$state,
    // Argument: the value embedded in the artifact for that state.
    "::mlir::ElementsAttr":$embedded,
    // Argument: the artifact's context (nn-hoist-state-computations).
    "::mlir::UnitAttr":$context,
    // Argument: the buffer in this slot of the context.
    "::mlir::IntegerAttr":$context_slot,
    // Module: how many slots the context has...
    "::mlir::IntegerAttr":$context_slots,
    // ...and the byte size of each dense one (the results of @prepare).
    "::mlir::DenseI64ArrayAttr":$context_bytes,
    // Function: the bytes of the per-call arena nn-plan-buffers gave it.
    "::mlir::IntegerAttr":$workspace_bytes
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, traits>;

/// Element types the dialect computes in.
def NN_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def NN_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I32, I64]>;

#endif // NN_BASE_TD
