//===- Passes.td - Passes that leave the nn dialect --------*- tablegen -*-===//
//
// Lowerings out of nn: state symbols to function arguments, nn ops to
// linalg/tensor/arith/math on tensors. Each has a lit test named after its
// flag under tests/Conversion/.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_PASSES_TD
#define NN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerStateToArgumentsPass
    : Pass<"nn-lower-state-to-arguments", "::mlir::ModuleOp"> {
  let summary = "Turn parameters and buffers into leading function arguments";
  let description = [{
    Every `nn.parameter` and `nn.buffer` of the module that some function
    loads or stores becomes an argument of each public function, in
    declaration order and ahead of the function's own inputs (unused state
    gets none: the artifact description marks it `"argument": false` and
    still binds it by name); `nn.load` reads the argument; the declarations are erased. Each new
    argument carries `nn.state = "<state_dict key>"`. This is the calling
    convention of the compiled artifact: weights are bound by name at load
    time and passed by pointer.

    Before:
    ```mlir
    nn.parameter @"fc.weight" : tensor<3x4xf32>
    func.func @forward(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
      %w = nn.load @"fc.weight" : tensor<3x4xf32>
      return %w : tensor<3x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @forward(%w: tensor<3x4xf32> {nn.state = "fc.weight"},
                       %x: tensor<2x4xf32>) -> tensor<3x4xf32> {
      return %w : tensor<3x4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ConvertNNToLinalgPass : Pass<"convert-nn-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Lower nn ops to linalg, tensor, arith and math";
  let description = [{
    Converts every nn op of a function (after nn-lower-state-to-arguments) to
    linalg named ops or `linalg.generic` on tensors. Broadcasting becomes
    indexing maps. An `nn.fused` group becomes its contraction's linalg op
    followed by one `linalg.generic` evaluating the whole pointwise epilogue
    per element (every pointwise op shares its scalar body with its own
    lowering), so no intermediate of the group is materialized.
    Training-mode dropout draws its mask with a counter-based generator
    (Philox4x32-10) inside its linalg.generic. Fails, naming the op, on
    anything it cannot lower.

    Every function result ends up in a tensor of its own: a returned argument
    or a value returned twice is copied (`bufferization.alloc_tensor
    copy(...)`), since each result becomes a separate caller-owned output.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

#endif // NN_CONVERSION_PASSES_TD
