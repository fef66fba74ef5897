#!/usr/bin/python3
"""What golden_cli's --check accepts as the committed golden: the same file
up to the last bits another CPU's float kernels may change, and nothing a
change to a generator makes."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402


class Difference(unittest.TestCase):
    def setUp(self):
        gen = torch.Generator().manual_seed(0)
        self.tensors = {
            "output.0": torch.randn(4, 5, generator=gen),
            "index": torch.arange(6),
            "half": torch.randn(3, generator=gen).half(),
        }
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "case.safetensors")
        safetensors_io.save_file(self.tensors, self.path)

    def tearDown(self):
        self.folder.cleanup()

    def fresh(self, **changed):
        return safetensors_io.serialize({**self.tensors, **changed})

    def test_identical_bytes(self):
        self.assertIsNone(golden_cli.difference(self.path, self.fresh()))

    def test_last_bits_of_floats_pass_unless_exact(self):
        x = self.tensors["output.0"]
        nudged = torch.nextafter(x, torch.full_like(x, float("inf")))
        self.assertIsNone(golden_cli.difference(
            self.path, self.fresh(**{"output.0": nudged})))
        self.assertEqual(golden_cli.difference(
            self.path, self.fresh(**{"output.0": nudged}), exact=True),
            "bytes differ")

    def test_a_changed_float_fails(self):
        reason = golden_cli.difference(
            self.path, self.fresh(**{"output.0": self.tensors["output.0"] * 1.0001}))
        self.assertRegex(reason, r"^output\.0: Tensor-likes are not close!")

    def test_integers_compare_exactly(self):
        reason = golden_cli.difference(
            self.path, self.fresh(index=self.tensors["index"] + 1))
        self.assertRegex(reason, r"^index: ")

    def test_shape_dtype_and_names_must_match(self):
        self.assertEqual(
            golden_cli.difference(self.path, self.fresh(
                index=torch.arange(6).reshape(2, 3))),
            "index: torch.int64[6] committed, torch.int64[2, 3] generated")
        self.assertEqual(golden_cli.difference(
            self.path, self.fresh(half=self.tensors["half"].float())),
            "half: torch.float16[3] committed, torch.float32[3] generated")
        self.assertRegex(golden_cli.difference(
            self.path, self.fresh(extra=torch.zeros(1))), r"^names differ")

    def test_metadata_must_match(self):
        self.assertEqual(golden_cli.difference(
            self.path, safetensors_io.serialize(self.tensors, {"a": "b"})),
            "metadata differs")

    def test_missing_file(self):
        self.assertEqual(golden_cli.difference(
            self.path + ".gone", self.fresh()), "not committed")

    def test_other_files_compare_bytes(self):
        path = os.path.join(self.folder.name, "model.json")
        with open(path, "wb") as f:
            f.write(b'{"a": 1}')
        self.assertIsNone(golden_cli.difference(path, b'{"a": 1}'))
        self.assertEqual(golden_cli.difference(path, b'{"a": 2}'), "bytes differ")


if __name__ == "__main__":
    unittest.main()
