//===- PixelShuffle.cpp - Pixel and channel shuffling layers --------------===//

#include "nn/Modules/PixelShuffle.h"

#include "nn/Functional.h"

namespace nn {

PixelShuffleImpl::PixelShuffleImpl(const PixelShuffleOptions &options_)
    : Cloneable("PixelShuffle"), options(options_) {}

Tensor PixelShuffleImpl::forward(const Tensor &input) {
  return F::pixel_shuffle(input, options.upscale_factor());
}

std::string PixelShuffleImpl::extra_repr() const {
  return "upscale_factor=" + std::to_string(options.upscale_factor());
}

PixelUnshuffleImpl::PixelUnshuffleImpl(const PixelUnshuffleOptions &options_)
    : Cloneable("PixelUnshuffle"), options(options_) {}

Tensor PixelUnshuffleImpl::forward(const Tensor &input) {
  return F::pixel_unshuffle(input, options.downscale_factor());
}

std::string PixelUnshuffleImpl::extra_repr() const {
  return "downscale_factor=" + std::to_string(options.downscale_factor());
}

ChannelShuffleImpl::ChannelShuffleImpl(const ChannelShuffleOptions &options_)
    : Cloneable("ChannelShuffle"), options(options_) {}

Tensor ChannelShuffleImpl::forward(const Tensor &input) {
  return F::channel_shuffle(input, options.groups());
}

std::string ChannelShuffleImpl::extra_repr() const {
  return "groups=" + std::to_string(options.groups());
}

} // namespace nn
