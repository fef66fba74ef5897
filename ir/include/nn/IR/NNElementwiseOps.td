//===- NNElementwiseOps.td - nn elementwise arithmetic, math and comparisons -*- tablegen -*-===//
//
// Operations of the nn dialect: elementwise arithmetic, math and comparisons. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ElementwiseOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_ELEMENTWISE_OPS_TD
#define NN_ELEMENTWISE_OPS_TD

include "nn/IR/NNOpBase.td"

//===----------------------------------------------------------------------===//
// Binary arithmetic (NumPy broadcasting, one element type)
//===----------------------------------------------------------------------===//

def NN_SubOp : NN_BroadcastBinaryOp<"sub", "sub"> {
  let description = [{
    ```mlir
    %z = nn.sub %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def NN_MulOp : NN_BroadcastBinaryOp<"mul", "mul"> {
  let description = [{
    ```mlir
    %z = nn.mul %x, %y : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def NN_DivOp : NN_BroadcastBinaryOp<"div", "div"> {
  let description = [{
    True division; integer operands are not accepted (PyTorch would promote
    them to float).

    ```mlir
    %z = nn.div %x, %y : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
}

def NN_PowOp : NN_BroadcastBinaryOp<"pow", "pow"> {
  let description = [{
    ```mlir
    %z = nn.pow %x, %y : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
}

def NN_MaximumOp : NN_BroadcastBinaryOp<"maximum", "maximum"> {
  let description = [{
    Elementwise maximum; NaN if either is NaN, as torch.maximum.

    ```mlir
    %z = nn.maximum %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
}

def NN_MinimumOp : NN_BroadcastBinaryOp<"minimum", "minimum"> {
  let description = [{
    Elementwise minimum; NaN if either is NaN, as torch.minimum.

    ```mlir
    %z = nn.minimum %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

def NN_NegOp : NN_UnaryFloatOp<"neg", "neg"> {
  let description = [{
    ```mlir
    %y = nn.neg %x : tensor<3xf32>
    ```
  }];
}
def NN_AbsOp : NN_UnaryFloatOp<"abs", "abs"> {
  let description = [{
    ```mlir
    %y = nn.abs %x : tensor<3xf32>
    ```
  }];
}
def NN_ExpOp : NN_UnaryFloatOp<"exp", "exp"> {
  let description = [{
    ```mlir
    %y = nn.exp %x : tensor<3xf32>
    ```
  }];
}
def NN_LogOp : NN_UnaryFloatOp<"log", "log"> {
  let description = [{
    Natural logarithm; log(0) = -inf, log(x < 0) = NaN.

    ```mlir
    %y = nn.log %x : tensor<3xf32>
    ```
  }];
}
def NN_SqrtOp : NN_UnaryFloatOp<"sqrt", "sqrt"> {
  let description = [{
    ```mlir
    %y = nn.sqrt %x : tensor<3xf32>
    ```
  }];
}
def NN_RsqrtOp : NN_UnaryFloatOp<"rsqrt", "rsqrt"> {
  let description = [{
    1 / sqrt(x).

    ```mlir
    %y = nn.rsqrt %x : tensor<3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Comparisons and selection
//===----------------------------------------------------------------------===//

def NN_ComparisonPredicate : I32EnumAttr<"ComparisonPredicate",
    "which comparison nn.compare makes", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::mlir::nn";
  let genSpecializedAttr = 0;
}

def NN_ComparisonPredicateAttr
    : EnumAttr<NN_Dialect, NN_ComparisonPredicate, "comparison"> {
  let assemblyFormat = "`<` $value `>`";
}

def NN_CompareOp : NN_Op<"compare", [Pure, InferTypeOpAdaptor]> {
  let summary = "Elementwise comparison with broadcasting, as torch.eq/ne/lt/le/gt/ge";
  let description = [{
    A boolean (i1) tensor. Float comparisons are ordered except `ne`, so any
    comparison with NaN is false but `ne`, as in PyTorch.

    ```mlir
    %m = nn.compare lt, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins NN_ComparisonPredicateAttr:$predicate, NN_Tensor:$lhs,
                       NN_Tensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def NN_WhereOp : NN_Op<"where", [Pure, InferTypeOpAdaptor]> {
  let summary = "condition ? lhs : rhs elementwise, with broadcasting, as torch.where";
  let description = [{
    ```mlir
    %z = nn.where %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$condition, NN_Tensor:$lhs,
                       NN_Tensor:$rhs);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

#endif // NN_ELEMENTWISE_OPS_TD
