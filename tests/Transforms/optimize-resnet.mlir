// The ResNet seed model in eval, traced (Inputs/resnet-eval.mlir, made with
// `nn-trace-seed-model ResNet`), after nn-optimize: every conv + batch_norm
// (+ residual add) + relu is one fused convolution; no batch_norm and no
// relu is left outside a group. The five convolutions are the stem's, then
// conv1 and conv2 of each residual block.
// RUN: nn-opt %S/Inputs/resnet-eval.mlir -nn-optimize | FileCheck %s --implicit-check-not=nn.batch_norm --implicit-check-not=nn.relu

// CHECK-LABEL: func.func @forward
// Stem: conv + bn + relu.
// CHECK: nn.conv
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// Each block: conv1 + bn1 + relu, then conv2 + bn2 + identity + relu.
// CHECK: nn.conv
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK: nn.conv
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK: nn.conv
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK: nn.conv
// CHECK-NEXT: nn.add
// CHECK-NEXT: nn.relu
// CHECK-NEXT: nn.yield
// CHECK-NOT: nn.conv
// CHECK: nn.adaptive_avg_pool
// CHECK: nn.linear
