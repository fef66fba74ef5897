//===- RNN.cpp - Recurrent layers -----------------------------------------===//
//
// LSTM and GRU as PyTorch computes them, one time step at a time in the
// trace: the input projection of every step is one linear over the whole
// sequence, then each step adds linear(h, weight_hh, bias_hh) and splits the
// gates. LSTM (i, f, g, o): c = σ(f)·c + σ(i)·tanh(g), h = σ(o)·tanh(c),
// then with proj_size h = linear(h, weight_hr). GRU (r, z, n): r and z are
// σ of the sums, n = tanh(x_n + r·h_n), h = (h − n)·z + n, in the order of
// PyTorch's CPU cell. Without an initial state the first step skips the
// terms of the zero h and c, which gives PyTorch's values exactly
// (0·W + b = b, σ(f)·0 + x = x). The parameters, the layers, directions,
// dropout between layers and the checks of options, input and state are
// shared (registerRecurrentParameters, RecurrentRun).
//
//===----------------------------------------------------------------------===//

#include "nn/Modules/RNN.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"
#include "nn/Init.h"

#include "../ModuleError.h"

#include <cmath>
#include <functional>
#include <utility>

namespace nn {
namespace {

/// "weight_ih_l0", "bias_hh_l1_reverse", ...
std::string parameterName(const char *kind, int64_t layer, bool reverse) {
  return std::string(kind) + "_l" + std::to_string(layer) +
         (reverse ? "_reverse" : "");
}

/// Registers a recurrent layer's parameters with PyTorch's names, order and
/// shapes: per layer and direction weight_ih [gates, in] (in: input_size,
/// then directions · hiddenOut), weight_hh [gates, hiddenOut], bias_ih and
/// bias_hh [gates] with `bias`, then weight_hr [projSize, hiddenSize] when
/// projSize > 0 (all zeros until resetRecurrentParameters).
template <typename Options>
void registerRecurrentParameters(Module &module, const Options &o,
                                 int64_t gates, int64_t hiddenOut,
                                 int64_t projSize) {
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    int64_t in =
        layer == 0 ? o.input_size() : hiddenOut * (o.bidirectional() ? 2 : 1);
    for (bool reverse : {false, true}) {
      if (reverse && !o.bidirectional())
        continue;
      module.register_parameter(parameterName("weight_ih", layer, reverse),
                                Tensor::zeros({gates, in}));
      module.register_parameter(parameterName("weight_hh", layer, reverse),
                                Tensor::zeros({gates, hiddenOut}));
      if (o.bias()) {
        module.register_parameter(parameterName("bias_ih", layer, reverse),
                                  Tensor::zeros({gates}));
        module.register_parameter(parameterName("bias_hh", layer, reverse),
                                  Tensor::zeros({gates}));
      }
      // PyTorch's order: the projection after the biases.
      if (projSize > 0)
        module.register_parameter(parameterName("weight_hr", layer, reverse),
                                  Tensor::zeros({projSize, o.hidden_size()}));
    }
  }
}

/// PyTorch's initialization of a recurrent layer: every parameter
/// U(±1/√hidden_size).
void resetRecurrentParameters(Module &module, int64_t hiddenSize) {
  double bound = 1.0 / std::sqrt(static_cast<double>(hiddenSize));
  for (Tensor &weight : module.parameters(/*recurse=*/false))
    init::uniform_(weight, -bound, bound);
}

/// The parameter `kind` of `layer` in direction `reverse`; undefined when
/// the layer has none (no bias, no projection).
Tensor recurrentParameter(Module &module, const char *kind, int64_t layer,
                          bool reverse) {
  std::string name = parameterName(kind, layer, reverse);
  return module.has_parameter(name) ? module.get_parameter(name) : Tensor();
}

/// A layer's recurrent state in one direction: h, and c for LSTM;
/// undefined for a zero initial state.
struct State {
  Tensor h, c;
};

/// One direction of one layer over the whole sequence (`x` with time along
/// `timeDim`): the hidden state of every step, stacked along `timeDim`, and
/// the last state.
using DirectionFn = std::function<std::pair<Tensor, State>(
    const Tensor &x, int64_t timeDim, int64_t layer, bool reverse,
    State initial)>;

/// Runs `step` (a step's input gates, [batch, gates] → its output h) over
/// the sequence, backwards when `reverse`, the inputs of every step
/// projected at once by linear(x, w_ih, b_ih); the outputs stacked along
/// `timeDim`.
Tensor unroll(const Tensor &x, int64_t timeDim, bool reverse,
              const Tensor &w_ih, const Tensor &b_ih,
              const std::function<Tensor(const Tensor &)> &step) {
  Tensor projected = F::linear(x, w_ih, b_ih);
  int64_t steps = x.size(timeDim);
  std::vector<Tensor> outputs(steps);
  for (int64_t s = 0; s < steps; ++s) {
    int64_t t = reverse ? steps - 1 - s : s;
    outputs[t] =
        step(F::squeeze(F::slice(projected, timeDim, t, t + 1), timeDim));
  }
  return F::stack(outputs, timeDim);
}

/// What every recurrent layer shares: `input` ([seq, batch, feature],
/// [batch, seq, feature] with batch_first, or unbatched [seq, feature])
/// checked against input_size, the initial states `hx` (each [layers ·
/// directions, batch, features[k]], without batch unbatched; empty for
/// zeros) checked, then the layers run: layer k > 0 reads layer k−1's
/// outputs (directions concatenated), with dropout between layers while
/// training. Returns the output and the final states, each stacked as hx
/// is (h_n, c_n).
struct RecurrentRun {
  const char *layer;
  int64_t inputSize, numLayers, directions;
  bool batchFirst;
  double dropout;
  bool training;
  Shape weightIh0;

