"""PyTorch goldens for nn's normalization and reductions ops.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/normalization/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsNormalizationTest.cpp under the same name.

Shapes mix odd sizes (1, 3, 7, 17) so no reduction length is a multiple of a
vector width. Layer goldens (BatchNorm*, LayerNorm, GroupNorm with PyTorch's
module weights) pass the weights as inputs too, in state_dict order after the
data input; training BatchNorm cases also output the updated buffers after
one and after two forwards.
"""
import torch
import torch.nn.functional as F  # noqa: F401


def _bn_train_two_steps(module):
    """fn(x1, x2, *state): two training forwards of `module` from `state`;
    outputs y1, buffers after step 1, y2, buffers after step 2."""
    def fn(x1, x2, *state):
        keys = list(module.state_dict().keys())
        module.load_state_dict(dict(zip(keys, state)))
        module.train()
        out = []
        for x in (x1, x2):
            out.append(module(x))
            out += [module.running_mean.clone(), module.running_var.clone(),
                    module.num_batches_tracked.clone()]
        return tuple(out)
    return fn


def _state(module):
    """The module's state_dict values with random affine parameters and
    running statistics, so nothing is a no-op."""
    sd = module.state_dict()
    for k, v in sd.items():
        if k in ("weight", "bias", "running_mean"):
            sd[k] = torch.randn(v.shape)
        elif k == "running_var":
            sd[k] = torch.rand(v.shape) + 0.5
        elif k == "num_batches_tracked":
            sd[k] = torch.tensor(3, dtype=torch.int64)
    return tuple(sd.values())


