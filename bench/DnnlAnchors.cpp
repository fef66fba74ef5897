//===- DnnlAnchors.cpp - oneDNN baselines ---------------------------------===//
//
// oneDNN called directly, each primitive created with format_tag::any so it
// picks its preferred blocked layouts (nChw8c / OIhw8i8o on AVX2). Weights
// are reordered (and batch norm folded into the convolution) once at set-up,
// as an inference deployment would. The input reorder NCHW -> blocked and
// the output reorder back are inside the timed run: nn and libtorch take and
// return NCHW, so this is the same contract.
//
// Debian's oneDNN uses the OpenMP runtime: omp_set_num_threads sets its
// thread count.
//
//===----------------------------------------------------------------------===//

#include "Anchors.h"

#include <dnnl.hpp>
#include <omp.h>

#include <cmath>
#include <cstring>

namespace bench {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

struct Context {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{eng};
};

memory fromHost(Context &c, const HostTensor &t, tag layout) {
  memory m({memory::dims(t.shape.begin(), t.shape.end()), dt::f32, layout},
           c.eng);
  std::memcpy(m.get_data_handle(), t.data, t.numel() * sizeof(float));
  return m;
}

memory fromVector(Context &c, const std::vector<float> &v,
                  const memory::dims &dims, tag layout) {
  memory m({dims, dt::f32, layout}, c.eng);
  std::memcpy(m.get_data_handle(), v.data(), v.size() * sizeof(float));
  return m;
}

/// `src` in layout `md` (a copy when the layouts differ).
memory reordered(Context &c, const memory &src, const memory::desc &md) {
  if (src.get_desc() == md)
    return src;
  memory dst(md, c.eng);
  dnnl::reorder(src, dst).execute(c.stream, const_cast<memory &>(src), dst);
  c.stream.wait();
  return dst;
}

std::vector<float> toVector(Context &c, const memory &m,
                            const memory::dims &dims, tag layout) {
  memory plain({dims, dt::f32, layout}, c.eng);
  dnnl::reorder(m, plain).execute(c.stream, const_cast<memory &>(m), plain);
  c.stream.wait();
  const float *p = static_cast<const float *>(plain.get_data_handle());
  int64_t n = 1;
  for (auto d : dims)
    n *= d;
  return std::vector<float>(p, p + n);
}

/// Conv weights (and bias) with an eval batch norm folded in.
struct FoldedConv {
  std::vector<float> weight, bias;
};

FoldedConv foldBatchNorm(const NamedTensors &w, const std::string &conv,
                         const std::string &bn, bool hasBias) {
  const HostTensor &cw = w.at(conv + ".weight");
  int64_t oc = cw.shape[0], per = cw.numel() / oc;
  FoldedConv f{std::vector<float>(cw.data, cw.data + cw.numel()),
               std::vector<float>(oc, 0.f)};
  const float *g = w.at(bn + ".weight").data, *b = w.at(bn + ".bias").data;
  const float *mean = w.at(bn + ".running_mean").data;
  const float *var = w.at(bn + ".running_var").data;
  for (int64_t o = 0; o < oc; ++o) {
    float scale = g[o] / std::sqrt(var[o] + 1e-5f);
    for (int64_t i = 0; i < per; ++i)
      f.weight[o * per + i] *= scale;
    float cb = hasBias ? w.at(conv + ".bias").data[o] : 0.f;
    f.bias[o] = (cb - mean[o]) * scale + b[o];
  }
  return f;
}

/// A 3x3, stride 1, pad 1 convolution with a folded bias, a ReLU and
/// optionally a sum (residual) post-op before it.
struct Conv3x3 {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  memory weight, bias;

  Conv3x3(Context &c, const memory::dims &src, const FoldedConv &f,
          bool residual) {
    memory::dims wdims = {src[1], src[1], 3, 3}, bdims = {src[1]};
    memory::desc srcMd(src, dt::f32, tag::any), dstMd(src, dt::f32, tag::any);
    memory::desc wMd(wdims, dt::f32, tag::any), bMd(bdims, dt::f32, tag::x);
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        srcMd, wMd, bMd, dstMd, {1, 1}, {1, 1}, {1, 1});
    dnnl::post_ops ops;
    if (residual)
      ops.append_sum(1.f);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    pd = dnnl::convolution_forward::primitive_desc(desc, attr, c.eng);
    prim = dnnl::convolution_forward(pd);
    weight = reordered(c, fromVector(c, f.weight, wdims, tag::oihw),
                       pd.weights_desc());
    bias = fromVector(c, f.bias, bdims, tag::x);
  }

