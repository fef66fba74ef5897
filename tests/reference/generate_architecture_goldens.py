#!/usr/bin/python3
"""Generates the real-architecture goldens: torchvision's models, as printed,
keyed and run by PyTorch.

Run with the system interpreter (Debian's python3-torch and
python3-torchvision are importable only there):

    /usr/bin/python3 tests/reference/generate_architecture_goldens.py
    /usr/bin/python3 tests/reference/generate_architecture_goldens.py --check

examples/zoo/ writes the same models with nn under torchvision's module
names; tests/E2E/ZooTest.cpp compares them with these files. Under
tests/reference/goldens/architectures/<model>/:

  repr.txt              print(model): what nn's repr must be, byte for byte.
  keys.txt              model.state_dict(), one "key dtype [shape]" a line.
  outputs.safetensors   model.eval() on the first image of the input
                        ("batch1") and on all eight ("batch8"), and the
                        same in float64 ("batch1.float64", ...): the exact
                        answer that nn's float32 error and PyTorch's are
                        measured from.

Every weight and the input are the deterministic values of
deterministic_values.py, which tests/E2E/ZooWeights.h computes bit for bit
alike from the same keys, so no weights file is committed (resnet18's
would be 45 MB): the C++ test fills its model by state_dict key and loads
nothing but these outputs.
"""

import os
import sys

import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import deterministic_values  # noqa: E402
import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402

GOLDENS = os.path.join(HERE, "goldens", "architectures")

# torchvision 0.14's constructors with their default options, and the gain
# of their weights (deterministic_values.py); the input every model takes
# (ImageNet's 224x224 RGB) at batch 8.
MODELS = {
    "resnet18": (torchvision.models.resnet18, 3.0),
    "resnet50": (torchvision.models.resnet50, 3.0),
    "mobilenet_v2": (torchvision.models.mobilenet_v2, 6.0),
    "squeezenet1_1": (torchvision.models.squeezenet1_1, 6.0),
    "efficientnet_b0": (torchvision.models.efficientnet_b0, 6.0),
    # ViT-B/16 with 2 of its 12 encoder layers (the same shapes: 197
    # tokens of 768, 12 heads, MLPs of 3072), a sixth of its compute.
    "vit_b_16_2_layers": (
        lambda: torchvision.models.VisionTransformer(224, 16, 2, 12, 768,
                                                     3072), 3.0),
}
INPUT_SHAPE = (8, 3, 224, 224)


def keys_text(state):
    lines = []
    for key, tensor in state.items():
        dtype = str(tensor.dtype).replace("torch.", "")
        lines.append(f"{key} {dtype} {list(tensor.shape)}\n")
    return "".join(lines)


def generate(out):
    torch.set_num_threads(1)
    written = []
    for name, (make, gain) in MODELS.items():
        model = make()
        model.load_state_dict(
            deterministic_values.state_dict_like(model.state_dict(), gain))
        model.eval()
        images = deterministic_values.images(INPUT_SHAPE)
        texts = (("repr.txt", str(model) + "\n"),
                 ("keys.txt", keys_text(model.state_dict())))
        with torch.no_grad():
            outputs = {"batch1": model(images[:1]), "batch8": model(images)}
            model.double()
            outputs["batch1.float64"] = model(images[:1].double())
            outputs["batch8.float64"] = model(images.double())
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        for file, text in texts:
            with open(os.path.join(folder, file), "w") as f:
                f.write(text)
            written.append(os.path.join(name, file))
        safetensors_io.save_file(
            {k: v.contiguous() for k, v in outputs.items()},
            os.path.join(folder, "outputs.safetensors"))
        written.append(os.path.join(name, "outputs.safetensors"))
    return written


def main():
    args = golden_cli.parser(__doc__, GOLDENS).parse_args()
    # PyTorch's float32 output of a whole deep network moves between CPUs'
    # kernels by up to its own float32 error (3.4e-4 for mobilenet_v2); the
    # float64 outputs, checked at float64's tolerance, pin the generator.
    return golden_cli.write_or_check(generate, args,
                                     "the architecture goldens",
                                     float32_tolerance={"rtol": 1e-3,
                                                        "atol": 1e-3})


if __name__ == "__main__":
    sys.exit(main())
