"""PyTorch goldens for nn's reshaping, slicing, joining and indexing ops.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/shape/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsShapeTest.cpp under the same name.

The layer_* and tied_embedding_lm cases run torch.nn layers whose weights
are given as inputs after the layer's input (in state_dict order); their C++
twins build the nn layer, load those weights and trace the layer alone.
"""
import torch
import torch.nn.functional as F  # noqa: F401


def ids(high, *shape):
    return torch.randint(0, high, shape, dtype=torch.int64)


def layer(module, input, *weights):
    """module(input) with `weights` copied into its state_dict, in order."""
    state = module.state_dict()
    for key, value in zip(state.keys(), weights):
        state[key] = value
    module.load_state_dict(state)
    return module(input)


class TiedEmbeddingLM(torch.nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.head = torch.nn.Linear(dim, vocab)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        return self.head(self.embed(tokens))


def tied_lm(tokens, weight, bias):
    model = TiedEmbeddingLM(*weight.shape)
    model.load_state_dict({"embed.weight": weight, "head.weight": weight,
                           "head.bias": bias})
    return model(tokens)


def cases():
    torch.manual_seed(0)
    # reshape/view: a pure collapse, a pure expand, neither (tensor.reshape),
    # scalars both ways.
    yield "reshape_3x7_to_21", lambda x: x.reshape(-1), (torch.randn(3, 7),)
    yield "reshape_17_to_1x17x1", lambda x: x.reshape(1, 17, 1), (torch.randn(17),)
    yield "reshape_2x3x4_to_4x6", lambda x: x.reshape(4, -1), (torch.randn(2, 3, 4),)
    yield "view_6x1_to_2x3", lambda x: x.view(2, 3), (torch.randn(6, 1),)
    yield "reshape_scalar_to_1x1", lambda x: x.reshape(1, 1), (torch.randn(()),)
    yield "reshape_1_to_scalar", lambda x: x.reshape(()), (torch.randn(1),)
    yield "reshape_i64", lambda x: x.reshape(7, 3), (torch.arange(21),)
    # flatten
    yield "flatten_2x3x4", torch.flatten, (torch.randn(2, 3, 4),)
    yield "flatten_2x3x7x5_1_2", lambda x: torch.flatten(x, 1, 2), (torch.randn(2, 3, 7, 5),)
    yield "flatten_scalar", torch.flatten, (torch.randn(()),)
    # permute / transpose
    yield "permute_2x3x4_201", lambda x: x.permute(2, 0, 1), (torch.randn(2, 3, 4),)
    yield "permute_1x7x3x2_neg", lambda x: x.permute(0, -1, 1, 2), (torch.randn(1, 7, 3, 2),)
    yield "transpose_3x17", lambda x: x.transpose(0, 1), (torch.randn(3, 17),)
    yield "transpose_2x3x7_neg", lambda x: x.transpose(0, -1), (torch.randn(2, 3, 7),)
    yield "transpose_i64", lambda x: x.transpose(1, 0), (torch.arange(21).reshape(3, 7),)
    # squeeze / unsqueeze
    yield "squeeze_1x3x1x7", torch.squeeze, (torch.randn(1, 3, 1, 7),)
    yield "squeeze_dim_1x3x1", lambda x: x.squeeze(2), (torch.randn(1, 3, 1),)
    # squeeze(1) of a size-3 dim is a no-op (then squeeze(0) so the result
    # is not the input itself, which does not compile yet).
    yield "squeeze_dim_not_1", lambda x: x.squeeze(1).squeeze(0), (torch.randn(1, 3, 1),)
    yield "squeeze_1x1_to_scalar", torch.squeeze, (torch.randn(1, 1),)
    yield "unsqueeze_3_dim0", lambda x: x.unsqueeze(0), (torch.randn(3),)
    yield "unsqueeze_3x7_neg", lambda x: x.unsqueeze(-1), (torch.randn(3, 7),)
    yield "unsqueeze_scalar", lambda x: x.unsqueeze(0), (torch.randn(()),)
    # expand / broadcast_to
    yield "expand_1x3_to_4x3", lambda x: x.expand(4, 3), (torch.randn(1, 3),)
    yield "expand_3x1_to_2x3x7", lambda x: x.expand(2, -1, 7), (torch.randn(3, 1),)
    yield "broadcast_to_scalar_3x17", lambda x: torch.broadcast_to(x, (3, 17)), (torch.randn(()),)
    # cat / stack
    yield "cat_dim0", lambda a, b, c: torch.cat([a, b, c]), \
        (torch.randn(2, 3), torch.randn(1, 3), torch.randn(7, 3))
    yield "cat_dim_neg", lambda a, b, c: torch.cat([a, b, c], dim=-1), \
        (torch.randn(3, 1), torch.randn(3, 7), torch.randn(3, 17))
    yield "cat_i64_3d", lambda a, b: torch.cat([a, b], dim=1), \
        (torch.arange(12).reshape(2, 3, 2), torch.arange(4).reshape(2, 1, 2))
    yield "stack_7_dim0", lambda a, b, c: torch.stack([a, b, c]), \
        (torch.randn(7), torch.randn(7), torch.randn(7))
    yield "stack_2x3_dim_neg", lambda a, b: torch.stack([a, b], dim=-1), \
        (torch.randn(2, 3), torch.randn(2, 3))
    yield "stack_1_dim1", lambda a: torch.stack([a], dim=1), (torch.randn(1, 17),)
    # split / chunk (several outputs)
    yield "split_size_7_by_3", lambda x: torch.split(x, 3), (torch.randn(7),)
    yield "split_sizes_3x17", lambda x: torch.split(x, [2, 5, 10], dim=1), (torch.randn(3, 17),)
    yield "split_size_larger", lambda x: torch.split(x, 5, dim=-1), (torch.randn(2, 3),)
    yield "chunk_7_into_3", lambda x: torch.chunk(x, 3), (torch.randn(7, 2),)
    yield "chunk_2x17_into_4", lambda x: torch.chunk(x, 4, dim=-1), (torch.randn(2, 17),)
    yield "chunk_3_into_5", lambda x: torch.chunk(x, 5), (torch.randn(3),)
    # slice: step, negative and clamped bounds
    yield "slice_17_1_7_2", lambda x: x[1:7:2], (torch.randn(17),)
    yield "slice_3x7_neg_start", lambda x: x[:, -3:], (torch.randn(3, 7),)
    yield "slice_3x7_clamped", lambda x: x[:, 2:100], (torch.randn(3, 7),)
    yield "slice_17_step3", lambda x: x[::3], (torch.randn(17),)
    yield "slice_2x17x3_neg_end", lambda x: x[:, -10:-1:4], (torch.randn(2, 17, 3),)
    # index_select / gather
    yield "index_select_5x3_dim0", lambda x, i: torch.index_select(x, 0, i), \
        (torch.randn(5, 3), torch.tensor([4, 0, 0, 2]))
    yield "index_select_3x17_dim_neg", lambda x, i: torch.index_select(x, -1, i), \
        (torch.randn(3, 17), torch.tensor([16, 1, 7]))
    yield "index_select_1", lambda x, i: torch.index_select(x, 0, i), \
        (torch.randn(1), torch.tensor([0, 0, 0]))
    yield "gather_3x5_dim1", lambda x, i: torch.gather(x, 1, i), \
        (torch.randn(3, 5), ids(5, 3, 2))
    yield "gather_7x3_dim0_smaller", lambda x, i: torch.gather(x, 0, i), \
        (torch.randn(7, 3), ids(7, 4, 2))
    yield "gather_2x3x17_dim_neg", lambda x, i: torch.gather(x, -1, i), \
        (torch.randn(2, 3, 17), ids(17, 2, 3, 17))
    # embedding
    yield "embedding_2x7", F.embedding, (ids(10, 2, 7), torch.randn(10, 3))
    yield "embedding_1x17", F.embedding, (ids(17, 1), torch.randn(17, 1))
    yield "embedding_scalar_id", F.embedding, (torch.tensor(3), torch.randn(7, 4))
    # layers with their weights
    yield "layer_flatten", lambda x: torch.nn.Flatten()(x), (torch.randn(3, 2, 7),)
    yield "layer_flatten_0_1", lambda x: torch.nn.Flatten(0, 1)(x), (torch.randn(3, 2, 7),)
    yield "layer_identity_in_sequential", \
        lambda x: torch.nn.Sequential(torch.nn.Identity(), torch.nn.Flatten(0))(x), \
        (torch.randn(3, 17),)
    yield "layer_embedding_padding", \
        lambda x, w: layer(torch.nn.Embedding(10, 3, padding_idx=0), x, w), \
        (ids(10, 3, 7), torch.randn(10, 3))
    yield "tied_embedding_lm", tied_lm, (ids(17, 2, 7), torch.randn(17, 8), torch.randn(17))
    # (added last so the earlier cases keep their random inputs)
    yield "index_select_scalar_index", lambda x, i: torch.index_select(x, 1, i), \
        (torch.randn(5, 3), torch.tensor(2))
    # A forward that returns its input unchanged.
    yield "layer_identity", lambda x: torch.nn.Identity()(x), (torch.randn(3, 17),)
    # pad, each mode; negative pads crop (constant mode). (Added last, as
    # the two above.)
    yield "pad_constant_2x3x5", lambda x: F.pad(x, (1, 2)), (torch.randn(2, 3, 5),)
    yield "pad_constant_value_crop_2x3x5x4", \
        lambda x: F.pad(x, (-1, 2, 3, 0), value=1.5), (torch.randn(2, 3, 5, 4),)
    yield "pad_reflect_2x3x5x4", lambda x: F.pad(x, (2, 1, 3, 4), mode="reflect"), \
        (torch.randn(2, 3, 5, 4),)
    yield "pad_reflect_1x2x7", lambda x: F.pad(x, (3, 6), mode="reflect"), \
        (torch.randn(1, 2, 7),)
    yield "pad_replicate_2x3x5x4", \
        lambda x: F.pad(x, (2, 0, 1, 3), mode="replicate"), (torch.randn(2, 3, 5, 4),)
    yield "pad_circular_2x3x5x4", \
        lambda x: F.pad(x, (4, 1, 2, 5), mode="circular"), (torch.randn(2, 3, 5, 4),)
    yield "pad_i64", lambda x: F.pad(x, (1, 1), value=7), \
        (torch.randint(-5, 5, (3, 4)),)
    # pixel and channel shuffles, and their layers (added last, as above).
    yield "pixel_shuffle_r2_2x8x3x5", lambda x: F.pixel_shuffle(x, 2), \
        (torch.randn(2, 8, 3, 5),)
    yield "pixel_shuffle_r3_batch_dims_2x1x9x2x3", lambda x: F.pixel_shuffle(x, 3), \
        (torch.randn(2, 1, 9, 2, 3),)
    yield "pixel_unshuffle_r2_1x3x4x6", lambda x: F.pixel_unshuffle(x, 2), \
        (torch.randn(1, 3, 4, 6),)
    yield "channel_shuffle_g3_2x6x4x3", lambda x: F.channel_shuffle(x, 3), \
        (torch.randn(2, 6, 4, 3),)
    yield "channel_shuffle_g2_2x8x5", lambda x: F.channel_shuffle(x, 2), \
        (torch.randn(2, 8, 5),)
    yield "layer_pixel_shuffle_unshuffle", \
        lambda x: torch.nn.Sequential(torch.nn.PixelUnshuffle(2), torch.nn.ChannelShuffle(2),
                                      torch.nn.PixelShuffle(2))(x), \
        (torch.randn(2, 2, 6, 4),)
