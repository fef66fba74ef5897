#!/usr/bin/python3
"""Generates the training goldens: tests/reference/goldens/train/<Model>/<case>.safetensors.

PyTorch's autograd and torch.optim on the DynamicNet seed model (linear
and relu layers, one of them used twice per forward) with its module
golden's weights, for tests/E2E/TrainTest.cpp, which runs the same steps with
nn::TrainStep and nn::optim. Each case trains STEPS steps of
CrossEntropyLoss (mean) on seeded batches; the file holds, for step k
(1-based): the batch (step<k>.input, step<k>.target), the loss
(step<k>.loss), every gradient (step<k>.grad.<name>, after clipping where
the case clips; none for a frozen parameter), the total norm clipping saw
(step<k>.total_norm), every parameter after the optimizer's step
(step<k>.param.<name>) and the optimizer's state
(step<k>.state.<name>.<key>). The optimizer of each case is in CASES, and
its C++ twin in TrainTest.cpp under the same name. And schedulers.safetensors:
the learning rates each lr_scheduler of SCHEDULERS sets, epoch by epoch; and
DynamicNet/resume/<case>.safetensors: RESUME_CASES trained
RESUME_STEPS steps, with <case>.optimizer.safetensors, the optimizer's state
after RESUME_AT steps in nn::optim's checkpoint layout; and
zoo/<Model>.safetensors for the seed models (ZOO_MODELS): each step's input,
loss weight R, loss, gradients and state_dict after the step
(step<k>.state.<key>: updated weights and, in training mode, running
statistics); zoo/<case>/<Model>.safetensors: one step of each optimizer of
ZOO_OPTIMIZERS (Adam, AdamW, SGD with two parameter groups and a frozen
parameter) from the first step's batch; and DynamicNet/hooks/<case>.safetensors: one backward with
the backward hooks of HOOK_CASES, its gradients and what the hooks saw.

    generate_train_goldens.py [--check [--exact]]

Run with /usr/bin/python3 (Debian's torch imports only there).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import torch  # noqa: E402

import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402
from generate_zoo_goldens import (EXAMPLE_INPUTS, TRAIN_MODELS,  # noqa: E402
                                  model_named, seeded_input)

OUT = os.path.join(HERE, "goldens", "train")
STEPS = 2
BATCH = 8


MODEL = "DynamicNet"
IN_FEATURES, CLASSES = 8, 4


def input_apart(model, first_options, rest):
    """Two parameter groups: input_linear's with `first_options`, the rest
    with `rest`."""
    first = [p for n, p in model.named_parameters()
             if n.startswith("input_linear.")]
    others = [p for n, p in model.named_parameters()
              if not n.startswith("input_linear.")]
    return [dict(params=first, **first_options), dict(params=others, **rest)]


def clip_norm(model):
    return torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)


def clip_value(model):
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.02)


# name -> (optimizer factory, parameters frozen before training[, what is
# done to the gradients between backward and the step])
CASES = {
    "sgd": (lambda m: torch.optim.SGD(m.parameters(), lr=0.1), []),
    "sgd_momentum_decay": (lambda m: torch.optim.SGD(
        m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4), []),
    "sgd_dampening_maximize": (lambda m: torch.optim.SGD(
        m.parameters(), lr=0.05, momentum=0.8, dampening=0.5,
        maximize=True), []),
    "sgd_nesterov": (lambda m: torch.optim.SGD(
        m.parameters(), lr=0.1, momentum=0.9, nesterov=True), []),
    "sgd_groups": (lambda m: torch.optim.SGD(
        input_apart(m, dict(lr=0.2, momentum=0.9), {}), lr=0.01), []),
    "sgd_frozen": (lambda m: torch.optim.SGD(
        m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-2),
        ["input_linear.bias", "output_linear.weight"]),
    "adam": (lambda m: torch.optim.Adam(m.parameters(), lr=1e-3), []),
    "adam_amsgrad_decay": (lambda m: torch.optim.Adam(
        m.parameters(), lr=1e-2, weight_decay=0.1, amsgrad=True), []),
    "adamw": (lambda m: torch.optim.AdamW(
        m.parameters(), lr=1e-3, weight_decay=0.01), []),
    "sgd_clip_grad_norm": (lambda m: torch.optim.SGD(
        m.parameters(), lr=0.1, momentum=0.9), [], clip_norm),
    "sgd_clip_grad_value": (lambda m: torch.optim.SGD(
        m.parameters(), lr=0.1), [], clip_value),
}


def batch(step):
    g = torch.Generator().manual_seed(1000 + step)
    return (torch.randn(BATCH, IN_FEATURES, generator=g),
            torch.randint(0, CLASSES, (BATCH,), generator=g))


def train_case(name, steps):
    """The tensors of CASES[name] trained `steps` steps, and the optimizer's
    checkpoint after step RESUME_AT in nn's layout (see checkpoint())."""
    make_optimizer, frozen, *clip = CASES[name]
    model = model_named(MODEL).train()
    for n, p in model.named_parameters():
        if n in frozen:
            p.requires_grad_(False)
    optimizer = make_optimizer(model)
    names = {p: n for n, p in model.named_parameters()}
    loss_fn = torch.nn.CrossEntropyLoss()
    tensors, saved = {}, None
    for step in range(1, steps + 1):
        x, y = batch(step)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        at = f"step{step}."
        tensors[at + "input"], tensors[at + "target"] = x, y
        tensors[at + "loss"] = loss.detach()
        if clip:
            total = clip[0](model)
            if total is not None:
                tensors[at + "total_norm"] = total.detach().reshape(())
        for n, p in model.named_parameters():
            if p.grad is not None:
                tensors[at + "grad." + n] = p.grad.detach().clone()
        optimizer.step()
        for n, p in model.named_parameters():
            tensors[at + "param." + n] = p.detach().clone()
        for p, state in optimizer.state.items():
            for key, value in state.items():
                if torch.is_tensor(value):
                    tensors[f"{at}state.{names[p]}.{key}"] = \
                        value.detach().clone().float().reshape(value.shape)
        if step == RESUME_AT:
            saved = checkpoint(optimizer, names, step)
    return tensors, saved


