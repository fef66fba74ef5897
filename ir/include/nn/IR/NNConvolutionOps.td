//===- NNConvolutionOps.td - nn convolution, pooling and resampling -*- tablegen -*-===//
//
// Operations of the nn dialect: convolution, pooling and resampling. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ConvolutionOps.cpp.
//
// All of them work on channels-first tensors ([N, C, spatial...]) as PyTorch
// does. Window attributes (stride, padding, dilation, kernel) hold one entry per
// spatial dimension; `padding` may instead hold 2 × that many entries (all low
// sides, then all high sides), which is how the frontend spells torch's
// asymmetric padding="same".
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVOLUTION_OPS_TD
#define NN_CONVOLUTION_OPS_TD

include "nn/IR/NNOpBase.td"

// Ops on channels-first input: the number of its spatial dimensions.
defvar spatialRankDeclaration = [{
  /// Number of spatial dimensions (1, 2 or 3).
  int64_t getSpatialRank() {
    return llvm::cast<RankedTensorType>(getInput().getType()).getRank() - 2;
  }
}];

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

def NN_ConvOp : NN_Op<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "1-D, 2-D or 3-D convolution, as torch.nn.functional.conv1d / conv2d / conv3d";
  let description = [{
    `input` is `[N, C, L]`, `[N, C, H, W]` or `[N, C, D, H, W]`, `weight` is
    `[O, C / groups, k...]`, the optional `bias` is `[O]`. `stride`,
    `padding` (zeros) and `dilation` hold one entry per spatial dimension
    (`padding` may hold low sides then high sides); `groups` divides both `C`
    and `O`. Each output size is
    `(in + pad_lo + pad_hi - dilation * (k - 1) - 1) / stride + 1`.

    ```mlir
    %y = nn.conv %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
        : (tensor<2x3x7x7xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x7x7xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `stride` $stride `padding` $padding
    `dilation` $dilation `groups` $groups attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = spatialRankDeclaration;
}

def NN_ConvTransposeOp : NN_Op<"conv_transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "1-D, 2-D or 3-D transposed convolution, as torch.nn.functional.conv_transpose1d / 2d / 3d";
  let description = [{
    The gradient of `nn.conv` with respect to its input. `input` is
    `[N, C, spatial...]` with 1 to 3 spatial dimensions, `weight` is
    `[C, O / groups, k...]` (PyTorch's layout), the optional `bias` is `[O]`.
    Window attributes hold one entry per spatial dimension. Each output size is
    `(in - 1) * stride - pad_lo - pad_hi + dilation * (k - 1) + output_padding + 1`;
    `output_padding` must be smaller than `stride` or `dilation`.

    ```mlir
    %y = nn.conv_transpose %x, %w stride [2, 2] padding [1, 1] output_padding [1, 1]
        dilation [1, 1] groups 1
        : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$output_padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `stride` $stride `padding` $padding
    `output_padding` $output_padding `dilation` $dilation `groups` $groups
    attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def NN_MaxPoolOp : NN_Op<"max_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "1-D, 2-D or 3-D max pooling, as torch.nn.functional.max_pool1d / 2d / 3d";
  let description = [{
    `input` is `[N, C, L]`, `[N, C, H, W]` or `[N, C, D, H, W]`; `kernel`,
    `stride`, `padding` and `dilation` hold one entry per spatial dimension.
    Padding is with -inf and at most half the kernel. With `ceil_mode` the
    output size rounds up, as long as the last window starts inside the
    input or its low padding.

    ```mlir
    %y = nn.max_pool %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1]
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, UnitAttr:$ceil_mode);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `kernel` $kernel `stride` $stride `padding` $padding
    `dilation` $dilation (`ceil_mode` $ceil_mode^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = spatialRankDeclaration;
}

def NN_AvgPoolOp : NN_Op<"avg_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "1-D, 2-D or 3-D average pooling, as torch.nn.functional.avg_pool1d / 2d / 3d";
  let description = [{
    `input` is `[N, C, spatial...]` with 1 to 3 spatial dimensions; zero
    padding of at most half the kernel. The divisor is the window size,
    counting padded cells when `count_include_pad` is set, or
    `divisor_override` when given (> 0).

    ```mlir
    %y = nn.avg_pool %x kernel [3, 3] stride [2, 2] padding [1, 1] count_include_pad
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `kernel` $kernel `stride` $stride `padding` $padding
    (`ceil_mode` $ceil_mode^)? (`count_include_pad` $count_include_pad^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = spatialRankDeclaration;
}

def NN_AdaptiveAvgPoolOp : NN_Op<"adaptive_avg_pool",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "1-D, 2-D or 3-D adaptive average pooling, as torch.nn.functional.adaptive_avg_pool1d / 2d / 3d";
  let description = [{
    `input` is `[N, C, spatial...]` with 1 to 3 spatial dimensions; output
    cell `i` of a spatial dimension of size `in` averages the positions
    `[floor(i * in / out), ceil((i + 1) * in / out))`, and a cell of the
    result the box those ranges span.

    ```mlir
    %y = nn.adaptive_avg_pool %x output_size [3, 3]
        : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$output_size);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `output_size` $output_size attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = spatialRankDeclaration;
}

//===----------------------------------------------------------------------===//
// Resampling
//===----------------------------------------------------------------------===//

def NN_InterpolateOp : NN_Op<"interpolate", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D resampling, as torch.nn.functional.interpolate";
  let description = [{
    `input` is `[N, C, H, W]`, the result `[N, C, size...]`. `mode` is
    `"nearest"` or `"bilinear"`; `align_corners` only applies to bilinear.
    `scales` holds the scale factors the user gave (PyTorch computes source
    coordinates from them rather than from the size ratio); without it the
    ratio of sizes is used.

    ```mlir
    %y = nn.interpolate %x size [14, 14] mode "bilinear" align_corners
        : (tensor<1x3x7x7xf32>) -> tensor<1x3x14x14xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$size,
                       StrAttr:$mode, UnitAttr:$align_corners,
                       OptionalAttr<DenseF64ArrayAttr>:$scales);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `size` $size `mode` $mode (`align_corners` $align_corners^)?
    (`scales` $scales^)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // NN_CONVOLUTION_OPS_TD
