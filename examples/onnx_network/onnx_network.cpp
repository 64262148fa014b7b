// The same flow as the other examples, fed from a header that ctile-import generated at build
// time from one of DORY's example ONNX files (CTILE_ONNX_HEADER names it; the network type,
// its constant data and the golden indices are CTILE_ONNX_NET, CTILE_ONNX_NET_params and
// CTILE_ONNX_NET_golden). The input is DORY's input.txt; every layer the executor writes is
// checked against the reference and, where DORY saved one, against the golden out_layerK
// file, value by value. Host only: it reads the DORY files at run time.
#include CTILE_ONNX_HEADER

#include <cstdio>
#include <ctile/platform/gap8.hpp>
#include <exception>
#include <string>
#include <vector>

#include "common/run.hpp"
#include "ctile/onnx/dory_text.hpp"
#include "ctile/onnx/verify.hpp"

#define CTILE_CAT2(a, b) a##b
#define CTILE_CAT(a, b) CTILE_CAT2(a, b)

int main() {
  using Net = CTILE_ONNX_NET;
  constexpr const auto& params = CTILE_CAT(CTILE_ONNX_NET, _params);
  constexpr const auto& golden = CTILE_CAT(CTILE_ONNX_NET, _golden);
  static_assert(std::size(golden) == Net::size, "one golden index per layer");
  const std::string dir = CTILE_ONNX_DIR;
  try {
    const auto in = ctile::onnx::read_dory_file(dir + "/input.txt");
    if (static_cast<std::int64_t>(in.values.size()) != Net::input_shape.elements()) {
      std::printf("input.txt has %zu values, the network's input %lld\n", in.values.size(),
                  static_cast<long long>(Net::input_shape.elements()));
      return 1;
    }
    std::vector<std::uint8_t> input;
    for (auto v : in.values) {
      if (v < 0 || v > 255) {
        std::printf("input.txt holds %lld, outside 0..255\n", static_cast<long long>(v));
        return 1;
      }
      input.push_back(static_cast<std::uint8_t>(v));
    }
    int golden_exact = 0, golden_total = 0;
    const auto against_golden = [&](std::size_t i, const std::uint8_t* got) {
      if (golden[i] < 0) return;
      const ctile::layer& l = Net::layers[i];
      std::vector<std::int32_t> values(static_cast<std::size_t>(l.out.elements()));
      for (std::size_t k = 0; k < values.size(); ++k) {
        if (l.output() == ctile::output_kind::i32) {
          std::uint32_t u = 0;
          for (int b = 0; b < 4; ++b)
            u |= std::uint32_t{got[4 * k + static_cast<std::size_t>(b)]} << (8 * b);
          values[k] = static_cast<std::int32_t>(u);
        } else {
          values[k] = got[k];
        }
      }
      const auto g =
          ctile::onnx::read_dory_file(dir + "/out_layer" + std::to_string(golden[i]) + ".txt");
      const auto c = ctile::onnx::compare(l.out, values, g.values);
      ++golden_total;
      golden_exact += c.exact() ? 1 : 0;
      if (!c.exact())
        std::printf("layer %zu: %lld of %lld values differ from DORY's out_layer%d (MISMATCH)\n", i,
                    static_cast<long long>(c.mismatches), static_cast<long long>(c.elements),
                    golden[i]);
    };
    const int r = ctile::examples::run_network<Net, ctile::gap8>("onnx_network (" CTILE_ONNX_NAME
                                                                 ", imported by ctile-import)",
                                                                 params, input, against_golden);
    std::printf("%d/%d layers bit-exact against DORY's golden files\n", golden_exact, golden_total);
    return r == 0 && golden_exact == golden_total && golden_total > 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
