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
}

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, traits>;

/// Element types the dialect computes in.
def NN_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def NN_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, UI8, I32, I64]>;

#endif // NN_BASE_TD
