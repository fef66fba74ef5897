#!/usr/bin/python3
"""Generates the module-tree goldens: PyTorch's view of nn's seed models.

Run with the system interpreter (Debian's python3-torch is importable only
there):

    /usr/bin/python3 tests/reference/generate_module_goldens.py          # rewrite
    /usr/bin/python3 tests/reference/generate_module_goldens.py --check  # compare
    /usr/bin/python3 tests/reference/generate_module_goldens.py --load-nn DIR

Each model below is the PyTorch twin of a C++ model in examples/models/
(same class name, same registration order). For each one, under
tests/reference/goldens/modules/:

  <Model>.json         {"model", "weights", "repr", "state_dict":
                        [{"name", "shape", "dtype"}], "named_parameters":
                        [{"name", "requires_grad"}], "named_buffers",
                        "named_modules"} in PyTorch's order, repr as
                        print(model) shows it
  <Model>.safetensors  the model's state_dict (torch.manual_seed(0)), tied
                        tensors under every name; "weights" is its path
                        relative to goldens/. SimpleMLP's is the
                        simple_mlp/weights.safetensors that
                        generate_goldens.py writes (the same tensors).

tests/Unit/Frontend/ModelGoldenTest.cpp builds each C++ twin, compares it
with the JSON and loads the safetensors strictly.

--load-nn DIR is the other direction: DIR holds <Model>.safetensors files
that nn wrote (tests/Unit/Frontend/write_module_samples.cpp); each must load
into its twin with load_state_dict(strict=True), give back the file's values
from state_dict(), and keep the twin's ties.

Also written: conversions/float_casts.safetensors, float32 and float64
samples with torch's casts of them to the other floating-point dtypes, which
tests/Unit/Runtime/TensorConversionTest.cpp compares with Tensor::to bit for
bit. (NaN is left out: torch's vectorized and scalar casts to bfloat16
disagree about its bits.)
"""

import json
import math
import os
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
# Leave no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402
from generate_goldens import SimpleMLP  # noqa: E402

GOLDENS = os.path.join(HERE, "goldens")


# --- The seed models ---------------------------------------------------------
# Keep each in step with its C++ twin in examples/models/.


class TwoBranchModel(nn.Module):
    """Two Linear branches of one input, summed."""

    def __init__(self):
        super().__init__()
        self.left = nn.Linear(16, 8)
        self.right = nn.Linear(16, 8)

    def forward(self, x):
        return self.left(x) + self.right(x)


class MultiHeadModel(nn.Module):
    """A shared trunk, then one Linear head and one offset per task."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.heads = nn.ModuleDict([("classify", nn.Linear(32, 10)),
                                    ("regress", nn.Linear(32, 1))])
        # A list of pairs keeps this order (a plain dict is sorted in 1.13).
        self.offsets = nn.ParameterDict([
            ("classify", nn.Parameter(torch.randn(10))),
            ("regress", nn.Parameter(torch.randn(1)))])

    def forward(self, x):
        h = self.trunk(x)
        return tuple(self.heads[k](h) + self.offsets[k] for k in self.heads)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.act = nn.ReLU()
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(self.act(self.fc(x)))


class BlockStack(nn.Module):
    """A ModuleList of residual blocks, each with its own shift."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(16) for _ in range(3)])
        self.shifts = nn.ParameterList(
            [nn.Parameter(torch.randn(16)) for _ in range(3)])
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        for block, shift in zip(self.blocks, self.shifts):
            x = x + block(x) + shift
        return self.head(x)


class PositionalEncoding(nn.Module):
    """Sinusoidal encodings (a persistent buffer) and position ids (a
    non-persistent int64 buffer)."""

    def __init__(self, d_model=16, max_len=8):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) *
                             (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)
        self.register_buffer("position_ids", torch.arange(max_len),
                             persistent=False)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(x + self.pe)


