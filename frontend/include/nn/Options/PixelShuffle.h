//===- PixelShuffle.h - Options of the shuffling layers ---------*- C++ -*-===//
#ifndef NN_OPTIONS_PIXELSHUFFLE_H
#define NN_OPTIONS_PIXELSHUFFLE_H

#include "nn/Frontend/Arg.h"

#include <cstdint>

namespace nn {

/// PixelShuffle(PixelShuffleOptions(2)), or PixelShuffle(2).
struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor)
      : upscale_factor_(upscale_factor) {}
  NN_ARG(int64_t, upscale_factor);
};

/// PixelUnshuffle(PixelUnshuffleOptions(2)), or PixelUnshuffle(2).
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor)
      : downscale_factor_(downscale_factor) {}
  NN_ARG(int64_t, downscale_factor);
};

/// ChannelShuffle(ChannelShuffleOptions(3)), or ChannelShuffle(3).
struct ChannelShuffleOptions {
  ChannelShuffleOptions(int64_t groups) : groups_(groups) {}
  NN_ARG(int64_t, groups);
};

} // namespace nn

#endif // NN_OPTIONS_PIXELSHUFFLE_H
