#!/usr/bin/python3
"""Generates the model-zoo goldens: PyTorch's forward of every seed model.

Run with the system interpreter (Debian's python3-torch is importable only
there):

    /usr/bin/python3 tests/reference/generate_zoo_goldens.py          # rewrite
    /usr/bin/python3 tests/reference/generate_zoo_goldens.py --check  # compare

tests/E2E/aot_seed_model.py drives each case through the real tools
(nn-trace-seed-model, nn-compile, nn-run) and compares with these files, so
every file is laid out as nn-run reads or writes it. Under
tests/reference/goldens/zoo/<Model>/:

  eval/inputs.safetensors, eval/outputs.safetensors
                        the example input ("input.0", the shape SeedModels.h
                        traces with) and model.eval()(input) ("output.0", …).
  train/step<N>/inputs.safetensors, outputs.safetensors, state.safetensors
                        for models with BatchNorm: N = 1, 2 forwards in
                        training mode, each followed by the whole state_dict
                        (the updated running_mean / running_var /
                        num_batches_tracked) as nn-run --state-out writes it.

And under goldens/zoo/hooks/<case>/ (inputs, outputs), the ResNet's eval
forward with hooks registered on the twin, mirrored by the
nn-trace-seed-model options named in HOOK_CASES.

Weights are the module goldens (torch.manual_seed(0)): PyTorch's own
state_dict() files, which a compiled model binds as they are (it carries the
non-persistent buffers no state_dict holds). Inputs come from a generator
seeded per case, so adding a case changes no other file.
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402
from generate_module_goldens import (GOLDENS, MODELS, weights_of)  # noqa: E402

# The example input of each seed model, as examples/models/SeedModels.h
# traces it: (shape, dtype, high) with high the exclusive bound of integer
# token ids.
EXAMPLE_INPUTS = {
    "SimpleMLP": ((2, 784), torch.float32, None),
    "TwoBranchModel": ((2, 16), torch.float32, None),
    "MultiHeadModel": ((2, 16), torch.float32, None),
    "BlockStack": ((2, 16), torch.float32, None),
    "PositionalEncoding": ((8, 16), torch.float32, None),
    "TiedModel": ((2, 16), torch.float32, None),
    "DynamicNet": ((2, 8), torch.float32, None),
    "MyLinear": ((2, 4), torch.float32, None),
    "LSTMClassifier": ((2, 5, 8), torch.float32, None),
    "TransformerStack": ((2, 5, 16), torch.float32, None),
    "TiedEmbeddingLM": ((2, 7), torch.int64, 32),
    "ResNet": ((2, 3, 8, 8), torch.float32, None),
    "ConvNet": ((2, 3, 8, 8), torch.float32, None),
}

# Models compared in training mode too: those whose training forward is
# deterministic and differs from eval (BatchNorm; Dropout is random).
TRAIN_MODELS = ["ResNet", "ConvNet"]
TRAIN_STEPS = 2

# Hook cases on the ResNet: name -> (the nn-trace-seed-model options that
# register the same hooks on the C++ twin, the input scale). Keep the hooks
# below in step with examples/trace-seed-model/main.cpp.
HOOK_CASES = {
    # The root's forward pre-hook clamps the input to ±10; the input is
    # scaled so that a fifth of it lies outside.
    "restrict_input": (["--restrict-input", "10"], 8.0),
    # layer1's forward hook replaces its output by half of it.
    "scale_output": (["--scale-output", "layer1=0.5"], 1.0),
    # features["block2"] = layer2's output, an extra named output.
    "capture": (["--capture", "block2=layer2"], 1.0),
}


if set(EXAMPLE_INPUTS) != {cls.__name__ for cls in MODELS}:
    raise SystemExit("EXAMPLE_INPUTS and generate_module_goldens.MODELS "
                     "name different models")


def seeded_input(name, seed, scale=1.0):
    shape, dtype, high = EXAMPLE_INPUTS[name]
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.int64:
        return torch.randint(0, high, shape, generator=g, dtype=dtype)
    return torch.randn(shape, generator=g, dtype=dtype) * scale


def model_named(name):
    """The twin with the module golden's weights loaded, strictly."""
    cls = next(c for c in MODELS if c.__name__ == name)
    torch.manual_seed(0)
    model = cls()
    weights = safetensors_io.load_file(os.path.join(GOLDENS, weights_of(name)))
    model.load_state_dict(weights, strict=True)
    return model


def forward(model, x):
    """model(x) as output.0, output.1, … (tuples flattened) plus the
    captured features by name. Autograd stays on so that PyTorch 1.13 runs
    its plain attention path, not the fused inference fast path."""
    with torch.enable_grad():
        result = model(x)
    results = result if isinstance(result, tuple) else (result,)
    return {f"output.{i}": r.detach().contiguous()
            for i, r in enumerate(results)}


def register_hooks(model, case, features):
    """The hooks of HOOK_CASES[case] on the PyTorch twin."""
    if case == "restrict_input":
        def restrict_input(module, inputs):
            return (inputs[0].clamp(-10.0, 10.0),)
        return model.register_forward_pre_hook(restrict_input)
    if case == "scale_output":
        return model.layer1.register_forward_hook(
            lambda module, inputs, output: output * 0.5)
    if case == "capture":
        def capture(module, inputs, output):
            features["block2"] = output.detach().contiguous()
        return model.layer2.register_forward_hook(capture)
    raise ValueError(case)


def generate(out_dir):
    """Writes every golden under out_dir; returns their relative paths."""
    torch.set_num_threads(1)
    written = []

    def save(relative, tensors):
        path = os.path.join(out_dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        safetensors_io.save_file(tensors, path)
        written.append(relative)

    for seed, name in enumerate(EXAMPLE_INPUTS):
        model = model_named(name)
        x = seeded_input(name, seed)
        save(f"zoo/{name}/eval/inputs.safetensors", {"input.0": x})
        save(f"zoo/{name}/eval/outputs.safetensors", forward(model.eval(), x))
        if name not in TRAIN_MODELS:
            continue
        model.train()
        for step in range(1, TRAIN_STEPS + 1):
            x = seeded_input(name, 100 * step + seed)
            at = f"zoo/{name}/train/step{step}"
            save(f"{at}/inputs.safetensors", {"input.0": x})
            save(f"{at}/outputs.safetensors", forward(model, x))
            save(f"{at}/state.safetensors",
                 {k: v.detach().clone().contiguous()
                  for k, v in model.state_dict().items()})

    for seed, (case, (_, scale)) in enumerate(HOOK_CASES.items()):
        model = model_named("ResNet").eval()
        features = {}
        handle = register_hooks(model, case, features)
        x = seeded_input("ResNet", 1000 + seed, scale)
        outputs = forward(model, x)
        outputs.update(features)
        handle.remove()
        save(f"zoo/hooks/{case}/inputs.safetensors", {"input.0": x})
        save(f"zoo/hooks/{case}/outputs.safetensors", outputs)
    return written


def main():
    args = golden_cli.parser(__doc__, GOLDENS).parse_args()
    return golden_cli.write_or_check(generate, args, "zoo goldens")


if __name__ == "__main__":
    sys.exit(main())
