//===- OpsShapeTest.cpp - shape ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/shape.py. The layer cases build nn's layer, load the
// weights the golden carries after the layer's input, trace the layer alone
// (weights bound by name, not passed as inputs), compile and compare.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <sstream>

namespace nn::testing {
namespace {

/// A case whose computation is `fn` applied to the first input.
template <typename Fn> auto unary(Fn fn) {
  return [fn](const Inputs &in) { return Outputs{fn(in[0])}; };
}

const OpCase kShapeCases[] = {
    // reshape / view
    {"shape", "reshape_3x7_to_21",
     unary([](auto x) { return F::reshape(x, {-1}); })},
    {"shape", "reshape_17_to_1x17x1", unary([](auto x) {
       return F::reshape(x, {1, 17, 1});
     })},
    {"shape", "reshape_2x3x4_to_4x6", unary([](auto x) {
       return F::reshape(x, {4, -1});
     })},
    {"shape", "view_6x1_to_2x3", unary([](auto x) {
       return F::view(x, {2, 3});
     })},
    {"shape", "reshape_scalar_to_1x1", unary([](auto x) {
       return F::reshape(x, {1, 1});
     })},
    {"shape", "reshape_1_to_scalar",
     unary([](auto x) { return F::reshape(x, {}); })},
    {"shape", "reshape_i64", unary([](auto x) {
       return F::reshape(x, {7, 3});
     })},
    // flatten
    {"shape", "flatten_2x3x4", unary([](auto x) { return F::flatten(x); })},
    {"shape", "flatten_2x3x7x5_1_2",
     unary([](auto x) { return F::flatten(x, 1, 2); })},
    {"shape", "flatten_scalar", unary([](auto x) { return F::flatten(x); })},
    // permute / transpose
    {"shape", "permute_2x3x4_201", unary([](auto x) {
       return F::permute(x, {2, 0, 1});
     })},
    {"shape", "permute_1x7x3x2_neg", unary([](auto x) {
       return F::permute(x, {0, -1, 1, 2});
     })},
    {"shape", "transpose_3x17",
     unary([](auto x) { return F::transpose(x, 0, 1); })},
    {"shape", "transpose_2x3x7_neg",
     unary([](auto x) { return F::transpose(x, 0, -1); })},
    {"shape", "transpose_i64",
     unary([](auto x) { return F::transpose(x, 1, 0); })},
    // squeeze / unsqueeze
    {"shape", "squeeze_1x3x1x7", unary([](auto x) { return F::squeeze(x); })},
    {"shape", "squeeze_dim_1x3x1",
     unary([](auto x) { return F::squeeze(x, 2); })},
    {"shape", "squeeze_dim_not_1",
     unary([](auto x) { return F::squeeze(F::squeeze(x, 1), 0); })},
    {"shape", "squeeze_1x1_to_scalar",
     unary([](auto x) { return F::squeeze(x); })},
    {"shape", "unsqueeze_3_dim0",
     unary([](auto x) { return F::unsqueeze(x, 0); })},
    {"shape", "unsqueeze_3x7_neg",
     unary([](auto x) { return F::unsqueeze(x, -1); })},
    {"shape", "unsqueeze_scalar",
     unary([](auto x) { return F::unsqueeze(x, 0); })},
    // expand / broadcast_to
    {"shape", "expand_1x3_to_4x3", unary([](auto x) {
       return F::expand(x, {4, 3});
     })},
    {"shape", "expand_3x1_to_2x3x7", unary([](auto x) {
       return F::expand(x, {2, -1, 7});
     })},
    {"shape", "broadcast_to_scalar_3x17", unary([](auto x) {
       return F::broadcast_to(x, {3, 17});
     })},
    // cat / stack
    {"shape", "cat_dim0", [](const Inputs &in) { return Outputs{F::cat(in)}; }},
    {"shape", "cat_dim_neg",
     [](const Inputs &in) { return Outputs{F::concat(in, -1)}; }},
    {"shape", "cat_i64_3d",
     [](const Inputs &in) { return Outputs{F::cat(in, 1)}; }},
    {"shape", "stack_7_dim0",
     [](const Inputs &in) { return Outputs{F::stack(in)}; }},
    {"shape", "stack_2x3_dim_neg",
     [](const Inputs &in) { return Outputs{F::stack(in, -1)}; }},
    {"shape", "stack_1_dim1",
     [](const Inputs &in) { return Outputs{F::stack(in, 1)}; }},
    // split / chunk
    {"shape", "split_size_7_by_3",
     [](const Inputs &in) { return F::split(in[0], 3); }},
    {"shape", "split_sizes_3x17",
     [](const Inputs &in) {
       return F::split(in[0], std::vector<int64_t>{2, 5, 10}, 1);
     }},
    {"shape", "split_size_larger",
     [](const Inputs &in) { return F::split(in[0], 5, -1); }},
    {"shape", "chunk_7_into_3",
     [](const Inputs &in) { return F::chunk(in[0], 3); }},
    {"shape", "chunk_2x17_into_4",
     [](const Inputs &in) { return F::chunk(in[0], 4, -1); }},
    {"shape", "chunk_3_into_5",
     [](const Inputs &in) { return F::chunk(in[0], 5); }},
    // slice
    {"shape", "slice_17_1_7_2",
     unary([](auto x) { return F::slice(x, 0, 1, 7, 2); })},
    {"shape", "slice_3x7_neg_start",
     unary([](auto x) { return F::slice(x, 1, -3); })},
    {"shape", "slice_3x7_clamped",
     unary([](auto x) { return F::slice(x, 1, 2, 100); })},
    {"shape", "slice_17_step3", unary([](auto x) {
       return F::slice(x, 0, std::nullopt, std::nullopt, 3);
     })},
    {"shape", "slice_2x17x3_neg_end",
     unary([](auto x) { return F::slice(x, 1, -10, -1, 4); })},
    // index_select / gather / embedding
    {"shape", "index_select_5x3_dim0",
     [](const Inputs &in) {
       return Outputs{F::index_select(in[0], 0, in[1])};
     }},
    {"shape", "index_select_3x17_dim_neg",
     [](const Inputs &in) {
       return Outputs{F::index_select(in[0], -1, in[1])};
     }},
    {"shape", "index_select_1",
     [](const Inputs &in) {
       return Outputs{F::index_select(in[0], 0, in[1])};
     }},
    {"shape", "pad_constant_2x3x5", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({1, 2}));
     })},
    {"shape", "pad_constant_value_crop_2x3x5x4", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({-1, 2, 3, 0}).value(1.5));
     })},
    {"shape", "pad_reflect_2x3x5x4", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({2, 1, 3, 4}).mode("reflect"));
     })},
    {"shape", "pad_reflect_1x2x7", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({3, 6}).mode("reflect"));
     })},
    {"shape", "pad_replicate_2x3x5x4", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({2, 0, 1, 3}).mode("replicate"));
     })},
    {"shape", "pad_circular_2x3x5x4", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({4, 1, 2, 5}).mode("circular"));
     })},
    {"shape", "pad_i64", unary([](auto x) {
       return F::pad(x, F::PadFuncOptions({1, 1}).value(7));
     })},
    {"shape", "index_select_scalar_index",
     [](const Inputs &in) {
       return Outputs{F::index_select(in[0], 1, in[1])};
     }},
    {"shape", "gather_3x5_dim1",
     [](const Inputs &in) { return Outputs{F::gather(in[0], 1, in[1])}; }},
    {"shape", "gather_7x3_dim0_smaller",
     [](const Inputs &in) { return Outputs{F::gather(in[0], 0, in[1])}; }},
    {"shape", "gather_2x3x17_dim_neg",
     [](const Inputs &in) { return Outputs{F::gather(in[0], -1, in[1])}; }},
    {"shape", "embedding_2x7",
     [](const Inputs &in) { return Outputs{F::embedding(in[0], in[1])}; }},
    {"shape", "embedding_1x17",
     [](const Inputs &in) { return Outputs{F::embedding(in[0], in[1])}; }},
    {"shape", "embedding_scalar_id",
     [](const Inputs &in) { return Outputs{F::embedding(in[0], in[1])}; }},
    {"shape", "pixel_shuffle_r2_2x8x3x5",
     unary([](auto x) { return F::pixel_shuffle(x, 2); })},
    {"shape", "pixel_shuffle_r3_batch_dims_2x1x9x2x3",
     unary([](auto x) { return F::pixel_shuffle(x, 3); })},
    {"shape", "pixel_unshuffle_r2_1x3x4x6",
     unary([](auto x) { return F::pixel_unshuffle(x, 2); })},
    {"shape", "channel_shuffle_g3_2x6x4x3",
     unary([](auto x) { return F::channel_shuffle(x, 3); })},
    {"shape", "channel_shuffle_g2_2x8x5",
     unary([](auto x) { return F::channel_shuffle(x, 2); })},
};
INSTANTIATE_TEST_SUITE_P(Shape, OpGoldenTest, ::testing::ValuesIn(kShapeCases),
                         caseName);

