// The network executor: every layer's L3 -> L2 staging (weights streamed by output-channel
// stripes, activations by row stripes with their halo, double-buffered against the L2 <-> L1
// loop nest; the next layer's weights prefetched while a layer runs) around its tile loops, on
// the L2 arena the plan laid out as a bidirectional stack. No heap: the caller provides the L1
// and L2 memory, sized by the plan.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "ctile/hal/l3_memory.hpp"
#include "ctile/kernels/ranges.hpp"
#include "ctile/network/network.hpp"
#include "ctile/plan/network_plan.hpp"
#include "ctile/schedule/conv_tiles.hpp"
#include "ctile/schedule/status.hpp"
#include "ctile/schedule/weight_layout.hpp"

namespace ctile::schedule {

/// What a per-layer hook receives: the layer's index and where its whole output is, in L2
/// (`l2`, non-null) or, when the plan streamed it out by row stripes, in L3 at `l3_offset`;
/// `chw`: the plan keeps it channel-major (for the depthwise layer that reads it), else HWC.
struct layer_output {
  int index = 0;
  const std::uint8_t* l2 = nullptr;
  std::int64_t l3_offset = -1;
  std::int64_t bytes = 0;
  bool chw = false;
};

/// Where element `k` of layer `l`'s output in HWC order (pixel k / c, channel k % c) is, in
/// elements from the start of the output as the plan stores it (`chw`: channel-major).
constexpr std::size_t output_element(const layer& l, bool chw, std::size_t k) {
  if (!chw) return k;
  const auto c = static_cast<std::size_t>(l.out.c);
  const auto plane = static_cast<std::size_t>(l.out.h) * static_cast<std::size_t>(l.out.w);
  return (k % c) * plane + k / c;
}

/// The value of element `at` (in elements, as output_element gives it) of layer `l`'s output
/// as the runtime stores it: int32 logits, or an activation of output_bytes_per_element bytes
/// (little-endian; two's complement when the proven range is signed).
constexpr std::int32_t stored_value(const layer& l, const std::uint8_t* bytes, std::size_t at) {
  const int n = l.output_bytes_per_element();
  std::uint32_t u = 0;
  for (int b = 0; b < n; ++b)
    u |= std::uint32_t{bytes[n * at + static_cast<std::size_t>(b)]} << (8 * b);
  if (n == 4) return static_cast<std::int32_t>(u);
  if (!l.out_range.is_signed()) return static_cast<std::int32_t>(u);
  return n == 2 ? std::int32_t{static_cast<std::int16_t>(u)}
                : std::int32_t{static_cast<std::int8_t>(u)};
}

/// The default hook: does nothing, and the executor emits nothing for it.
struct no_hook {
  constexpr void operator()(const layer_output&) const {}
};

/// A network's plan as the executor reads it: per layer, its L1 plan and its L2/L3 placement
/// (views of a network_plan<N>, or of plans made at run time for an imported graph).
struct plan_view {
  std::span<const layer> layers;
  std::span<const layer_plan> plans;
  std::span<const layer_l2> l2;
};
template <std::size_t N>
constexpr plan_view view_of(const std::array<layer, N>& ls, const network_plan<N>& p) {
  return {ls, p.layers, p.l2};
}

/// Checks what stage_weights is given: one layer_params entry per layer, each array of the
/// size the layer's shape implies (check_params), and L2 / L3 buffers holding every block the
/// plan places there.
inline run_status check_stage(const plan_view& v, std::span<const layer_params> params,
                              std::size_t l2_bytes, std::size_t l3_bytes) {
  using F = run_status::field;
  const auto n = static_cast<std::int64_t>(v.layers.size());
  if (auto s = exactly(F::params, -1, n, static_cast<std::int64_t>(params.size())); !s.ok())
    return s;
  if (auto s = status_of(check_params(v.layers, params)); !s.ok()) return s;
  std::int64_t l2_end = 0, l3_end = 0;
  for (std::size_t i = 0; i < v.layers.size(); ++i) {
    const layer& l = v.layers[i];
    if (!l.has_weights()) continue;
    const layer_l2& s = v.l2[i];
    std::int64_t& end = s.l3_w >= 0 ? l3_end : l2_end;
    const std::int64_t e = (s.l3_w >= 0 ? s.l3_w : s.w.offset) + plan_detail::weight_bytes(l);
    end = e > end ? e : end;
  }
  if (auto s = at_least(F::l2, -1, l2_end, static_cast<std::int64_t>(l2_bytes)); !s.ok()) return s;
  return at_least(F::l3, -1, l3_end, static_cast<std::int64_t>(l3_bytes));
}

/// Copies every layer's constant data where the plan wants it, laid out in the plan's blocks
/// (weight_layout.hpp): into L3 at the plan's offsets (when weights live in L3), else into the
/// resident area at the bottom of the L2 arena. Firmware that flashes L3 with this image, or
/// links the data at those L2 offsets, skips it. Checks the sizes first (check_stage) and
/// copies nothing when one is wrong.
inline run_status stage_weights(const plan_view& v, std::span<const layer_params> params,
                                std::span<std::uint8_t> l2, std::span<std::uint8_t> l3) {
  if (auto s = check_stage(v, params, l2.size(), l3.size()); !s.ok()) return s;
  for (std::size_t i = 0; i < v.layers.size(); ++i) {
    const layer& l = v.layers[i];
    if (!l.has_weights()) continue;
    const layer_l2& s = v.l2[i];
    std::uint8_t* base = s.l3_w >= 0 ? l3.data() + s.l3_w : l2.data() + s.w.offset;
    pack_weights(l, weight_block_channels(l, v.plans[i]), params[i], base,
                 weight_block_k(l, v.plans[i]));
  }
  return {};
}

namespace detail {

/// L3 transfers in flight for one activation buffer (an add's two input bands are two reads;
/// an output band one write). Weight buffers read through l3_read_slot.
template <hal::l3_memory M>
struct l3_slot {
  typename M::read_handle r[2]{};
  int n = 0;
  typename M::write_handle w{};
  bool writing = false;
  void read(M& m, void* l2, std::int64_t addr, std::int64_t bytes) {
    if (bytes <= 0) return;
    m.read(l2, static_cast<std::uint32_t>(addr), static_cast<std::uint32_t>(bytes), r[n++]);
  }
  void write(M& m, std::int64_t addr, void* l2, std::int64_t bytes) {
    m.write(static_cast<std::uint32_t>(addr), l2, static_cast<std::uint32_t>(bytes), w);
    writing = true;
  }
  void wait(M& m) {
    for (int k = 0; k < n; ++k) m.wait(r[k]);
    n = 0;
    if (writing) m.wait(w);
    writing = false;
  }
};

/// The L3 read of one weight buffer (a stripe, or the first weight block a step prefetches):
/// one transfer in flight at most, waited for once.
template <hal::l3_memory M>
struct l3_read_slot {
  typename M::read_handle h{};
  bool busy = false;
  void read(M& m, void* l2, std::uint32_t addr, std::uint32_t bytes) {
    m.read(l2, addr, bytes, h);
    busy = true;
  }
  void wait(M& m) {
    if (busy) m.wait(h);
    busy = false;
  }
};

constexpr std::int64_t align4(std::int64_t b) {
  return (b + 3) & ~std::int64_t{3};
}

/// Starts reading weight stripe k of `stripes` from L3 (each one block of `bytes` at
/// l3_at + k x bytes, the last one `last` bytes) into `buf` through `slot`: the one place the
/// executor reads a stripe, for its first stripes and for a loop nest's feed alike.
template <hal::l3_memory M>
[[gnu::always_inline]] inline void read_stripe(M& m, l3_read_slot<M>& slot, std::uint8_t* buf,
                                               std::uint32_t l3_at, std::uint32_t bytes,
                                               std::uint32_t last, int k, int stripes) {
  slot.read(m, buf, l3_at + static_cast<std::uint32_t>(k) * bytes, k + 1 < stripes ? bytes : last);
}

/// The L3 weight stripes of a layer whose loop nest runs across them (weight_stripes), read
/// into two L2 buffers `half` bytes apart from `l2` on, stripe k into buffer k % 2 through
/// slot win[k % 2].
template <hal::l3_memory M>
struct stripe_feed {
  M* l3;
  l3_read_slot<M>* win;
  std::uint8_t* l2;
  std::ptrdiff_t half;
  std::uint32_t l3_at;  ///< (L3 addresses are 32-bit: hal::l3_memory)
  std::uint32_t bytes;
  std::uint32_t last;
  int stripes;
  /// Stripe k >= 1, entered by the loop nest: waits for it and starts stripe k + 1 into the
  /// other buffer, stripe k - 1's, whose loads to L1 are all done.
  static void enter(void* self, int k) {
    stripe_feed& f = *static_cast<stripe_feed*>(self);
    f.win[k & 1].wait(*f.l3);
    if (++k < f.stripes)
      read_stripe(*f.l3, f.win[k & 1], f.l2 + (k & 1) * f.half, f.l3_at, f.bytes, f.last, k,
                  f.stripes);
  }
};

}  // namespace detail

/// Bytes of layer `l`'s first weight block in L3 under plan `p`: its first channel stripe
/// (one block, weight_block_channels), or its whole weights.
[[gnu::always_inline]] constexpr std::int64_t first_weight_block(const layer& l,
                                                                 const layer_plan& p) {
  const int c = p.l3.w_stripe_c;
  if (c <= 0 || c >= l.out.c) return plan_detail::weight_bytes(l);
  return std::int64_t{c} * data_per_channel(l);
}

/// Everything the executor needs about the network around one layer.
struct layer_context {
  const layer* l = nullptr;
  const layer_plan* p = nullptr;
  const layer_l2* s = nullptr;
  const layer_l2* src_s[2] = {nullptr, nullptr};    ///< the producers' L2/L3 placement
  const layer_plan* src_p[2] = {nullptr, nullptr};  ///< the producers' plans
  const layer* next = nullptr;                      ///< the next layer (for the prefetch)
  const layer_l2* next_s = nullptr;
  const layer_plan* next_p = nullptr;
  bool weights_prefetched = false;  ///< the previous step read this layer's first weight block
  bool prefetch_next = false;       ///< this layer reads the next layer's first weight block
  const kernels::requant_plan* quant = nullptr;  ///< the layer's, where the caller keeps it
};

/// Runs one layer: its L3 staging around its L2 <-> L1 loop nest (`tiles`, called once per
/// stripe of the layer's operands in L2). `prefetch` carries the transfer of the next
/// layer's whole weights from one layer to the next.
template <hal::l3_memory M, class Tiles>
[[gnu::always_inline]] inline void run_layer(M& l3, const layer_context& c, std::uint8_t* l2,
                                             detail::l3_read_slot<M>& prefetch, Tiles&& tiles) {
  const layer& L = *c.l;
  const layer_plan& P = *c.p;
  const layer_l2& S = *c.s;
  const l3_decision& d = P.l3;
  const int ebytes = L.output_bytes_per_element();
  const std::int64_t row_y = std::int64_t{L.out.w} * L.out.c * ebytes;
  // An input row as staged from L3 (plan_detail::input_row_bytes: the wider input's width);
  // input k's own rows are row_k bytes.
  const std::int64_t row_x = plan_detail::input_row_bytes(L);
  const auto row_k = [&](int k) {
    return std::int64_t{L.in.w} * L.in.c * L.input_bytes_per_element(k);
  };
  const std::int64_t w_bytes = plan_detail::weight_bytes(L);
  const int dpc = data_per_channel(L);

  // The whole weights: prefetched by the previous layer, resident in L2, or loaded now.
  // Channel stripes are streamed below.
  const bool w_whole = !d.w || d.w_stripe_c >= L.out.c;
  // Only the previous step uses the prefetch slot, and only to read this layer's first block.
  if (c.weights_prefetched) prefetch.wait(l3);
  if (d.w && w_whole && !c.weights_prefetched && S.w.offset >= 0) {
    detail::l3_read_slot<M> now;
    now.read(l3, l2 + S.w.offset, static_cast<std::uint32_t>(S.l3_w),
             static_cast<std::uint32_t>(w_bytes));
    now.wait(l3);
  }
  // Start the next layer's prefetch now: it overlaps this whole layer.
  if (c.prefetch_next) {
    prefetch.read(l3, l2 + c.next_s->w.offset, static_cast<std::uint32_t>(c.next_s->l3_w),
                  static_cast<std::uint32_t>(first_weight_block(*c.next, *c.next_p)));
  }

  // Row bands (one when the output and input stay whole in L2) and channel stripes.
  const int band_h = d.y_stripe_h > 0 ? d.y_stripe_h : L.out.h;
  const int bands = L.kind == op::linear ? 1 : tiles_of(L.out.h, band_h);
  const int stripe_c = w_whole ? L.out.c : d.w_stripe_c;
  const int stripes = tiles_of(L.out.c, stripe_c);
  // One band: one call of the loop nest runs across the weight stripes (spans_stripes), each
  // entered from within it; else one call per band and stripe.
  const bool span = spans_stripes(L, P);
  const int job_stripes = span ? 1 : stripes;
  const int jobs = bands * job_stripes;

  // Input: per source, from its producer's L2 output, or staged from L3 by row stripes.
  const std::int64_t x_half = d.x ? detail::align4(d.l2_x / 2) : 0;
  const auto x_from_l3 = [&](int k) { return c.src_s[k] != nullptr && c.src_s[k]->l3_y >= 0; };
  // Where input k's stripe sits in the x buffer: after the stripes of the inputs before it that
  // also come from L3 (an add whose second input alone is in L3 has one stripe per half).
  const auto x_slot = [&](int k) { return k > 0 && x_from_l3(0) ? 1 : 0; };
  const auto band_rows = [&](int b) {
    if (L.kind == op::linear) return axis_tile{0, 1, 0, L.in.h, 0, 0};
    return tile_axis(L.in.h, L.out.h, L.window().h, L.stride.h, L.pad.t, band_h, b);
  };
  detail::l3_slot<M> xin[2], yout[2];
  detail::l3_read_slot<M> win[2];
  const auto load_band = [&](int b, int half) {
    const axis_tile r = band_rows(b);
    std::uint8_t* dst = l2 + S.x.offset + half * x_half;
    const std::int64_t bytes = std::int64_t{r.in_size} * row_x;
    for (int k = 0; k < L.inputs(); ++k)
      if (x_from_l3(k))
        xin[half].read(l3, dst + x_slot(k) * bytes, c.src_s[k]->l3_y + r.in_begin * row_k(k),
                       std::int64_t{r.in_size} * row_k(k));
  };
  const std::int64_t w_half = d.w && !w_whole ? detail::align4(d.l2_w / 2) : 0;
  const std::int64_t y_half = d.y ? detail::align4(d.l2_y / 2) : 0;

  const bool any_x_l3 = d.x && (x_from_l3(0) || (L.inputs() > 1 && x_from_l3(1)));
  const bool stream_w = d.w && !w_whole;
  // A stripe is one block of the layer's constant data in L3 (weight_block_channels: merged
  // channel tiles, or the stripe itself): one transfer.
  // (L3 addresses are 32-bit: hal::l3_memory.)
  const auto l3_w = static_cast<std::uint32_t>(S.l3_w);
  const auto stripe_bytes = static_cast<std::uint32_t>(stripe_c * dpc);
  const auto last_bytes = static_cast<std::uint32_t>((L.out.c - (stripes - 1) * stripe_c) * dpc);
  const auto load_stripe = [&](int st, int half) {
    detail::read_stripe(l3, win[half], l2 + S.w.offset + half * w_half, l3_w, stripe_bytes,
                        last_bytes, st, stripes);
  };
  int xh = 0, wh = 0, yh = 0;
  if (any_x_l3) load_band(0, 0);
  if (stream_w && !c.weights_prefetched) load_stripe(0, 0);  // (else read by the previous step)
  for (int j = 0; j < jobs; ++j) {
    const int b = j / job_stripes, st = j % job_stripes;
    const int nb = (j + 1) / job_stripes, nst = (j + 1) % job_stripes;
    if (any_x_l3) xin[xh].wait(l3);
    if (stream_w) win[wh].wait(l3);
    // Prefetch the next job's input band and weight stripe into the other halves (a spanning
    // call's second stripe now).
    if (span && j == 0 && stripes > 1) load_stripe(1, 1);
    if (j + 1 < jobs) {
      if (any_x_l3 && nb != b) load_band(nb, 1 - xh);
      if (stream_w && nst != st) load_stripe(nst, 1 - wh);
    }
    if (st == 0 && d.y) yout[yh].wait(l3);  // the band buffer's previous write to L3

    const axis_tile r = band_rows(b);
    l2_operands v;
    for (int k = 0; k < L.inputs(); ++k) {
      const std::uint8_t* src;
      int row0;
      if (x_from_l3(k)) {
        src = l2 + S.x.offset + xh * x_half + x_slot(k) * std::int64_t{r.in_size} * row_x;
        row0 = r.in_begin;
      } else {
        src = l2 + c.src_s[k]->y.offset;
        row0 = 0;
      }
      (k == 0 ? v.x : v.x2) = src;
      (k == 0 ? v.x_row0 : v.x2_row0) = row0;
    }
    v.row_begin = L.kind == op::linear ? 0 : b * band_h;
    v.row_end = L.kind == op::linear ? 1 : (b + 1) * band_h < L.out.h ? (b + 1) * band_h : L.out.h;
    v.c_begin = st * stripe_c;
    v.c_end = span ? L.out.c : (st + 1) * stripe_c < L.out.c ? (st + 1) * stripe_c : L.out.c;
    if (d.y) {
      v.y = l2 + S.y.offset + yh * y_half;
      v.y_row0 = v.row_begin;
    } else {
      v.y = l2 + S.y.offset;
      v.y_row0 = 0;
    }
    if (L.has_weights()) {
      v.w = l2 + S.w.offset + (stream_w ? wh * w_half : 0);
      v.w_c0 = stream_w ? v.c_begin : 0;
      v.w_n = span ? stripe_c : stream_w ? v.c_end - v.c_begin : L.out.c;
    }
    if (span) {
      detail::stripe_feed<M> feed{
          &l3,  win,          l2 + S.w.offset, static_cast<std::ptrdiff_t>(w_half),
          l3_w, stripe_bytes, last_bytes,      stripes};
      const weight_stripes spanned{stripe_c, static_cast<std::ptrdiff_t>(w_half),
                                   &detail::stripe_feed<M>::enter, &feed};
      v.stripes = &spanned;
      tiles(v);
    } else {
      tiles(v);
    }

    if (stream_w && nst != st) wh = 1 - wh;
    if (any_x_l3 && nb != b) xh = 1 - xh;
    // A finished band goes to L3.
    if (d.y && (st + 1 == job_stripes)) {
      const std::int64_t rows = v.row_end - v.row_begin;
      yout[yh].write(l3, S.l3_y + v.row_begin * row_y, v.y, rows * row_y);
      yh = 1 - yh;
    }
  }
  if (d.y) {  // (only then written: a layer without L3 leaves the slots dead)
    yout[0].wait(l3);
    yout[1].wait(l3);
  }
}

/// Whether step `i` loads the next layer's first weight block (its whole weights, or its first
/// channel stripe) while it runs: when the plan says so and the next layer reads its weights
/// from L3.
[[gnu::always_inline]] constexpr bool prefetches(const plan_view& v, std::size_t i) {
  if (i + 1 >= v.layers.size() || !v.plans[i].l3.prefetch_next) return false;
  return v.l2[i + 1].l3_w >= 0 && v.plans[i + 1].l3.w;
}

/// Runs layer i's loop nest over the operands of one stripe: the generic loop over the plan
/// (plans known at run time).
struct dynamic_tiles {
  template <class Env>
  void operator()(std::size_t, Env& env, const layer& l, const layer_plan& p,
                  const kernels::requant_plan& q, const l2_operands& v, std::uint8_t* l1) const {
    run_tiles(env, l, p, q, v, l1);
  }
};

/// Step `i` of run_network (inlined: where `v` and `i` are constants, as in
/// executor::run_static, every read of the tables folds into the code).
template <class Env, hal::l3_memory M, class Hook, class Tiles>
[[gnu::always_inline]] inline void run_step(std::size_t i, Env& env, M& l3, const plan_view& v,
                                            std::span<const kernels::requant_plan> quant,
                                            std::uint8_t* l1, std::uint8_t* l2,
                                            detail::l3_read_slot<M>& prefetch, Hook& hook,
                                            Tiles& tiles) {
  constexpr bool hooked = !std::is_same_v<std::remove_cvref_t<Hook>, no_hook>;
  const std::size_t n = v.layers.size();
  const layer& l = v.layers[i];
  const layer_l2& s = v.l2[i];
  if (l.kind == op::input) {
    if (prefetches(v, i))
      prefetch.read(
          l3, l2 + v.l2[i + 1].w.offset, static_cast<std::uint32_t>(v.l2[i + 1].l3_w),
          static_cast<std::uint32_t>(first_weight_block(v.layers[i + 1], v.plans[i + 1])));
    if constexpr (hooked) {
      if (s.l3_y >= 0)
        hook(layer_output{static_cast<int>(i), nullptr, s.l3_y, l.output_bytes()});
      else
        hook(layer_output{static_cast<int>(i), l2 + s.y.offset, -1, l.output_bytes()});
    }
    return;
  }
  layer_context c;
  c.l = &l;
  c.p = &v.plans[i];
  c.s = &s;
  for (int k = 0; k < l.inputs(); ++k) {
    c.src_s[k] = &v.l2[static_cast<std::size_t>(l.src[k])];
    c.src_p[k] = &v.plans[static_cast<std::size_t>(l.src[k])];
  }
  if (i + 1 < n) {
    c.next = &v.layers[i + 1];
    c.next_s = &v.l2[i + 1];
    c.next_p = &v.plans[i + 1];
  }
  c.weights_prefetched = prefetches(v, i - 1);
  c.prefetch_next = prefetches(v, i);
  c.quant = &quant[i];
  run_layer(l3, c, l2, prefetch, [&](const l2_operands& ops) CTILE_INLINE {
    tiles(i, env, l, v.plans[i], *c.quant, ops, l1);
  });
  if constexpr (hooked) {
    const bool chw = v.plans[i].out_chw;
    if (s.l3_y >= 0)
      hook(layer_output{static_cast<int>(i), nullptr, s.l3_y, l.output_bytes(), chw});
    else
      hook(layer_output{static_cast<int>(i), l2 + s.y.offset, -1, l.output_bytes(), chw});
  }
}

/// Runs a planned network on `env` (DMA, cluster, checks) with L3 `l3`. The network input
/// must be in place (input_l2 / input_l3 give where); `hook` sees every layer's output.
template <class Env, hal::l3_memory M, class Hook = no_hook, class Tiles = dynamic_tiles>
void run_network(Env& env, M& l3, const plan_view& v, std::span<const kernels::requant_plan> quant,
                 std::uint8_t* l1, std::uint8_t* l2, Hook&& hook = {}, Tiles&& tiles = {}) {
  detail::l3_read_slot<M> prefetch;
  for (std::size_t i = 0; i < v.layers.size(); ++i)
    run_step(i, env, l3, v, quant, l1, l2, prefetch, hook, tiles);
  prefetch.wait(l3);
}

}  // namespace ctile::schedule

