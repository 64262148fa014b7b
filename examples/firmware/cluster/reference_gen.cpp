// Host program run at build time: the reference outputs of network CTILE_FW_NET on the
// firmware's synthetic data (seed 1), every layer's fingerprint (fw_hash.hpp) written as a
// header the cluster firmware embeds.
#include <cstdio>
#include <ctile/ctile.hpp>
#include <ctile/reference/reference.hpp>
#include <memory>
#include <span>

#include "cluster/fw_hash.hpp"
#include "common/synthetic.hpp"
#include CTILE_FW_NETWORK_HEADER

int main(int argc, char** argv) {
  using Net = CTILE_FW_NET;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.hpp\n", argv[0]);
    return 2;
  }
  std::FILE* f = std::fopen(argv[1], "w");
  if (f == nullptr) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
    return 1;
  }
  const auto d = std::make_unique<ctile::examples::synthetic<Net>>(1);
  const auto outs = ctile::reference::run(
      Net::layers, d->params, std::span<const std::uint8_t>(d->input.data(), d->input.size()));
  std::fprintf(
      f,
      "// Generated at build time by reference_gen.cpp: per layer, the fingerprint of the\n"
      "// reference output (fw_hash.hpp) on the synthetic data of seed 1.\n"
      "#pragma once\n#include <cstdint>\n"
      "inline constexpr std::uint32_t ctile_fw_reference[%zu] = {\n",
      Net::size);
  for (std::size_t i = 0; i < Net::size; ++i) {
    const bool i32 = Net::layers[i].output() == ctile::output_kind::i32;
    std::uint32_t h = ctile::firmware::fnv_basis;
    for (const std::int32_t v : outs[i]) h = ctile::firmware::fnv_value(h, v, i32);
    std::fprintf(f, "    0x%08xu,  // layer %zu %s\n", h, i, Net::layers[i].name.c_str());
  }
  std::fprintf(f, "};\n");
  return std::fclose(f) == 0 ? 0 : 1;
}