  std::pair<Tensor, std::vector<Tensor>>
  operator()(const Tensor &input, std::vector<Tensor> hx,
             const std::vector<int64_t> &features,
             const DirectionFn &direction) const {
    std::string name(layer);
    if (input.dim() != 2 && input.dim() != 3)
      detail::failInModule(name +
                           ": Expected input to be 2-D or 3-D but received " +
                           std::to_string(input.dim()) + "-D tensor");
    bool batched = input.dim() == 3;
    // Unbatched input runs as a batch of one: [seq, 1, feature].
    Tensor x = batched ? input : F::unsqueeze(input, 1);
    int64_t timeDim = batched && batchFirst ? 1 : 0;
    int64_t batch = x.size(1 - timeDim);
    if (x.size(2) != inputSize)
      detail::failInModule(
          name + ": input.size(-1) must be equal to input_size. Expected " +
          std::to_string(inputSize) + ", got " + std::to_string(x.size(2)) +
          " (input " + shape_str(input.shape()) + ", weight_ih_l0 " +
          shape_str(weightIh0) + ")");
    if (x.size(timeDim) == 0)
      detail::failInModule(name + ": the input sequence " +
                           shape_str(input.shape()) + " is empty");
    for (size_t k = 0; k < hx.size(); ++k) {
      if (!batched)
        hx[k] = F::unsqueeze(hx[k], 1);
      Shape expected = {numLayers * directions, batch, features[k]};
      if (hx[k].shape() != expected)
        detail::failInModule(
            name + ": Expected hidden" +
            (hx.size() > 1 ? "[" + std::to_string(k) + "]" : std::string()) +
            " size " + shape_str(expected) + ", got " +
            shape_str(hx[k].shape()));
    }

    std::vector<std::vector<Tensor>> last(features.size());
    for (int64_t layerIndex = 0; layerIndex < numLayers; ++layerIndex) {
      std::vector<Tensor> outputs;
      for (int64_t d = 0; d < directions; ++d) {
        int64_t index = layerIndex * directions + d;
        State initial;
        Tensor *slots[] = {&initial.h, &initial.c};
        for (size_t k = 0; k < hx.size(); ++k)
          *slots[k] = F::squeeze(F::slice(hx[k], 0, index, index + 1), 0);
        auto [out, final] =
            direction(x, timeDim, layerIndex, /*reverse=*/d == 1, initial);
        outputs.push_back(out);
        last[0].push_back(final.h);
        if (features.size() > 1)
          last[1].push_back(final.c);
      }
      x = directions == 1 ? outputs[0] : F::cat(outputs, 2);
      if (layerIndex + 1 < numLayers && dropout > 0.0)
        x = F::dropout(x, dropout, training);
    }
    std::vector<Tensor> states;
    for (const std::vector<Tensor> &finals : last) {
      Tensor stacked = F::stack(finals, 0);
      states.push_back(batched ? stacked : F::squeeze(stacked, 1));
    }
    return {batched ? x : F::squeeze(x, 1), states};
  }
};

/// The run of a layer with options `o` (LSTMOptions, GRUOptions).
template <typename Options>
RecurrentRun recurrentRun(const char *layer, const Options &o, bool training,
                          Shape weightIh0) {
  return {layer,           o.input_size(),
          o.num_layers(),  o.bidirectional() ? 2 : 1,
          o.batch_first(), o.dropout(),
          training,        std::move(weightIh0)};
}

/// The checks LSTM's and GRU's constructors share, PyTorch's messages.
template <typename Options>
void checkRecurrentOptions(const char *layer, const Options &o) {
  std::string name(layer);
  int64_t inputSize = o.input_size(), hiddenSize = o.hidden_size(),
          numLayers = o.num_layers();
  double dropout = o.dropout();
  if (inputSize <= 0 || hiddenSize <= 0)
    throw Error(name + ": input_size and hidden_size must be positive, got " +
                std::to_string(inputSize) + " and " +
                std::to_string(hiddenSize));
  if (numLayers <= 0)
    throw Error(name + ": num_layers must be greater than or equal to 1, got " +
                std::to_string(numLayers));
  if (!(dropout >= 0.0 && dropout <= 1.0))
    throw Error(name +
                ": dropout should be a number in range [0, 1] "
                "representing the probability of an element being zeroed, "
                "got " +
                py_repr(dropout));
}

/// PyTorch's repr of a recurrent layer's options (`projSize` 0: none).
template <typename Options>
std::string recurrentRepr(const Options &o, int64_t projSize) {
  std::string s =
      std::to_string(o.input_size()) + ", " + std::to_string(o.hidden_size());
  if (projSize != 0)
    s += ", proj_size=" + std::to_string(projSize);
  if (o.num_layers() != 1)
    s += ", num_layers=" + std::to_string(o.num_layers());
  if (!o.bias())
    s += ", bias=False";
  if (o.batch_first())
    s += ", batch_first=True";
  if (o.dropout() != 0.0)
    s += ", dropout=" + py_repr(o.dropout());
  if (o.bidirectional())
    s += ", bidirectional=True";
  return s;
}

} // namespace

