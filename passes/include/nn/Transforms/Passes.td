//===- Passes.td - nn → nn graph passes --------------------*- tablegen -*-===//
//
// Passes that rewrite the nn dialect into better nn. Each has a lit test
// named after its flag under tests/Transforms/.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TRANSFORMS_PASSES_TD
#define NN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusePass : Pass<"nn-fuse", "::mlir::func::FuncOp"> {
  let summary = "Fuse activations into the ops that produce their input";
  let description = [{
    An activation whose input is produced by an op that can apply it on store
    (today: `nn.linear`) becomes that op's `activation`, saving one pass over
    the tensor in memory. The rule: fuse when the producer has no fused
    activation yet and the activation is the producer's only user, since any
    other user needs the value before the activation.

    Before:
    ```mlir
    %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %z = nn.relu %y : tensor<2x3xf32>
    ```
    After:
    ```mlir
    %z = nn.linear %x, %w, %b activation<relu> : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nn::NNDialect"];
}

#endif // NN_TRANSFORMS_PASSES_TD