namespace ctile {

namespace error {
template <int Layer, auto Name, op Kind, int Lo, int Hi>
struct layer_output_range_exceeds_8_bits {
  static_assert(Layer < 0,
                "the proven range Lo..Hi of this layer's output (an unclipped sum) does not fit "
                "a 16-bit tensor, the widest activation the tiled runtime holds (8 bits, or 16 "
                "for a range beyond 8): clip the layer, or ask for DORY's saturation with "
                ".saturating()");
};
}  // namespace error

/// The first layer whose output the tiled runtime cannot hold: an activation whose proven
/// range fits no container (element_bytes 0: beyond 16 bits); -1 when there is none.
constexpr int first_unheld_tensor(std::span<const layer> ls) {
  for (std::size_t i = 0; i < ls.size(); ++i)
    if (ls[i].output() == output_kind::u8 && element_bytes(ls[i].out_range) == 0)
      return static_cast<int>(i);
  return -1;
}

namespace schedule {
/// Stops the build when a tensor can exceed the widest container the runtime holds (16 bits;
/// never saturated silently): the first such layer, its name and proven range. The error
/// type's own assertion is the one error; this returns true either way, so no other assertion
/// repeats it.
template <class Net>
consteval bool check_8bit_tensors() {
  constexpr int bad = first_unheld_tensor(Net::layers);
  if constexpr (bad >= 0) {
    constexpr layer L = Net::layers[static_cast<std::size_t>(bad)];
    constexpr fixed_string<L.name.size() + 1> name{L.name};
    (void)error::layer_output_range_exceeds_8_bits<bad, name, L.kind, L.out_range.lo,
                                                   L.out_range.hi>{};
  }
  return true;
}
}  // namespace schedule

/// A network type planned for a platform, ready to run: the plan (checked at compile time),
/// the memory it needs, and `run`. Each layer's loop nest is emitted with that layer's shape
/// and plan as constants.
template <network_type Net, platform Plat, objective O = objective::model>
struct executor {
  static_assert(schedule::check_8bit_tensors<Net>(),
                "a tensor of the network can exceed 16 bits: the error above names the layer");
  static constexpr const network_plan<Net::size>& plan = plan_of<Net, Plat, O>;