def case_file(name):
    tensors, _ = train_case(name, STEPS)
    return safetensors_io.serialize(
        {k: v.contiguous() for k, v in tensors.items()})


# Cases trained RESUME_STEPS steps for the checkpoint test: nn trains
# RESUME_AT steps, saves the model and nn::optim's state_dict, restores
# both into fresh objects and trains on; it also resumes from PyTorch's own
# optimizer state after RESUME_AT steps, written in nn's layout.
RESUME_CASES = ["sgd_momentum_decay", "adam_amsgrad_decay", "adamw"]
RESUME_AT, RESUME_STEPS = 2, 4

# torch.optim's param_group keys -> nn::optim's option names (betas is
# two options there).
OPTIONS = {"lr": "lr", "momentum": "momentum", "dampening": "dampening",
           "weight_decay": "weight_decay", "nesterov": "nesterov",
           "maximize": "maximize", "eps": "eps", "amsgrad": "amsgrad"}


def checkpoint(optimizer, names, steps):
    """optimizer.state_dict() in nn::optim::Optimizer::state_dict's layout:
    tensors state.<param>.<key> and state.<param>.step (0-dim int64; SGD,
    which keeps no step count, took `steps`), metadata
    param_groups.<i>.<option> and param_groups.<i>.params (the names)."""
    tensors, metadata = {}, {}
    for p, state in optimizer.state.items():
        for key, value in state.items():
            if torch.is_tensor(value) and key != "step":
                tensors[f"state.{names[p]}.{key}"] = value.detach().clone()
        step = state.get("step", steps)
        tensors[f"state.{names[p]}.step"] = torch.tensor(int(step))
    for i, group in enumerate(optimizer.param_groups):
        at = f"param_groups.{i}."
        metadata[at + "params"] = ",".join(names[p] for p in group["params"])
        for key, value in group.items():
            if key == "betas":
                metadata[at + "beta1"] = repr(float(value[0]))
                metadata[at + "beta2"] = repr(float(value[1]))
            elif isinstance(value, bool) and key in OPTIONS:
                metadata[at + OPTIONS[key]] = str(int(value))
            elif key in OPTIONS:
                metadata[at + OPTIONS[key]] = repr(float(value))
    return safetensors_io.serialize(
        {k: v.contiguous() for k, v in tensors.items()}, metadata)


