//===- NNShapeOps.td - nn reshaping, slicing, joining and indexing -*- tablegen -*-===//
//
// Operations of the nn dialect: reshaping, slicing, joining and indexing. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ShapeOps.cpp.
//
// Dimension attributes follow PyTorch: a negative dim counts from the end
// (-1 is the last), and is checked against the valid range in inference.
// Every op's result type is inferred; the inference is its verifier.
//
//===----------------------------------------------------------------------===//
#ifndef NN_SHAPE_OPS_TD
#define NN_SHAPE_OPS_TD

include "nn/IR/NNOpBase.td"

def NN_IndexTensor : RankedTensorOf<[I64]>;

/// Shape ops of one input and one result of the same element type.
class NN_ShapeOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor]>;

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

def NN_ReshapeOp : NN_ShapeOp<"reshape"> {
  let summary = "Same elements in a new shape, as torch.reshape / Tensor.view";
  let description = [{
    `shape` lists the result's sizes; at most one of them may be -1, which
    stands for whatever size makes the element count match. Elements keep
    their row-major order.

    ```mlir
    %y = nn.reshape %x [3, -1] : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$input $shape attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def NN_FlattenOp : NN_ShapeOp<"flatten"> {
  let summary = "Merges dimensions start_dim..end_dim, as torch.flatten";
  let description = [{
    The dimensions from `start_dim` to `end_dim` (inclusive, negative counting
    from the end) become one; a scalar becomes a 1-element vector.

    ```mlir
    %y = nn.flatten %x from 1 to -1 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, I64Attr:$start_dim, I64Attr:$end_dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input `from` $start_dim `to` $end_dim attr-dict
    `:` functional-type(operands, results)
  }];
}

