"""PyTorch goldens for nn's elementwise ops (arithmetic, math, comparisons).

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/elementwise/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsElementwiseTest.cpp under the same name.
"""
import torch


def cases():
    torch.manual_seed(0)
    # Sizes that are not multiples of any vector width, and broadcasting.
    yield "add_1", torch.add, (torch.randn(1), torch.randn(1))
    yield "add_17", torch.add, (torch.randn(17), torch.randn(17))
    yield "add_broadcast_2x1x7_3x7", torch.add, (torch.randn(2, 1, 7), torch.randn(3, 7))
    yield "add_broadcast_scalar_3x5", torch.add, (torch.randn(3, 5), torch.randn(()))
    yield "add_i64", torch.add, (torch.arange(-5, 6), torch.arange(11) * 3)
    shapes = [((1,), (1,)), ((17,), (17,)), ((3, 7), (7,)), ((2, 1, 5), (3, 1)),
              ((4, 3), ())]
    binary = {"sub": torch.sub, "mul": torch.mul, "div": torch.div,
              "maximum": torch.maximum, "minimum": torch.minimum}
    for name, fn in binary.items():
        for a, b in shapes:
            yield (f"{name}_{'x'.join(map(str, a)) or 'scalar'}_{'x'.join(map(str, b)) or 'scalar'}",
                   fn, (torch.randn(a), torch.randn(b)))
    yield "pow_positive_base", torch.pow, (torch.rand(3, 7) + 0.1, torch.randn(7))
    yield "maximum_nan", torch.maximum, (torch.tensor([float("nan"), 1.0, -2.0]),
                                         torch.tensor([0.0, float("nan"), -3.0]))
    yield "sub_i64", torch.sub, (torch.arange(12).reshape(3, 4), torch.arange(4))
    yield "mul_i64", torch.mul, (torch.arange(12).reshape(3, 4), torch.arange(4) - 2)
    # Scalar operands (the C++ side passes the same double).
    yield "add_scalar", lambda x: x + 2.5, (torch.randn(3, 5),)
    yield "sub_scalar", lambda x: x - 0.75, (torch.randn(7),)
    yield "rsub_scalar", lambda x: 1.5 - x, (torch.randn(7),)
    yield "mul_scalar", lambda x: x * -3.0, (torch.randn(2, 3),)
    yield "div_scalar", lambda x: x / 7.0, (torch.randn(17),)
    yield "pow_scalar", lambda x: x ** 2.0, (torch.randn(17),)
    unary = {"neg": torch.neg, "abs": torch.abs, "exp": torch.exp}
    for name, fn in unary.items():
        yield f"{name}_3x17", fn, (torch.randn(3, 17) * 3,)
    positive = {"log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt}
    for name, fn in positive.items():
        yield f"{name}_3x17", fn, (torch.rand(3, 17) * 10 + 1e-3,)
        # 0, negative and NaN: -inf/NaN/inf as PyTorch gives them.
        yield f"{name}_edges", fn, (torch.tensor([0.0, -1.0, float("nan"), float("inf"), 4.0]),)
    compare = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
               "gt": torch.gt, "ge": torch.ge}
    for name, fn in compare.items():
        a = torch.tensor([[1.0, 2.0, float("nan")], [0.0, -1.0, 3.0]])
        b = torch.tensor([1.0, float("nan"), 3.0])
        yield f"{name}_broadcast_nan", fn, (a, b)
        yield f"{name}_i64", fn, (torch.arange(6).reshape(2, 3), torch.tensor([1, 4, 2]))
    yield "gt_scalar", lambda x: x > 0.5, (torch.randn(17),)
    yield "where_broadcast", torch.where, (torch.randn(3, 1) > 0, torch.randn(3, 5), torch.randn(5))
    yield "where_scalar_branch", torch.where, (torch.randn(7) > 0, torch.randn(7), torch.tensor(0.0))
