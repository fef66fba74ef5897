"""PyTorch goldens for float16 and bfloat16 storage with float32 arithmetic.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/half/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsHalfTest.cpp under the same name.

Inputs are stored in float16 or bfloat16. The golden is the float32
computation on the widened inputs, rounded once to the storage dtype
(Tensor.to, round to nearest even): what PyTorch's CUDA and oneDNN kernels
compute for these dtypes, and what nn's lowering does (products and sums in
f32, one arith.truncf at the end). torch 1.13's own CPU kernels are not used:
for float16 it has none (addmm, conv, gelu: "not implemented for 'Half'"),
and its bfloat16 fallback for matmul and conv (on a CPU without AVX512-BF16,
like these machines) rounds partial sums to bfloat16 — measured hundreds of
ulps away from the float32 result for K = 17, thousands for K = 256.

Sizes include 1, 3, 7 and 17 (no vector width divides them).
"""
import torch
import torch.nn.functional as F

DTYPES = (("f16", torch.float16), ("bf16", torch.bfloat16))


def in_f32(fn, dtype):
    """fn on the inputs widened to float32, its result rounded to `dtype`."""
    def run(*inputs):
        return fn(*[x.float() for x in inputs]).to(dtype)
    return run


def cases():
    torch.manual_seed(0)
    for suffix, dtype in DTYPES:
        def r(*shape):
            return torch.randn(*shape).to(dtype)

        def case(name, fn, *inputs):
            return f"{name}_{suffix}", in_f32(fn, dtype), inputs

        for a, b in (((3, 4), (4, 5)), ((1, 7), (7, 1)), ((7, 17), (17, 3)),
                     ((2, 3, 17), (2, 17, 5)),     # batch_matmul
                     ((5, 2, 3), (3, 4)),          # batched · 2-D
                     ((2, 1, 3, 7), (5, 7, 6))):   # broadcasting batch dims
            name = "matmul_" + "x".join(map(str, a)) + "_" + "x".join(map(str, b))
            yield case(name, torch.matmul, r(*a), r(*b))
        yield case("linear_2x5x7", F.linear, r(2, 5, 7), r(3, 7), r(3))
        yield case("linear_nobias_7", F.linear, r(7), r(4, 7))
        yield case("linear_17x33", F.linear, r(17, 33), r(9, 33), r(9))
        yield case("addmm", torch.addmm, r(3, 5), r(3, 4), r(4, 5))
        yield case("conv2d_1x3x7x7_pad1", lambda x, w, b: F.conv2d(x, w, b, padding=1),
                   r(1, 3, 7, 7), r(4, 3, 3, 3), r(4))
        yield case("conv2d_stride2_groups2", lambda x, w: F.conv2d(x, w, stride=2, groups=2),
                   r(2, 4, 9, 9), r(6, 2, 3, 3))
        yield case("conv2d_depthwise", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=3),
                   r(1, 3, 7, 7), r(3, 1, 3, 3), r(3))
        yield case("conv1d_2x3x17", lambda x, w, b: F.conv1d(x, w, b, padding=1),
                   r(2, 3, 17), r(4, 3, 3), r(4))
        yield case("conv_transpose2d_stride2",
                   lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1),
                   r(1, 4, 5, 5), r(4, 3, 3, 3), r(3))
        # Pointwise ops compute in float32 and round once per op.
        yield case("relu_3x17", F.relu, r(3, 17))
        yield case("add_broadcast_3x17_17", torch.add, r(3, 17), r(17))
        yield case("gelu_17", F.gelu, r(17))
        yield case("softmax_3x17", lambda x: F.softmax(x, dim=-1), r(3, 17))
        yield case("log_softmax_7x3_dim0", lambda x: F.log_softmax(x, dim=0), r(7, 3))
        # linear + relu + a residual add: nn fuses the three into one group.
        yield case("linear_relu_add_7x17",
                   lambda x, w, b, res: F.relu(F.linear(x, w, b)).to(dtype).float() + res,
                   r(7, 17), r(3, 17), r(3), r(7, 3))
        # Reductions sum in float32 and round once.
        yield case("sum_7x17_all", torch.sum, r(7, 17))
        yield case("mean_2x7x17_dim1_keepdim", lambda x: x.mean(dim=1, keepdim=True),
                   r(2, 7, 17))
