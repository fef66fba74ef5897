"""PyTorch goldens for contractions with pointwise epilogues.

cases() yields (name, fn, inputs) as every op family does (see
generate_op_goldens.py); the C++ twins are in tests/E2E/OpsFusedTest.cpp.
Compiled with nn-optimize, each becomes an nn.fused group that
convert-nn-to-kernel turns into a micro-kernel call whose store applies
the bias, residual and activation (or, for gelu and silu, a kernel call
followed by a pointwise loop). Sizes are not multiples of the register
tiles (6x16 AVX2, 12x32 AVX-512), and some reductions are longer than one
K block (256), so partial tiles and the last-block epilogue are exercised.
"""
import torch
import torch.nn.functional as F


def r(*shape):
    return torch.randn(*shape)


def cases():
    torch.manual_seed(0)
    yield "linear_relu6_k300", \
        lambda x, w, b: F.relu6(F.linear(x, w, b)), \
        (r(5, 300), r(37, 300), r(37))
    yield "linear_residual_leaky_relu_3d", \
        lambda x, w, b, s: F.leaky_relu(F.linear(x, w, b) + s, 0.1), \
        (r(3, 4, 20), r(24, 20), r(24), r(3, 4, 24))
    yield "linear_residual_gelu", \
        lambda x, w, b, s: F.gelu(F.linear(x, w, b) + s), \
        (r(7, 33), r(19, 33), r(19), r(7, 19))
    yield "matmul_row_add_hardtanh", \
        lambda a, b, c: F.hardtanh(torch.matmul(a, b) + c, -0.5, 0.75), \
        (r(13, 270), r(270, 21), r(13, 1))
    yield "conv_bias_residual_relu_2x8x9x7", \
        lambda x, w, b, s: F.relu(F.conv2d(x, w, b, padding=1) + s), \
        (r(2, 8, 9, 7), r(8, 8, 3, 3), r(8), r(2, 8, 9, 7))
    yield "conv_stride2_channel_add_leaky_relu", \
        lambda x, w, c: F.leaky_relu(F.conv2d(x, w, stride=2, padding=1) + c, 0.2), \
        (r(3, 5, 11, 10), r(13, 5, 3, 3), r(1, 13, 1, 1))
    yield "conv_bias_silu", \
        lambda x, w, b: F.silu(F.conv2d(x, w, b)), \
        (r(1, 4, 8, 8), r(7, 4, 3, 3), r(7))
    yield "conv1x1_bias_relu_k288", \
        lambda x, w, b: F.relu(F.conv2d(x, w, b)), \
        (r(2, 288, 5, 5), r(20, 288, 1, 1), r(20))