  /// L1 bytes the largest layer's tile buffers take (the caller's L1 buffer size).
  static constexpr int required_l1_bytes = [] {
    int m = 4;
    for (const auto& lp : plan.layers) m = lp.l1.total > m ? lp.l1.total : m;
    return m;
  }();
  /// L2 arena bytes (the bidirectional stack's peak, resident weights included).
  static constexpr int required_l2_bytes = plan.summary.l2_peak > 4 ? plan.summary.l2_peak : 4;
  /// L3 bytes: the weights the plan streams and activations streamed through it (0 when
  /// every weight is resident in L2 and no activation spills).
  static constexpr std::int64_t required_l3_bytes = plan.summary.l3_used;

  /// Whether the network was declared validly and its plan fits (otherwise plan_of has
  /// reported the one error, and nothing below adds another).
  static constexpr bool planned = plan.summary.ok();

  static_assert(!planned || required_l1_bytes <= Plat.l1_budget(),
                "The plan's tile buffers exceed the platform's L1 budget.");
  static_assert(!planned || required_l2_bytes <= Plat.l2_budget(),
                "The plan's L2 arena exceeds the platform's L2 budget.");

  /// Where the caller puts the network input: an offset in the L2 arena, or (when the plan
  /// streams it from L3) in L3.
  static constexpr int input_l2_offset = plan.l2[0].l3_y >= 0 ? -1 : plan.l2[0].y.offset;
  static constexpr int input_l3_offset = plan.l2[0].l3_y;
  /// Where the network output is after `run`.
  static constexpr int output_l2_offset =
      plan.l2[Net::size - 1].l3_y >= 0 ? -1 : plan.l2[Net::size - 1].y.offset;
  static constexpr int output_l3_offset = plan.l2[Net::size - 1].l3_y;

