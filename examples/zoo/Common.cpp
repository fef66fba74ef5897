//===- Common.cpp - Pieces the zoo's transformers share -------------------===//

#include "zoo/Common.h"

#include <vector>

namespace nn::zoo {

Tensor positionIds(const char *model, int64_t length, int64_t positions) {
  if (length > positions)
    throw Error(std::string(model) + ": " + std::to_string(length) +
                " tokens, but the model has " + std::to_string(positions) +
                " positions");
  std::vector<int64_t> ids(length);
  for (int64_t i = 0; i < length; ++i)
    ids[i] = i;
  return Tensor::from_vector<int64_t>(ids, {1, length});
}

Tensor splitHeads(const Tensor &x, int64_t heads) {
  return F::permute(
      F::reshape(x, {x.size(0), x.size(1), heads, x.size(2) / heads}),
      {0, 2, 1, 3});
}

Tensor mergeHeads(const Tensor &x) {
  return F::reshape(F::permute(x, {0, 2, 1, 3}),
                    {x.size(0), x.size(2), x.size(1) * x.size(3)});
}

Tensor firstToken(const Tensor &x) {
  return F::reshape(F::slice(x, 1, 0, 1), {x.size(0), x.size(2)});
}

} // namespace nn::zoo
