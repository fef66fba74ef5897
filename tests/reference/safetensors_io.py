"""The safetensors format for torch tensors, in pure Python.

A stand-in for ``safetensors.torch`` (which is not installed on these machines)
that writes the same bytes and accepts the same files:

* ``serialize(tensors, metadata=None)`` returns what
  ``safetensors.torch.save(tensors, metadata)`` returns (0.4.x): an 8-byte
  little-endian header length N, N bytes of compact JSON padded with spaces to
  a multiple of 8, then the tensor data. Tensors are laid out by dtype in
  descending order of safetensors' Rust ``Dtype`` enum, then by name, and the
  header lists them in that order after ``"__metadata__"`` (present when
  ``metadata`` is not None). Rust keeps metadata in a HashMap, whose order is
  unspecified; this module (like nn) writes metadata keys sorted.
* ``save_file`` / ``load_file`` / ``load`` mirror the safetensors.torch
  functions of the same names; ``load`` validates the whole file first as
  safetensors' Rust reader does (header length, UTF-8, JSON, entries, offsets
  that tile the data region exactly) and raises ``SafetensorError``.

Unlike safetensors.torch, ``serialize`` does not refuse tensors that share
storage: each name gets its own copy, as nn writes them.
"""

import collections
import json
import struct
import sys

import torch

__all__ = [
    "SafetensorError",
    "serialize",
    "save_file",
    "load",
    "load_file",
    "layout_order",
]

# safetensors' Rust `Dtype` enum, in declaration order. Layout is by this
# order, descending.
DTYPE_ORDER = [
    "BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16",
    "I32", "U32", "F32", "F64", "I64", "U64",
]
DTYPE_SIZES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2,
    "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "F64": 8,
    "I64": 8, "U64": 8,
}
TORCH_TO_SAFETENSORS = {
    torch.bool: "BOOL",
    torch.uint8: "U8",
    torch.int8: "I8",
    torch.int16: "I16",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int32: "I32",
    torch.float32: "F32",
    torch.float64: "F64",
    torch.int64: "I64",
}
SAFETENSORS_TO_TORCH = {v: k for k, v in TORCH_TO_SAFETENSORS.items()}

MAX_HEADER_SIZE = 100_000_000
U64_LIMIT = 1 << 64

if sys.byteorder != "little":  # pragma: no cover
    raise ImportError("safetensors_io assumes a little-endian host")


class SafetensorError(Exception):
    """A file that is not valid safetensors, or tensors that cannot be saved."""


def _dtype_name(tensor):
    try:
        return TORCH_TO_SAFETENSORS[tensor.dtype]
    except KeyError:
        raise SafetensorError(f"unsupported dtype {tensor.dtype}") from None


def _tobytes(tensor):
    """The tensor's elements, row-major, little-endian."""
    tensor = tensor.detach().cpu().contiguous()
    if tensor.numel() == 0:
        return b""
    return tensor.reshape(-1).view(torch.uint8).numpy().tobytes()


def layout_order(tensors):
    """Names in the order safetensors lays them out: dtype descending, name."""
    return sorted(
        tensors,
        key=lambda name: (-DTYPE_ORDER.index(_dtype_name(tensors[name])),
                          name.encode("utf-8")))


