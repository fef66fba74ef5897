"""PyTorch goldens for nn's loss functions.

cases() yields (name, fn, inputs), saved by generate_op_goldens.py into
goldens/ops/loss/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsLossTest.cpp under the same name.
"""
import torch
import torch.nn.functional as F

REDUCTIONS = ("mean", "sum", "none")


def labels(shape, classes, ignore=None, ignore_value=-100):
    """Class indices in [0, classes), with `ignore` (a bool mask) set to
    ignore_value."""
    t = torch.randint(0, classes, shape)
    if ignore is not None:
        t[ignore] = ignore_value
    return t


def cases():
    torch.manual_seed(0)
    # -- mse_loss / l1_loss ---------------------------------------------------
    for name, fn in (("mse", F.mse_loss), ("l1", F.l1_loss)):
        for shape in ((7,), (3, 17), (2, 3, 5)):
            for r in REDUCTIONS:
                yield (f"{name}_{r}_{'x'.join(map(str, shape))}",
                       lambda x, y, fn=fn, r=r: fn(x, y, reduction=r),
                       (torch.randn(shape) * 3, torch.randn(shape)))
    # -- nll_loss ---------------------------------------------------------------
    for r in REDUCTIONS:
        x = F.log_softmax(torch.randn(5, 7), 1)
        yield f"nll_{r}_5x7", lambda x, t, r=r: F.nll_loss(x, t, reduction=r), \
            (x, labels((5,), 7))
        w = torch.rand(7) + 0.1
        yield f"nll_weight_{r}_5x7", \
            lambda x, t, w, r=r: F.nll_loss(x, t, weight=w, reduction=r), \
            (x, labels((5,), 7), w)
        ignore = torch.tensor([True, False, False, True, False])
        yield f"nll_ignore_weight_{r}_5x7", \
            lambda x, t, w, r=r: F.nll_loss(x, t, weight=w, reduction=r), \
            (x, labels((5,), 7, ignore), w)
        # K-dim: [N, C, d1, d2], ignore_index 2 (a real class).
        x4 = torch.randn(2, 3, 4, 5)
        yield f"nll_kdim_ignore2_{r}_2x3x4x5", \
            lambda x, t, r=r: F.nll_loss(x, t, ignore_index=2, reduction=r), \
            (x4, labels((2, 4, 5), 3))
    # One sample: input [C], a scalar target.
    yield "nll_unbatched_7", lambda x, t: F.nll_loss(x, t), \
        (torch.randn(7), torch.tensor(3))
    # Every target ignored: mean is 0/0 = nan, sum is 0.
    for r in ("mean", "sum"):
        yield f"nll_all_ignored_{r}", lambda x, t, r=r: F.nll_loss(x, t, reduction=r), \
            (torch.randn(3, 4), torch.full((3,), -100))
    # -- cross_entropy with class indices ------------------------------------
    for r in REDUCTIONS:
        yield f"ce_{r}_6x11", lambda x, t, r=r: F.cross_entropy(x, t, reduction=r), \
            (torch.randn(6, 11) * 2, labels((6,), 11))
        w = torch.rand(11) + 0.1
        ignore = torch.tensor([False, True, False, False, True, False])
        yield f"ce_weight_ignore_{r}_6x11", \
            lambda x, t, w, r=r: F.cross_entropy(x, t, weight=w, reduction=r), \
            (torch.randn(6, 11), labels((6,), 11, ignore), w)
        yield f"ce_smoothing_{r}_6x11", \
            lambda x, t, r=r: F.cross_entropy(x, t, label_smoothing=0.1, reduction=r), \
            (torch.randn(6, 11), labels((6,), 11))
        yield f"ce_smoothing_weight_ignore_{r}_6x11", \
            lambda x, t, w, r=r: F.cross_entropy(x, t, weight=w, ignore_index=0,
                                                 label_smoothing=0.25, reduction=r), \
            (torch.randn(6, 11), labels((6,), 11, ignore, 0), w)
        yield f"ce_kdim_smoothing_{r}_2x5x3x7", \
            lambda x, t, r=r: F.cross_entropy(x, t, label_smoothing=0.3, reduction=r), \
            (torch.randn(2, 5, 3, 7), labels((2, 3, 7), 5))
        # -- class probabilities ----------------------------------------------
        yield f"ce_probs_{r}_4x9", lambda x, p, r=r: F.cross_entropy(x, p, reduction=r), \
            (torch.randn(4, 9), F.softmax(torch.randn(4, 9), 1))
        w9 = torch.rand(9) + 0.1
        yield f"ce_probs_weight_smoothing_{r}_4x9", \
            lambda x, p, w, r=r: F.cross_entropy(x, p, weight=w, label_smoothing=0.2,
                                                 reduction=r), \
            (torch.randn(4, 9), F.softmax(torch.randn(4, 9), 1), w9)
        yield f"ce_probs_kdim_{r}_2x3x5", lambda x, p, r=r: F.cross_entropy(x, p, reduction=r), \
            (torch.randn(2, 3, 5), F.softmax(torch.randn(2, 3, 5), 1))
    yield "ce_unbatched_13", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), \
        (torch.randn(13), torch.tensor(12))
    yield "ce_all_ignored_mean", lambda x, t: F.cross_entropy(x, t), \
        (torch.randn(3, 4), torch.full((3,), -100))
    yield "ce_all_ignored_smoothing_mean", \
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), \
        (torch.randn(3, 4), torch.full((3,), -100))
    # -- binary cross entropy (appended: the cases above keep their seeds) -----
    for r in REDUCTIONS:
        yield f"bce_{r}_3x7", lambda x, t, r=r: F.binary_cross_entropy(x, t, reduction=r), \
            (torch.sigmoid(torch.randn(3, 7) * 2), torch.rand(3, 7))
        # A weight per column, broadcast over the rows.
        yield f"bce_weight_{r}_3x7", \
            lambda x, t, w, r=r: F.binary_cross_entropy(x, t, weight=w, reduction=r), \
            (torch.sigmoid(torch.randn(3, 7)), torch.rand(3, 7), torch.rand(7) + 0.1)
        yield f"bce_logits_{r}_4x5", \
            lambda x, t, r=r: F.binary_cross_entropy_with_logits(x, t, reduction=r), \
            (torch.randn(4, 5) * 3, torch.rand(4, 5))
        yield f"bce_logits_pos_weight_weight_{r}_4x5", \
            lambda x, t, w, p, r=r: F.binary_cross_entropy_with_logits(
                x, t, weight=w, pos_weight=p, reduction=r), \
            (torch.randn(4, 5) * 3, torch.rand(4, 5), torch.rand(4, 1) + 0.1,
             torch.rand(5) + 0.5)
    # Probabilities of exactly 0 and 1: each log is clamped at -100.
    yield "bce_edges_sum", lambda x, t: F.binary_cross_entropy(x, t, reduction="sum"), \
        (torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5]), torch.tensor([0.0, 1.0, 1.0, 0.0, 0.25]))
    # Logits far out on both sides: no overflow to inf.
    yield "bce_logits_large_none", \
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"), \
        (torch.tensor([-100.0, -30.0, -0.5, 0.0, 30.0, 100.0]),
         torch.tensor([0.0, 1.0, 0.5, 1.0, 0.0, 1.0]))
    # -- smooth_l1_loss / huber_loss: both sides of the threshold ----------------
    for r in REDUCTIONS:
        yield f"smooth_l1_{r}_3x17", lambda x, y, r=r: F.smooth_l1_loss(x, y, reduction=r), \
            (torch.randn(3, 17) * 2, torch.randn(3, 17))
        yield f"smooth_l1_beta05_{r}_2x3x5", \
            lambda x, y, r=r: F.smooth_l1_loss(x, y, reduction=r, beta=0.5), \
            (torch.randn(2, 3, 5), torch.randn(2, 3, 5))
        yield f"huber_{r}_3x17", lambda x, y, r=r: F.huber_loss(x, y, reduction=r), \
            (torch.randn(3, 17) * 2, torch.randn(3, 17))
        yield f"huber_delta2_{r}_2x3x5", \
            lambda x, y, r=r: F.huber_loss(x, y, reduction=r, delta=2.0), \
            (torch.randn(2, 3, 5) * 3, torch.randn(2, 3, 5))
    yield "smooth_l1_beta0_7", lambda x, y: F.smooth_l1_loss(x, y, beta=0.0), \
        (torch.randn(7), torch.randn(7))
    # -- kl_div (appended, as above) ----------------------------------------------
    for r in REDUCTIONS + ("batchmean",):
        yield f"kl_div_{r}_4x6", lambda x, t, r=r: F.kl_div(x, t, reduction=r), \
            (F.log_softmax(torch.randn(4, 6), 1), F.softmax(torch.randn(4, 6) * 2, 1))
    yield "kl_div_log_target_batchmean_3x5", \
        lambda x, t: F.kl_div(x, t, reduction="batchmean", log_target=True), \
        (F.log_softmax(torch.randn(3, 5), 1), F.log_softmax(torch.randn(3, 5), 1))
    # Zeros in the target: their terms are 0 (xlogy), not NaN.
    yield "kl_div_zero_target_sum_2x4", lambda x, t: F.kl_div(x, t, reduction="sum"), \
        (F.log_softmax(torch.randn(2, 4), 1),
         torch.tensor([[0.5, 0.0, 0.5, 0.0], [0.25, 0.25, 0.0, 0.5]]))
