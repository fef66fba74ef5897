//===- PixelShuffle.h - Pixel and channel shuffling layers ------*- C++ -*-===//
//
// Layers around F::pixel_shuffle, F::pixel_unshuffle and F::channel_shuffle
// (nn/Functional/Shape.h), printed as PyTorch prints them:
//
//   PixelShuffle up(2);        // [N, 4C, H, W] -> [N, C, 2H, 2W]
//   ChannelShuffle mix(3);     // ShuffleNet's channel shuffle, 3 groups
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_PIXELSHUFFLE_H
#define NN_MODULES_PIXELSHUFFLE_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/PixelShuffle.h"

namespace nn {

/// https://pytorch.org/docs/stable/generated/torch.nn.PixelShuffle.html
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
public:
  explicit PixelShuffleImpl(const PixelShuffleOptions &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  PixelShuffleOptions options;
};
NN_MODULE(PixelShuffle);

/// https://pytorch.org/docs/stable/generated/torch.nn.PixelUnshuffle.html
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  PixelUnshuffleOptions options;
};
NN_MODULE(PixelUnshuffle);

/// https://pytorch.org/docs/stable/generated/torch.nn.ChannelShuffle.html
class ChannelShuffleImpl : public Cloneable<ChannelShuffleImpl> {
public:
  explicit ChannelShuffleImpl(const ChannelShuffleOptions &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  ChannelShuffleOptions options;
};
NN_MODULE(ChannelShuffle);

} // namespace nn

#endif // NN_MODULES_PIXELSHUFFLE_H
