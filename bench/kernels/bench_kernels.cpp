// Every kernel on one tile (one core) against ctile::reference on the same layer, on the
// host. For regressions only: target speed is measured by the cycle programs in cycles/.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctile/kernels/kernels.hpp>
#include <ctile/kernels/layer_args.hpp>
#include <ctile/network/infer.hpp>
#include <ctile/reference/reference.hpp>
#include <random>
#include <vector>

namespace {

using namespace ctile;
using namespace ctile::kernels;

struct fixture {
  layer l;
  std::vector<std::int8_t> w;
  std::vector<std::int32_t> bias, kappa, lambda, x32, x2_32;
  std::vector<std::uint8_t> x, x2, xchw, out, scratch;
  tile_args a;
  kernel_kind kind;

  explicit fixture(std::vector<layer> ls) {
    if (!infer(ls).ok()) throw std::runtime_error("bad benchmark layer");
    l = ls.back();
    std::mt19937 g(1);
    w.resize(static_cast<std::size_t>(l.weight_count()));
    for (auto& v : w) v = static_cast<std::int8_t>(g());
    const auto ch = static_cast<std::size_t>(l.channel_params());
    if (l.bias) bias.assign(ch, 100);
    if (l.batchnorm) kappa.assign(ch, 3), lambda.assign(ch, -50);
    x.resize(static_cast<std::size_t>(l.in.elements()));
    for (auto& v : x) v = static_cast<std::uint8_t>(g());
    x2 = x;
    x32.assign(x.begin(), x.end());
    x2_32 = x32;
    xchw.resize(x.size());
    for (int y = 0; y < l.in.h; ++y)
      for (int i = 0; i < l.in.w; ++i)
        for (int c = 0; c < l.in.c; ++c)
          xchw[static_cast<std::size_t>((c * l.in.h + y) * l.in.w + i)] =
              x[static_cast<std::size_t>((y * l.in.w + i) * l.in.c + c)];
    kind = kind_of(l);
    a = layer_args(l, params());
    a.in = kind == kernel_kind::depthwise ? xchw.data() : x.data();
    a.in2 = x2.data();
    out.resize(static_cast<std::size_t>(l.output_bytes()));
    a.out = out.data();
    scratch.resize(static_cast<std::size_t>(scratch_bytes(kind, a)) + 4);
    a.scratch = scratch.data();
  }
  [[nodiscard]] layer_params params() const { return {w, bias, kappa, lambda}; }
};

std::vector<layer> case_of(int which) {
  switch (which) {
    case 0:
      return {input(26, 6, 32), conv2d(32, 3).bn().requantized(1, 1 << 14)};
    case 1:
      return {input(24, 4, 32), pointwise(32).bn().requantized(1, 1 << 12)};
    case 2:
      return {input(26, 6, 32), depthwise(3).with_bias().requantized(3, 1000)};
    case 3:
      return {input(1, 1, 1024), linear(32).with_bias().requantized(5, 4096)};
    case 4:
      return {input(24, 8, 32), maxpool(2)};
    case 5:
      return {input(24, 8, 32), avgpool(2).requantized(3, 10)};
    default:
      return {input(24, 4, 32), maxpool(1), add(0, 1).scaled(0, {3, 5, 1, true}).requantized(1, 2)};
  }
}
const char* const names[] = {"conv3x3", "pointwise", "depthwise3x3", "linear",
                             "maxpool", "avgpool",   "add"};

void kernel(benchmark::State& st) {
  fixture f(case_of(static_cast<int>(st.range(0))));
  st.SetLabel(names[st.range(0)]);
  for (auto _ : st) {
    run(f.kind, f.a);
    benchmark::DoNotOptimize(f.out.data());
    benchmark::ClobberMemory();
  }
  st.counters["MAC"] = benchmark::Counter(static_cast<double>(f.l.macs()),
                                          benchmark::Counter::kIsIterationInvariantRate);
}

void reference_layer(benchmark::State& st) {
  fixture f(case_of(static_cast<int>(st.range(0))));
  st.SetLabel(names[st.range(0)]);
  for (auto _ : st) {
    auto y = reference::run_layer(f.l, f.params(), f.x32, f.x2_32);
    benchmark::DoNotOptimize(y.data());
  }
  st.counters["MAC"] = benchmark::Counter(static_cast<double>(f.l.macs()),
                                          benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(kernel)->DenseRange(0, 6);
BENCHMARK(reference_layer)->DenseRange(0, 6);

}  // namespace
