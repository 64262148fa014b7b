// expect: layer_expects_other_input_channels<2, ctile::fixed_string<6>\{"conv2"\}, ctile::op::conv, 3, 3, 16, ctile::fixed_string<6>\{"conv1"\}, 32>.*a layer expects a different number of input channels
// clang: layer_expects_other_input_channels<2, fixed_string<[^>]*>\{"conv2"\}, ctile::op::conv, 3, 3, 16, fixed_string<[^>]*>\{"conv1"\}, 32>
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// A channel mismatch, then everything a program does with the network: planning, the
// executor, verifying, preparing and staging its data. The mismatch is the only error; the
// producer is named by its name.
using bad = network<input(32, 32, 3), conv2d(32, 3).same().named("conv1"),
                    conv2d(16, 3).same().expects_channels(16).named("conv2"),
                    global_avgpool().named("pool"), linear(10).named("fc")>;
using exec = executor<bad, gap8>;
constexpr bad::params data{};
static_assert(verify_params<bad, data>());
ctile::run_status use(std::span<std::uint8_t> l2, std::span<std::uint8_t> l3) {
  exec::quant_plans q{};
  if (auto s = exec::prepare(data, q); !s.ok()) return s;
  return exec::stage(data, l2, l3);
}
int main() {
  return exec::required_l2_bytes + exec::required_l1_bytes;
}
