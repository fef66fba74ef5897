"""PyTorch goldens for the forward of seed models, in eval.

cases() yields (name, fn, inputs) as every op family does (see
generate_op_goldens.py): one case per model, named after it, whose input is
the model's example input and whose output is the model's eval-mode forward,
with the weights torch.manual_seed(0) gives (the ones
generate_module_goldens.py saves as goldens/modules/<Model>.safetensors).
tests/E2E/SeedModelForwardTest.cpp loads those weights into the C++ twin,
compiles its forward and compares. Autograd stays enabled so that PyTorch
1.13 runs its plain attention path, not the fused inference fast path.
"""
import torch

from generate_module_goldens import ResNet, TiedEmbeddingLM, TransformerStack


def eval_forward(cls):
    def fn(x):
        torch.manual_seed(0)
        model = cls().eval()
        with torch.enable_grad():
            return model(x).detach()
    return fn


def cases():
    torch.manual_seed(0)
    yield "TransformerStack", eval_forward(TransformerStack), (torch.randn(2, 5, 16),)
    yield "TiedEmbeddingLM", eval_forward(TiedEmbeddingLM), \
        (torch.randint(0, 32, (2, 7), dtype=torch.int64),)
    yield "ResNet", eval_forward(ResNet), (torch.randn(2, 3, 8, 8),)
