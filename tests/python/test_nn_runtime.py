#!/usr/bin/python3
"""python/nn_runtime.py against PyTorch's goldens, and its named errors.

    test_nn_runtime.py --bin BUILD/bin --lib BUILD/lib/libnn_c.so --work DIR

Compiles the SimpleMLP and TiedEmbeddingLM seed models with the real tools
(nn-compile, nn-trace-seed-model), then runs them from Python through
libnn_c.so on numpy arrays, binding PyTorch's own state_dict files.
"""
import argparse
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "python"))
sys.path.insert(0, os.path.join(SOURCE, "tests", "reference"))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import nn_runtime  # noqa: E402
import safetensors_io  # noqa: E402

GOLDENS = os.path.join(SOURCE, "tests", "reference", "goldens")
ARGS = None


def golden(*path):
    return {k: v.numpy() for k, v in
            safetensors_io.load_file(os.path.join(GOLDENS, *path)).items()}


def compiled(name, trace=None, mlir=None):
    """nn-compile's shared object of a seed model (traced) or an IR file."""
    path = os.path.join(ARGS.work, name + ".so")
    if trace:
        mlir = os.path.join(ARGS.work, name + ".mlir")
        with open(mlir, "w") as out:
            subprocess.run([os.path.join(ARGS.bin, "nn-trace-seed-model"),
                            trace], stdout=out, check=True)
    subprocess.run([os.path.join(ARGS.bin, "nn-compile"), mlir, "-o", path],
                   check=True)
    return path


class SimpleMLP(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.so = compiled("mlp", mlir=os.path.join(
            SOURCE, "tests", "tools", "Inputs", "simple_mlp.mlir"))
        cls.weights = os.path.join(GOLDENS, "simple_mlp", "weights.safetensors")
        cls.x = golden("simple_mlp", "inputs.safetensors")["input.0"]
        cls.y = golden("simple_mlp", "outputs.safetensors")["output.0"]

    def model(self, weights=True):
        return nn_runtime.Model(self.so, self.weights if weights else None,
                                library=ARGS.lib)

    def test_matches_pytorch(self):
        (y,) = self.model()(self.x)
        torch.testing.assert_close(torch.from_numpy(y), torch.from_numpy(self.y))

    def test_by_name_and_on_two_threads(self):
        nn_runtime.set_num_threads(2, library=ARGS.lib)
        try:
            out = self.model().run({"input.0": self.x})
        finally:
            nn_runtime.set_num_threads(1, library=ARGS.lib)
        self.assertEqual(list(out), ["output.0"])
        torch.testing.assert_close(torch.from_numpy(out["output.0"]),
                                   torch.from_numpy(self.y))

    def test_describes_its_tensors(self):
        model = self.model()
        self.assertEqual(model.inputs,
                         [nn_runtime.TensorInfo("input.0", (64, 784), "F32")])
        self.assertEqual(model.outputs,
                         [nn_runtime.TensorInfo("output.0", (64, 10), "F32")])
        self.assertEqual([s.name for s in model.state][:2],
                         ["fc1.weight", "fc1.bias"])

    def test_a_non_contiguous_input_is_copied(self):
        (y,) = self.model()(np.asfortranarray(self.x))
        torch.testing.assert_close(torch.from_numpy(y), torch.from_numpy(self.y))

    def test_wrong_shape_dtype_and_count_are_named(self):
        model = self.model()
        with self.assertRaisesRegex(nn_runtime.Error, r"^input 'input\.0': "
                                    r"expected 64x784 float32, got 2x784 float32$"):
            model(self.x[:2])
        with self.assertRaisesRegex(nn_runtime.Error, r"^input 'input\.0': "
                                    r"expected 64x784 float32, got 64x784 float64$"):
            model(self.x.astype(np.float64))
        with self.assertRaisesRegex(nn_runtime.Error, r"^the model takes 1 "
                                    r"inputs \(input\.0\), got 2$"):
            model(self.x, self.x)
        with self.assertRaisesRegex(nn_runtime.Error, r"^wrong inputs; missing: "
                                    r"input\.0; unexpected: x$"):
            model.run({"x": self.x})
        with self.assertRaisesRegex(nn_runtime.Error, r"complex128 cannot cross"):
            model(self.x.astype(np.complex128))

    def test_weights_missing_or_unbound_are_named(self):
        with self.assertRaisesRegex(nn_runtime.Error, r"weights are not bound"):
            self.model(weights=False)(self.x)
        empty = os.path.join(ARGS.work, "empty.safetensors")
        safetensors_io.save_file({}, empty)
        with self.assertRaisesRegex(nn_runtime.Error, r"cannot bind the weights "
                                    r"of .*mlp\.so; missing: fc1\.weight, "
                                    r"fc1\.bias, fc2\.weight"):
            self.model(weights=False).bind(empty)

    def test_a_missing_model_or_library_is_named(self):
        with self.assertRaisesRegex(nn_runtime.Error, r"cannot load compiled "
                                    r"model '.*nothing\.so'"):
            nn_runtime.Model(os.path.join(ARGS.work, "nothing.so"),
                             library=ARGS.lib)
        with self.assertRaisesRegex(nn_runtime.Error, r"cannot find libnn_c\.so"):
            nn_runtime.Model(self.so, library=ARGS.lib + ".gone")


class TiedEmbeddingLM(unittest.TestCase):
    """Token ids in, PyTorch's own state_dict file bound (the causal mask, a
    non-persistent buffer, travels in the .so)."""

    def test_matches_pytorch_and_refuses_ids_out_of_range(self):
        model = nn_runtime.Model(
            compiled("lm", trace="TiedEmbeddingLM"),
            os.path.join(GOLDENS, "modules", "TiedEmbeddingLM.safetensors"),
            library=ARGS.lib)
        tokens = golden("zoo", "TiedEmbeddingLM", "eval", "inputs.safetensors")
        expected = golden("zoo", "TiedEmbeddingLM", "eval", "outputs.safetensors")
        out = model.run(tokens)
        for name, want in expected.items():
            # Attention sums in another order than PyTorch's kernels.
            torch.testing.assert_close(torch.from_numpy(out[name]),
                                       torch.from_numpy(want),
                                       rtol=1e-4, atol=1e-5)
        bad = tokens["input.0"].copy()
        bad[1, 3] = 99
        with self.assertRaisesRegex(nn_runtime.Error, r"input 'input\.0' holds "
                                    r"index 99 at \[1, 3\], out of range \[0, 32\)"):
            model(bad)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--lib", required=True)
    parser.add_argument("--work", required=True)
    ARGS, rest = parser.parse_known_args()
    os.makedirs(ARGS.work, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + rest)
