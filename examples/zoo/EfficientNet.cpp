//===- EfficientNet.cpp - torchvision's EfficientNet-B0 -------------------===//

#include "zoo/EfficientNet.h"

#include "nn/Frontend/Repr.h"

namespace nn::zoo {

StochasticDepthImpl::StochasticDepthImpl(double p_, std::string mode_)
    : Cloneable("StochasticDepth"), p(p_), mode(std::move(mode_)) {
  if (p < 0.0 || p > 1.0)
    throw Error("StochasticDepth: drop probability has to be between 0 and "
                "1, but got " +
                py_repr(p));
  if (mode != "batch" && mode != "row")
    throw Error("StochasticDepth: mode has to be either 'batch' or 'row', "
                "but got " +
                mode);
}

Tensor StochasticDepthImpl::forward(const Tensor &input) {
  if (!is_training() || p == 0.0)
    return input;
  // Bernoulli(1 - p) / (1 - p) per row (or once): dropout of ones.
  Shape size(input.dim(), 1);
  if (mode == "row")
    size[0] = input.size(0);
  Tensor noise = F::dropout(F::zeros(size) + 1.0, p, /*training=*/true);
  return input * noise;
}

std::string StochasticDepthImpl::extra_repr() const {
  // torchvision prints f"p={self.p}, mode={self.mode}".
  return "p=" + py_repr(p) + ", mode=" + mode;
}

SqueezeExcitationImpl::SqueezeExcitationImpl(int64_t input_channels,
                                             int64_t squeeze_channels)
    : Cloneable("SqueezeExcitation") {
  avgpool = register_module("avgpool",
                            AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions(1)));
  fc1 = register_module(
      "fc1", Conv2d(Conv2dOptions(input_channels, squeeze_channels, 1)));
  fc2 = register_module(
      "fc2", Conv2d(Conv2dOptions(squeeze_channels, input_channels, 1)));
  activation = register_module("activation", SiLU(true));
  scale_activation = register_module("scale_activation", Sigmoid());
}

Tensor SqueezeExcitationImpl::forward(const Tensor &input) {
  Tensor scale = scale_activation(fc2(activation(fc1(avgpool(input)))));
  return scale * input;
}

MBConvImpl::MBConvImpl(int64_t expand_ratio, int64_t kernel, int64_t stride,
                       int64_t input_channels, int64_t out_channels,
                       double stochastic_depth_prob)
    : Cloneable("MBConv"),
      use_res_connect_(stride == 1 && input_channels == out_channels) {
  using Act = Conv2dNormActivationImpl::Activation;
  // Channel counts are multiples of 8 at width 1: no rounding needed.
  int64_t expanded = input_channels * expand_ratio;
  Sequential layers;
  if (expanded != input_channels)
    layers->push_back(
        Conv2dNormActivation(input_channels, expanded, 1, 1, 1, Act::SiLU));
  layers->push_back(Conv2dNormActivation(expanded, expanded, kernel, stride,
                                         expanded, Act::SiLU));
  layers->push_back(
      SqueezeExcitation(expanded, std::max<int64_t>(1, input_channels / 4)));
  layers->push_back(
      Conv2dNormActivation(expanded, out_channels, 1, 1, 1, Act::None));
  block = register_module("block", layers);
  stochastic_depth = register_module(
      "stochastic_depth", StochasticDepth(stochastic_depth_prob, "row"));
}

Tensor MBConvImpl::forward(const Tensor &input) {
  Tensor result = block(input);
  if (use_res_connect_)
    result = stochastic_depth(result) + input;
  return result;
}

EfficientNetImpl::EfficientNetImpl(int64_t num_classes, double dropout,
                                   double stochastic_depth_prob)
    : Cloneable("EfficientNet") {
  using Act = Conv2dNormActivationImpl::Activation;
  // expand ratio, kernel, stride, input channels, output channels, blocks.
  static constexpr int64_t kSetting[][6] = {
      {1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},  {6, 5, 2, 24, 40, 2},
      {6, 3, 2, 40, 80, 3},  {6, 5, 1, 80, 112, 3}, {6, 5, 2, 112, 192, 4},
      {6, 3, 1, 192, 320, 1}};
  int64_t total_blocks = 0;
  for (const auto &stage : kSetting)
    total_blocks += stage[5];
  Sequential layers;
  layers->push_back(Conv2dNormActivation(3, 32, 3, 2, 1, Act::SiLU));
  int64_t block_id = 0;
  for (const auto &[expand, kernel, stride, in, out, blocks] : kSetting) {
    Sequential stage;
    for (int64_t i = 0; i < blocks; ++i, ++block_id)
      stage->push_back(
          MBConv(expand, kernel, i == 0 ? stride : 1, i == 0 ? in : out, out,
                 stochastic_depth_prob * static_cast<double>(block_id) /
                     static_cast<double>(total_blocks)));
    layers->push_back(stage);
  }
  layers->push_back(Conv2dNormActivation(320, 1280, 1, 1, 1, Act::SiLU));
  features = register_module("features", layers);
  avgpool = register_module("avgpool",
                            AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions(1)));
  classifier = register_module(
      "classifier", Sequential(Dropout(DropoutOptions(dropout).inplace(true)),
                               Linear(1280, num_classes)));
}

Tensor EfficientNetImpl::forward(const Tensor &x) {
  return classifier(F::flatten(avgpool(features(x)), 1));
}

} // namespace nn::zoo
