"""Run models compiled by nn from Python: ctypes and numpy, no build step.

    import numpy as np
    import nn_runtime

    model = nn_runtime.Model("mlp.so", "mlp.safetensors")  # PyTorch's state_dict file binds
    (y,) = model(np.zeros((64, 784), np.float32))           # inputs in order, or
    out = model.run({"input.0": x})                         # by name: {"output.0": ...}
    model.inputs, model.outputs                             # [TensorInfo(name, shape, dtype)]

The work is done by libnn_c.so, the runtime's C interface (nn/Runtime/CApi.h):
every input is checked by name, shape and dtype (and index inputs by range)
before the model runs, and a failure raises nn_runtime.Error with the
runtime's message, naming the tensor and both shapes. Arrays are passed in
place when they are C-contiguous with the model's dtype; nothing is cast
silently. libnn_c.so is found beside this file's installation
(<prefix>/lib/python3/dist-packages/ -> <prefix>/lib/), or where
$NN_C_LIBRARY or Model(..., library=) says.
"""

import ctypes
import json
import os
from collections import namedtuple

import numpy as np

__all__ = ["Error", "Model", "TensorInfo", "set_num_threads"]


class Error(RuntimeError):
    """A call into the runtime failed; the message says why."""


TensorInfo = namedtuple("TensorInfo", "name shape dtype")

# nn_dtype (CApi.h) by safetensors name, and the numpy dtype of each (bf16
# has none: its tensors travel as uint16 bit patterns).
_DTYPES = {
    "F32": (0, np.float32), "F64": (1, np.float64), "F16": (2, np.float16),
    "BF16": (3, np.uint16), "I64": (4, np.int64), "I32": (5, np.int32),
    "I8": (6, np.int8), "U8": (7, np.uint8), "BOOL": (8, np.bool_),
}


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("rank", ctypes.c_int32),
                ("dtype", ctypes.c_int)]


def _default_library():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("NN_C_LIBRARY") or os.path.join(
        here, "..", "..", "libnn_c.so")


_libraries = {}


def _load(path):
    """libnn_c.so at `path`, with its functions typed (once per path)."""
    path = os.path.abspath(path)
    if path in _libraries:
        return _libraries[path]
    if not os.path.exists(path):
        raise Error(f"cannot find libnn_c.so at {path}: set NN_C_LIBRARY or "
                    "pass library= to its path")
    lib = ctypes.CDLL(path)
    lib.nn_last_error.restype = ctypes.c_char_p
    lib.nn_artifact_load.argtypes = [ctypes.c_char_p]
    lib.nn_artifact_load.restype = ctypes.c_void_p
    lib.nn_artifact_bind_safetensors.argtypes = [ctypes.c_void_p,
                                                 ctypes.c_char_p]
    lib.nn_artifact_describe.argtypes = [ctypes.c_void_p]
    lib.nn_artifact_describe.restype = ctypes.c_char_p
    lib.nn_artifact_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Tensor),
                                    ctypes.c_size_t, ctypes.POINTER(_Tensor),
                                    ctypes.c_size_t]
    lib.nn_artifact_free.argtypes = [ctypes.c_void_p]
    lib.nn_rt_set_num_threads.argtypes = [ctypes.c_int32]
    _libraries[path] = lib
    return lib


def set_num_threads(count, library=None):
    """Runs models on `count` threads (0: one per CPU; 1 by default)."""
    _load(library or _default_library()).nn_rt_set_num_threads(count)


class Model:
    """A compiled model (.so), optionally bound to a weights file."""

    def __init__(self, path, weights=None, library=None):
        self._lib = _load(library or _default_library())
        self._handle = self._lib.nn_artifact_load(os.fsencode(path))
        if not self._handle:
            raise Error(self._error())
        description = json.loads(self._lib.nn_artifact_describe(self._handle))
        info = lambda e: TensorInfo(e["name"], tuple(e["shape"]), e["dtype"])  # noqa: E731
        self.inputs = [info(e) for e in description["inputs"]]
        self.outputs = [info(e) for e in description["outputs"]]
        self.state = [info(e) for e in description["state"]]
        if weights is not None:
            self.bind(weights)

    def _error(self):
        return self._lib.nn_last_error().decode("utf-8", "replace")

    def bind(self, weights):
        """Binds the tensors the model needs, by name, from a safetensors
        file; tensors the model embeds may be left out."""
        if self._lib.nn_artifact_bind_safetensors(self._handle,
                                                  os.fsencode(weights)):
            raise Error(self._error())

    @staticmethod
    def _tensor(array, keep):
        """`array` as the C interface's nn_tensor (kept alive by `keep`)."""
        code = next((c for c, t in _DTYPES.values() if np.dtype(t) == array.dtype),
                    None)
        if code is None:
            raise Error(f"arrays of {array.dtype} cannot cross into the "
                        "runtime")
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        keep.append(shape)
        return _Tensor(array.ctypes.data, shape, array.ndim, code)

    def __call__(self, *arrays):
        """Runs on positional inputs; returns the outputs as a list. The
        runtime checks each input's shape and dtype against the model."""
        if len(arrays) != len(self.inputs):
            raise Error(f"the model takes {len(self.inputs)} inputs "
                        f"({', '.join(i.name for i in self.inputs)}), "
                        f"got {len(arrays)}")
        inputs = [np.ascontiguousarray(a) for a in arrays]
        outputs = [np.empty(o.shape, _DTYPES[o.dtype][1]) for o in self.outputs]
        keep = []
        c_inputs = (_Tensor * max(len(inputs), 1))(
            *[self._tensor(a, keep) for a in inputs])
        c_outputs = (_Tensor * max(len(outputs), 1))(
            *[self._tensor(a, keep) for a in outputs])
        if self._lib.nn_artifact_run(self._handle, c_inputs, len(inputs),
                                     c_outputs, len(outputs)):
            raise Error(self._error())
        return outputs

    def run(self, inputs):
        """Runs on inputs by name ({"input.0": array}); returns the outputs
        by name."""
        names = [i.name for i in self.inputs]
        missing = [n for n in names if n not in inputs]
        unexpected = sorted(n for n in inputs if n not in names)
        if missing or unexpected:
            message = "wrong inputs"
            if missing:
                message += "; missing: " + ", ".join(missing)
            if unexpected:
                message += "; unexpected: " + ", ".join(unexpected)
            raise Error(message)
        outputs = self(*[inputs[n] for n in names])
        return {o.name: a for o, a in zip(self.outputs, outputs)}

    def close(self):
        """Unloads the model (also when the object is collected)."""
        if getattr(self, "_handle", None):
            self._lib.nn_artifact_free(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
