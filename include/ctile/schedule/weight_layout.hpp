// How a layer's constant data (int8 weights, int32 bias, kappa and lambda per output channel)
// is laid out in L3 and L2: in blocks of output channels, each block holding its channels'
// weights, then their bias, then their kappa, then their lambda. When the plan's channel
// tile is a whole number of words of weights, a block is one channel tile, so a tile's data
// is one run of bytes: one DMA command brings it to L1, where the tile's weight buffer is
// followed by its parameter buffer. Otherwise the whole layer is one block, and a tile's
// weights and each of its parameter arrays are a command each. Either way the image has
// exactly the bytes of the data (no padding), so its size does not depend on the plan: it is
// plan_detail::weight_bytes, what the planner reserves in L2 and L3.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"
#include "ctile/plan/layer_plan.hpp"

namespace ctile::schedule {

/// Bytes of int8 weights per output channel of a layer.
[[gnu::always_inline]] constexpr int weights_per_channel(const layer& l) {
  return l.out.c > 0 ? static_cast<int>(l.weight_count() / l.out.c) : 0;
}

/// Byte offsets of bias, kappa and lambda inside the parameters of `tc` channels (the arrays
/// the layer has, one after the other, `tc` int32 values each).
struct kl_offsets {
  int bias = -1, kappa = -1, lambda = -1, bytes = 0;
};
[[gnu::always_inline]] constexpr kl_offsets kl_layout(const layer& l, int tc) {
  kl_offsets k;
  if (l.bias) k.bias = k.bytes, k.bytes += 4 * tc;
  if (l.batchnorm) {
    k.kappa = k.bytes, k.bytes += 4 * tc;
    k.lambda = k.bytes, k.bytes += 4 * tc;
  }
  return k;
}

/// Bytes of constant data per output channel: its weights and its per-channel parameters.
[[gnu::always_inline]] constexpr int data_per_channel(const layer& l) {
  return l.has_weights() ? weights_per_channel(l) + kl_layout(l, 1).bytes : 0;
}

/// Whether a channel tile's weights and parameters are one run of bytes in L2 and in L1: the
/// layer has weights, every channel tile's weights (the last one's too) end on a word, so the
/// parameters that follow them in L1 are aligned for the kernel, and the plan's L1 layout puts
/// each parameter buffer right after its weight buffer (make_layer_plan does). A linear layer
/// whose reduction is cut in K tiles has its blocks ordered by K tile (pack_weights): each
/// (channel tile, K tile) is then one run of bytes, the last K tile's followed by the tile's
/// parameters, and it is the last K tile's weights that must end on a word.
[[gnu::always_inline]] constexpr bool tile_data_merged(const layer& l, const layer_plan& p) {
  const int wk = last_k_weights(p, weights_per_channel(l));
  const int w = p.tile_c * (p.n_k > 1 ? p.tile_k : wk);
  return l.has_weights() && cost::channel_tiles_end_on_word(p.tile_c, p.last_c, wk) &&
         p.l1.kl[0] == p.l1.w[0] + w && p.l1.kl[1] == p.l1.w[1] + w;
}

/// The K tile by which the blocks of a layer's constant data are ordered (pack_weights): the
/// plan's, for a linear layer whose reduction is cut and whose tiles are merged; else 0 (each
/// channel's weights whole, one channel after the other).
constexpr int weight_block_k(const layer& l, const layer_plan& p) {
  return p.n_k > 1 && tile_data_merged(l, p) ? p.tile_k : 0;
}

/// Output channels per block of a layer's constant data under plan `p`: the channel tile when
/// its data is merged (tile_data_merged); else, for weights streamed from L3 in channel
/// stripes, the stripe (each stripe then one run of bytes in L3, one transfer); else the
/// layer.
constexpr int weight_block_channels(const layer& l, const layer_plan& p) {
  if (tile_data_merged(l, p)) return p.tile_c < l.out.c ? p.tile_c : l.out.c;
  if (p.l3.w && p.l3.w_stripe_c > 0 && p.l3.w_stripe_c < l.out.c) return p.l3.w_stripe_c;
  return l.out.c;
}

/// Where the data of a channel tile sits in a view of a layer's constant data: the view holds
/// `m` channels, in blocks of the plan's channel tile when `merged`, else as one block; the
/// tile starts `rel` channels into the view and has `cn` channels. `weights` is its first
/// channel's weights, `params` the start of its block's parameters, of which the block has
/// `block_n` channels; the tile starts `index` channels into its block.
struct channel_data {
  std::ptrdiff_t weights = 0;
  std::ptrdiff_t params = 0;
  int block_n = 0;
  int index = 0;
};
[[gnu::always_inline]] constexpr channel_data channel_data_at(int wpc, int dpc, bool merged, int m,
                                                              int rel, int cn) {
  if (merged) {
    const auto w = static_cast<std::ptrdiff_t>(rel) * dpc;
    return {w, w + static_cast<std::ptrdiff_t>(cn) * wpc, cn, 0};
  }
  return {static_cast<std::ptrdiff_t>(rel) * wpc, static_cast<std::ptrdiff_t>(m) * wpc, m, rel};
}

/// Writes the parameters (bias, kappa, lambda: those the layer has) of a block of `n` output
/// channels at `params`, the place after the block's weights, from `p` holding them from the
/// block's first channel on.
inline void pack_block_params(const layer& l, int n, const layer_params& p, std::uint8_t* params) {
  const auto put = [](std::uint8_t* to, const void* from, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(from);
    for (std::size_t k = 0; k < n; ++k) to[k] = b[k];
  };
  const auto un = static_cast<std::size_t>(n);
  const kl_offsets k = kl_layout(l, n);
  if (k.bias >= 0) put(params + k.bias, p.bias.data(), 4 * un);
  if (k.kappa >= 0) put(params + k.kappa, p.kappa.data(), 4 * un);
  if (k.lambda >= 0) put(params + k.lambda, p.lambda.data(), 4 * un);
}

/// Writes one block of a layer's constant data at `block`: its `n` output channels, whose data
/// `p` holds from the block's first channel on (p.weights: n channels' weights, p.bias /
/// kappa / lambda: n values each, those the layer has). With `tk` > 0 the weights go by K
/// tiles of `tk` bytes: the first `tk` bytes of each channel, then the next `tk`, and so on
/// (the last K tile may be shorter). The block takes n * data_per_channel(l) bytes.
inline void pack_weight_block(const layer& l, int n, const layer_params& p, std::uint8_t* block,
                              int tk = 0) {
  const int wpc = weights_per_channel(l);
  const auto put = [](std::uint8_t* to, const void* from, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(from);
    for (std::size_t k = 0; k < n; ++k) to[k] = b[k];
  };
  const auto un = static_cast<std::size_t>(n);
  if (tk > 0 && tk < wpc) {
    std::uint8_t* to = block;
    for (int k0 = 0; k0 < wpc; k0 += tk) {
      const int kn = wpc - k0 < tk ? wpc - k0 : tk;
      for (int ch = 0; ch < n; ++ch, to += kn)
        put(to,
            p.weights.data() + static_cast<std::size_t>(ch) * static_cast<std::size_t>(wpc) +
                static_cast<std::size_t>(k0),
            static_cast<std::size_t>(kn));
    }
  } else {
    put(block, p.weights.data(), un * static_cast<std::size_t>(wpc));
  }
  pack_block_params(l, n, p, block + static_cast<std::ptrdiff_t>(n) * wpc);
}

/// The data of output channels c0..c0+n-1 of `p` (a whole layer's), as pack_weight_block
/// takes them.
inline layer_params channel_slice(const layer& l, const layer_params& p, int c0, int n) {
  const auto wpc = static_cast<std::size_t>(weights_per_channel(l));
  const auto c = static_cast<std::size_t>(c0);
  const auto un = static_cast<std::size_t>(n);
  layer_params s;
  s.weights = p.weights.subspan(c * wpc, un * wpc);
  if (l.bias) s.bias = p.bias.subspan(c, un);
  if (l.batchnorm) {
    s.kappa = p.kappa.subspan(c, un);
    s.lambda = p.lambda.subspan(c, un);
  }
  return s;
}

/// Writes a layer's constant data at `dst` in blocks of `g` output channels (whatever the
/// blocks, the plan_detail::weight_bytes(l) bytes the planner reserves for it), each block as
/// pack_weight_block writes it; `tk` as there.
inline void pack_weights(const layer& l, int g, const layer_params& p, std::uint8_t* dst,
                         int tk = 0) {
  if (!l.has_weights()) return;
  if (g <= 0) g = l.out.c;
  const int dpc = data_per_channel(l);
  for (int c0 = 0; c0 < l.out.c; c0 += g) {
    const int n = l.out.c - c0 < g ? l.out.c - c0 : g;
    // Blocks before this one are whole: this block starts c0 channels of data in.
    pack_weight_block(l, n, channel_slice(l, p, c0, n), dst + static_cast<std::ptrdiff_t>(c0) * dpc,
                      tk);
  }
}

}  // namespace ctile::schedule
