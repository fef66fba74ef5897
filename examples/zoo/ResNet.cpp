//===- ResNet.cpp - torchvision's ResNet-18 and ResNet-50 -----------------===//

#include "zoo/ResNet.h"

namespace nn::zoo {

static Conv2d conv3x3(int64_t in, int64_t out, int64_t stride = 1) {
  return Conv2d(
      Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

static Conv2d conv1x1(int64_t in, int64_t out, int64_t stride = 1) {
  return Conv2d(Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

BasicBlockImpl::BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride,
                               Sequential downsample)
    : Cloneable("BasicBlock") {
  conv1 = register_module("conv1", conv3x3(inplanes, planes, stride));
  bn1 = register_module("bn1", BatchNorm2d(planes));
  relu = register_module("relu", ReLU(true));
  conv2 = register_module("conv2", conv3x3(planes, planes));
  bn2 = register_module("bn2", BatchNorm2d(planes));
  if (!downsample.is_empty())
    this->downsample = register_module("downsample", downsample);
}

Tensor BasicBlockImpl::forward(const Tensor &x) {
  Tensor out = relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  return relu(out + (downsample.is_empty() ? x : downsample(x)));
}

BottleneckImpl::BottleneckImpl(int64_t inplanes, int64_t planes, int64_t stride,
                               Sequential downsample)
    : Cloneable("Bottleneck") {
  conv1 = register_module("conv1", conv1x1(inplanes, planes));
  bn1 = register_module("bn1", BatchNorm2d(planes));
  conv2 = register_module("conv2", conv3x3(planes, planes, stride));
  bn2 = register_module("bn2", BatchNorm2d(planes));
  conv3 = register_module("conv3", conv1x1(planes, planes * kExpansion));
  bn3 = register_module("bn3", BatchNorm2d(planes * kExpansion));
  relu = register_module("relu", ReLU(true));
  if (!downsample.is_empty())
    this->downsample = register_module("downsample", downsample);
}

Tensor BottleneckImpl::forward(const Tensor &x) {
  Tensor out = relu(bn1(conv1(x)));
  out = relu(bn2(conv2(out)));
  out = bn3(conv3(out));
  return relu(out + (downsample.is_empty() ? x : downsample(x)));
}

ResNetImpl::ResNetImpl(Block block, std::vector<int64_t> layers,
                       int64_t num_classes)
    : Cloneable("ResNet") {
  if (layers.size() != 4)
    throw Error("ResNet: layers must give the blocks of 4 stages, got " +
                std::to_string(layers.size()));
  conv1 = register_module(
      "conv1",
      Conv2d(Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
  bn1 = register_module("bn1", BatchNorm2d(64));
  relu = register_module("relu", ReLU(true));
  maxpool = register_module(
      "maxpool", MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1)));
  layer1 = register_module("layer1", make_layer(block, 64, layers[0], 1));
  layer2 = register_module("layer2", make_layer(block, 128, layers[1], 2));
  layer3 = register_module("layer3", make_layer(block, 256, layers[2], 2));
  layer4 = register_module("layer4", make_layer(block, 512, layers[3], 2));
  avgpool = register_module(
      "avgpool", AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({1, 1})));
  fc = register_module("fc", Linear(inplanes_, num_classes));
}

Sequential ResNetImpl::make_layer(Block block, int64_t planes, int64_t blocks,
                                  int64_t stride) {
  int64_t expansion = block == Block::Basic ? BasicBlockImpl::kExpansion
                                            : BottleneckImpl::kExpansion;
  auto make = [&](int64_t inplanes, int64_t stride,
                  Sequential downsample) -> AnyModule {
    if (block == Block::Basic)
      return BasicBlock(inplanes, planes, stride, downsample);
    return Bottleneck(inplanes, planes, stride, downsample);
  };
  Sequential downsample{nullptr};
  if (stride != 1 || inplanes_ != planes * expansion)
    downsample = Sequential(conv1x1(inplanes_, planes * expansion, stride),
                            BatchNorm2d(planes * expansion));
  Sequential layer;
  layer->push_back(make(inplanes_, stride, downsample));
  inplanes_ = planes * expansion;
  for (int64_t i = 1; i < blocks; ++i)
    layer->push_back(make(inplanes_, 1, Sequential(nullptr)));
  return layer;
}

Tensor ResNetImpl::forward(const Tensor &x) {
  Tensor y = maxpool(relu(bn1(conv1(x))));
  y = layer4(layer3(layer2(layer1(y))));
  return fc(F::flatten(avgpool(y), 1));
}

ResNet resnet18(int64_t num_classes) {
  return ResNet(ResNetImpl::Block::Basic, std::vector<int64_t>{2, 2, 2, 2},
                num_classes);
}

ResNet resnet50(int64_t num_classes) {
  return ResNet(ResNetImpl::Block::Bottleneck, std::vector<int64_t>{3, 4, 6, 3},
                num_classes);
}

} // namespace nn::zoo
