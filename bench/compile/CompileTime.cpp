//===- CompileTime.cpp - What a compile of a seed model costs -------------===//
//
// Issue 6's compile-time target: a resnet-small-sized model compiles in under
// a second, and a repeated compile is answered by the compile cache. Each
// stage of the ResNet seed model's path to a shared object is timed on its
// own, then the whole path without and with the cache:
//
//   CompileResNet/trace          nn::trace (forward on symbolic tensors)
//   CompileResNet/optimize       nn-optimize on a copy of the trace
//   CompileResNet/so_uncached    trace + optimize + lower + LLVM -O3 + object
//                                + ld.lld, cache off
//   CompileResNet/so_cached      the same with a warm cache (the entry is
//                                made before timing starts)
//   CompileResNet/jit_uncached   trace + optimize + lower + JIT, cache off
//   CompileResNet/jit_cached     the same from a warm cache
//
// the same for real architectures of examples/zoo at full size, batch 1
// (BERT-base on 128 tokens), without the stage rows:
//
//   CompileZoo/<model>/so_uncached, so_cached, jit_cached
//                                resnet50, bert_base (the encoder and
//                                pooler of 12 layers)
//
// and nn-optimize on graphs far larger than any model, to show it grows
// linearly (time and peak RSS):
//
//   OptimizeChain/N              nn-optimize on a chain of N relus (N from
//                                10,000 to 100,000); peak_rss_mb is the
//                                process's peak RSS after it (rows run in
//                                order of N, so it is this row's peak)
//
//   ninja nn-bench-compile && ./bin/nn-bench-compile
//
// Needs only Google Benchmark (not the anchors of the main suite).
//
//===----------------------------------------------------------------------===//

#include "models/ResNet.h"
#include "nn/nn.h"
#include "zoo/BERT.h"
#include "zoo/ResNet.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <sys/resource.h>

