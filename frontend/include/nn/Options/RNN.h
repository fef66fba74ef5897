//===- RNN.h - Options of the recurrent layers ------------------*- C++ -*-===//
#ifndef NN_OPTIONS_RNN_H
#define NN_OPTIONS_RNN_H

#include "nn/Frontend/Arg.h"

#include <cstdint>

namespace nn {

/// LSTM(LSTMOptions(10, 20).num_layers(2).batch_first(true))
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NN_ARG(int64_t, input_size);
  NN_ARG(int64_t, hidden_size);
  /// Stacked layers; layer k > 0 reads layer k-1's output.
  NN_ARG(int64_t, num_layers) = 1;
  /// Whether the layers have bias_ih / bias_hh.
  NN_ARG(bool, bias) = true;
  /// Input and output are [batch, seq, feature] instead of [seq, batch,
  /// feature] (the states h and c are not affected).
  NN_ARG(bool, batch_first) = false;
  /// Dropout on every layer's output but the last's, while training.
  NN_ARG(double, dropout) = 0.0;
  /// A second, reversed pass per layer; the outputs are concatenated.
  NN_ARG(bool, bidirectional) = false;
  /// > 0: h is projected to proj_size features after every step by
  /// weight_hr_l{k} [proj_size, hidden_size] (0 < proj_size < hidden_size).
  NN_ARG(int64_t, proj_size) = 0;
};

/// GRU(GRUOptions(10, 20).num_layers(2).batch_first(true)); the options
/// mean what LSTMOptions' do.
struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NN_ARG(int64_t, input_size);
  NN_ARG(int64_t, hidden_size);
  NN_ARG(int64_t, num_layers) = 1;
  NN_ARG(bool, bias) = true;
  NN_ARG(bool, batch_first) = false;
  NN_ARG(double, dropout) = 0.0;
  NN_ARG(bool, bidirectional) = false;
};

} // namespace nn

#endif // NN_OPTIONS_RNN_H
