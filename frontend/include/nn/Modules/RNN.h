//===- RNN.h - Recurrent layers ---------------------------------*- C++ -*-===//
#ifndef NN_MODULES_RNN_H
#define NN_MODULES_RNN_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/RNN.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace nn {

/// A multi-layer long short-term memory network, unrolled over the traced
/// sequence length (gates i, f, g, o, as PyTorch). Parameters have
/// PyTorch's names and order: weight_ih_l{k}[_reverse] [4H, in],
/// weight_hh_l{k}[_reverse] [4H, H], bias_ih_l{k}[_reverse],
/// bias_hh_l{k}[_reverse] [4H]. See
/// https://pytorch.org/docs/stable/generated/torch.nn.LSTM.html
///   LSTM lstm(LSTMOptions(10, 20).num_layers(2).batch_first(true));
///   auto [output, state] = lstm(x);            // state = (h_n, c_n)
///   auto [y, next] = lstm(x2, state);
class LSTMImpl : public Cloneable<LSTMImpl> {
public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions &options);

  /// PyTorch's initialization: every parameter U(±1/√hidden_size).
  void reset_parameters();
  /// input: [seq, batch, input_size] ([batch, seq, input_size] with
  /// batch_first) or unbatched [seq, input_size]; hx: (h_0, c_0), h_0
  /// [num_layers · directions, batch, H_out] and c_0 [.., hidden_size]
  /// (without batch unbatched), zeros when absent; H_out is proj_size when
  /// set, else hidden_size. Returns (output, (h_n, c_n)); output's last dim
  /// is directions · H_out.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>>
  forward(const Tensor &input,
          std::optional<std::tuple<Tensor, Tensor>> hx = std::nullopt);
  std::string extra_repr() const override;
  /// The parameters in PyTorch's order (its _flat_weights).
  std::vector<Tensor> flat_weights() const;
  /// The features of h (PyTorch's real_hidden_size): proj_size when set,
  /// else hidden_size.
  int64_t real_hidden_size() const {
    return options.proj_size() > 0 ? options.proj_size()
                                   : options.hidden_size();
  }

  LSTMOptions options;
};
NN_MODULE(LSTM);

/// A multi-layer gated recurrent unit network, unrolled over the traced
/// sequence length (gates r, z, n, as PyTorch: n = tanh(W_in·x + b_in +
/// r·(W_hn·h + b_hn)), h' = (1 − z)·n + z·h). Parameters have PyTorch's
/// names and order: weight_ih_l{k}[_reverse] [3H, in],
/// weight_hh_l{k}[_reverse] [3H, H], bias_ih_l{k}[_reverse],
/// bias_hh_l{k}[_reverse] [3H]. See
/// https://pytorch.org/docs/stable/generated/torch.nn.GRU.html
///   GRU gru(GRUOptions(10, 20).num_layers(2));
///   auto [output, h_n] = gru(x);
class GRUImpl : public Cloneable<GRUImpl> {
public:
  GRUImpl(int64_t input_size, int64_t hidden_size)
      : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions &options);

  /// PyTorch's initialization: every parameter U(±1/√hidden_size).
  void reset_parameters();
  /// input as LSTM's; hx: h_0 [num_layers · directions, batch, hidden_size]
  /// (without batch unbatched), zeros when absent. Returns (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor &input,
                                     const Tensor &hx = Tensor());
  std::string extra_repr() const override;

  GRUOptions options;
};
NN_MODULE(GRU);

} // namespace nn

#endif // NN_MODULES_RNN_H
