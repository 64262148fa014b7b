// Shape inference and validation of a declared layer sequence. constexpr, so the same code
// checks a network type at compile time and an imported graph at run time.
#pragma once

#include <cstddef>
#include <span>

#include "ctile/layers/layer.hpp"
#include "ctile/network/diagnostic.hpp"

namespace ctile {

namespace detail {

constexpr int clamp_int(std::int64_t v) {
  constexpr std::int64_t lim = 2147483647;
  return static_cast<int>(v > lim ? lim : (v < -lim ? -lim : v));
}

constexpr diagnostic fault(problem p, int i, const layer& l) {
  diagnostic d;
  d.what = p;
  d.layer = i;
  d.kind = l.kind;
  d.name = l.name;
  return d;
}

/// Resolves a layer's input reference to an absolute index (or returns a diagnostic).
constexpr diagnostic resolve(std::span<const layer> ls, int i, int slot, int& out) {
  const layer& l = ls[static_cast<std::size_t>(i)];
  const source& s = l.sources[slot];
  if (!s.name.empty()) {
    for (int j = 0; j < i; ++j) {
      if (ls[static_cast<std::size_t>(j)].name == s.name) {
        out = j;
        return {};
      }
    }
    for (std::size_t j = static_cast<std::size_t>(i); j < ls.size(); ++j) {
      if (ls[j].name == s.name) {
        auto d = fault(problem::source_not_earlier, i, l);
        d.v[0] = static_cast<int>(j);
        return d;
      }
    }
    auto d = fault(problem::unknown_source, i, l);
    d.other = s.name;
    return d;
  }
  out = s.index >= 0 ? s.index : i - 1;
  if (out >= i) {
    auto d = fault(problem::source_not_earlier, i, l);
    d.v[0] = out;
    return d;
  }
  return {};
}

/// The proven range of a layer's output from its inputs' ranges (`in_range`, `in2_range`)
/// and its clip.
constexpr value_range output_range(const layer& l) {
  value_range r = l.quant.clip();
  switch (l.kind) {
    case op::input:
      return r;
    case op::maxpool:
      r = l.in_range;  // padding never wins a max
      break;
    case op::conv:
    case op::depthwise:
    case op::linear:
      if (!l.requantize) return no_clip;  // raw int32 accumulators
      break;
    case op::avgpool: {
      // The window sum, padding (zeros) included.
      const std::int64_t k = std::int64_t{l.kernel.h} * l.kernel.w;
      const std::int64_t lo = l.in_range.lo < 0 ? l.in_range.lo : 0;
      const std::int64_t hi = l.in_range.hi > 0 ? l.in_range.hi : 0;
      r = requant_range(l.quant, k * lo, k * hi);
      break;
    }
    case op::add: {
      const value_range a = rescaled_range(l.in_scale[0], l.in_range, l.quant.lo, l.quant.hi);
      const value_range b = rescaled_range(l.in_scale[1], l.in2_range, l.quant.lo, l.quant.hi);
      r = requant_range(l.quant, std::int64_t{a.lo} + b.lo, std::int64_t{a.hi} + b.hi);
      break;
    }
  }
  return r;
}

}  // namespace detail

/// Fills in sources, shapes and value ranges of every layer, in order, and returns the first
/// problem. The ranges are a proof over the network: the input's declared range, each
/// requantization's clip, and for residual adds and average pools the range their inputs'
/// ranges imply (an unclipped sum can exceed its 8-bit container: `layer::out_range`).
constexpr diagnostic infer(std::span<layer> ls) {
  using detail::fault;
  if (ls.empty()) return {};
  for (std::size_t u = 0; u < ls.size(); ++u) {
    const int i = static_cast<int>(u);
    layer& l = ls[u];
    if (u == 0) {
      if (l.kind != op::input) return fault(problem::first_layer_not_input, i, l);
      if (l.declared.h <= 0 || l.declared.w <= 0 || l.declared.c <= 0) {
        auto d = fault(problem::bad_input_shape, i, l);
        d.v[0] = l.declared.h, d.v[1] = l.declared.w, d.v[2] = l.declared.c;
        return d;
      }
      l.in = l.out = l.declared;
      l.in_range = l.out_range = l.quant.clip();
      if (!l.out_range.fits_8bit()) {
        auto d = fault(problem::bad_input_range, i, l);
        d.v[0] = l.quant.lo, d.v[1] = l.quant.hi;
        return d;
      }
      continue;
    }
    if (l.kind == op::input) return fault(problem::input_not_first, i, l);
    for (std::size_t j = 0; j < u; ++j) {
      if (!l.name.empty() && ls[j].name == l.name) {
        auto d = fault(problem::duplicate_name, i, l);
        d.v[0] = static_cast<int>(j);
        return d;
      }
    }
    // Sources.
    for (int s = 0; s < l.inputs(); ++s) {
      int src = -1;
      // An add's second input has no default: it must be named or indexed.
      if (s == 1 && l.sources[1].name.empty() && l.sources[1].index < 0) {
        auto d = fault(problem::unknown_source, i, l);
        return d;
      }
      if (auto d = detail::resolve(ls, i, s, src); !d.ok()) return d;
      const layer& p = ls[static_cast<std::size_t>(src)];
      if (p.output() == output_kind::i32) {
        auto d = fault(problem::int32_output_consumed, i, l);
        d.v[0] = src;
        return d;
      }
      l.src[s] = src;
      (s == 0 ? l.in : l.in2) = p.out;
      (s == 0 ? l.in_range : l.in2_range) = p.out_range;
    }
    // Geometry.
    if (l.kind == op::avgpool && l.kernel.h == 0 && l.kernel.w == 0) {
      l.kernel = {l.in.h, l.in.w};  // global
      l.stride = {1, 1};
    }
    if (l.kind == op::avgpool && l.quant.d == 0) l.quant.d = std::int64_t{l.kernel.h} * l.kernel.w;
    const bool windowed = l.kind == op::conv || l.kind == op::depthwise || l.kind == op::maxpool ||
                          l.kind == op::avgpool;
    if (windowed) {
      if (l.kernel.h <= 0 || l.kernel.w <= 0 || l.stride.h <= 0 || l.stride.w <= 0 || l.pad.t < 0 ||
          l.pad.b < 0 || l.pad.l < 0 || l.pad.r < 0) {
        auto d = fault(problem::bad_geometry, i, l);
        d.v[0] = l.kernel.h, d.v[1] = l.kernel.w, d.v[2] = l.stride.h, d.v[3] = l.stride.w;
        return d;
      }
      const bool conv_like = l.kind == op::conv || l.kind == op::depthwise;
      if (l.dilation.h <= 0 || l.dilation.w <= 0 ||
          (!conv_like && (l.dilation.h != 1 || l.dilation.w != 1))) {
        auto d = fault(problem::bad_dilation, i, l);
        d.v[0] = l.kernel.h, d.v[1] = l.kernel.w, d.v[2] = l.dilation.h, d.v[3] = l.dilation.w;
        return d;
      }
      // A convolution takes any padding: outputs whose window lies wholly in padding are the
      // bias and requantization alone. A pool's window must hold at least one input value.
      if (!conv_like && (l.pad.t >= l.kernel.h || l.pad.b >= l.kernel.h || l.pad.l >= l.kernel.w ||
                         l.pad.r >= l.kernel.w)) {
        auto d = fault(problem::padding_not_smaller_than_kernel, i, l);
        d.v[0] = l.kernel.h, d.v[1] = l.kernel.w;
        d.v[2] = l.pad.t, d.v[3] = l.pad.b, d.v[4] = l.pad.l, d.v[5] = l.pad.r;
        return d;
      }
      const extent2 win = l.window();
      const int oh = window_out(l.in.h, l.pad.t, l.pad.b, win.h, l.stride.h);
      const int ow = window_out(l.in.w, l.pad.l, l.pad.r, win.w, l.stride.w);
      if (oh <= 0 || ow <= 0) {
        auto d = fault(problem::window_too_large, i, l);
        d.v[0] = win.h, d.v[1] = win.w;
        d.v[2] = l.in.h + l.pad.t + l.pad.b, d.v[3] = l.in.w + l.pad.l + l.pad.r;
        return d;
      }
      if (!outputs_reach_input(l.in.h, win.h, l.stride.h, l.pad.t, 0, oh) ||
          !outputs_reach_input(l.in.w, win.w, l.stride.w, l.pad.l, 0, ow)) {
        auto d = fault(problem::windows_miss_input, i, l);
        d.v[0] = win.h, d.v[1] = win.w;
        d.v[2] = l.pad.t, d.v[3] = l.pad.b, d.v[4] = l.pad.l, d.v[5] = l.pad.r;
        return d;
      }
      l.out = {oh, ow, l.in.c};
    }
    // Channels.
    if (l.kind == op::conv || l.kind == op::linear) {
      if (l.out_channels <= 0) {
        auto d = fault(problem::bad_channel_count, i, l);
        d.v[0] = l.out_channels;
        return d;
      }
      if (l.kind == op::conv) l.out.c = l.out_channels;
      if (l.kind == op::linear) l.out = {1, 1, l.out_channels};
    } else if (l.kind == op::add) {
      if (!(l.in == l.in2)) {
        auto d = fault(problem::add_shapes_differ, i, l);
        d.v[0] = l.in.h, d.v[1] = l.in.w, d.v[2] = l.in.c;
        d.v[3] = l.in2.h, d.v[4] = l.in2.w, d.v[5] = l.in2.c;
        return d;
      }
      l.out = l.in;
      for (int s = 0; s < 2; ++s) {
        if (l.in_scale[s].shift < 0 || l.in_scale[s].shift > 31) {
          auto d = fault(problem::bad_rescale, i, l);
          d.v[0] = s, d.v[1] = l.in_scale[s].shift;
          return d;
        }
      }
    }
    if (l.kind == op::depthwise && l.out_channels == 0) l.out_channels = l.in.c;
    if (l.kind != op::conv && l.kind != op::linear) l.out_channels = l.out.c;
    const int expects = l.in_channels != 0                                      ? l.in_channels
                        : (l.kind == op::depthwise && l.out_channels != l.in.c) ? l.out_channels
                                                                                : 0;
    if (expects != 0 && expects != l.in.c) {
      auto d = fault(problem::input_channels, i, l);
      d.v[0] = l.kernel.h, d.v[1] = l.kernel.w, d.v[2] = expects, d.v[3] = l.src[0],
      d.v[4] = l.in.c;
      return d;
    }
    l.in_channels = l.in.c;
    // Arithmetic.
    const bool uses_quant = l.requantize && l.kind != op::maxpool;
    // Only a residual add or an average pool may leave its output unclipped: their range
    // follows from their inputs' (a weighted layer's would depend on its data).
    const bool may_be_unclipped = l.kind == op::add || l.kind == op::avgpool;
    if (uses_quant && (l.quant.d <= 0 || l.quant.lo > l.quant.hi ||
                       (l.quant.clips() ? !l.quant.clip().fits_8bit() : !may_be_unclipped))) {
      auto d = fault(problem::bad_requant, i, l);
      d.v[0] = detail::clamp_int(l.quant.m), d.v[1] = detail::clamp_int(l.quant.d);
      d.v[2] = l.quant.lo, d.v[3] = l.quant.hi;
      return d;
    }
    // Saturation on request: an unclipped output whose range exceeds its 8-bit container is
    // clipped to the container (the layer's clip becomes it, so every consumer of the clip,
    // the kernels' and the reference's, sees the same bounds).
    if (uses_quant && l.saturate && !l.quant.clips()) {
      const value_range r = detail::output_range(l);
      if (!r.fits_8bit()) {
        l.quant.lo = r.container().lo, l.quant.hi = r.container().hi;
        l.saturated = true;
      }
    }
    l.out_range = detail::output_range(l);
  }
  return {};
}

}  // namespace ctile