namespace {

const std::vector<nn::TensorSpec> kSpecs = {nn::TensorSpec({2, 3, 8, 8})};

/// The seed model as nn-trace-seed-model builds it, in eval.
nn::models::ResNet makeModel() {
  nn::manual_seed(0);
  nn::models::ResNet model;
  model->eval();
  return model;
}

/// A private cache folder for the process, so that timings never depend on
/// what an earlier run left.
const std::string &cacheDir() {
  static const std::string dir = [] {
    std::string d = (std::filesystem::temp_directory_path() /
                     ("nn-bench-compile-" + std::to_string(::getpid())))
                        .string();
    std::filesystem::remove_all(d);
    ::setenv("NN_CACHE_DIR", d.c_str(), 1);
    ::unsetenv("NN_CACHE_DISABLE");
    return d;
  }();
  return dir;
}

nn::CompileOptions withCache(bool cache) {
  nn::CompileOptions options;
  options.cache = cache;
  return options;
}

void trace(benchmark::State &state) {
  nn::models::ResNet model = makeModel();
  for (auto _ : state)
    benchmark::DoNotOptimize(nn::trace(model, kSpecs));
}

void optimize(benchmark::State &state) {
  nn::models::ResNet model = makeModel();
  nn::TracedModule traced = nn::trace(model, kSpecs);
  for (auto _ : state) {
    nn::TracedModule copy = traced.clone();
    copy.optimize();
    benchmark::DoNotOptimize(copy);
  }
}

/// A chain of `length` relus on a 64-element vector.
nn::TracedModule traceChain(int64_t length) {
  nn::Identity root;
  return nn::trace(*root, {nn::TensorSpec({64})},
                   [&](const std::vector<nn::Tensor> &args) {
                     nn::Tensor x = args[0];
                     for (int64_t i = 0; i < length; ++i)
                       x = nn::F::relu(x);
                     return std::vector<nn::Tensor>{x};
                   });
}

void optimizeChain(benchmark::State &state) {
  nn::TracedModule traced = traceChain(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    nn::TracedModule copy = traced.clone();
    state.ResumeTiming();
    copy.optimize();
    benchmark::DoNotOptimize(copy);
  }
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_mb"] = double(usage.ru_maxrss) / 1024;
  state.counters["ops"] = double(state.range(0));
}

void sharedObject(benchmark::State &state, bool cache) {
  nn::models::ResNet model = makeModel();
  std::string path = cacheDir() + "-model.so";
  if (cache) // the entry exists before timing starts
    nn::compile_to_file(nn::trace(model, kSpecs), path, withCache(true));
  for (auto _ : state)
    nn::compile_to_file(nn::trace(model, kSpecs), path, withCache(cache));
  std::filesystem::remove(path);
}

void jit(benchmark::State &state, bool cache) {
  nn::models::ResNet model = makeModel();
  if (cache)
    nn::compile(nn::trace(model, kSpecs), withCache(true));
  for (auto _ : state)
    benchmark::DoNotOptimize(
        nn::compile(nn::trace(model, kSpecs), withCache(cache)));
}

/// A zoo model in eval and its forward traced on `spec`.
struct ZooCase {
  std::shared_ptr<nn::Module> module;
  std::function<nn::TracedModule()> trace;
};

ZooCase resnet50() {
  auto model = nn::zoo::resnet50();
  model->eval();
  return {model.ptr(), [model] {
            return nn::trace(model, {nn::TensorSpec({1, 3, 224, 224})});
          }};
}

ZooCase bertBase() {
  nn::zoo::BertModel model;
  model->eval();
  return {model.ptr(), [model] {
            return nn::trace(model, {nn::TensorSpec({1, 128}, nn::DType::i64)});
          }};
}

void zooSharedObject(benchmark::State &state, ZooCase (*make)(), bool cache) {
  ZooCase model = make();
  std::string path = cacheDir() + "-zoo.so";
  if (cache)
    nn::compile_to_file(model.trace(), path, withCache(true));
  for (auto _ : state)
    nn::compile_to_file(model.trace(), path, withCache(cache));
  std::filesystem::remove(path);
}

void zooJitCached(benchmark::State &state, ZooCase (*make)()) {
  ZooCase model = make();
  nn::compile(model.trace(), withCache(true));
  for (auto _ : state)
    benchmark::DoNotOptimize(nn::compile(model.trace(), withCache(true)));
}

BENCHMARK(trace)->Name("CompileResNet/trace")->Unit(benchmark::kMillisecond);
BENCHMARK(optimize)
    ->Name("CompileResNet/optimize")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(optimizeChain)
    ->Name("OptimizeChain")
    ->Arg(10'000)
    ->Arg(20'000)
    ->Arg(50'000)
    ->Arg(100'000)
    ->Iterations(1)
    ->ComputeStatistics("min",
                        [](const std::vector<double> &v) {
                          return *std::min_element(v.begin(), v.end());
                        })
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sharedObject, uncached, false)
    ->Name("CompileResNet/so_uncached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sharedObject, cached, true)
    ->Name("CompileResNet/so_cached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(jit, uncached, false)
    ->Name("CompileResNet/jit_uncached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(jit, cached, true)
    ->Name("CompileResNet/jit_cached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zooSharedObject, resnet50_uncached, resnet50, false)
    ->Name("CompileZoo/resnet50/so_uncached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zooSharedObject, resnet50_cached, resnet50, true)
    ->Name("CompileZoo/resnet50/so_cached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zooJitCached, resnet50, resnet50)
    ->Name("CompileZoo/resnet50/jit_cached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zooSharedObject, bert_uncached, bertBase, false)
    ->Name("CompileZoo/bert_base/so_uncached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zooSharedObject, bert_cached, bertBase, true)
    ->Name("CompileZoo/bert_base/so_cached")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(zooJitCached, bert, bertBase)
    ->Name("CompileZoo/bert_base/jit_cached")
    ->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(cacheDir());
  return 0;
}
