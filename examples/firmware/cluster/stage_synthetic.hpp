// The cluster firmware's start-up: network Net's synthetic data (the values of
// examples::synthetic<Net>, the same draws in the same order) generated piece by piece into the
// places executor<Net, Plat>'s plan gives them, so that no copy of the whole data is ever held:
// the L3 image is written through the board's L3 HAL one block of constant data at a time,
// which is how a MobileNet's megabytes of weights reach a HyperRAM that the cores cannot
// address. Also computes the requantization constants (executor::prepare's), block by block.
//
// Layout: a scratch area at the top of the L2 arena (free before the run) holds one block of
// a layer's constant data at a time, as generated and as packed (pack_weight_block, the
// layout stage_weights writes). Two passes over the generator: the first packs the blocks the
// plan keeps in L3 and writes them out, gathering every layer's range for its
// requantization; the second packs the blocks resident in L2 in place (below the scratch);
// then the input, which may overwrite the scratch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ctile/ctile.hpp>
#include <ctile/schedule/executor.hpp>
#include <ctile/schedule/weight_layout.hpp>
#include <span>

#include "common/synthetic.hpp"

namespace ctile::firmware {

namespace detail {
constexpr std::int64_t align8(std::int64_t n) {
  return (n + 7) / 8 * 8;
}

/// Scratch bytes for one block of layer `l` whose blocks have `g` channels: its weights and
/// three int32 arrays as generated, then (when `packed`) what goes out packed: the whole
/// block when its weights go by K tiles (`tk` > 0), else only its parameters (a block's
/// weights are then packed as generated: pack_weight_block).
constexpr std::int64_t block_scratch(const layer& l, int g, bool packed, int tk) {
  const std::int64_t n = g;
  const std::int64_t out =
      tk > 0 ? n * schedule::data_per_channel(l) : schedule::kl_layout(l, g).bytes;
  return align8(n * schedule::weights_per_channel(l)) + 3 * align8(4 * n) +
         (packed ? align8(out) : 0);
}
}  // namespace detail

/// The scratch area stage_synthetic takes at the top of the L2 arena of executor `E`.
template <network_type Net, class E>
constexpr std::int64_t stage_scratch_bytes() {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    if (!l.has_weights()) continue;
    const int g = schedule::weight_block_channels(l, E::plan.layers[i]);
    const std::int64_t b = detail::block_scratch(l, g, E::plan.l2[i].l3_w >= 0,
                                                 schedule::weight_block_k(l, E::plan.layers[i]));
    s = b > s ? b : s;
  }
  const std::int64_t in = E::input_l3_offset >= 0 ? 1024 : 0;  // input chunks for L3
  return in > s ? in : s;
}

/// The top of L2 arena `l2` of executor `E`, 8-byte aligned, as stage_synthetic's scratch:
/// free before the run.
template <network_type Net, class E>
std::span<std::uint8_t> arena_scratch(std::span<std::uint8_t> l2) {
  const std::int64_t at =
      (static_cast<std::int64_t>(l2.size()) - stage_scratch_bytes<Net, E>()) / 8 * 8;
  if (at < 0) return {};
  return l2.subspan(static_cast<std::size_t>(at));
}

