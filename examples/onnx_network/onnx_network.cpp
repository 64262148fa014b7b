// The same flow as the other examples, fed from headers that ctile-import generated at build
// time from one of DORY's example folders: CTILE_ONNX_HEADER declares the network
// (CTILE_ONNX_NET), its constant data (CTILE_ONNX_NET_params) and the golden index of each
// layer; CTILE_ONNX_DATA_HEADER holds DORY's input.txt and golden out_layerK.txt files as
// arrays, so the program reads no file and runs the same on the host and as rv32imc firmware.
// Every layer the executor writes is checked against the reference computed on the target and,
// where DORY saved one, against the golden file, value by value (in HWC order, or in CHW order
// when that is how the file holds it).
#include CTILE_ONNX_HEADER
#include CTILE_ONNX_DATA_HEADER

#include <cstdio>
#include <ctile/platform/gap8.hpp>
#include <span>

#include <ctile/host/run.hpp>

#define CTILE_CAT2(a, b) a##b
#define CTILE_CAT(a, b) CTILE_CAT2(a, b)

namespace {

using Net = CTILE_ONNX_NET;
constexpr const auto& params = CTILE_CAT(CTILE_ONNX_NET, _params);
constexpr const auto& golden_index = CTILE_CAT(CTILE_ONNX_NET, _golden);
constexpr const auto& input_values = CTILE_CAT(CTILE_ONNX_NET, _input);
constexpr const auto& tensors = CTILE_CAT(CTILE_ONNX_NET, _golden_tensors);
constexpr std::size_t tensor_count = CTILE_CAT(CTILE_ONNX_NET, _golden_count);

static_assert(std::size(golden_index) == Net::size, "one golden index per layer");
static_assert(std::size(input_values) == static_cast<std::size_t>(Net::input_shape.elements()),
              "the embedded input has as many values as the network's input");

/// Which embedded golden tensor belongs to each layer (-1: none).
constexpr auto tensor_of = [] {
  std::array<int, Net::size> t{};
  for (auto& v : t) v = -1;
  for (std::size_t i = 0; i < tensor_count; ++i)
    t[static_cast<std::size_t>(tensors[i].layer)] = static_cast<int>(i);
  return t;
}();

/// Layer `i`'s value at HWC index `k`, as the executor wrote it (`stored_chw`: the plan
/// kept the output channel-major).
std::int32_t value_at(std::size_t i, const std::uint8_t* got, std::size_t hwc, bool stored_chw) {
  const std::size_t k = ctile::schedule::output_element(Net::layers[i], stored_chw, hwc);
  return ctile::schedule::stored_value(Net::layers[i], got, k);
}

/// Mismatches of layer `i`'s output against golden tensor `g`, reading the golden values in
/// CHW order when `chw`.
std::size_t mismatches(std::size_t i, const std::uint8_t* got, bool stored_chw, const auto& g,
                       bool chw) {
  const ctile::shape s = Net::layers[i].out;
  std::size_t bad = 0;
  for (int y = 0; y < s.h; ++y)
    for (int x = 0; x < s.w; ++x)
      for (int c = 0; c < s.c; ++c) {
        const auto hwc = static_cast<std::size_t>((y * s.w + x) * s.c + c);
        const auto at = chw ? static_cast<std::size_t>((c * s.h + y) * s.w + x) : hwc;
        const std::int32_t want = g.u8 != nullptr ? std::int32_t{g.u8[at]} : g.i32[at];
        bad += value_at(i, got, hwc, stored_chw) != want;
      }
  return bad;
}

}  // namespace

int main() {
  int exact = 0, seen = 0;
  const auto against_golden = [&](std::size_t i, const std::uint8_t* got, bool stored_chw) {
    const int t = tensor_of[i];
    if (t < 0) return;
    const auto& g = tensors[static_cast<std::size_t>(t)];
    const ctile::shape s = Net::layers[i].out;
    ++seen;
    if (g.count != static_cast<std::size_t>(s.elements())) {
      std::printf("layer %zu: out_layer%d holds %zu values, the layer has %lld (MISMATCH)\n", i,
                  g.k, g.count, static_cast<long long>(s.elements()));
      return;
    }
    std::size_t bad = mismatches(i, got, stored_chw, g, false);
    if (bad != 0 && s.c > 1 && s.h * s.w > 1) {
      const std::size_t in_chw = mismatches(i, got, stored_chw, g, true);
      bad = in_chw < bad ? in_chw : bad;
    }
    if (bad == 0) {
      ++exact;
    } else {
      std::printf("layer %zu: %zu of %zu values differ from DORY's out_layer%d (MISMATCH)\n", i,
                  bad, g.count, g.k);
    }
  };
  const int r = ctile::run_and_check<Net, ctile::gap8>(
      "onnx_network (" CTILE_ONNX_NAME ", imported by ctile-import)", params,
      std::span<const std::uint8_t>(input_values), against_golden);
  std::printf("%d/%d layers bit-exact against DORY's golden files\n", exact, seen);
  const bool ok = r == 0 && seen == static_cast<int>(tensor_count) && exact == seen && seen > 0;
  std::printf("%s\n", ok ? "bit-exact: the reference and DORY's golden files" : "MISMATCH");
  return ok ? 0 : 1;
}