# name -> scheduler factory, stepped SCHEDULE_EPOCHS times over an SGD
# with two groups (lr 0.1 and 0.03).
SCHEDULERS = {
    "StepLR": lambda o: torch.optim.lr_scheduler.StepLR(o, 7, gamma=0.5),
    "MultiStepLR": lambda o: torch.optim.lr_scheduler.MultiStepLR(
        o, [3, 8, 8, 20], gamma=0.3),
    "ExponentialLR": lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(
        o, T_max=10, eta_min=0.001),
    "LinearLR": lambda o: torch.optim.lr_scheduler.LinearLR(
        o, start_factor=0.25, end_factor=1.0, total_iters=6),
}
SCHEDULE_EPOCHS = 25


def schedules():
    """Each scheduler's learning rates, [epochs + 1, groups] float64: row 0
    after construction, row k after the k-th step()."""
    tensors = {}
    for name, make in SCHEDULERS.items():
        w = torch.zeros(1, requires_grad=True)
        v = torch.zeros(1, requires_grad=True)
        optimizer = torch.optim.SGD([dict(params=[w], lr=0.1),
                                     dict(params=[v], lr=0.03)], lr=0.1)
        scheduler = make(optimizer)
        rows = [scheduler.get_last_lr()]
        for _ in range(SCHEDULE_EPOCHS):
            optimizer.step()
            scheduler.step()
            rows.append(scheduler.get_last_lr())
        tensors[name] = torch.tensor(rows, dtype=torch.float64)
    return safetensors_io.serialize(tensors)


# Every seed model but SimpleMLP (its 270k weights would make megabytes of
# goldens; DynamicNet above has its linear and relu layers), in eval mode
# (training mode for the BatchNorm models: batch statistics, deterministic,
# unlike dropout's masks), trained ZOO_STEPS steps of SGD on the loss
# sum(model(x)[0] · R), R seeded.
ZOO_MODELS = [name for name in EXAMPLE_INPUTS if name != "SimpleMLP"]
ZOO_STEPS = 2


def zoo_file(name):
    model = model_named(name).train(name in TRAIN_MODELS)
    params = list(model.parameters())
    # (PositionalEncoding has no parameters: its loss alone is compared.)
    optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.9,
                                weight_decay=1e-4) if params else None
    tensors = {}
    for step in range(1, ZOO_STEPS + 1):
        x = seeded_input(name, 500 + step)
        if optimizer:
            optimizer.zero_grad()
        out = model(x)
        out = out[0] if isinstance(out, tuple) else out
        g = torch.Generator().manual_seed(600 + step)
        weight = torch.randn(out.shape, generator=g)
        loss = (out * weight).sum()
        if optimizer:
            loss.backward()
        at = f"step{step}."
        tensors[at + "input"], tensors[at + "weight"] = x, weight
        tensors[at + "loss"] = loss.detach()
        for n, p in model.named_parameters():
            if p.grad is not None:
                tensors[at + "grad." + n] = p.grad.detach().clone()
        if optimizer:
            optimizer.step()
        for n, t in model.state_dict().items():
            tensors[at + "state." + n] = t.detach().clone()
    return safetensors_io.serialize(
        {k: v.contiguous() for k, v in tensors.items()})


