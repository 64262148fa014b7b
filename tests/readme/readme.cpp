// The code of README.md, compiled and run: every block between a `// readme:NAME` line and a
// `// readme:end` line appears verbatim in README.md as a ```cpp block (readme_sync.cmake
// checks it), so the README's snippets are this program. main() feeds them the synthetic data
// of the examples and checks the result against the naive reference.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>

// clang-format off
// readme:declare
#include <ctile/ctile.hpp>
using namespace ctile;

// CIFAR-10 style CNN: 32x32x3 input, four 3x3 convs with batch-norm + ReLU requantization,
// 2x2 max pools, a final classifier with raw int32 logits.
using cifar10 = network<
    input(32, 32, 3),
    conv2d(32, 3).same().bn().requantized(1, 1 << 10).named("conv1"),
    conv2d(32, 3).same().bn().requantized(1, 1 << 10).named("conv2"),
    maxpool(2),
    conv2d(64, 3).same().bn().requantized(1, 1 << 11).named("conv3"),
    conv2d(64, 3).same().bn().requantized(1, 1 << 11).named("conv4"),
    maxpool(2),
    linear(10).with_bias().raw().named("fc")>;

static_assert(cifar10::layers[4].out == shape{16, 16, 64});  // shapes are compile-time values
// readme:end

// readme:run
#include <ctile/hal/baremetal.hpp>  // synchronous DMA, one core (ctile/hal/pmsis.hpp on GAP-8)
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>

using run = ctile::executor<cifar10, ctile::gap8>;  // planned at compile time, checked

// The memory the plan needs. l3 is the L3 image: weights the plan streams and activations
// it spills; with real HyperRAM, flash the image stage() writes there. Here every weight is
// resident in L2 and nothing spills: required_l3_bytes is 0 (an array cannot be empty).
alignas(8) static std::uint8_t l1[run::required_l1_bytes];
alignas(8) static std::uint8_t l2[run::required_l2_bytes];
alignas(8) static std::uint8_t l3[run::required_l3_bytes > 0 ? run::required_l3_bytes : 4];

// params: one ctile::layer_params per layer, spans over your arrays (empty for layers
// without data); input: 32 * 32 * 3 bytes, HWC. Every step checks the sizes it is given and
// returns a ctile::run_status saying which layer, what and the numbers when one is wrong.
ctile::run_status infer(const cifar10::params& params, std::span<const std::uint8_t> input,
                        std::int32_t (&logits)[10]) {
  run::quant_plans q{};
  if (auto s = run::prepare(params, q); !s.ok()) return s;         // exact requantization
  if (auto s = run::stage(params, l2, l3); !s.ok()) return s;      // weights: L3 or L2
  if (auto s = run::load_input(input, l2, l3); !s.ok()) return s;  // input: L2 (or L3)
  ctile::hal::baremetal_dma dma;
  ctile::hal::baremetal_cluster cluster;
  ctile::hal::baremetal_l3 ext(l3, sizeof l3);
  ctile::schedule::exec_env<ctile::hal::baremetal_dma, ctile::hal::baremetal_cluster> env{
      dma, cluster, {}, 1};
  if (auto s = run::run(env, ext, q, l1, l2); !s.ok()) return s;
  // The output is in L2 at output_l2_offset (or, when the plan spills it, in L3 at
  // output_l3_offset), HWC; here 10 int32 logits, little-endian.
  const std::uint8_t* out = run::output_l2_offset >= 0 ? l2 + run::output_l2_offset
                                                       : l3 + run::output_l3_offset;
  std::memcpy(logits, out, sizeof logits);
  return {};
}
// readme:end

// readme:check
#include <ctile/reference/reference.hpp>  // the naive reference, every layer
#include <ctile/schedule/host_run.hpp>    // ctile::run_on_host: 8 simulated cores and DMA

bool check_on_host(const cifar10::params& params, std::span<const std::uint8_t> input) {
  std::int32_t logits[10];
  if (const auto s = infer(params, input, logits); !s.ok()) {
    std::printf("%s\n", ctile::schedule::describe(s, cifar10::layers).c_str());
    return false;
  }
  const auto want = ctile::reference::run(cifar10::layers, params, input);
  // The same plan with the cluster's 8 cores and an asynchronous DMA whose checker reports
  // any read of data not yet transferred; every layer's output read back.
  const auto sim = ctile::run_on_host<cifar10, ctile::gap8>(params, input);
  for (const auto& p : sim.problems) std::printf("%s\n", p.c_str());
  return sim.problems.empty() && sim.outputs == want &&
         std::equal(logits, logits + 10, want.back().begin());
}
// readme:end
// clang-format on

#include "common/synthetic.hpp"

int main() {
  static const ctile::examples::synthetic<cifar10> data{5};
  // A wrong input size is refused, not read past.
  std::int32_t logits[10];
  const auto refused = infer(data.params, std::span(data.input).first(100), logits);
  const bool refuses = refused.what == ctile::run_status::field::input && refused.got == 100;
  const bool ok = check_on_host(data.params, data.input);
  std::printf("readme %s\n", ok && refuses ? "ok" : "MISMATCH");
  return ok && refuses ? 0 : 1;
}
