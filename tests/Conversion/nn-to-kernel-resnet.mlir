// The ResNet seed model in eval after nn-optimize (see
// tests/Transforms/optimize-resnet.mlir: five fused convolution groups, one
// linear): every group becomes one convolution kernel op whose store
// applies the folded batch norm's bias, the residual and the relu, so no
// convolution, linear or relu is left for the linalg path. (The pointwise
// groups left compute the folded weights and biases from the parameters.)
// RUN: nn-opt %S/../Transforms/Inputs/resnet-eval.mlir -nn-optimize -convert-nn-to-kernel \
// RUN:   | FileCheck %s --implicit-check-not=nn.conv --implicit-check-not=nn.relu \
// RUN:       --implicit-check-not=nn.linear

// CHECK-LABEL: func.func @forward
// CHECK-COUNT-5: nn_kernel.conv2d {{.*}} epilogue <add [0, 1, 0]{{.*}}relu>
// CHECK: nn.adaptive_avg_pool
// CHECK: nn_kernel.gemm {{.*}} epilogue <add [0, 0, 1]> outs({{.*}}) transpose_b