# Backward hooks on DynamicNet (train mode, CrossEntropyLoss on batch(1)):
# one backward per case, its loss, every gradient and what the hooks saw,
# for tests/E2E/BackwardHookTest.cpp. A hook records grad_input and
# grad_output as seen.<k>.grad_input.<i> / .grad_output.<i>, k counting
# the calls in the order backward makes them (an undefined gradient, None,
# is left out). PyTorch 1.13 has no register_full_backward_pre_hook: the
# pre-hook case (nn scales output_linear's grad_output by 3) is made with
# what it amounts to for a one-output module, a hook on the output tensor
# registered by a forward hook.
def observe(seen):
    def hook(module, grad_input, grad_output):
        k = seen.setdefault("calls", 0)
        seen["calls"] = k + 1
        for what, grads in (("grad_input", grad_input),
                            ("grad_output", grad_output)):
            for i, g in enumerate(grads):
                if g is not None:
                    seen[f"seen.{k}.{what}.{i}"] = g.detach().clone()
        seen[f"seen.{k}.count"] = torch.tensor(
            [len(grad_input), len(grad_output)], dtype=torch.int64)
    return hook


def hook_observe(model, seen):
    model.middle[0].register_full_backward_hook(observe(seen))
    model.input_linear.register_full_backward_hook(observe(seen))


def hook_scale_grad_input(model, seen):
    model.middle[1].register_full_backward_hook(
        lambda m, gi, go: tuple(g * 0.5 for g in gi))


def hook_output(factor):
    """A forward hook that hooks the output's gradient: `factor` times it."""
    def hook(module, inputs, output):
        output.register_hook(lambda g: g * factor)
    return hook


def hook_pre_scale_grad_output(model, seen):
    model.output_linear.register_forward_hook(hook_output(3.0))


def hook_parameter(model, seen):
    model.middle[0].weight.register_hook(lambda g: g * 0.1)
    model.middle[0].weight.register_hook(lambda g: g.clamp(-0.01, 0.01))


def hook_intermediate(model, seen):
    model.middle[1].register_forward_hook(hook_output(2.0))


HOOK_CASES = {
    "observe": hook_observe,
    "scale_grad_input": hook_scale_grad_input,
    "pre_scale_grad_output": hook_pre_scale_grad_output,
    "parameter": hook_parameter,
    "intermediate": hook_intermediate,
}


def hook_file(name):
    model = model_named(MODEL).train()
    seen = {}
    HOOK_CASES[name](model, seen)
    x, y = batch(1)
    loss = torch.nn.CrossEntropyLoss()(model(x), y)
    loss.backward()
    tensors = {"input": x, "target": y, "loss": loss.detach()}
    for n, p in model.named_parameters():
        if p.grad is not None:
            tensors["grad." + n] = p.grad.detach().clone()
    tensors.update({k: v for k, v in seen.items() if k != "calls"})
    return safetensors_io.serialize(
        {k: v.contiguous() for k, v in tensors.items()})


# One step of each ZOO_OPTIMIZERS case per seed model with parameters, on
# the batch and loss weight of the SGD run's first step: parameters P in
# the model's order, two groups (P[:n/2] with lr 0.02 and momentum 0.9, the
# rest the optimizer's defaults), and for "groups_frozen" P[0] frozen
# (requires_grad false: no gradient, unchanged). The file holds the
# gradients and the state_dict after the step (state.<key>), and which
# parameters were frozen (frozen.<key>, a 0-dim marker).
def zoo_groups(params):
    half = len(params) // 2
    groups = [dict(params=params[half:])]
    if half:
        groups.insert(0, dict(params=params[:half], lr=0.02, momentum=0.9))
    return groups


