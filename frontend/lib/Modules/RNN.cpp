//===- RNN.cpp - Recurrent layers -----------------------------------------===//
//
// LSTM as PyTorch computes it, one time step at a time in the trace: the
// input projection of every step is one linear over the whole sequence,
// then each step adds linear(h, weight_hh, bias_hh), splits the gates
// (i, f, g, o) and updates c = σ(f)·c + σ(i)·tanh(g), h = σ(o)·tanh(c).
// Without an initial state the first step skips the terms of the zero h and
// c, which gives PyTorch's values exactly (0·W + b = b, σ(f)·0 + x = x).
// With proj_size, h is then projected: h = linear(h, weight_hr).
//
//===----------------------------------------------------------------------===//

#include "nn/Modules/RNN.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"
#include "nn/Init.h"

#include "../ModuleError.h"

#include <cmath>
#include <string_view>

namespace nn {
namespace {

/// "weight_ih_l0", "bias_hh_l1_reverse", ...
std::string parameterName(const char *kind, int64_t layer, bool reverse) {
  return std::string(kind) + "_l" + std::to_string(layer) +
         (reverse ? "_reverse" : "");
}

/// One direction of one layer over the whole sequence: the hidden state of
/// every step, stacked along `timeDim`, and the last (h, c). `h` and `c` are
/// undefined for a zero initial state.
std::tuple<Tensor, Tensor, Tensor>
runDirection(const Tensor &x, int64_t timeDim, const Tensor &w_ih,
             const Tensor &w_hh, const Tensor &b_ih, const Tensor &b_hh,
             const Tensor &w_hr, Tensor h, Tensor c, bool reverse) {
  Tensor projected = F::linear(x, w_ih, b_ih);
  int64_t steps = x.size(timeDim);
  std::vector<Tensor> outputs(steps);
  for (int64_t s = 0; s < steps; ++s) {
    int64_t t = reverse ? steps - 1 - s : s;
    Tensor gates = F::squeeze(F::slice(projected, timeDim, t, t + 1), timeDim);
    if (h.defined())
      gates = F::linear(h, w_hh, b_hh) + gates;
    else if (b_hh.defined())
      gates = b_hh + gates;
    std::vector<Tensor> g = F::chunk(gates, 4, 1);
    Tensor input = F::sigmoid(g[0]) * F::tanh(g[2]);
    c = c.defined() ? F::sigmoid(g[1]) * c + input : input;
    h = F::sigmoid(g[3]) * F::tanh(c);
    if (w_hr.defined())
      h = F::linear(h, w_hr);
    outputs[t] = h;
  }
  return {F::stack(outputs, timeDim), h, c};
}

} // namespace

LSTMImpl::LSTMImpl(const LSTMOptions &options_)
    : Cloneable("LSTM"), options(options_) {
  const LSTMOptions &o = options;
  if (o.input_size() <= 0 || o.hidden_size() <= 0)
    throw Error("LSTM: input_size and hidden_size must be positive, got " +
                std::to_string(o.input_size()) + " and " +
                std::to_string(o.hidden_size()));
  if (o.num_layers() <= 0)
    throw Error("LSTM: num_layers must be greater than or equal to 1, got " +
                std::to_string(o.num_layers()));
  if (!(o.dropout() >= 0.0 && o.dropout() <= 1.0))
    throw Error("LSTM: dropout should be a number in range [0, 1] "
                "representing the probability of an element being zeroed, "
                "got " +
                py_repr(o.dropout()));
  if (o.proj_size() < 0)
    throw Error("LSTM: proj_size should be a positive integer or zero to "
                "disable projections, got " +
                std::to_string(o.proj_size()));
  if (o.proj_size() >= o.hidden_size())
    throw Error("LSTM: proj_size has to be smaller than hidden_size, got " +
                std::to_string(o.proj_size()) + " and " +
                std::to_string(o.hidden_size()));
  int64_t gates = 4 * o.hidden_size();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    int64_t in = layer == 0 ? o.input_size()
                            : real_hidden_size() * (o.bidirectional() ? 2 : 1);
    for (bool reverse : {false, true}) {
      if (reverse && !o.bidirectional())
        continue;
      register_parameter(parameterName("weight_ih", layer, reverse),
                         Tensor::zeros({gates, in}));
      register_parameter(parameterName("weight_hh", layer, reverse),
                         Tensor::zeros({gates, real_hidden_size()}));
      if (o.bias()) {
        register_parameter(parameterName("bias_ih", layer, reverse),
                           Tensor::zeros({gates}));
        register_parameter(parameterName("bias_hh", layer, reverse),
                           Tensor::zeros({gates}));
      }
      // PyTorch's order: the projection after the biases.
      if (o.proj_size() > 0)
        register_parameter(parameterName("weight_hr", layer, reverse),
                           Tensor::zeros({o.proj_size(), o.hidden_size()}));
    }
  }
  reset_parameters();
}

