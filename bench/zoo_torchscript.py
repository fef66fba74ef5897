#!/usr/bin/env python3
"""Writes the TorchScript files of the zoo rows of nn-bench (docs/benchmarks.md).

    python3 bench/zoo_torchscript.py <out-dir>

For each of torchvision 0.14's resnet18, mobilenet_v2 and vit_b_16 (full
size, eval mode), <out-dir>/<model>.pt is the model traced by
torch.jit.trace on one 224x224 image. The traced graph reads the batch size
from its input, so one file serves batch 1 and 8. The weights saved with it
do not matter: nn-bench overwrites every parameter and buffer with nn's
values by state_dict name before it runs or freezes the module, and checks
that the two sets of names are the same. <out-dir>/resnet18_train.pt is
resnet18 traced in training mode (batch norm normalizing with the batch's
statistics and updating the running ones), for the training row. A file
already present is kept.
"""
import os
import sys
import warnings

import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "vit_b_16": torchvision.models.vit_b_16,
}


def write(path, make, example):
    """Traces make() on `example` into `path`, unless the file is there."""
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    model = make()
    with torch.no_grad(), warnings.catch_warnings():
        # ViT's shape asserts become constants in the trace; the shapes
        # nn-bench runs are the traced ones but for the batch.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        traced = torch.jit.trace(model, example, check_trace=False)
    traced.save(path + ".tmp")
    os.replace(path + ".tmp", path)
    print(f"zoo_torchscript: wrote {path}")


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, make in MODELS.items():
        write(os.path.join(out, name + ".pt"), lambda: make().eval(),
              torch.zeros(1, 3, 224, 224))
    # Training mode traces batch norm with the batch's statistics; no_grad
    # while tracing records no autograd, and the traced graph is
    # differentiable when nn-bench runs it with grad on.
    write(os.path.join(out, "resnet18_train.pt"),
          lambda: torchvision.models.resnet18().train(),
          torch.randn(2, 3, 224, 224))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