def serialize(tensors, metadata=None):
    """The bytes safetensors.torch.save(tensors, metadata) produces."""
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            raise SafetensorError(f"tensor names must be str, got {name!r}")
        if not isinstance(tensor, torch.Tensor):
            raise SafetensorError(f"{name!r} is not a torch.Tensor")
        if tensor.layout != torch.strided:
            raise SafetensorError(f"{name!r} is not a dense tensor")
    header = {}
    if metadata is not None:
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise SafetensorError("metadata must map str to str")
        header["__metadata__"] = {k: metadata[k] for k in sorted(metadata)}
    offset = 0
    chunks = []
    for name in layout_order(tensors):
        tensor = tensors[name]
        data = _tobytes(tensor)
        header[name] = {
            "dtype": _dtype_name(tensor),
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        chunks.append(data)
    # serde_json's compact output; ensure_ascii=False keeps UTF-8 as is and
    # escapes control characters as \u00xx, as serde_json does.
    text = json.dumps(header, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(tensors, filename, metadata=None):
    """Writes serialize(tensors, metadata) to filename."""
    with open(filename, "wb") as f:
        f.write(serialize(tensors, metadata))


def _reject_constant(name):
    raise SafetensorError(f"invalid JSON number {name} in header")


def _no_duplicates(pairs):
    result = collections.OrderedDict()
    for key, value in pairs:
        if key in result:
            raise SafetensorError(f"duplicate key {key!r} in header")
        result[key] = value
    return result


def _is_uint(value):
    return type(value) is int and 0 <= value < U64_LIMIT


def _parse_header(data):
    if len(data) < 8:
        raise SafetensorError("HeaderTooSmall: file shorter than 8 bytes")
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER_SIZE:
        raise SafetensorError(f"HeaderTooLarge: header length {n}")
    if 8 + n > len(data):
        raise SafetensorError(
            f"InvalidHeaderLength: header length {n} past end of file")
    try:
        text = data[8:8 + n].decode("utf-8")
    except UnicodeDecodeError as e:
        raise SafetensorError(f"InvalidHeader: header is not UTF-8: {e}")
    if not text.startswith("{"):
        raise SafetensorError("InvalidHeaderStart: header must start with '{'")
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates,
                            parse_constant=_reject_constant)
    except ValueError as e:
        raise SafetensorError(f"InvalidHeaderDeserialization: {e}")
    if not isinstance(header, dict):
        raise SafetensorError("InvalidHeaderDeserialization: not an object")
    return n, header


def load(data):
    """Parses a complete file image into (OrderedDict name -> tensor, metadata).

    Tensors come in header order; metadata is None when absent.
    """
    data = bytes(data)
    n, header = _parse_header(data)
    metadata = header.pop("__metadata__", None)
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
                isinstance(v, str) for v in metadata.values()):
            raise SafetensorError("__metadata__ must map str to str")
    entries = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {
                "dtype", "shape", "data_offsets"}:
            raise SafetensorError(
                f"{name!r}: entry must have exactly dtype, shape, data_offsets")
        dtype, shape, offsets = (info["dtype"], info["shape"],
                                 info["data_offsets"])
        if dtype not in DTYPE_SIZES:
            raise SafetensorError(f"{name!r}: unknown dtype {dtype!r}")
        if not isinstance(shape, list) or not all(_is_uint(d) for d in shape):
            raise SafetensorError(f"{name!r}: bad shape {shape!r}")
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(_is_uint(o) for o in offsets)):
            raise SafetensorError(f"{name!r}: bad data_offsets {offsets!r}")
        entries.append((name, dtype, shape, offsets[0], offsets[1]))

    # Validation as safetensors' Metadata::validate: sorted by offsets, each
    # tensor starts where the previous one ended, sizes match.
    end = 0
    for name, dtype, shape, begin, stop in sorted(entries,
                                                  key=lambda e: (e[3], e[4])):
        if begin != end or stop < begin:
            raise SafetensorError(f"InvalidOffset: {name!r}")
        end = stop
        count = 1
        for d in shape:
            count *= d
            if count >= U64_LIMIT:
                raise SafetensorError(f"ValidationOverflow: {name!r}")
        if count * DTYPE_SIZES[dtype] >= U64_LIMIT:
            raise SafetensorError(f"ValidationOverflow: {name!r}")
        if stop - begin != count * DTYPE_SIZES[dtype]:
            raise SafetensorError(f"TensorInvalidInfo: {name!r}")
    if end + 8 + n != len(data):
        raise SafetensorError("MetadataIncompleteBuffer: data region is "
                              f"{len(data) - 8 - n} bytes, tensors cover {end}")

    base = 8 + n
    tensors = collections.OrderedDict()
    for name, dtype, shape, begin, stop in entries:
        if dtype not in SAFETENSORS_TO_TORCH:
            raise SafetensorError(f"{name!r}: dtype {dtype} has no torch "
                                  f"equivalent in torch {torch.__version__}")
        torch_dtype = SAFETENSORS_TO_TORCH[dtype]
        if stop == begin:
            tensors[name] = torch.empty(shape, dtype=torch_dtype)
        else:
            buffer = bytearray(data[base + begin:base + stop])
            tensors[name] = torch.frombuffer(
                buffer, dtype=torch_dtype).reshape(shape)
    return tensors, metadata


def load_file(filename):
    """Reads filename; returns an OrderedDict name -> tensor (header order)."""
    with open(filename, "rb") as f:
        return load(f.read())[0]
