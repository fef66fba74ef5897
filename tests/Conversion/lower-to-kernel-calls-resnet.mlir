// The ResNet seed model in eval after nn-optimize (see
// tests/Transforms/optimize-resnet.mlir: five fused convolution groups, one
// linear): every group becomes one convolution kernel call whose store
// applies the folded batch norm's bias, the residual and the relu, so no
// convolution, linear or relu is left for the linalg path. (The pointwise
// groups left compute the folded weights and biases from the parameters.)
// RUN: nn-opt %S/../Transforms/Inputs/resnet-eval.mlir -nn-optimize -nn-lower-to-kernel-calls \
// RUN:   | FileCheck %s --implicit-check-not=nn.conv --implicit-check-not=nn.relu \
// RUN:       --implicit-check-not=nn.linear

// CHECK-DAG: func.func private @nn_rt_conv2d_nchw(
// CHECK-DAG: func.func private @nn_rt_sgemm(
// CHECK-LABEL: func.func @forward
// CHECK-COUNT-5: call @nn_rt_conv2d_nchw(
// CHECK: nn.adaptive_avg_pool2d
// CHECK: call @nn_rt_sgemm(
