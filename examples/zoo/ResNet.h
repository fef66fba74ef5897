//===- ResNet.h - torchvision's ResNet-18 and ResNet-50 ---------*- C++ -*-===//
//
// torchvision.models.resnet (0.14) written with nn: the same module names
// and order, so a state_dict() saved from PyTorch loads strictly, and the
// model prints as print(model) does.
//
//   auto model = nn::zoo::resnet18();            // or resnet50()
//   nn::load(*model, "resnet18.safetensors", /*strict=*/true);
//   model->eval();
//   auto traced = nn::trace(model, {nn::TensorSpec({1, 3, 224, 224})});
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_RESNET_H
#define NN_EXAMPLES_ZOO_RESNET_H

#include "nn/nn.h"

#include <vector>

namespace nn::zoo {

/// ResNet-18's and -34's block: two 3x3 convolutions, the first with the
/// stride, and the identity (or `downsample` of it) added before the last
/// ReLU.
class BasicBlockImpl : public Cloneable<BasicBlockImpl> {
public:
  static constexpr int64_t kExpansion = 1;
  /// `downsample` may be empty (Sequential(nullptr)).
  BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride,
                 Sequential downsample);
  Tensor forward(const Tensor &x);

  Conv2d conv1{nullptr}, conv2{nullptr};
  BatchNorm2d bn1{nullptr}, bn2{nullptr};
  ReLU relu{nullptr};
  Sequential downsample{nullptr};
};
NN_MODULE(BasicBlock);

/// ResNet-50's block: 1x1 down to `planes`, 3x3 with the stride, 1x1 up to
/// 4 * planes, and the identity (or `downsample` of it).
class BottleneckImpl : public Cloneable<BottleneckImpl> {
public:
  static constexpr int64_t kExpansion = 4;
  BottleneckImpl(int64_t inplanes, int64_t planes, int64_t stride,
                 Sequential downsample);
  Tensor forward(const Tensor &x);

  Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  ReLU relu{nullptr};
  Sequential downsample{nullptr};
};
NN_MODULE(Bottleneck);

/// The stem (7x7 convolution, BatchNorm, ReLU, 3x3 max pooling), four
/// stages of blocks at 64, 128, 256 and 512 planes (the last three halving
/// the resolution), global average pooling and the classifier `fc`.
class ResNetImpl : public Cloneable<ResNetImpl> {
public:
  /// `Block` is BasicBlock or Bottleneck; `layers` the blocks per stage.
  enum class Block { Basic, Bottleneck };
  ResNetImpl(Block block, std::vector<int64_t> layers,
             int64_t num_classes = 1000);
  Tensor forward(const Tensor &x);

  Conv2d conv1{nullptr};
  BatchNorm2d bn1{nullptr};
  ReLU relu{nullptr};
  MaxPool2d maxpool{nullptr};
  Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  AdaptiveAvgPool2d avgpool{nullptr};
  Linear fc{nullptr};

private:
  Sequential make_layer(Block block, int64_t planes, int64_t blocks,
                        int64_t stride);
  int64_t inplanes_ = 64;
};
NN_MODULE(ResNet);

/// torchvision.models.resnet18(): BasicBlocks, [2, 2, 2, 2].
ResNet resnet18(int64_t num_classes = 1000);
/// torchvision.models.resnet50(): Bottlenecks, [3, 4, 6, 3].
ResNet resnet50(int64_t num_classes = 1000);

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_RESNET_H