//===----------------------------------------------------------------------===//
// Layers with PyTorch's weights
//===----------------------------------------------------------------------===//

/// embed → head with head.weight = embed.weight, as in tied language models;
/// shape.py's TiedEmbeddingLM.
struct TiedEmbeddingLMImpl : Module {
  TiedEmbeddingLMImpl(int64_t vocab, int64_t dim) : Module("TiedEmbeddingLM") {
    embed = register_module("embed", Embedding(vocab, dim));
    head = register_module("head", Linear(dim, vocab));
    head->weight = embed->weight;
  }
  Tensor forward(const Tensor &tokens) { return head(embed(tokens)); }
  Embedding embed{nullptr};
  Linear head{nullptr};
};
NN_MODULE(TiedEmbeddingLM);

/// Loads golden `name`; input.0 is the layer's input, input.i (i >= 1) the
/// weights stored under every name of keys[i-1] (several for a tied one).
/// Loads them into `model` (strictly), traces it on input.0 alone, compiles
/// and compares with output.0.
template <typename Holder>
void expectLayerMatches(const std::string &name, Holder model,
                        const std::vector<std::vector<std::string>> &keys) {
  auto golden = load_safetensors(std::string(NN_SOURCE_DIR) +
                                 "/tests/reference/goldens/ops/shape/" + name +
                                 ".safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const auto &tensors = golden->tensors;
  StateDict state;
  for (size_t i = 0; i < keys.size(); ++i)
    for (const std::string &key : keys[i])
      state.insert(key, tensors.at("input." + std::to_string(i + 1)));
  model->load_state_dict(state);
  const Tensor &input = tensors.at("input.0");
  auto artifact =
      compile(trace(model, {TensorSpec(input.shape(), input.dtype())}));
  auto outputs = artifact->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 1u);
  expectClose((*outputs)[0], tensors.at("output.0"), Tolerance(),
              name + " output.0");
}

