// Compiled once per network against the header ctile-import generated for it: runs the
// reference through the header's network type and data, and compares every golden layer with
// DORY's files.
#include CTILE_NET_HEADER

#include <cstdio>
#include <ctile/reference/reference.hpp>
#include <string>
#include <vector>

#include "ctile/onnx/dory_text.hpp"
#include "ctile/onnx/verify.hpp"

int main() {
  using Net = CTILE_NET;
  constexpr const auto& params = CTILE_PARAMS;
  constexpr const auto& golden = CTILE_GOLDEN;
  static_assert(Net::size == std::size(golden), "one golden index per layer");
  const std::string dir = CTILE_NET_DIR;
  const auto in = ctile::onnx::read_dory_file(dir + "/input.txt");
  if (static_cast<std::int64_t>(in.values.size()) != Net::input_shape.elements()) {
    std::printf("input.txt has %zu values, the network input %lld\n", in.values.size(),
                static_cast<long long>(Net::input_shape.elements()));
    return 1;
  }
  const std::vector<std::int32_t> x(in.values.begin(), in.values.end());
  const auto outs = ctile::reference::run(Net::layers, params, x);
  int exact = 0, total = 0;
  for (std::size_t i = 0; i < Net::size; ++i) {
    if (golden[i] < 0) continue;
    const auto g =
        ctile::onnx::read_dory_file(dir + "/out_layer" + std::to_string(golden[i]) + ".txt");
    const auto c = ctile::onnx::compare(Net::layers[i].out, outs[i], g.values);
    std::printf("layer %d (%s): %lld mismatches of %lld (%s)\n", golden[i],
                ctile::op_name(Net::layers[i].kind), static_cast<long long>(c.mismatches),
                static_cast<long long>(c.elements), c.layout.c_str());
    ++total;
    exact += c.exact() ? 1 : 0;
  }
  std::printf("%d/%d layers bit-exact through the generated header\n", exact, total);
  return exact == total && total > 0 ? 0 : 1;
}
