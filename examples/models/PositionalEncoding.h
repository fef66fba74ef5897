//===- PositionalEncoding.h - Sinusoidal position encodings -----*- C++ -*-===//
//
// Adds the Transformer's sinusoidal encodings (a persistent buffer, "pe")
// to an input of [max_len, d_model]; the position ids are a non-persistent
// int64 buffer (in named_buffers(), not in state_dict(), and left alone by
// to(dtype)). The PyTorch twin is in
// tests/reference/generate_module_goldens.py; it computes "pe" in float32,
// so values may differ in the last bit until its state is loaded.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_POSITIONALENCODING_H
#define NN_EXAMPLES_MODELS_POSITIONALENCODING_H

#include "nn/nn.h"

#include <cmath>

namespace nn::models {

class PositionalEncodingImpl : public Cloneable<PositionalEncodingImpl> {
public:
  explicit PositionalEncodingImpl(int64_t d_model = 16, int64_t max_len = 8)
      : Cloneable("PositionalEncoding") {
    pe = Tensor::zeros({max_len, d_model});
    position_ids = Tensor::zeros({max_len}, DType::i64);
    float *table = pe.data_ptr<float>();
    for (int64_t pos = 0; pos < max_len; ++pos) {
      position_ids.data_ptr<int64_t>()[pos] = pos;
      for (int64_t i = 0; i < d_model; i += 2) {
        double angle =
            pos *
            std::exp(i * (-std::log(10000.0) / static_cast<double>(d_model)));
        table[pos * d_model + i] = static_cast<float>(std::sin(angle));
        if (i + 1 < d_model)
          table[pos * d_model + i + 1] = static_cast<float>(std::cos(angle));
      }
    }
    register_buffer("pe", &pe);
    register_buffer("position_ids", &position_ids, /*persistent=*/false);
    dropout = register_module("dropout", Dropout(0.1));
  }

  Tensor forward(const Tensor &x) { return dropout(x + pe); }

  Tensor pe;           // [max_len, d_model]
  Tensor position_ids; // [max_len], int64
  Dropout dropout{nullptr};
};
NN_MODULE(PositionalEncoding);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_POSITIONALENCODING_H