TEST(ShapeLayers, FlattenMatchesPyTorch) {
  expectLayerMatches("layer_flatten", Flatten(), {});
  expectLayerMatches("layer_flatten_0_1",
                     Flatten(FlattenOptions().start_dim(0).end_dim(1)), {});
}

// Identity alone compiles to a forward that returns its input: the output is
// a copy in the caller's buffer (nn-isolate-arguments).
TEST(ShapeLayers, IdentityMatchesPyTorch) {
  expectLayerMatches("layer_identity", Identity(), {});
  expectLayerMatches(
      "layer_identity_in_sequential",
      Sequential(Identity(), Flatten(FlattenOptions().start_dim(0))), {});
}

TEST(ShapeLayers, EmbeddingMatchesPyTorch) {
  expectLayerMatches("layer_embedding_padding",
                     Embedding(EmbeddingOptions(10, 3).padding_idx(0)),
                     {{"weight"}});
}

TEST(ShapeLayers, TiedEmbeddingLMMatchesPyTorch) {
  // The golden carries the embedding weight once; both names load it, and
  // the tie (one tensor) survives load_state_dict.
  TiedEmbeddingLM model(17, 8);
  expectLayerMatches("tied_embedding_lm", model,
                     {{"embed.weight", "head.weight"}, {"head.bias"}});
  EXPECT_TRUE(model->head->weight.shares_storage(model->embed->weight));
}