  using quant_plans = std::array<kernels::requant_plan, Net::size>;

  /// Each layer's loop nest instantiated with its shape and plan as constants, reached through
  /// a table indexed by the layer (a few instructions, whatever the layer). Layers that differ
  /// only in what no loop reads share one (loop_key).
  struct static_tiles {
    template <class Env>
    using entry = void (*)(Env&, const kernels::requant_plan&, const schedule::l2_operands&,
                           std::uint8_t*);
    template <class Env, std::size_t I>
    static constexpr entry<Env> entry_of() {
      if constexpr (!planned || Net::layers[I].kind == op::input) {
        return nullptr;
      } else {
        return &schedule::run_tiles_static<schedule::loop_key(Net::layers[I]),
                                           schedule::loop_key(Net::layers[I], plan.layers[I]), Env>;
      }
    }
    template <class Env, std::size_t... I>
    static constexpr std::array<entry<Env>, Net::size> table_of(std::index_sequence<I...>) {
      return {entry_of<Env, I>()...};
    }
    template <class Env>
    static constexpr std::array<entry<Env>, Net::size> table =
        table_of<Env>(std::make_index_sequence<Net::size>{});

    template <class Env>
    void operator()(std::size_t i, Env& env, const layer&, const layer_plan&,
                    const kernels::requant_plan& q, const schedule::l2_operands& v,
                    std::uint8_t* l1) const {
      table<Env>[i](env, q, v, l1);
    }
  };

