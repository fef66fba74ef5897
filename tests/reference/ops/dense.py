"""PyTorch goldens for nn's dense ops: linear, matmul (batched, broadcasting)
and addmm.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/dense/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsDenseTest.cpp under the same name.
"""
import torch
import torch.nn.functional as F


def cases():
    torch.manual_seed(0)
    r = torch.randn
    for a, b in (((3, 4), (4, 5)), ((1, 7), (7, 1)), ((2, 17), (17, 3)),
                 ((2, 3, 4), (2, 4, 5)),        # batch_matmul
                 ((5, 2, 3), (3, 4)),           # batched · 2-D
                 ((3, 4), (2, 4, 5)),           # 2-D · batched
                 ((2, 1, 3, 4), (5, 4, 6)),     # broadcasting batch dims
                 ((1, 3, 2, 7), (4, 1, 7, 3))):
        name = "matmul_" + "x".join(map(str, a)) + "_" + "x".join(map(str, b))
        yield name, torch.matmul, (r(*a), r(*b))
    yield "linear_2x5x7", F.linear, (r(2, 5, 7), r(3, 7), r(3))
    yield "linear_nobias_7", lambda x, w: F.linear(x, w), (r(7), r(4, 7))
    yield "addmm", torch.addmm, (r(3, 5), r(3, 4), r(4, 5))
    yield "addmm_row_input", torch.addmm, (r(5), r(3, 4), r(4, 5))
    yield "addmm_beta_alpha", lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2.0), \
        (r(3, 5), r(3, 4), r(4, 5))
    # beta = 0 ignores the input, NaN included.
    yield "addmm_beta0", lambda i, a, b: torch.addmm(i, a, b, beta=0.0), \
        (torch.full((3, 5), float("nan")), r(3, 4), r(4, 5))