def NN_SqueezeOp : NN_ShapeOp<"squeeze"> {
  let summary = "Removes size-1 dimensions, as torch.squeeze";
  let description = [{
    Without `dim`, every size-1 dimension is removed; with it, only that one,
    and only when its size is 1 (otherwise the op is the identity, as in
    PyTorch).

    ```mlir
    %y = nn.squeeze %x : (tensor<1x3x1xf32>) -> tensor<3xf32>
    %z = nn.squeeze %x dim 2 : (tensor<1x3x1xf32>) -> tensor<1x3xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, OptionalAttr<I64Attr>:$dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input (`dim` $dim^)? attr-dict `:` functional-type(operands, results)
  }];
}

def NN_UnsqueezeOp : NN_ShapeOp<"unsqueeze"> {
  let summary = "Inserts a size-1 dimension, as torch.unsqueeze";
  let description = [{
    `dim` is in [-rank-1, rank]; a negative one counts from the end of the
    result.

    ```mlir
    %y = nn.unsqueeze %x dim 1 : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, I64Attr:$dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$input `dim` $dim attr-dict `:` functional-type(operands, results)";
}

def NN_ExpandOp : NN_ShapeOp<"expand"> {
  let summary = "Broadcasts to a larger shape, as Tensor.expand / torch.broadcast_to";
  let description = [{
    `shape` has at least the input's rank; the input's dimensions align with
    its trailing ones. A size-1 input dimension may take any size, -1 keeps
    the input's size; new leading dimensions must not be -1.

    ```mlir
    %y = nn.expand %x [4, -1, 3] : (tensor<2x1xf32>) -> tensor<4x2x3xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$input $shape attr-dict `:` functional-type(operands, results)";
}

def NN_PermuteOp : NN_ShapeOp<"permute"> {
  let summary = "Reorders dimensions, as torch.permute";
  let description = [{
    Result dimension i is input dimension `dims[i]` (negative counting from
    the end); `dims` is a permutation of the input's dimensions.

    ```mlir
    %y = nn.permute %x [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$input $dims attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// `dims` with negative entries made positive (the op must verify).
    ::llvm::SmallVector<int64_t> getPermutation();
  }];
}

def NN_TransposeOp : NN_ShapeOp<"transpose"> {
  let summary = "Swaps two dimensions, as torch.transpose";
  let description = [{
    ```mlir
    %y = nn.transpose %x 0, -1 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, I64Attr:$dim0, I64Attr:$dim1);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input $dim0 `,` $dim1 attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The permutation swapping dim0 and dim1 (the op must verify).
    ::llvm::SmallVector<int64_t> getPermutation();
  }];
}

//===----------------------------------------------------------------------===//
// Joining and splitting
//===----------------------------------------------------------------------===//

def NN_CatOp : NN_Op<"cat", [Pure, InferTypeOpAdaptor]> {
  let summary = "Concatenates along an existing dimension, as torch.cat";
  let description = [{
    All inputs have the same rank and element type and agree in every
    dimension but `dim`.

    ```mlir
    %y = nn.cat %a, %b dim 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<NN_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$inputs `dim` $dim attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def NN_StackOp : NN_Op<"stack", [Pure, InferTypeOpAdaptor]> {
  let summary = "Joins equal-shaped tensors along a new dimension, as torch.stack";
  let description = [{
    `dim` is in [-rank-1, rank] of the inputs' rank.

    ```mlir
    %y = nn.stack %a, %b dim 0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Variadic<NN_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$inputs `dim` $dim attr-dict `:` functional-type(operands, results)";
}

def NN_SplitOp : NN_Op<"split", [Pure, InferTypeOpAdaptor]> {
  let summary = "Splits along a dimension into pieces of given sizes, as torch.split";
  let description = [{
    One result per entry of `split_sizes`, which sum to the size of `dim`.
    torch.split with an integer split size and torch.chunk are this op with
    the sizes they compute.

    ```mlir
    %a, %b = nn.split %x [2, 5] dim 1 : (tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x5xf32>)
    ```
  }];
  let arguments = (ins NN_Tensor:$input, DenseI64ArrayAttr:$split_sizes,
                       I64Attr:$dim);
  let results = (outs Variadic<NN_Tensor>:$results);
  let assemblyFormat = [{
    $input $split_sizes `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
}

def NN_SliceOp : NN_ShapeOp<"slice"> {
  let summary = "A strided range along one dimension, as x[..., start:end:step]";
  let description = [{
    Keeps indices start, start+step, … below `end` of dimension `dim`. The
    bounds are normalized: 0 ≤ start ≤ end ≤ size and step ≥ 1 (the
    functional API clamps and resolves negative indices as PyTorch does).

    ```mlir
    %y = nn.slice %x dim 1 [1 : 7 : 2] : (tensor<2x7xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, I64Attr:$dim, I64Attr:$start,
                       I64Attr:$end, I64Attr:$step);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim ` ` `[` $start `:` $end `:` $step `]` attr-dict
    `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def NN_PadOp : NN_ShapeOp<"pad"> {
  let summary = "Constant padding of every dimension, as F.pad's constant mode";
  let description = [{
    Adds `low[d]` elements before and `high[d]` after dimension d, each
    `value` (converted to the element type; integral for integer tensors).
    The pads are non-negative: the functional API crops with nn.slice.
    One op for every dimension, lowered to one fill and one copy, where a
    cat per padded dimension copies the tensor once per dimension.

    ```mlir
    %y = nn.pad %x low [0, 1] high [0, 2] value 0.000000e+00
        : (tensor<2x3xf32>) -> tensor<2x6xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input `low` $low `high` $high `value` $value attr-dict
    `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def NN_IndexSelectOp : NN_Op<"index_select", [Pure, InferTypeOpAdaptor]> {
  let summary = "Picks entries along a dimension by index, as torch.index_select";
  let description = [{
    `index` is a 1-D (or scalar) i64 tensor; the result has the input's shape
    with dimension `dim` replaced by the number of indices. Indices must be in
    [0, size); like PyTorch's CPU kernel with checks off, compiled code does
    not check them at run time (an out-of-range index reads out of bounds).

    ```mlir
    %y = nn.index_select %x, %i dim 0 : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, NN_IndexTensor:$index, I64Attr:$dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
}

def NN_GatherOp : NN_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gathers along a dimension, as torch.gather";
  let description = [{
    out[i][j][k] = input[index[i][j][k]][j][k] for dim = 0 (and so on). `index`
    has the input's rank and is no larger than the input in every dimension
    but `dim`; the result has the index's shape. Indices are not checked at
    run time (see nn.index_select).

    ```mlir
    %y = nn.gather %x, %i dim 1 : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, NN_IndexTensor:$index, I64Attr:$dim);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
}

def NN_EmbeddingOp : NN_Op<"embedding", [Pure, InferTypeOpAdaptor]> {
  let summary = "Looks up rows of a table, as torch.nn.functional.embedding";
  let description = [{
    `weight` is `[num_embeddings, embedding_dim]`; `indices` (i64, any shape)
    select rows, giving `[*indices.shape, embedding_dim]`. `padding_idx`
    (in [0, num_embeddings), normalized) changes no result: it names the row
    whose gradient is zero (nn-autodiff), as in PyTorch. Indices are not
    checked at run time (see nn.index_select).

    ```mlir
    %y = nn.embedding %ids, %w : (tensor<2x7xi64>, tensor<10x3xf32>) -> tensor<2x7x3xf32>
    %z = nn.embedding %ids, %w padding_idx 0 : (tensor<2x7xi64>, tensor<10x3xf32>) -> tensor<2x7x3xf32>
    ```
  }];
  let arguments = (ins NN_IndexTensor:$indices, NN_Tensor:$weight,
                       OptionalAttr<I64Attr>:$padding_idx);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = [{
    $indices `,` $weight (`padding_idx` $padding_idx^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

#endif // NN_SHAPE_OPS_TD
