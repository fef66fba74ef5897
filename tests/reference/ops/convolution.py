"""PyTorch goldens for nn's convolution, pooling and resampling ops.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/convolution/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsConvolutionTest.cpp under the same name.

Sizes include 1, 3, 7 and 17 (no vector width divides them). The layer_*
cases run a torch.nn layer whose parameters are the inputs after the first
(in state_dict order); the C++ side loads them into its own layer.
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

# PyTorch warns that an even kernel with padding="same" copies the input;
# that asymmetric case is exactly what conv2d_same_k4x3_dilation1x2 tests.
warnings.filterwarnings("ignore", message="Using padding='same' with even kernel")


def r(*shape):
    return torch.randn(*shape)


def layer(module):
    """fn(x, *params) running `module` with `params` as its parameters."""
    def fn(x, *params):
        module.load_state_dict(dict(zip(module.state_dict().keys(), params)))
        return module(x)
    return fn


def layer_case(name, module, x):
    return name, layer(module), (x, *[p.detach().clone() for p in module.state_dict().values()])


def cases():
    torch.manual_seed(0)
    # conv2d
    yield "conv2d_1x3x7x7_k3", F.conv2d, (r(1, 3, 7, 7), r(4, 3, 3, 3), r(4))
    yield "conv2d_stride2_pad1_2x3x17x17", \
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), (r(2, 3, 17, 17), r(5, 3, 3, 3), r(5))
    yield "conv2d_dilation2_pad2x1_nobias", \
        lambda x, w: F.conv2d(x, w, dilation=2, padding=(2, 1)), (r(1, 2, 9, 9), r(3, 2, 3, 3))
    yield "conv2d_groups2", \
        lambda x, w, b: F.conv2d(x, w, b, groups=2, padding=1), (r(1, 4, 7, 7), r(6, 2, 3, 3), r(6))
    yield "conv2d_depthwise_3ch", \
        lambda x, w, b: F.conv2d(x, w, b, groups=3, padding=1, stride=2), (r(2, 3, 7, 7), r(3, 1, 3, 3), r(3))
    yield "conv2d_depthwise_multiplier2", \
        lambda x, w: F.conv2d(x, w, groups=3), (r(1, 3, 7, 7), r(6, 1, 3, 3))
    yield "conv2d_same_k4x3_dilation1x2", \
        lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 2)), (r(1, 2, 7, 17), r(3, 2, 4, 3), r(3))
    yield "conv2d_valid", lambda x, w: F.conv2d(x, w, padding="valid"), (r(1, 3, 7, 7), r(2, 3, 3, 3))
    yield "conv2d_1x1x1x1", F.conv2d, (r(1, 1, 1, 1), r(1, 1, 1, 1), r(1))
    yield "conv2d_k1x3_stride3x1", \
        lambda x, w: F.conv2d(x, w, stride=(3, 1)), (r(1, 3, 17, 7), r(7, 3, 1, 3))
    # conv1d
    yield "conv1d_2x3x17_k3", F.conv1d, (r(2, 3, 17), r(5, 3, 3), r(5))
    yield "conv1d_stride2_pad2_dilation2", \
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=2, dilation=2), (r(1, 3, 17), r(4, 3, 3), r(4))
    yield "conv1d_groups2", lambda x, w: F.conv1d(x, w, groups=2, padding=1), (r(1, 6, 7), r(4, 3, 3))
    yield "conv1d_depthwise", \
        lambda x, w, b: F.conv1d(x, w, b, groups=3), (r(1, 3, 7), r(3, 1, 3), r(3))
    yield "conv1d_same_k4", lambda x, w: F.conv1d(x, w, padding="same"), (r(1, 3, 7), r(2, 3, 4))
    # conv_transpose2d
    yield "conv_transpose2d_1x4x5x5_k3", F.conv_transpose2d, (r(1, 4, 5, 5), r(4, 2, 3, 3), r(2))
    yield "conv_transpose2d_stride2_pad1_outpad1", \
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), \
        (r(1, 3, 7, 7), r(3, 2, 3, 3), r(2))
    yield "conv_transpose2d_groups2_dilation2_stride2", \
        lambda x, w: F.conv_transpose2d(x, w, stride=2, groups=2, dilation=2), (r(1, 4, 3, 3), r(4, 3, 3, 3))
    yield "conv_transpose2d_pad3_crops", \
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(3, 1)), \
        (r(2, 2, 7, 7), r(2, 3, 3, 3), r(3))
    yield "conv_transpose2d_1x1x1x1", F.conv_transpose2d, (r(1, 1, 1, 1), r(1, 1, 1, 1))
    # max_pool2d
    yield "max_pool2d_k2_1x3x8x8", lambda x: F.max_pool2d(x, 2), (r(1, 3, 8, 8),)
    yield "max_pool2d_k3_s2_p1_2x3x17x17", lambda x: F.max_pool2d(x, 3, 2, 1), (r(2, 3, 17, 17),)
    yield "max_pool2d_negative_padded", lambda x: F.max_pool2d(x, 3, 1, 1), (-r(1, 2, 7, 7).abs() - 1,)
    yield "max_pool2d_dilation2", lambda x: F.max_pool2d(x, 3, 1, 1, dilation=2), (r(1, 2, 7, 7),)
    yield "max_pool2d_ceil_mode", lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True), (r(1, 1, 8, 8),)
    yield "max_pool2d_ceil_mode_pad1", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (r(1, 2, 7, 7),)
    yield "max_pool2d_k1x3_s1x2_1x1x1x7", lambda x: F.max_pool2d(x, (1, 3), (1, 2)), (r(1, 1, 1, 7),)
    # avg_pool2d
    yield "avg_pool2d_k2_1x3x8x8", lambda x: F.avg_pool2d(x, 2), (r(1, 3, 8, 8),)
    yield "avg_pool2d_k3_s2_p1", lambda x: F.avg_pool2d(x, 3, 2, 1), (r(1, 2, 7, 7),)
    yield "avg_pool2d_exclude_pad", \
        lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), (r(2, 2, 17, 17),)
    yield "avg_pool2d_ceil_mode", lambda x: F.avg_pool2d(x, 3, 2, ceil_mode=True), (r(1, 1, 8, 8),)
    yield "avg_pool2d_ceil_mode_pad1_exclude_pad", \
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (r(1, 2, 7, 7),)
    yield "avg_pool2d_divisor_override3", \
        lambda x: F.avg_pool2d(x, 2, 1, divisor_override=3), (r(1, 1, 7, 7),)
    yield "avg_pool2d_k1x3_s1x2_1x1x1x7", lambda x: F.avg_pool2d(x, (1, 3), (1, 2)), (r(1, 1, 1, 7),)
    # adaptive_avg_pool2d
    yield "adaptive_avg_pool2d_7x7_to_3x3", lambda x: F.adaptive_avg_pool2d(x, 3), (r(1, 3, 7, 7),)
    yield "adaptive_avg_pool2d_17x17_to_5x7", lambda x: F.adaptive_avg_pool2d(x, (5, 7)), (r(2, 2, 17, 17),)
    yield "adaptive_avg_pool2d_8x8_to_4x4", lambda x: F.adaptive_avg_pool2d(x, 4), (r(1, 2, 8, 8),)
    yield "adaptive_avg_pool2d_1x1_to_3x3", lambda x: F.adaptive_avg_pool2d(x, 3), (r(1, 3, 1, 1),)
    yield "adaptive_avg_pool2d_global", lambda x: F.adaptive_avg_pool2d(x, 1), (r(2, 3, 7, 7),)
    # interpolate
    yield "interpolate_nearest_size_2x", lambda x: F.interpolate(x, size=(14, 14)), (r(1, 2, 7, 7),)
    yield "interpolate_nearest_scale1_5", lambda x: F.interpolate(x, scale_factor=1.5), (r(1, 2, 7, 7),)
    yield "interpolate_nearest_down_5x3", lambda x: F.interpolate(x, size=(5, 3)), (r(1, 2, 7, 17),)
    yield "interpolate_nearest_1x1_to_3x3", lambda x: F.interpolate(x, size=3), (r(1, 1, 1, 1),)
    yield "interpolate_bilinear_size_2x", \
        lambda x: F.interpolate(x, size=(14, 14), mode="bilinear", align_corners=False), (r(1, 2, 7, 7),)
    yield "interpolate_bilinear_align_corners_17x3", \
        lambda x: F.interpolate(x, size=(17, 3), mode="bilinear", align_corners=True), (r(1, 2, 7, 7),)
    yield "interpolate_bilinear_scale1_5", \
        lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False), (r(2, 1, 7, 3),)
    yield "interpolate_bilinear_down_3x5", \
        lambda x: F.interpolate(x, size=(3, 5), mode="bilinear", align_corners=False), (r(1, 2, 7, 17),)
    yield "interpolate_bilinear_align_corners_1x1_to_3x3", \
        lambda x: F.interpolate(x, size=3, mode="bilinear", align_corners=True), (r(1, 1, 1, 1),)
    # layers with parameters: the module, PyTorch's weights, traced and compiled
    yield layer_case("layer_conv2d", nn.Conv2d(3, 4, 3, stride=2, padding=1), r(2, 3, 7, 7))
    yield layer_case("layer_conv2d_depthwise_nobias",
                     nn.Conv2d(3, 3, 3, padding="same", groups=3, bias=False), r(1, 3, 7, 7))
    yield layer_case("layer_conv1d", nn.Conv1d(3, 4, 3, padding=1, dilation=2), r(2, 3, 17))
    yield layer_case("layer_conv_transpose2d",
                     nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1), r(1, 4, 5, 5))
    # output planes of 256 positions or more: nn differentiates the weight
    # with one GEMM over windows of the input's rows (appended last: earlier
    # cases keep their random draws)
    yield "conv2d_plane_2x3x34x20_s2x1_d1x2", \
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)), \
        (r(2, 3, 34, 20), r(4, 3, 3, 2), r(4))
    yield "conv1d_plane_2x3x300_k3", \
        lambda x, w: F.conv1d(x, w, padding=2), (r(2, 3, 300), r(5, 3, 3))
    # conv3d and the 1-D and 3-D transposed convolutions (appended last:
    # earlier cases keep their random draws)
    yield "conv3d_1x2x5x6x7_k3", F.conv3d, (r(1, 2, 5, 6, 7), r(3, 2, 3, 3, 3), r(3))
    yield "conv3d_stride2x1x2_pad1x0x1_dilation1x2x1", \
        lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1)), \
        (r(2, 3, 7, 7, 9), r(4, 3, 3, 2, 3), r(4))
    yield "conv3d_groups2", lambda x, w: F.conv3d(x, w, groups=2, padding=1), (r(1, 4, 3, 5, 5), r(6, 2, 3, 3, 3))
    yield "conv3d_depthwise", \
        lambda x, w, b: F.conv3d(x, w, b, groups=3, stride=2, padding=1), (r(1, 3, 5, 7, 7), r(3, 1, 3, 3, 3), r(3))
    yield "conv3d_same_k2x3x4", lambda x, w: F.conv3d(x, w, padding="same"), (r(1, 2, 3, 5, 7), r(2, 2, 2, 3, 4))
    yield "conv3d_k1x3x3", lambda x, w: F.conv3d(x, w, padding=(0, 1, 1)), (r(2, 3, 4, 5, 5), r(4, 3, 1, 3, 3))
    # an output of 256 positions or more: the weight's gradient as GEMMs
    yield "conv3d_plane_1x2x4x9x9_k3", \
        lambda x, w, b: F.conv3d(x, w, b, padding=1), (r(1, 2, 4, 9, 9), r(3, 2, 3, 3, 3), r(3))
    yield "conv_transpose3d_stride2_pad1_outpad1", \
        lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1), \
        (r(1, 3, 3, 4, 5), r(3, 2, 3, 3, 3), r(2))
    yield "conv_transpose3d_groups2_dilation2_crops", \
        lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 1), padding=(2, 5, 3), groups=2, dilation=2), \
        (r(1, 4, 3, 5, 4), r(4, 1, 2, 3, 3))
    yield "conv_transpose1d_stride2_pad1_outpad1", \
        lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1), \
        (r(2, 3, 7), r(3, 4, 3), r(4))
    yield layer_case("layer_conv3d", nn.Conv3d(2, 3, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
                     r(2, 2, 4, 7, 7))
    yield layer_case("layer_conv_transpose3d",
                     nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1, output_padding=(0, 1, 1), bias=False),
                     r(1, 3, 2, 3, 3))
    yield layer_case("layer_conv_transpose1d", nn.ConvTranspose1d(3, 2, 4, stride=3, dilation=2), r(2, 3, 5))
    # 1-D and 3-D pooling (appended last: earlier cases keep their random
    # draws)
    yield "max_pool1d_k3_s2_p1_2x3x17", lambda x: F.max_pool1d(x, 3, 2, 1), (r(2, 3, 17),)
    yield "max_pool1d_dilation2_ceil_mode", \
        lambda x: F.max_pool1d(x, 2, 3, dilation=2, ceil_mode=True), (r(1, 2, 17),)
    yield "max_pool3d_k2_1x2x4x6x6", lambda x: F.max_pool3d(x, 2), (r(1, 2, 4, 6, 6),)
    yield "max_pool3d_k3_s2_p1_ceil_mode", \
        lambda x: F.max_pool3d(x, 3, 2, 1, ceil_mode=True), (r(2, 2, 5, 7, 8),)
    yield "max_pool3d_k2x1x3_s1x2x2_dilation2x1x1", \
        lambda x: F.max_pool3d(x, (2, 1, 3), (1, 2, 2), (1, 0, 1), dilation=(2, 1, 1)), (r(1, 3, 5, 5, 7),)
    yield "avg_pool1d_k2_1x3x8", lambda x: F.avg_pool1d(x, 2), (r(1, 3, 8),)
    yield "avg_pool1d_k3_s2_p1_ceil_mode_exclude_pad", \
        lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (r(2, 2, 17),)
    yield "avg_pool3d_k2_1x2x4x6x6", lambda x: F.avg_pool3d(x, 2), (r(1, 2, 4, 6, 6),)
    yield "avg_pool3d_k3_s2_p1_ceil_mode", \
        lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True), (r(1, 2, 5, 7, 8),)
    yield "avg_pool3d_k3_s2_p1_exclude_pad", \
        lambda x: F.avg_pool3d(x, (3, 3, 2), (2, 2, 1), (1, 1, 0), count_include_pad=False), (r(2, 2, 5, 7, 6),)
    yield "avg_pool3d_divisor_override5", \
        lambda x: F.avg_pool3d(x, (1, 2, 2), 1, divisor_override=5), (r(1, 1, 3, 4, 5),)
    yield "adaptive_avg_pool1d_17_to_5", lambda x: F.adaptive_avg_pool1d(x, 5), (r(2, 3, 17),)
    yield "adaptive_avg_pool3d_5x7x9_to_2x3x4", \
        lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), (r(1, 2, 5, 7, 9),)
    yield "adaptive_avg_pool3d_global", lambda x: F.adaptive_avg_pool3d(x, 1), (r(2, 3, 4, 5, 6),)
    yield "adaptive_avg_pool3d_2x3x1_to_4x3x2", \
        lambda x: F.adaptive_avg_pool3d(x, (4, 3, 2)), (r(1, 2, 2, 3, 1),)
    # stride 1 on a plane of 256 positions or more: the weight's gradient as
    # GEMMs over windows of the padded input; dilated, padded unevenly
    # (appended last: earlier cases keep their random draws)
    yield "conv2d_plane_2x3x17x20_same_k4x3_d1x2", \
        lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 2)), \
        (r(2, 3, 17, 20), r(4, 3, 4, 3), r(4))
    # strided on a plane of 256 positions or more: the padded input split
    # into stride phases, windows of their rows; a 1x1 kernel reads one
    # phase; odd sizes pad the grid up to a multiple of the stride
    # (appended last: earlier cases keep their random draws)
    yield "conv2d_plane_1x3x31x31_k3_s2_p1", \
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), \
        (r(1, 3, 31, 31), r(4, 3, 3, 3), r(4))
    yield "conv2d_plane_2x4x32x33_k1_s2", \
        lambda x, w: F.conv2d(x, w, stride=2), (r(2, 4, 32, 33), r(3, 4, 1, 1))
    # padding wider than the kernel's reach: the outer outputs read padding
    # only (the input gradient is a transposed convolution that crops)
    # (appended last: earlier cases keep their random draws)
    yield "conv2d_k1_s2_pad2", \
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=2), \
        (r(2, 3, 7, 7), r(4, 3, 1, 1), r(4))
