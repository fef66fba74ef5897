//===- Convolution.h - Convolution, pooling, resampling ---------*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows. Signatures mirror torch.nn.functional, keywords as libtorch's
// option structs (nn/Options/Convolution.h):
//   F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).padding(nn::kSame));
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2));
//   F::interpolate(x, F::InterpolateFuncOptions().size({14,
//   14}).mode(nn::kBilinear));
// Inputs are batched ([N, C, L] / [N, C, H, W] / [N, C, D, H, W]).
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_CONVOLUTION_H
#define NN_FUNCTIONAL_CONVOLUTION_H

#include "nn/Options/Convolution.h"
#include "nn/Runtime/Tensor.h"

namespace nn::functional {

/// torch.nn.functional.conv1d; padding kValid / kSame need stride 1.
Tensor conv1d(const Tensor &input, const Tensor &weight,
              const Conv1dFuncOptions &options = {});
/// torch.nn.functional.conv2d; padding kValid / kSame need stride 1.
Tensor conv2d(const Tensor &input, const Tensor &weight,
              const Conv2dFuncOptions &options = {});
/// torch.nn.functional.conv3d; padding kValid / kSame need stride 1.
Tensor conv3d(const Tensor &input, const Tensor &weight,
              const Conv3dFuncOptions &options = {});
/// torch.nn.functional.conv_transpose1d / 2d / 3d; weight is
/// [in, out / groups, kernel...].
Tensor conv_transpose1d(const Tensor &input, const Tensor &weight,
                        const ConvTranspose1dFuncOptions &options = {});
Tensor conv_transpose2d(const Tensor &input, const Tensor &weight,
                        const ConvTranspose2dFuncOptions &options = {});
Tensor conv_transpose3d(const Tensor &input, const Tensor &weight,
                        const ConvTranspose3dFuncOptions &options = {});

/// torch.nn.functional.max_pool1d / 2d / 3d (without return_indices).
Tensor max_pool1d(const Tensor &input, const MaxPool1dFuncOptions &options);
Tensor max_pool2d(const Tensor &input, const MaxPool2dFuncOptions &options);
Tensor max_pool3d(const Tensor &input, const MaxPool3dFuncOptions &options);
/// torch.nn.functional.avg_pool1d / 2d / 3d.
Tensor avg_pool1d(const Tensor &input, const AvgPool1dFuncOptions &options);
Tensor avg_pool2d(const Tensor &input, const AvgPool2dFuncOptions &options);
Tensor avg_pool3d(const Tensor &input, const AvgPool3dFuncOptions &options);
/// torch.nn.functional.adaptive_avg_pool1d / 2d / 3d.
Tensor adaptive_avg_pool1d(const Tensor &input,
                           const AdaptiveAvgPool1dFuncOptions &options);
Tensor adaptive_avg_pool2d(const Tensor &input,
                           const AdaptiveAvgPool2dFuncOptions &options);
Tensor adaptive_avg_pool3d(const Tensor &input,
                           const AdaptiveAvgPool3dFuncOptions &options);

/// torch.nn.functional.interpolate for 4-D inputs, modes nearest and
/// bilinear.
Tensor interpolate(const Tensor &input,
                   const InterpolateFuncOptions &options = {});

} // namespace nn::functional

#endif // NN_FUNCTIONAL_CONVOLUTION_H