ZOO_OPTIMIZERS = {
    "adam": lambda params: torch.optim.Adam(params, lr=1e-3),
    "adamw": lambda params: torch.optim.AdamW(params, lr=1e-3,
                                              weight_decay=0.01),
    "groups_frozen": lambda params: torch.optim.SGD(
        zoo_groups(params), lr=0.005, weight_decay=1e-4),
}


def zoo_has_parameters(name):
    return any(True for _ in model_named(name).parameters())


def zoo_optimizer_file(name, case):
    model = model_named(name).train(name in TRAIN_MODELS)
    params = list(model.parameters())
    names = {p: n for n, p in model.named_parameters()}
    frozen = []
    if case == "groups_frozen" and len(params) >= 2:
        params[0].requires_grad_(False)
        frozen.append(names[params[0]])
    optimizer = ZOO_OPTIMIZERS[case](params)
    x = seeded_input(name, 501)
    out = model(x)
    out = out[0] if isinstance(out, tuple) else out
    weight = torch.randn(out.shape, generator=torch.Generator().manual_seed(601))
    loss = (out * weight).sum()
    loss.backward()
    tensors = {"loss": loss.detach()}
    for n, p in model.named_parameters():
        if p.grad is not None:
            tensors["grad." + n] = p.grad.detach().clone()
    optimizer.step()
    for n, t in model.state_dict().items():
        tensors["state." + n] = t.detach().clone()
    for n in frozen:
        tensors["frozen." + n] = torch.zeros(())
    return safetensors_io.serialize(
        {k: v.contiguous() for k, v in tensors.items()})


def generate(out_dir):
    torch.set_num_threads(1)
    written = ["schedulers.safetensors"]
    os.makedirs(os.path.join(out_dir, "zoo"), exist_ok=True)
    for name in ZOO_MODELS:
        relative = os.path.join("zoo", name + ".safetensors")
        with open(os.path.join(out_dir, relative), "wb") as f:
            f.write(zoo_file(name))
        written.append(relative)
    for case in ZOO_OPTIMIZERS:
        os.makedirs(os.path.join(out_dir, "zoo", case), exist_ok=True)
        for name in ZOO_MODELS:
            if not zoo_has_parameters(name):
                continue
            relative = os.path.join("zoo", case, name + ".safetensors")
            with open(os.path.join(out_dir, relative), "wb") as f:
                f.write(zoo_optimizer_file(name, case))
            written.append(relative)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, written[0]), "wb") as f:
        f.write(schedules())
    for name in CASES:
        relative = os.path.join(MODEL, name + ".safetensors")
        os.makedirs(os.path.join(out_dir, MODEL), exist_ok=True)
        with open(os.path.join(out_dir, relative), "wb") as f:
            f.write(case_file(name))
        written.append(relative)
    os.makedirs(os.path.join(out_dir, MODEL, "hooks"), exist_ok=True)
    for name in HOOK_CASES:
        relative = os.path.join(MODEL, "hooks", name + ".safetensors")
        with open(os.path.join(out_dir, relative), "wb") as f:
            f.write(hook_file(name))
        written.append(relative)
    os.makedirs(os.path.join(out_dir, MODEL, "resume"), exist_ok=True)
    for name in RESUME_CASES:
        tensors, saved = train_case(name, RESUME_STEPS)
        relative = os.path.join(MODEL, "resume", name)
        with open(os.path.join(out_dir, relative + ".safetensors"), "wb") as f:
            f.write(safetensors_io.serialize(
                {k: v.contiguous() for k, v in tensors.items()}))
        with open(os.path.join(out_dir, relative + ".optimizer.safetensors"),
                  "wb") as f:
            f.write(saved)
        written += [relative + ".safetensors",
                    relative + ".optimizer.safetensors"]
    return written


def main():
    args = golden_cli.parser(__doc__, OUT).parse_args()
    return golden_cli.write_or_check(generate, args, "training goldens")


if __name__ == "__main__":
    sys.exit(main())