  // The run-time entry points check every size they are given against the network's shapes
  // and the plan, and do nothing but return a run_status saying what is wrong when one is not
  // right (status.hpp).

  /// The exact requantization of every layer into `q`, proven over the ranges its data implies.
  static run_status prepare(const typename Net::params& p, quant_plans& q) {
    if (auto s = status_of(Net::check(p)); !s.ok()) return s;
    for (std::size_t i = 0; i < Net::size; ++i) q[i] = kernels::plan_for(Net::layers[i], p[i]);
    return {};
  }

  /// Copies the constant data to where the plan wants it (L3 image, or resident L2): `l2` the
  /// L2 arena (required_l2_bytes), `l3` the L3 image (required_l3_bytes; may be empty when the
  /// plan uses no L3).
  static run_status stage(const typename Net::params& p, std::span<std::uint8_t> l2,
                          std::span<std::uint8_t> l3) {
    return schedule::stage_weights(schedule::view_of(Net::layers, plan), p, l2, l3);
  }

  /// Copies the network input (input_shape.elements() bytes, HWC) to where the plan wants it:
  /// the L2 arena at input_l2_offset, or the L3 image at input_l3_offset.
  static run_status load_input(std::span<const std::uint8_t> input, std::span<std::uint8_t> l2,
                               std::span<std::uint8_t> l3) {
    using F = run_status::field;
    const std::int64_t n = Net::input_shape.elements();
    if (auto s = exactly(F::input, 0, n, static_cast<std::int64_t>(input.size())); !s.ok())
      return s;
    std::uint8_t* to = nullptr;
    if constexpr (input_l2_offset >= 0) {
      if (auto s = at_least(F::l2, -1, required_l2_bytes, static_cast<std::int64_t>(l2.size()));
          !s.ok())
        return s;
      to = l2.data() + input_l2_offset;
    } else {
      if (auto s = at_least(F::l3, -1, required_l3_bytes, static_cast<std::int64_t>(l3.size()));
          !s.ok())
        return s;
      to = l3.data() + input_l3_offset;
    }
    for (std::size_t k = 0; k < input.size(); ++k) to[k] = input[k];
    return {};
  }