TEST(ShapeLayers, ShufflesMatchPyTorchAndPrintAsItDoes) {
  Sequential shuffles(PixelUnshuffle(2), ChannelShuffle(2), PixelShuffle(2));
  expectLayerMatches("layer_pixel_shuffle_unshuffle", shuffles, {});
  std::ostringstream os;
  os << *shuffles;
  EXPECT_EQ(os.str(), "Sequential(\n"
                      "  (0): PixelUnshuffle(downscale_factor=2)\n"
                      "  (1): ChannelShuffle(groups=2)\n"
                      "  (2): PixelShuffle(upscale_factor=2)\n"
                      ")");
}

//===----------------------------------------------------------------------===//
// Trace-time errors of the functional API
//===----------------------------------------------------------------------===//

TEST(ShapeFunctional, ShufflesCheckTheirFactors) {
  EXPECT_EQ(traceError({TensorSpec({2, 6, 3, 3})},
                       unary([](auto x) { return F::pixel_shuffle(x, 2); })),
            "<root>: pixel_shuffle: the channels of input 2x6x3x3 must be "
            "divisible by upscale_factor² = 4");
  EXPECT_EQ(traceError({TensorSpec({2, 4, 5, 4})},
                       unary([](auto x) { return F::pixel_unshuffle(x, 2); })),
            "<root>: pixel_unshuffle: the height and width of input 2x4x5x4 "
            "must be divisible by downscale_factor 2");
  EXPECT_EQ(traceError({TensorSpec({2, 5, 3})},
                       unary([](auto x) { return F::channel_shuffle(x, 2); })),
            "<root>: channel_shuffle: the channels of input 2x5x3 must be "
            "divisible by groups 2");
  EXPECT_EQ(traceError({TensorSpec({4, 4})},
                       unary([](auto x) { return F::pixel_shuffle(x, 2); })),
            "<root>: pixel_shuffle: input must have at least 3 dims, got 4x4");
  EXPECT_EQ(traceError({TensorSpec({1, 4, 2, 2})},
                       unary([](auto x) { return F::pixel_shuffle(x, 0); })),
            "<root>: pixel_shuffle: upscale_factor must be positive, got 0");
}

