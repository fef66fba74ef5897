#!/usr/bin/python3
"""Generates the real-architecture goldens: torchvision's models and twins of
Hugging Face's GPT-2 and BERT (text_models.py), as printed, keyed and run by
PyTorch.

Run with the system interpreter (Debian's python3-torch and
python3-torchvision are importable only there):

    /usr/bin/python3 tests/reference/generate_architecture_goldens.py
    /usr/bin/python3 tests/reference/generate_architecture_goldens.py --check

examples/zoo/ writes the same models with nn under torchvision's module
names; tests/E2E/ZooTest.cpp compares them with these files. Under
tests/reference/goldens/architectures/<model>/:

  repr.txt              print(model): what nn's repr must be, byte for byte.
  keys.txt              model.state_dict(), one "key dtype [shape]" a line.
  outputs.safetensors   "output.<i>": the i-th output of model.eval() on
                        the eight images (or sequences) computed in
                        float64 and rounded to float32: the answer nn's
                        float32 outputs at batch 1 (the first) and 8 are
                        measured against. "batch<N>.output.<i>.pytorch_error"
                        (float64, [N]): how far PyTorch's own float32
                        output at batch N is from the float64 one, at most,
                        for each image or sequence: the error nn may make
                        twice of. Per image, as one model's outputs can
                        differ in size by 1000x between images (and its
                        error with them).

  train.safetensors     one forward and backward in training mode: every
                        batch norm normalizing with the batch's statistics
                        and updating its running ones, every other module in
                        eval mode (dropout's masks are not PyTorch's), on
                        two images or sequences, of loss = sum(output.0 * R) with R =
                        uniform("train.R"). As the gradients of a whole
                        network would be tens of megabytes, each is kept as
                        two float64 summaries, in named_parameters order
                        (metadata "parameters": those with a gradient): "grad.dot" = sum(g * P),
                        P = uniform("train.<name>"), and "grad.norm" =
                        |g|_2; the updated running statistics likewise
                        ("buffer.dot", "buffer.norm", metadata "buffers"),
                        and "loss". Each is the float64 answer, with
                        "<key>.pytorch_error": how far PyTorch's float32
                        run is from it.

Every weight and the input (images or token ids) are the deterministic
values of deterministic_values.py, which tests/E2E/ZooWeights.h computes bit for bit
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
import text_models  # noqa: E402

GOLDENS = os.path.join(HERE, "goldens", "architectures")

# Each model: its constructor, the gain of its weights
# (deterministic_values.py) and its input at batch 8: ImageNet's 224x224 RGB
# images for torchvision's, 16 token ids for the text models.
IMAGES = ("images", (8, 3, 224, 224))
MODELS = {
    # torchvision 0.14's constructors with their default options.
    "resnet18": (torchvision.models.resnet18, 3.0, IMAGES),
    "resnet50": (torchvision.models.resnet50, 3.0, IMAGES),
    "mobilenet_v2": (torchvision.models.mobilenet_v2, 6.0, IMAGES),
    "squeezenet1_1": (torchvision.models.squeezenet1_1, 6.0, IMAGES),
    "efficientnet_b0": (torchvision.models.efficientnet_b0, 6.0, IMAGES),
    # ViT-B/16 with 2 of its 12 encoder layers (the same shapes: 197
    # tokens of 768, 12 heads, MLPs of 3072), a sixth of its compute.
    "vit_b_16_2_layers": (
        lambda: torchvision.models.VisionTransformer(224, 16, 2, 12, 768,
                                                     3072), 3.0, IMAGES),
    # GPT-2 small and BERT-base with 2 of their 12 layers (the same widths
    # and heads); GPT-2 with 2048 of its 50257 tokens, or the logits alone
    # would be a 26 MB golden.
    "gpt2_2_layers": (
        lambda: text_models.GPT2LMHeadModel(vocab_size=2048, n_layer=2), 3.0,
        ("tokens", (8, 16), 2048)),
    "bert_base_2_layers": (lambda: text_models.BertModel(layers=2), 3.0,
                           ("tokens", (8, 16), 30522)),
}


# The training case's input: two images or sequences. (At 224x224 the last
# stages' batch norms average 2x7x7 values per channel; smaller images leave
# them so few that float32's gradients lose most of their digits.)
TRAIN_INPUTS = {name: ("images", (2, 3, 224, 224)) if spec[0] == "images"
                else ("tokens", (2,) + spec[1][1:], spec[2])
                for name, (_, _, spec) in MODELS.items()}


def example_input(spec):
    if spec[0] == "images":
        return deterministic_values.images(spec[1])
    return deterministic_values.token_ids(spec[1], spec[2])


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def keys_text(state):
    lines = []
    for key, tensor in state.items():
        dtype = str(tensor.dtype).replace("torch.", "")
        lines.append(f"{key} {dtype} {list(tensor.shape)}\n")
    return "".join(lines)


def train_mode(model):
    """Batch norms train (batch statistics, running ones updated); the rest
    evaluates, so dropout is off."""
    model.eval()
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.train()
    return model


def summaries(named, prefix):
    """(dot, norm) per tensor of `named`, in float64."""
    dots, norms = [], []
    for name, tensor in named:
        t = tensor.double()
        pattern = deterministic_values.uniform(prefix + name, t.shape).double()
        dots.append((t * pattern).sum())
        norms.append(t.norm())
    if not dots:
        return torch.zeros(0, dtype=torch.float64), torch.zeros(
            0, dtype=torch.float64)
    return torch.stack(dots), torch.stack(norms)


def train_run(make, gain, spec, dtype):
    """loss, gradient and running-statistic summaries of one training-mode
    forward and backward, in `dtype`."""
    model = make()
    model.load_state_dict(
        deterministic_values.state_dict_like(model.state_dict(), gain))
    train_mode(model).to(dtype)
    inputs = example_input(spec)
    if inputs.is_floating_point():
        inputs = inputs.to(dtype)
    out = as_tuple(model(inputs))[0]
    weight = deterministic_values.uniform("train.R", out.shape).to(dtype)
    loss = (out * weight).sum()
    loss.backward()
    # A parameter the loss does not reach (BERT's pooler: output.1 only)
    # has no gradient, None as in PyTorch.
    params = [(n, p.grad) for n, p in model.named_parameters()
              if p.grad is not None]
    buffers = [(n, b) for n, b in model.named_buffers()
               if n.endswith("running_mean") or n.endswith("running_var")]
    return ([n for n, _ in params], [n for n, _ in buffers], list(out.shape),
            loss.double(),
            summaries(params, "train."), summaries(buffers, "train."))


def train_golden(make, gain, spec):
    names, buffer_names, shape, loss, grads, stats = train_run(
        make, gain, spec, torch.float64)
    _, _, _, loss32, grads32, stats32 = train_run(make, gain, spec,
                                                  torch.float32)
    values = {"loss": (loss.reshape(1), loss32.reshape(1))}
    for kind, answer, ours in (("grad", grads, grads32),
                               ("buffer", stats, stats32)):
        values[kind + ".dot"] = (answer[0], ours[0])
        values[kind + ".norm"] = (answer[1], ours[1])
    tensors = {}
    for key, (answer, ours) in values.items():
        tensors[key] = answer.detach()
        tensors[key + ".pytorch_error"] = (ours - answer).abs().detach()
    return tensors, {"parameters": ",".join(names),
                     "buffers": ",".join(buffer_names),
                     "output_shape": ",".join(map(str, shape))}


def generate(out):
    torch.set_num_threads(1)
    written = []
    for name, (make, gain, spec) in MODELS.items():
        model = make()
        model.load_state_dict(
            deterministic_values.state_dict_like(model.state_dict(), gain))
        model.eval()
        inputs = example_input(spec)
        texts = (("repr.txt", str(model) + "\n"),
                 ("keys.txt", keys_text(model.state_dict())))
        with torch.no_grad():
            single = as_tuple(model(inputs[:1]))
            batch = as_tuple(model(inputs))
            model.double()
            if inputs.is_floating_point():
                inputs = inputs.double()
            exact = as_tuple(model(inputs))
        outputs = {}
        for i, answer in enumerate(exact):
            outputs[f"output.{i}"] = answer.float()
            for b, ours in ((1, single[i]), (8, batch[i])):
                error = (ours.double() - answer[:b]).abs().reshape(b, -1)
                outputs[f"batch{b}.output.{i}.pytorch_error"] = (
                    error.max(dim=1).values)
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
        tensors, metadata = train_golden(make, gain, TRAIN_INPUTS[name])
        safetensors_io.save_file(tensors,
                                 os.path.join(folder, "train.safetensors"),
                                 metadata)
        written.append(os.path.join(name, "train.safetensors"))
    return written


def main():
    args = golden_cli.parser(__doc__, GOLDENS).parse_args()
    # PyTorch's float32 error on a whole deep network is a measurement of
    # the CPU's kernels (another CPU's can be half or twice as large); the
    # outputs, float64 answers rounded to float32, pin the generator.
    def tolerance_of(name):
        if name.endswith(".pytorch_error"):
            # A training case's gradients (through up to 50 batch norms)
            # lose more digits, and how many varies more from CPU to CPU.
            if name.startswith(("grad.", "buffer.", "loss")):
                return {"rtol": 10.0, "atol": 1e-3}
            return {"rtol": 1.0, "atol": 1e-3}
        return None

    return golden_cli.write_or_check(generate, args,
                                     "the architecture goldens", tolerance_of)


if __name__ == "__main__":
    sys.exit(main())
