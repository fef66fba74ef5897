"""Values that a C++ test recomputes bit for bit from a name, instead of
reading them from a committed file: the weights and inputs of the
real-architecture goldens (generate_architecture_goldens.py), mirrored by
tests/E2E/ZooWeights.h.

uniform(name, shape): element i (row-major) is splitmix64's finalizer of
fnv1a64(name) + (i + 1) * 0x9E3779B97F4A7C15, whose top 24 bits h give the
float32 h * 2^-23 - 1 in [-1, 1) -- every step exact in float32.
token_ids(shape, vocab_size): the same h of "input", mod vocab_size.

state_dict_like(state, gain): each entry by its key's last part (tied
entries by their first key's), so that a
network keeps activations of a moderate size in eval mode:
  ...weight, rank >= 2 (conv, linear, in_proj_weight)
                                    uniform * sqrt(gain / fan_in)
                                    (gain 6: He uniform, for plain stacks
                                    of ReLU layers; 3 for residual
                                    networks, whose sums grow with 6)
  ...weight, rank 1 (norm layers)   1 + 0.25 * uniform
  ...bias (bias, in_proj_bias)      0.1 * uniform
  running_mean                      0.1 * uniform
  running_var                       0.75 + 0.25 * uniform   (in [0.5, 1))
  any other float entry (class_token, pos_embedding)
                                    0.5 * uniform
  integer entries (num_batches_tracked) zero.
The scale factors are float64 results rounded to float32 once, and every
product and sum is one float32 operation, as the C++ side computes them.
"""

import math

import numpy as np
import torch

_MASK = (1 << 64) - 1


def fnv1a64(name):
    h = 0xCBF29CE484222325
    for byte in name.encode():
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    return h


def bits(name, n):
    """n values of 24 random bits (as uint64), a function of `name`."""
    z = np.uint64(fnv1a64(name)) + np.arange(
        1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z >> np.uint64(40)


def uniform(name, shape):
    """A float32 tensor of `shape` in [-1, 1), a function of `name` alone."""
    u = bits(name, math.prod(shape)).astype(np.float32) * np.float32(2.0**-23)
    u = u - np.float32(1.0)
    return torch.from_numpy(u.reshape(shape))


def token_ids(shape, vocab_size):
    """int64 token ids of `shape` in [0, vocab_size): bits("input") mod
    vocab_size."""
    ids = bits("input", math.prod(shape)) % np.uint64(vocab_size)
    return torch.from_numpy(ids.astype(np.int64).reshape(shape))


def value_of(key, like, gain):
    """The value of state_dict entry `key`, shaped and typed as `like`."""
    if not like.is_floating_point():
        return torch.zeros_like(like)
    shape = tuple(like.shape)
    u = uniform(key, shape)
    leaf = key.rsplit(".", 1)[-1]
    f32 = torch.float32

    def scaled(factor):
        return u * torch.tensor(factor, dtype=f32)

    if leaf == "running_var":
        return torch.tensor(0.75, dtype=f32) + scaled(0.25)
    if leaf.endswith("bias") or leaf == "running_mean":
        return scaled(0.1)
    if leaf.endswith("weight") and len(shape) >= 2:
        fan_in = math.prod(shape[1:])
        return scaled(math.sqrt(gain / fan_in))
    if leaf.endswith("weight"):
        return torch.tensor(1.0, dtype=f32) + scaled(0.25)
    return scaled(0.5)


def state_dict_like(state, gain):
    """Every entry's value; tied entries (one tensor under several keys)
    all get the value of the first key."""
    values, first = {}, {}
    for key, tensor in state.items():
        origin = first.setdefault(tensor.data_ptr(), key)
        values[key] = (values[origin] if origin != key else
                       value_of(key, tensor, gain))
    return values


def images(shape):
    """An input batch whose images differ in their mean per channel, as
    natural images do (white noise alone averages out under global
    pooling): 0.5 * uniform("input") + uniform("input.mean") per (n, c)."""
    n, c = shape[0], shape[1]
    mean = uniform("input.mean", (n, c) + (1,) * (len(shape) - 2))
    return uniform("input", shape) * torch.tensor(0.5) + mean