TEST(ShapeFunctional, ShapeErrorsNameTheOpAndBothShapes) {
  EXPECT_EQ(traceError({TensorSpec({2, 3}), TensorSpec({3, 4})},
                       [](const Inputs &in) { return Outputs{F::cat(in, 1)}; }),
            "<root>: cat: tensor 1 (3x4) does not match tensor 0 (2x3) "
            "outside dimension 1");
  EXPECT_EQ(traceError({TensorSpec({2, 3})}, unary([](auto x) {
                         return F::reshape(x, {4, -1});
                       })),
            "<root>: reshape: shape [4, -1] is invalid for input 2x3 (6 "
            "elements)");
  EXPECT_EQ(traceError({TensorSpec({2, 3})},
                       unary([](auto x) { return F::transpose(x, 0, 2); })),
            "<root>: transpose: dim1 2 is out of range for input 2x3 "
            "(expected -2 to 1)");
  EXPECT_EQ(traceError({TensorSpec({2, 3})}, unary([](auto x) {
                         return F::pad(x, F::PadFuncOptions({1, 2, 3}));
                       })),
            "<root>: pad: the padding has 3 values; it needs a (before, "
            "after) pair per dimension");
  EXPECT_EQ(
      traceError({TensorSpec({2, 3})}, unary([](auto x) {
                   return F::pad(x, F::PadFuncOptions({3, 0}).mode("reflect"));
                 })),
      "<root>: pad: dimension 1 (size 3) padded by (3, 0): reflect "
      "padding must be smaller than the size");
  EXPECT_EQ(
      traceError(
          {TensorSpec({2, 3})}, unary([](auto x) {
            return F::pad(x, F::PadFuncOptions({-1, 0}).mode("replicate"));
          })),
      "<root>: pad: dimension 1 (size 3) padded by (-1, 0): only "
      "constant mode crops");
  EXPECT_EQ(
      traceError({TensorSpec({2, 3})}, unary([](auto x) {
                   return F::pad(x, F::PadFuncOptions({1, 1}).mode("wrap"));
                 })),
      "<root>: pad: unknown mode 'wrap' (constant, reflect, replicate "
      "or circular)");
  EXPECT_EQ(
      traceError({TensorSpec({2, 3, 4})},
                 [](const Inputs &in) {
                   return Outputs{F::prelu(
                       in[0], Tensor::from_vector<float>({0.1f, 0.2f}, {2}))};
                 }),
      "<root>: prelu: weight holds 2 slopes, but the input has 3 channels "
      "(weight 2, input 2x3x4); it needs 1 or one per channel, in a 1-D "
      "weight");
}

TEST(ShapeFunctional, SizesAndIndicesAreCheckedAsPyTorchDoes) {
  EXPECT_EQ(traceError({TensorSpec({7})},
                       [](const Inputs &in) { return F::split(in[0], 0); }),
            "<root>: split: split_size must be positive, got 0 (input 7)");
  EXPECT_EQ(traceError({TensorSpec({7})},
                       [](const Inputs &in) { return F::chunk(in[0], 0); }),
            "<root>: chunk: chunks must be positive, got 0 (input 7)");
  EXPECT_EQ(traceError({TensorSpec({5, 3}), TensorSpec({5, 3})},
                       [](const Inputs &in) {
                         return Outputs{F::gather(in[0], 0, in[1])};
                       }),
            "<root>: gather: index must be an int64 tensor, got float32");
  EXPECT_EQ(traceError({TensorSpec({4}, DType::i64), TensorSpec({10, 3})},
                       [](const Inputs &in) {
                         return Outputs{F::embedding(
                             in[0], in[1],
                             F::EmbeddingFuncOptions().padding_idx(10))};
                       }),
            "<root>: embedding: padding_idx 10 must be within num_embeddings "
            "10 (weight 10x3)");
  EXPECT_EQ(traceError({TensorSpec({3})},
                       unary([](auto x) { return F::slice(x, 0, 0, 3, 0); })),
            "<root>: slice: step must be positive, got 0 (input 3)");
  EXPECT_EQ(
      traceError({}, [](const Inputs &) { return Outputs{F::stack({})}; }),
      "<root>: stack: expected a non-empty list of tensors");
}

TEST(ShapeFunctional, SplitAndChunkReturnEveryPiece) {
  Module root("Root");
  std::vector<Shape> shapes;
  trace(root, {TensorSpec({2, 17})}, [&](const Inputs &in) {
    Outputs pieces = F::chunk(in[0], 4, -1);
    for (const Tensor &t : pieces)
      shapes.push_back(t.shape());
    return pieces;
  });
  EXPECT_EQ(shapes, (std::vector<Shape>{{2, 5}, {2, 5}, {2, 5}, {2, 2}}));
}

} // namespace

std::vector<OpCase> shapeOpCases() {
  return std::vector<OpCase>(std::begin(kShapeCases), std::end(kShapeCases));
}

} // namespace nn::testing