  void run(Context &c, memory &src, memory &dst) {
    prim.execute(c.stream, {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, weight},
                            {DNNL_ARG_BIAS, bias},
                            {DNNL_ARG_DST, dst}});
  }
};

class ConvBnReluRunner : public Runner {
public:
  ConvBnReluRunner(const NamedTensors &w, HostTensor x)
      : dims_(x.shape.begin(), x.shape.end()),
        conv_(c_, dims_, foldBatchNorm(w, "conv", "bn", true), false),
        input_(fromHost(c_, x, tag::nchw)),
        output_({dims_, dt::f32, tag::nchw}, c_.eng),
        blockedIn_(conv_.pd.src_desc(), c_.eng),
        blockedOut_(conv_.pd.dst_desc(), c_.eng) {}
  void run() override {
    dnnl::reorder(input_, blockedIn_).execute(c_.stream, input_, blockedIn_);
    conv_.run(c_, blockedIn_, blockedOut_);
    dnnl::reorder(blockedOut_, output_)
        .execute(c_.stream, blockedOut_, output_);
    c_.stream.wait();
  }
  std::vector<float> output() override {
    return toVector(c_, output_, dims_, tag::nchw);
  }

private:
  Context c_;
  memory::dims dims_;
  Conv3x3 conv_;
  memory input_, output_, blockedIn_, blockedOut_;
};

class ResidualRunner : public Runner {
public:
  ResidualRunner(const NamedTensors &w, HostTensor x)
      : dims_(x.shape.begin(), x.shape.end()),
        input_(fromHost(c_, x, tag::nchw)),
        output_({dims_, dt::f32, tag::nchw}, c_.eng) {
    for (std::string p : {"0.", "1."}) {
      convs_.emplace_back(
          c_, dims_, foldBatchNorm(w, p + "conv1", p + "bn1", false), false);
      convs_.emplace_back(
          c_, dims_, foldBatchNorm(w, p + "conv2", p + "bn2", false), true);
    }
    // Every conv of the chain agrees on one blocked activation layout.
    h_ = memory(convs_[0].pd.src_desc(), c_.eng);
    t_ = memory(convs_[0].pd.dst_desc(), c_.eng);
  }
  void run() override {
    dnnl::reorder(input_, h_).execute(c_.stream, input_, h_);
    for (size_t i = 0; i < convs_.size(); i += 2) {
      convs_[i].run(c_, h_, t_);     // t = relu(bn1(conv1(h)))
      convs_[i + 1].run(c_, t_, h_); // h = relu(bn2(conv2(t)) + h), in place
    }
    dnnl::reorder(h_, output_).execute(c_.stream, h_, output_);
    c_.stream.wait();
  }
  std::vector<float> output() override {
    return toVector(c_, output_, dims_, tag::nchw);
  }

private:
  Context c_;
  memory::dims dims_;
  std::vector<Conv3x3> convs_;
  memory input_, output_, h_, t_;
};

class MatmulRunner : public Runner {
public:
  MatmulRunner(HostTensor a, HostTensor b)
      : m_(a.shape[0]), n_(b.shape[1]), k_(a.shape[1]) {
    memory::desc aMd({m_, k_}, dt::f32, tag::ab);
    memory::desc bMd({k_, n_}, dt::f32, tag::any);
    memory::desc cMd({m_, n_}, dt::f32, tag::ab);
    pd_ =
        dnnl::matmul::primitive_desc(dnnl::matmul::desc(aMd, bMd, cMd), c_.eng);
    prim_ = dnnl::matmul(pd_);
    a_ = fromHost(c_, a, tag::ab);
    b_ = reordered(c_, fromHost(c_, b, tag::ab), pd_.weights_desc());
    c2_ = memory(cMd, c_.eng);
  }
  void run() override {
    prim_.execute(
        c_.stream,
        {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c2_}});
    c_.stream.wait();
  }
  std::vector<float> output() override {
    return toVector(c_, c2_, {m_, n_}, tag::ab);
  }

private:
  Context c_;
  int64_t m_, n_, k_;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  memory a_, b_, c2_;
};

} // namespace

void setDnnlThreads(int threads) { omp_set_num_threads(threads); }

std::unique_ptr<Runner> dnnlConvBnRelu(const NamedTensors &w, HostTensor x) {
  return std::make_unique<ConvBnReluRunner>(w, x);
}
std::unique_ptr<Runner> dnnlResidual(const NamedTensors &w, HostTensor x) {
  return std::make_unique<ResidualRunner>(w, x);
}
std::unique_ptr<Runner> dnnlMatmul(HostTensor a, HostTensor b) {
  return std::make_unique<MatmulRunner>(a, b);
}

} // namespace bench