LSTMImpl::LSTMImpl(const LSTMOptions &options_)
    : Cloneable("LSTM"), options(options_) {
  const LSTMOptions &o = options;
  checkRecurrentOptions("LSTM", o);
  if (o.proj_size() < 0)
    throw Error("LSTM: proj_size should be a positive integer or zero to "
                "disable projections, got " +
                std::to_string(o.proj_size()));
  if (o.proj_size() >= o.hidden_size())
    throw Error("LSTM: proj_size has to be smaller than hidden_size, got " +
                std::to_string(o.proj_size()) + " and " +
                std::to_string(o.hidden_size()));
  registerRecurrentParameters(*this, o, 4 * o.hidden_size(), real_hidden_size(),
                              o.proj_size());
  reset_parameters();
}

void LSTMImpl::reset_parameters() {
  resetRecurrentParameters(*this, options.hidden_size());
}

std::vector<Tensor> LSTMImpl::flat_weights() const {
  return parameters(/*recurse=*/false);
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>>
LSTMImpl::forward(const Tensor &input,
                  std::optional<std::tuple<Tensor, Tensor>> hx) {
  const LSTMOptions &o = options;
  auto parameter = [&](const char *kind, int64_t layer, bool reverse) {
    return recurrentParameter(*this, kind, layer, reverse);
  };
  auto direction = [&](const Tensor &x, int64_t timeDim, int64_t layer,
                       bool reverse, State state) -> std::pair<Tensor, State> {
    Tensor w_hh = parameter("weight_hh", layer, reverse),
           b_hh = parameter("bias_hh", layer, reverse),
           w_hr = parameter("weight_hr", layer, reverse);
    auto &[h, c] = state;
    Tensor output =
        unroll(x, timeDim, reverse, parameter("weight_ih", layer, reverse),
               parameter("bias_ih", layer, reverse), [&](Tensor gates) {
                 if (h.defined())
                   gates = F::linear(h, w_hh, b_hh) + gates;
                 else if (b_hh.defined())
                   gates = b_hh + gates;
                 std::vector<Tensor> g = F::chunk(gates, 4, 1);
                 Tensor in = F::sigmoid(g[0]) * F::tanh(g[2]);
                 c = c.defined() ? F::sigmoid(g[1]) * c + in : in;
                 h = F::sigmoid(g[3]) * F::tanh(c);
                 if (w_hr.defined())
                   h = F::linear(h, w_hr);
                 return h;
               });
    return {output, state};
  };
  RecurrentRun run = recurrentRun("LSTM", o, is_training(),
                                  get_parameter("weight_ih_l0").shape());
  std::vector<Tensor> states;
  if (hx)
    states = {std::get<0>(*hx), std::get<1>(*hx)};
  auto [output, last] =
      run(input, states, {real_hidden_size(), o.hidden_size()}, direction);
  return {output, {last[0], last[1]}};
}

std::string LSTMImpl::extra_repr() const {
  return recurrentRepr(options, options.proj_size());
}

GRUImpl::GRUImpl(const GRUOptions &options_)
    : Cloneable("GRU"), options(options_) {
  const GRUOptions &o = options;
  checkRecurrentOptions("GRU", o);
  registerRecurrentParameters(*this, o, 3 * o.hidden_size(), o.hidden_size(),
                              /*projSize=*/0);
  reset_parameters();
}

void GRUImpl::reset_parameters() {
  resetRecurrentParameters(*this, options.hidden_size());
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor &input,
                                            const Tensor &hx) {
  const GRUOptions &o = options;
  auto parameter = [&](const char *kind, int64_t layer, bool reverse) {
    return recurrentParameter(*this, kind, layer, reverse);
  };
  auto direction = [&](const Tensor &x, int64_t timeDim, int64_t layer,
                       bool reverse, State state) -> std::pair<Tensor, State> {
    Tensor w_hh = parameter("weight_hh", layer, reverse),
           b_hh = parameter("bias_hh", layer, reverse);
    Tensor &h = state.h;
    Tensor output = unroll(
        x, timeDim, reverse, parameter("weight_ih", layer, reverse),
        parameter("bias_ih", layer, reverse), [&](const Tensor &gates) {
          std::vector<Tensor> in = F::chunk(gates, 3, 1);
          // The hidden gates: linear(h, w_hh, b_hh), b_hh alone for a
          // zero h.
          std::vector<Tensor> hidden;
          if (h.defined())
            hidden = F::chunk(F::linear(h, w_hh, b_hh), 3, 1);
          else if (b_hh.defined())
            hidden = F::chunk(b_hh, 3, 0);
          Tensor r = F::sigmoid(hidden.empty() ? in[0] : hidden[0] + in[0]);
          Tensor z = F::sigmoid(hidden.empty() ? in[1] : hidden[1] + in[1]);
          Tensor n = F::tanh(hidden.empty() ? in[2] : in[2] + hidden[2] * r);
          // (h − n)·z + n; with h = 0, n − n·z (the same rounding).
          h = h.defined() ? (h - n) * z + n : n - n * z;
          return h;
        });
    return {output, state};
  };
  RecurrentRun run = recurrentRun("GRU", o, is_training(),
                                  get_parameter("weight_ih_l0").shape());
  std::vector<Tensor> states;
  if (hx.defined())
    states = {hx};
  auto [output, last] = run(input, states, {o.hidden_size()}, direction);
  return {output, last[0]};
}

std::string GRUImpl::extra_repr() const {
  return recurrentRepr(options, /*projSize=*/0);
}

} // namespace nn