/// Generates Net's synthetic data for `seed` into the L2 arena `l2` (required_l2_bytes) and,
/// through `put_l3(l3_address, l2_bytes, n)` (which must have finished with the bytes when it
/// returns true), into L3, laid out as executor<Net, Plat>::stage and load_input lay them out;
/// and writes every layer's requantization constants into `quant` (executor::prepare's).
/// `scratch` (stage_scratch_bytes, 8-byte aligned, in L2; e.g. arena_scratch) holds one block
/// at a time; it may overlap the arena but not the weights resident there. Refuses, naming
/// the layer and the bytes, when the arena or the scratch is too small or a resident block
/// overlaps the scratch.
template <network_type Net, platform Plat, class PutL3>
run_status stage_synthetic(std::uint32_t seed, std::span<std::uint8_t> l2,
                           std::span<std::uint8_t> scratch_area, PutL3&& put_l3,
                           std::span<kernels::requant_plan, Net::size> quant) {
  using E = executor<Net, Plat>;
  using F = run_status::field;
  constexpr std::int64_t scratch_bytes = stage_scratch_bytes<Net, E>();
  if (auto s = at_least(F::l2, -1, E::required_l2_bytes, static_cast<std::int64_t>(l2.size()));
      !s.ok())
    return s;
  if (auto s = at_least(F::l2, -1, scratch_bytes, static_cast<std::int64_t>(scratch_area.size()));
      !s.ok())
    return s;
  std::uint8_t* const scratch = scratch_area.data();
  // The resident blocks are packed in place while the scratch is in use: not over it.
  for (std::size_t i = 0; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    const layer_l2& s = E::plan.l2[i];
    if (!l.has_weights() || s.l3_w >= 0) continue;
    const std::uint8_t* lo = l2.data() + s.w.offset;
    const std::uint8_t* hi = lo + plan_detail::weight_bytes(l);
    if (lo < scratch + scratch_bytes && scratch < hi)
      return at_least(F::l2, static_cast<int>(i), scratch_bytes + (hi - l2.data()),
                      static_cast<std::int64_t>(l2.size()));
  }

  examples::xorshift32 rng = examples::synthetic_rng(seed);
  const examples::xorshift32 at_input = rng;
  const value_range in_range = Net::layers[0].out_range;
  const auto input_n = static_cast<std::size_t>(Net::input_shape.elements());
  for (std::size_t k = 0; k < input_n; ++k) rng.next();
  const examples::xorshift32 after_input = rng;

  // One pass over the layers' data: each block generated into the scratch and handed to
  // `block(i, c0, n, params)`. Returns false when `block` does.
  const auto each_block = [&](auto&& block) {
    examples::xorshift32 g = after_input;
    for (std::size_t i = 0; i < Net::size; ++i) {
      const layer& l = Net::layers[i];
      if (!l.has_weights()) continue;
      const int wpc = schedule::weights_per_channel(l);
      const int gch = schedule::weight_block_channels(l, E::plan.layers[i]);
      examples::xorshift32 w = g;  // the weights' draws
      examples::xorshift32 c = g;  // the channels' draws, after all the weights
      for (std::int64_t k = 0; k < l.weight_count(); ++k) c.next();
      for (int c0 = 0; c0 < l.out.c; c0 += gch) {
        const int n = l.out.c - c0 < gch ? l.out.c - c0 : gch;
        const auto un = static_cast<std::size_t>(n);
        auto* wt = reinterpret_cast<std::int8_t*>(scratch);
        auto* bias =
            reinterpret_cast<std::int32_t*>(scratch + detail::align8(std::int64_t{n} * wpc));
        std::int32_t* kappa = bias + detail::align8(4 * std::int64_t{n}) / 4;
        std::int32_t* lambda = kappa + detail::align8(4 * std::int64_t{n}) / 4;
        for (std::size_t k = 0; k < un * static_cast<std::size_t>(wpc); ++k)
          wt[k] = examples::synthetic_weight(w);
        for (std::size_t k = 0; k < un; ++k) {
          const examples::channel_draw d = examples::synthetic_channel(c);
          bias[k] = d.bias;
          kappa[k] = d.kappa;
          lambda[k] = d.lambda;
        }
        layer_params p;
        p.weights = {wt, un * static_cast<std::size_t>(wpc)};
        if (l.bias) p.bias = {bias, un};
        if (l.batchnorm) {
          p.kappa = {kappa, un};
          p.lambda = {lambda, un};
        }
        if (!block(i, c0, n, p)) return false;
      }
      g = c;
    }
    return true;
  };

  // Pass 1: the L3 blocks, and every layer's range of t.
  std::array<kernels::t_range, Net::size> t{};
  std::array<bool, Net::size> seen{};
  const bool ok = each_block([&](std::size_t i, int c0, int n, const layer_params& p) {
    const layer& l = Net::layers[i];
    layer part = l;
    part.out.c = n;  // t_range_of over the block's channels
    const kernels::t_range r = kernels::t_range_of(part, p);
    t[i] = seen[i] ? kernels::detail::hull(t[i], r) : r;
    seen[i] = true;
    const layer_l2& s = E::plan.l2[i];
    if (s.l3_w < 0) return true;
    const int dpc = schedule::data_per_channel(l);
    const int tk = schedule::weight_block_k(l, E::plan.layers[i]);
    std::uint8_t* packed = scratch + detail::block_scratch(l, n, false, tk);
    const auto at = static_cast<std::uint32_t>(s.l3_w + std::int64_t{c0} * dpc);
    if (tk > 0) {
      schedule::pack_weight_block(l, n, p, packed, tk);
      return put_l3(at, packed, static_cast<std::uint32_t>(std::int64_t{n} * dpc));
    }
    // Weights as generated, then the parameters packed (pack_weight_block's layout).
    const auto wn = static_cast<std::uint32_t>(p.weights.size());
    schedule::pack_block_params(l, n, p, packed);
    return put_l3(at, reinterpret_cast<const std::uint8_t*>(p.weights.data()), wn) &&
           put_l3(at + wn, packed, static_cast<std::uint32_t>(schedule::kl_layout(l, n).bytes));
  });
  if (!ok) return {F::l3, -1, E::required_l3_bytes, 0};
  for (std::size_t i = 0; i < Net::size; ++i)
    quant[i] =
        seen[i] ? kernels::plan_for_range(Net::layers[i], t[i]) : kernels::plan_for(Net::layers[i]);

  // Pass 2: the resident blocks, in place.
  each_block([&](std::size_t i, int c0, int n, const layer_params& p) {
    const layer& l = Net::layers[i];
    const layer_l2& s = E::plan.l2[i];
    if (s.l3_w >= 0) return true;
    schedule::pack_weight_block(
        l, n, p, l2.data() + s.w.offset + std::int64_t{c0} * schedule::data_per_channel(l),
        schedule::weight_block_k(l, E::plan.layers[i]));
    return true;
  });

  // The input, last (it may overlap the scratch).
  examples::xorshift32 g = at_input;
  if constexpr (E::input_l2_offset >= 0) {
    std::uint8_t* to = l2.data() + E::input_l2_offset;
    for (std::size_t k = 0; k < input_n; ++k)
      to[k] = static_cast<std::uint8_t>(g.in(in_range.lo, in_range.hi));
  } else {
    for (std::size_t at = 0; at < input_n; at += 1024) {
      const std::size_t n = input_n - at < 1024 ? input_n - at : 1024;
      for (std::size_t k = 0; k < n; ++k)
        scratch[k] = static_cast<std::uint8_t>(g.in(in_range.lo, in_range.hi));
      if (!put_l3(static_cast<std::uint32_t>(E::input_l3_offset + static_cast<std::int64_t>(at)),
                  scratch, static_cast<std::uint32_t>(n)))
        return {F::l3, -1, E::required_l3_bytes, 0};
    }
  }
  return {};
}

}  // namespace ctile::firmware