class TiedModel(nn.Module):
    """The decoder's weight is the encoder's (weight tying)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 16)
        self.decoder = nn.Linear(16, 16)
        self.decoder.weight = self.encoder.weight

    def forward(self, x):
        return self.decoder(torch.relu(self.encoder(x)))


class DynamicNet(nn.Module):
    """PyTorch's classic weight-sharing net: the middle layers are reused a
    fixed (data-independent) number of times."""

    def __init__(self, repeats=3):
        super().__init__()
        self.repeats = repeats
        self.input_linear = nn.Linear(8, 16)
        self.middle = nn.ModuleList([nn.Linear(16, 16), nn.Linear(16, 16)])
        self.output_linear = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.input_linear(x))
        for i in range(self.repeats):
            h = torch.relu(self.middle[i % len(self.middle)](h))
        return self.output_linear(h)


class MyLinear(nn.Module):
    """A hand-written Linear; bias=False registers an empty bias slot."""

    def __init__(self, in_features=4, out_features=3, bias=False):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features))
        else:
            self.register_parameter("bias", None)
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            nn.init.uniform_(self.bias, -1 / math.sqrt(in_features),
                             1 / math.sqrt(in_features))

    def forward(self, x):
        return nn.functional.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return "in_features={}, out_features={}, bias={}".format(
            self.in_features, self.out_features, self.bias is not None)


class LSTMClassifier(nn.Module):
    """A two-layer batch-first LSTM read at its last step by a Linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        output, _ = self.lstm(x)
        return self.head(output[:, -1])



class TransformerBlock(nn.Module):
    """Post-norm self-attention and GELU feed-forward, with residuals."""

    def __init__(self, d_model, nhead, dim_feedforward):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, dim_feedforward), nn.GELU(),
                                nn.Linear(dim_feedforward, d_model))
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x):
        x = self.norm1(x + self.attn(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.ff(x))


class TransformerStack(nn.Module):
    """Two TransformerBlocks in a ModuleList, then a Linear head."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([TransformerBlock(16, 4, 32) for _ in range(2)])
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class TiedEmbeddingLM(nn.Module):
    """Embedding, a causal TransformerEncoderLayer, LayerNorm, and a head
    tied to the embedding."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(32, 16)
        self.encoder = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32,
                                                  batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 32, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("causal_mask", torch.triu(
            torch.full((7, 7), float("-inf")), diagonal=1), persistent=False)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens), src_mask=self.causal_mask)
        return self.head(self.norm(h))



def conv3x3(in_channels, out_channels):
    return nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)


class ResidualBlock(nn.Module):
    """torchvision's BasicBlock without downsampling."""

    def __init__(self, channels=8):
        super().__init__()
        self.conv1 = conv3x3(channels, channels)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.conv2 = conv3x3(channels, channels)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + x)


class ResNet(nn.Module):
    """Stem, two residual blocks, global average pooling, linear head."""

    def __init__(self, channels=8, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(conv3x3(3, channels),
                                  nn.BatchNorm2d(channels), nn.ReLU())
        self.layer1 = ResidualBlock(channels)
        self.layer2 = ResidualBlock(channels)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x):
        return self.fc(self.flatten(self.pool(self.layer2(self.layer1(
            self.stem(x))))))


class ConvNet(nn.Module):
    """Conv, BatchNorm, ReLU, max-pool, bilinear upsample, strided conv,
    flatten, linear: one Sequential."""

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Upsample(scale_factor=2.0, mode="bilinear",
                        align_corners=False),
            nn.Conv2d(8, 4, 3, stride=2, padding=1), nn.Flatten(),
            nn.Linear(64, 10))

    def forward(self, x):
        return self.layers(x)


MODELS = [SimpleMLP, TwoBranchModel, MultiHeadModel, BlockStack,
          PositionalEncoding, TiedModel, DynamicNet, MyLinear, LSTMClassifier,
          TransformerStack, TiedEmbeddingLM, ResNet, ConvNet]


# --- Goldens -----------------------------------------------------------------


def weights_of(name):
    """Where a model's state_dict golden is, relative to goldens/."""
    if name == "SimpleMLP":
        return "simple_mlp/weights.safetensors"  # by generate_goldens.py
    return f"modules/{name}.safetensors"


def describe(model):
    """What the C++ twin must reproduce, in PyTorch's order."""
    name = type(model).__name__
    return {
        "model": name,
        "weights": weights_of(name),
        "repr": repr(model),
        "state_dict": [
            {"name": k, "shape": list(v.shape),
             "dtype": safetensors_io.TORCH_TO_SAFETENSORS[v.dtype]}
            for k, v in model.state_dict().items()],
        "named_parameters": [
            {"name": k, "requires_grad": p.requires_grad}
            for k, p in model.named_parameters()],
        "named_buffers": [k for k, _ in model.named_buffers()],
        "named_modules": [k for k, _ in model.named_modules()],
    }


def state_of(model):
    """The state_dict as independent contiguous tensors (tied ones copied)."""
    return {k: v.detach().clone().contiguous()
            for k, v in model.state_dict().items()}


