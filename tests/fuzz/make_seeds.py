#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/).

The seeds are the shapes of input the readers' tests cover, valid and
malformed, small enough for libFuzzer to mutate: safetensors files,
artifact descriptions and nn modules. The corpora are committed; run this
again only to change them. Files libFuzzer finds that crashed a target go
into the same folders once fixed, so the suite replays them.
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def corpus(name):
    path = os.path.join(HERE, "corpus", name)
    os.makedirs(path, exist_ok=True)
    return path


def write(folder, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def safetensors(header, data=b"", pad=True):
    text = header if isinstance(header, bytes) else json.dumps(
        header, separators=(",", ":")).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    out = corpus("nn-fuzz-safetensors")
    f32 = struct.pack("<6f", 1, 2, 3, 4, 5, 6)
    seeds = {
        "valid_f32": safetensors(
            {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}},
            f32),
        "valid_metadata_and_dtypes": safetensors(
            {"__metadata__": {"format": "pt"},
             "a": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]},
             "b": {"dtype": "BF16", "shape": [2], "data_offsets": [8, 12]},
             "c": {"dtype": "BOOL", "shape": [4], "data_offsets": [12, 16]},
             "z": {"dtype": "F32", "shape": [0, 3], "data_offsets": [16, 16]}},
            struct.pack("<q", 7) + b"\x80\x3f\x00\x40" + b"\x01\x00\x01\x00"),
        "scalar": safetensors(
            {"s": {"dtype": "F64", "shape": [], "data_offsets": [0, 8]}},
            struct.pack("<d", 0.5)),
        "truncated_length": b"\x10\x00\x00",
        "header_longer_than_file": struct.pack("<Q", 1 << 40) + b"{}",
        "bad_json": safetensors(b'{"w":{"dtype":"F32",}}'),
        "duplicate_key": safetensors(
            b'{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
            b'"w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"ab"),
        "offsets_gap": safetensors(
            {"w": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}},
            b"ab"),
        "shape_overflow": safetensors(
            {"w": {"dtype": "F32", "shape": [4294967296, 4294967296],
                   "data_offsets": [0, 4]}}, b"abcd"),
        "unknown_dtype": safetensors(
            {"w": {"dtype": "F31", "shape": [1], "data_offsets": [0, 4]}},
            b"abcd"),
        "deep_nesting": safetensors(b'{"__metadata__":' + b"[" * 100 +
                                    b"]" * 100 + b"}"),
        "zip_pickle": b"PK\x03\x04" + b"\x00" * 60,
        "pickle_stream": b"\x80\x02}q\x00." + b"\x00" * 8,
        "unpadded": safetensors(
            {"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}},
            b"x", pad=False),
        "negative_dim": safetensors(
            {"w": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 1]}},
            b"x"),
    }
    for name, data in seeds.items():
        write(out, name, data)


def description_seeds():
    out = corpus("nn-fuzz-description")
    tensor = {"name": "input.0", "shape": [2, 4], "dtype": "F32"}
    full = {
        "abi_version": 2,
        "state": [{"name": "fc.weight", "shape": [3, 4], "dtype": "F32",
                   "kind": "parameter", "persistent": True,
                   "requires_grad": True, "aliases": ["head.weight"],
                   "argument": True},
                  {"name": "bn.running_mean", "shape": [3], "dtype": "F32",
                   "kind": "buffer", "persistent": True,
                   "requires_grad": False, "aliases": [], "argument": True,
                   "embedded": True, "starts_at_zero": True}],
        "inputs": [tensor,
                   {"name": "tokens", "shape": [2, 5], "dtype": "I64",
                    "index_checks": [{"op": "embedding", "where": "embed",
                                      "high": 10, "ignore": 0}]},
                   {"name": "lr", "shape": [], "dtype": "F32",
                    "default": 0.001}],
        "outputs": [{"name": "output.0", "shape": [2, 3], "dtype": "F32"}],
        "rng": {"name": "rng", "shape": [2], "dtype": "I64", "draws": 64},
        "workspace_bytes": 4096,
        "target": {"cpu": "znver4", "features": ["avx2", "fma"]},
    }
    seeds = {
        "full": json.dumps(full),
        "minimal": json.dumps({"abi_version": 2, "state": [],
                               "inputs": [tensor], "outputs": []}),
        "wrong_version": '{"abi_version": 3}',
        "state_not_list": '{"abi_version": 2, "state": {}, "inputs": [], '
                          '"outputs": []}',
        "bad_shape": json.dumps({"abi_version": 2, "state": [],
                                 "inputs": [dict(tensor, shape=[-1])],
                                 "outputs": []}),
        "huge_shape": json.dumps({"abi_version": 2, "state": [],
                                  "inputs": [dict(tensor,
                                                  shape=[1 << 62, 4])],
                                  "outputs": []}),
        "duplicate_names": json.dumps({"abi_version": 2, "state": [],
                                       "inputs": [tensor, tensor],
                                       "outputs": []}),
        "not_json": "abi_version: 2",
    }
    for name, text in seeds.items():
        write(out, name, text)


def compile_seeds():
    out = corpus("nn-fuzz-compile")
    for path in ["tests/tools/Inputs/double_relu.mlir",
                 "tests/tools/Inputs/dropout_train.mlir",
                 "tests/tools/Inputs/running_sum.mlir",
                 "tests/tools/Inputs/zero_size.mlir",
                 "tests/tools/Inputs/bad_syntax.mlir",
                 "tests/tools/Inputs/bad_shapes.mlir"]:
        shutil.copy(os.path.join(ROOT, path),
                    os.path.join(out, os.path.basename(path)))
    write(out, "linear_relu.mlir", """\
module {
  nn.parameter @fc.weight : tensor<3x4xf32>
  nn.parameter @fc.bias : tensor<3xf32>
  func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = nn.load @fc.weight : tensor<3x4xf32>
    %b = nn.load @fc.bias : tensor<3xf32>
    %y = nn.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = nn.relu %y : tensor<2x3xf32>
    %s = nn.softmax %r, dim = 1 : tensor<2x3xf32>
    return %s : tensor<2x3xf32>
  }
}
""")
    write(out, "conv_pool.mlir", """\
module {
  nn.parameter @conv.weight : tensor<4x3x3x3xf32>
  func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x3x3xf32> {
    %w = nn.load @conv.weight : tensor<4x3x3x3xf32>
    %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %p = nn.max_pool %c kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
    return %p : tensor<1x4x3x3xf32>
  }
}
""")


if __name__ == "__main__":
    safetensors_seeds()
    description_seeds()
    compile_seeds()