def cases():
    torch.manual_seed(0)
    # -- Reductions ----------------------------------------------------------
    x = torch.randn(3, 7, 17)
    yield "sum_all_3x7x17", lambda t: torch.sum(t), (x,)
    yield "sum_dim1_3x7x17", lambda t: torch.sum(t, 1), (x,)
    yield "sum_dims_0_neg1_keepdim_3x7x17", lambda t: torch.sum(t, (0, -1), keepdim=True), (x,)
    yield "sum_1", lambda t: torch.sum(t, 0), (torch.randn(1),)
    yield "sum_i64_dim0", lambda t: torch.sum(t, 0), (torch.arange(-10, 11).reshape(3, 7),)
    yield "mean_dim2_3x7x17", lambda t: torch.mean(t, 2), (x,)
    yield "mean_all_keepdim_7x3", lambda t: torch.mean(t, (0, 1), keepdim=True), (torch.randn(7, 3),)
    yield "amax_dim1_3x7x17", lambda t: torch.amax(t, 1), (x,)
    yield "amax_dims_keepdim_3x7x17", lambda t: torch.amax(t, (0, 2), keepdim=True), (x,)
    yield "amin_all_17", lambda t: torch.amin(t), (torch.randn(17),)
    yield "amin_dim0_i64", lambda t: torch.amin(t, 0), (torch.randint(-50, 50, (7, 3)),)
    yield "max_dim_3x17", lambda t: torch.max(t, 1), (torch.randn(3, 17),)
    yield "min_dim_keepdim_7x3", lambda t: torch.min(t, 0, keepdim=True), (torch.randn(7, 3),)
    nan = torch.randn(3, 7)
    nan[1, 2] = float("nan")
    yield "amax_nan_3x7", lambda t: torch.amax(t, 1), (nan,)
    yield "var_dim1_3x7x17", lambda t: torch.var(t, 1), (x,)
    yield "var_all_17", lambda t: torch.var(t), (torch.randn(17),)
    yield "var_biased_keepdim_3x7x17", lambda t: torch.var(t, (0, 2), unbiased=False, keepdim=True), (x,)
    yield "var_correction0_dim_1x3", lambda t: torch.var(t, 0, unbiased=False), (torch.randn(1, 3),)
    yield "argmax_dim1_3x17", lambda t: torch.argmax(t, 1), (torch.randn(3, 17),)
    yield "argmax_flat_3x7", lambda t: torch.argmax(t), (torch.randn(3, 7),)
    yield "argmax_keepdim_7x3", lambda t: torch.argmax(t, 0, keepdim=True), (torch.randn(7, 3),)
    # Ties: the first index of the maximum, as PyTorch.
    yield "argmax_ties_3x7", lambda t: torch.argmax(t, 1), (torch.randint(0, 3, (3, 7)).float(),)
    yield "argmax_nan_3x7", lambda t: torch.argmax(t, 1), (nan,)
    yield "argmin_dim0_7x3", lambda t: torch.argmin(t, 0), (torch.randn(7, 3),)
    yield "argmax_i64_dim1", lambda t: torch.argmax(t, 1), (torch.randint(-5, 5, (3, 17)),)

    # -- layer_norm ----------------------------------------------------------
    yield "layer_norm_17", lambda t, w, b: F.layer_norm(t, (17,), w, b), \
        (torch.randn(3, 17), torch.randn(17), torch.randn(17))
    yield "layer_norm_7x3_no_affine", lambda t: F.layer_norm(t, (7, 3), eps=1e-3), \
        (torch.randn(2, 7, 3) * 5 + 2,)
    yield "layer_norm_weight_only_1x7", lambda t, w: F.layer_norm(t, (7,), w), \
        (torch.randn(1, 7), torch.randn(7))
    yield "layer_norm_3x1x17", lambda t, w, b: F.layer_norm(t, (1, 17), w, b), \
        (torch.randn(3, 1, 17), torch.randn(1, 17), torch.randn(1, 17))

    # -- group_norm ----------------------------------------------------------
    yield "group_norm_2x6x7_g3", lambda t, w, b: F.group_norm(t, 3, w, b), \
        (torch.randn(2, 6, 7), torch.randn(6), torch.randn(6))
    yield "group_norm_1x3x5x5_g1_no_affine", lambda t: F.group_norm(t, 1), \
        (torch.randn(1, 3, 5, 5),)
    yield "group_norm_3x17_g17", lambda t, w, b: F.group_norm(t, 17, w, b, eps=1e-3), \
        (torch.randn(3, 17, 2), torch.randn(17), torch.randn(17))

    # -- batch_norm (functional) --------------------------------------------
    yield "batch_norm_eval_4x3x7", lambda t, m, v, w, b: F.batch_norm(t, m, v, w, b), \
        (torch.randn(4, 3, 7), torch.randn(3), torch.rand(3) + 0.5, torch.randn(3), torch.randn(3))
    yield "batch_norm_eval_no_affine_3x17", lambda t, m, v: F.batch_norm(t, m, v, eps=1e-3), \
        (torch.randn(3, 17), torch.randn(17), torch.rand(17) + 0.5)
    yield "batch_norm_batch_stats_7x3x2x2", lambda t, w, b: F.batch_norm(t, None, None, w, b, training=True), \
        (torch.randn(7, 3, 2, 2), torch.randn(3), torch.randn(3))

    # -- Layers with PyTorch's own weights -----------------------------------
    bn2 = torch.nn.BatchNorm2d(3)
    yield "BatchNorm2d_eval_2x3x5x7", _bn_eval(bn2), (torch.randn(2, 3, 5, 7),) + _state(bn2)
    bn1 = torch.nn.BatchNorm1d(7, eps=1e-3, affine=False)
    yield "BatchNorm1d_eval_no_affine_3x7", _bn_eval(bn1), (torch.randn(3, 7),) + _state(bn1)
    bn2t = torch.nn.BatchNorm2d(3)
    yield "BatchNorm2d_train_2x3x5x7", _bn_train_two_steps(bn2t), \
        (torch.randn(2, 3, 5, 7), torch.randn(2, 3, 5, 7) * 2 + 1) + _state(bn2t)
    bn1t = torch.nn.BatchNorm1d(7, momentum=None)
    yield "BatchNorm1d_train_momentum_none_3x7x17", _bn_train_two_steps(bn1t), \
        (torch.randn(3, 7, 17), torch.randn(3, 7, 17)) + _state(bn1t)
    bn1n = torch.nn.BatchNorm1d(7, track_running_stats=False)
    yield "BatchNorm1d_no_tracking_17x7", _module_fn(bn1n, train=False), \
        (torch.randn(17, 7),) + _state(bn1n)
    ln = torch.nn.LayerNorm((3, 17))
    yield "LayerNorm_2x7x3x17", _module_fn(ln), (torch.randn(2, 7, 3, 17),) + _state(ln)
    gn = torch.nn.GroupNorm(2, 6, eps=1e-3)
    yield "GroupNorm_3x6x7", _module_fn(gn), (torch.randn(3, 6, 7),) + _state(gn)
    bn3t = torch.nn.BatchNorm3d(3)
    yield "BatchNorm3d_train_2x3x3x4x5", _bn_train_two_steps(bn3t), \
        (torch.randn(2, 3, 3, 4, 5), torch.randn(2, 3, 3, 4, 5) * 2 + 1) + _state(bn3t)
    # normalize, cosine_similarity, pairwise_distance (added last, so the
    # cases above keep their random inputs).
    yield "normalize_5x7", lambda x: F.normalize(x), (torch.randn(5, 7),)
    yield "normalize_p1_dim_neg_2x3x4", lambda x: F.normalize(x, p=1.0, dim=-1), \
        (torch.randn(2, 3, 4),)
    yield "normalize_p3_dim0_4x5", lambda x: F.normalize(x, p=3.0, dim=0), \
        (torch.randn(4, 5),)
    yield "normalize_pinf_3x6", lambda x: F.normalize(x, p=float("inf")), \
        (torch.randn(3, 6),)
    yield "cosine_similarity_6x9", lambda a, b: F.cosine_similarity(a, b), \
        (torch.randn(6, 9), torch.randn(6, 9))
    # Broadcast (one row against many), along the last dim, and a row far
    # shorter than eps (each norm is clamped separately).
    yield "cosine_similarity_broadcast_1x5_4x5", \
        lambda a, b: F.cosine_similarity(a, b, dim=-1), (torch.randn(1, 5), torch.randn(4, 5))
    yield "cosine_similarity_tiny_row_3x4", lambda a, b: F.cosine_similarity(a, b), \
        (torch.randn(3, 4) * torch.tensor([[1e-9], [1.0], [1.0]]), torch.randn(3, 4))
    yield "pairwise_distance_5x8", lambda a, b: F.pairwise_distance(a, b), \
        (torch.randn(5, 8), torch.randn(5, 8))
    yield "pairwise_distance_p1_keepdim_2x3x4", \
        lambda a, b: F.pairwise_distance(a, b, p=1.0, keepdim=True), \
        (torch.randn(2, 3, 4), torch.randn(2, 3, 4))
    # instance_norm and the InstanceNorm layers (added last, as above).
    yield "instance_norm_3x4x7", lambda x: F.instance_norm(x), (torch.randn(3, 4, 7) * 2 + 1,)
    yield "instance_norm_affine_2x3x5x4", \
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3), \
        (torch.randn(2, 3, 5, 4), torch.randn(3), torch.randn(3))
    in2 = torch.nn.InstanceNorm2d(3)
    yield "InstanceNorm2d_2x3x5x4", _module_fn(in2), (torch.randn(2, 3, 5, 4),) + _state(in2)
    in1 = torch.nn.InstanceNorm1d(4, affine=True)
    yield "InstanceNorm1d_affine_3x4x9", _module_fn(in1), (torch.randn(3, 4, 9),) + _state(in1)
    yield "InstanceNorm1d_affine_unbatched_4x9", _module_fn(in1), \
        (torch.randn(4, 9),) + _state(in1)
    in3 = torch.nn.InstanceNorm3d(2, eps=1e-3, affine=True)
    yield "InstanceNorm3d_affine_2x2x3x4x5", _module_fn(in3), \
        (torch.randn(2, 2, 3, 4, 5),) + _state(in3)
    in2t = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.2)
    yield "InstanceNorm2d_track_train_2x3x5x4", _bn_train_two_steps(in2t), \
        (torch.randn(2, 3, 5, 4) * 2 + 1, torch.randn(2, 3, 5, 4)) + _state(in2t)
    in2e = torch.nn.InstanceNorm2d(3, track_running_stats=True)
    yield "InstanceNorm2d_track_eval_2x3x5x4", _module_fn(in2e), \
        (torch.randn(2, 3, 5, 4),) + _state(in2e)
    # Reductions of 256 points or more, which a GPU shares among a block's
    # threads (partials from the fold's identity, combined in shared
    # memory): along rows and down columns, a max with a NaN in one row,
    # integers, and the softmax and layer norm of long rows (added last, as
    # above).
    yield "sum_rows_3x300", lambda t: torch.sum(t, 1), (torch.randn(3, 300),)
    rows = torch.randn(4, 257)
    rows[2, 100] = float("nan")
    yield "amax_nan_rows_4x257", lambda t: torch.amax(t, 1), (rows,)
    yield "mean_cols_300x5", lambda t: torch.mean(t, 0), (torch.randn(300, 5),)
    yield "sum_i64_rows_2x300", lambda t: torch.sum(t, 1), (torch.randint(-100, 100, (2, 300)),)
    yield "softmax_rows_4x300", lambda t: F.softmax(t, dim=1), (torch.randn(4, 300) * 4,)
    yield "layer_norm_rows_3x384", lambda t: F.layer_norm(t, (384,)), (torch.randn(3, 384) * 2 + 1,)


def _module_fn(module, train=False):
    """fn(x, *state): module loaded with `state`, in train or eval mode."""
    def fn(x, *state):
        keys = list(module.state_dict().keys())
        module.load_state_dict(dict(zip(keys, state)))
        module.train(train)
        return module(x)
    return fn


def _bn_eval(module):
    return _module_fn(module, train=False)