  /// Runs the network: `l1` of required_l1_bytes, `l2` of required_l2_bytes, `l3` an L3 HAL
  /// (of required_l3_bytes, checked when the HAL tells its size()). The constant data must be
  /// staged and the input loaded; `hook` sees every layer's output.
  template <class Env, hal::l3_memory M, class Hook = schedule::no_hook>
  static run_status run(Env& env, M& l3, const quant_plans& q, std::span<std::uint8_t> l1,
                        std::span<std::uint8_t> l2, Hook&& hook = {}) {
    using F = run_status::field;
    if (auto s = at_least(F::l1, -1, required_l1_bytes, static_cast<std::int64_t>(l1.size()));
        !s.ok())
      return s;
    if (auto s = at_least(F::l2, -1, required_l2_bytes, static_cast<std::int64_t>(l2.size()));
        !s.ok())
      return s;
    if constexpr (requires { l3.size(); }) {
      if (auto s = at_least(F::l3, -1, required_l3_bytes, static_cast<std::int64_t>(l3.size()));
          !s.ok())
        return s;
    }
    run_static(env, l3, q, l1.data(), l2.data(), static_cast<Hook&&>(hook));
    return {};
  }

  /// schedule::run_network on this plan with the layers unrolled: each step's layer, plan and
  /// placements are constants, so its per-layer path (the layer's context, its L3 staging,
  /// the call of its loop nest) reads no table and keeps only the branches its layer takes.
  /// Nothing is checked: `l1` and `l2` of required_l1_bytes and required_l2_bytes.
  template <class Env, hal::l3_memory M, class Hook = schedule::no_hook>
  static void run_static(Env& env, M& l3, std::span<const kernels::requant_plan> q,
                         std::uint8_t* l1, std::uint8_t* l2, Hook&& hook = {}) {
    static constexpr schedule::plan_view v = schedule::view_of(Net::layers, plan);
    schedule::detail::l3_read_slot<M> prefetch;
    static_tiles tiles;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (schedule::run_step(I, env, l3, v, q, l1, l2, prefetch, hook, tiles), ...);
    }
    (std::make_index_sequence<Net::size>{});
    prefetch.wait(l3);
  }
};

}  // namespace ctile
