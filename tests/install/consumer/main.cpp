// Declares a network with the installed library and runs it through the reference.
#include <cstdio>
#include <ctile/ctile.hpp>
#include <ctile/reference/reference.hpp>
#include <vector>

using net = ctile::network<ctile::input(4, 4, 2), ctile::maxpool(2), ctile::global_avgpool()>;
static_assert(net::output_shape == ctile::shape{1, 1, 2});

int main() {
  std::vector<std::int32_t> x(32);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int32_t>(i);
  const net::params none{};
  const auto outs = ctile::reference::run(net::layers, none, x);
  // maxpool picks the bottom-right of each 2x2 block: channel 0 -> 10, 14, 26, 30 (avg 20).
  const bool ok = outs.back().size() == 2 && outs.back()[0] == 20 && outs.back()[1] == 21;
  std::printf("consumer %s\n", ok ? "ok" : "wrong");
  return ok ? 0 : 1;
}