void LSTMImpl::reset_parameters() {
  double bound = 1.0 / std::sqrt(static_cast<double>(options.hidden_size()));
  for (Tensor &weight : parameters(/*recurse=*/false))
    init::uniform_(weight, -bound, bound);
}

std::vector<Tensor> LSTMImpl::flat_weights() const {
  return parameters(/*recurse=*/false);
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>>
LSTMImpl::forward(const Tensor &input,
                  std::optional<std::tuple<Tensor, Tensor>> hx) {
  const LSTMOptions &o = options;
  if (input.dim() != 2 && input.dim() != 3)
    detail::failInModule("LSTM: Expected input to be 2-D or 3-D but received " +
                         std::to_string(input.dim()) + "-D tensor");
  bool batched = input.dim() == 3;
  // Unbatched input runs as a batch of one: [seq, 1, feature].
  Tensor x = batched ? input : F::unsqueeze(input, 1);
  int64_t timeDim = batched && o.batch_first() ? 1 : 0;
  int64_t batch = x.size(1 - timeDim);
  if (x.size(2) != o.input_size())
    detail::failInModule(
        "LSTM: input.size(-1) must be equal to input_size. Expected " +
        std::to_string(o.input_size()) + ", got " + std::to_string(x.size(2)) +
        " (input " + shape_str(input.shape()) + ", weight_ih_l0 " +
        shape_str(get_parameter("weight_ih_l0").shape()) + ")");
  if (x.size(timeDim) == 0)
    detail::failInModule("LSTM: the input sequence " +
                         shape_str(input.shape()) + " is empty");
  int64_t directions = o.bidirectional() ? 2 : 1;
  Tensor h0, c0;
  if (hx) {
    std::tie(h0, c0) = *hx;
    if (!batched) {
      h0 = F::unsqueeze(h0, 1);
      c0 = F::unsqueeze(c0, 1);
    }
    for (auto [name, state, features] :
         {std::tuple{"hidden[0]", h0, real_hidden_size()},
          std::tuple{"hidden[1]", c0, o.hidden_size()}}) {
      Shape expected = {o.num_layers() * directions, batch, features};
      if (state.shape() != expected)
        detail::failInModule(std::string("LSTM: Expected ") + name + " size " +
                             shape_str(expected) + ", got " +
                             shape_str(state.shape()));
    }
  }

  auto parameter = [&](const char *kind, int64_t layer, bool reverse) {
    if ((!o.bias() && kind[0] == 'b') ||
        (o.proj_size() == 0 && std::string_view(kind) == "weight_hr"))
      return Tensor();
    return get_parameter(parameterName(kind, layer, reverse));
  };
  std::vector<Tensor> hN, cN;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t d = 0; d < directions; ++d) {
      int64_t index = layer * directions + d;
      Tensor h, c;
      if (hx) {
        h = F::squeeze(F::slice(h0, 0, index, index + 1), 0);
        c = F::squeeze(F::slice(c0, 0, index, index + 1), 0);
      }
      bool reverse = d == 1;
      auto [out, hT, cT] =
          runDirection(x, timeDim, parameter("weight_ih", layer, reverse),
                       parameter("weight_hh", layer, reverse),
                       parameter("bias_ih", layer, reverse),
                       parameter("bias_hh", layer, reverse),
                       parameter("weight_hr", layer, reverse), h, c, reverse);
      outputs.push_back(out);
      hN.push_back(hT);
      cN.push_back(cT);
    }
    x = directions == 1 ? outputs[0] : F::cat(outputs, 2);
    if (layer + 1 < o.num_layers() && o.dropout() > 0.0)
      x = F::dropout(x, o.dropout(), is_training());
  }
  Tensor hn = F::stack(hN, 0), cn = F::stack(cN, 0);
  if (!batched)
    return {F::squeeze(x, 1), {F::squeeze(hn, 1), F::squeeze(cn, 1)}};
  return {x, {hn, cn}};
}

std::string LSTMImpl::extra_repr() const {
  const LSTMOptions &o = options;
  std::string s =
      std::to_string(o.input_size()) + ", " + std::to_string(o.hidden_size());
  if (o.proj_size() != 0)
    s += ", proj_size=" + std::to_string(o.proj_size());
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

} // namespace nn