def float_casts():
    """float32 and float64 samples and torch's casts of them."""
    g = torch.Generator().manual_seed(0)
    edges = [0.0, -0.0, 1.0, -1.5, 65504.0, 65519.99, 65520.0, 1e6, -1e30,
             2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -25, 1e-40,
             1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8,
             1 + 3 * 2.0 ** -8, 3.4028234663852886e38, math.inf, -math.inf]
    f32 = torch.cat([torch.tensor(edges, dtype=torch.float32),
                     torch.randn(200, generator=g) * 100,
                     torch.randn(200, generator=g) * 1e-5])
    f64 = torch.cat([torch.tensor(edges, dtype=torch.float64),
                     torch.tensor([1 + 2.0 ** -11 + 2.0 ** -40,
                                   1 + 2.0 ** -8 + 2.0 ** -40],
                                  dtype=torch.float64),
                     torch.randn(200, generator=g, dtype=torch.float64)])
    return {
        "f32": f32,
        "f32_to_f16": f32.to(torch.float16),
        "f32_to_bf16": f32.to(torch.bfloat16),
        "f32_to_f64": f32.to(torch.float64),
        "f64": f64,
        "f64_to_f32": f64.to(torch.float32),
        "f64_to_f16": f64.to(torch.float16),
        "f64_to_bf16": f64.to(torch.bfloat16),
    }


def generate(out_dir):
    """Writes every golden under out_dir; returns their relative paths."""
    torch.set_num_threads(1)
    written = []

    def path_of(relative):
        path = os.path.join(out_dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        written.append(relative)
        return path

    for cls in MODELS:
        torch.manual_seed(0)
        model = cls()
        name = cls.__name__
        with open(path_of(f"modules/{name}.json"), "w",
                  encoding="utf-8") as f:
            json.dump(describe(model), f, indent=1, ensure_ascii=False)
            f.write("\n")
        if weights_of(name) == f"modules/{name}.safetensors":
            safetensors_io.save_file(state_of(model),
                                     path_of(weights_of(name)),
                                     {"format": "pt"})
    safetensors_io.save_file(float_casts(),
                             path_of("conversions/float_casts.safetensors"))
    return written


# --- Files nn wrote ----------------------------------------------------------


def load_nn_files(directory):
    """Loads every model's file from directory into its twin; returns the
    problems found."""
    errors = []
    for cls in MODELS:
        name = cls.__name__
        path = os.path.join(directory, f"{name}.safetensors")
        try:
            with open(path, "rb") as f:
                tensors, metadata = safetensors_io.load(f.read())
        except (OSError, safetensors_io.SafetensorError) as e:
            errors.append(f"{path}: {e}")
            continue
        if metadata != {"format": "pt", "model": name}:
            errors.append(f"{path}: metadata {metadata!r}")
        torch.manual_seed(1)  # values differ from the file's until loaded
        model = cls()
        try:
            model.load_state_dict(tensors, strict=True)
        except RuntimeError as e:
            errors.append(f"{path}: {e}")
            continue
        for key, value in model.state_dict().items():
            if not torch.equal(value, tensors[key]):
                errors.append(f"{path}: {key} differs after loading")
        if list(tensors) != safetensors_io.layout_order(tensors):
            errors.append(f"{path}: tensors not in safetensors.torch's order")
        if isinstance(model, TiedModel):
            if model.decoder.weight is not model.encoder.weight:
                errors.append(f"{path}: loading untied the model")
            if not torch.equal(tensors["encoder.weight"],
                               tensors["decoder.weight"]):
                errors.append(f"{path}: the tied keys hold different values")
        if isinstance(model, TiedEmbeddingLM):
            if model.head.weight is not model.embed.weight:
                errors.append(f"{path}: loading untied the model")
    return errors


def main():
    parser = golden_cli.parser(__doc__, GOLDENS)
    parser.add_argument("--load-nn", metavar="DIR",
                        help="load the files nn wrote into DIR into the "
                             "PyTorch twins, strictly")
    args = parser.parse_args()
    if args.load_nn:
        errors = load_nn_files(args.load_nn)
        for error in errors:
            print(error, file=sys.stderr)
        if errors:
            return 1
        print(f"{len(MODELS)} models written by nn load strictly into "
              f"PyTorch {torch.__version__}")
        return 0
    return golden_cli.write_or_check(generate, args, "module goldens")


if __name__ == "__main__":
    sys.exit(main())
