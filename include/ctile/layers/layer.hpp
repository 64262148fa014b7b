// The one description every layer kind normalizes to. Builders (conv2d, linear, ...) are the
// user's vocabulary; planners, kernels, the reference and the importer all read `layer`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ctile/core/fixed_string.hpp"
#include "ctile/core/geometry.hpp"
#include "ctile/layers/quant.hpp"

namespace ctile {

/// What a layer computes.
enum class op : std::uint8_t {
  input,      ///< the network input (first layer only)
  conv,       ///< 2-D convolution, groups = 1 (pointwise is conv with a 1x1 kernel)
  depthwise,  ///< 2-D convolution, groups = channels
  linear,     ///< fully connected over the flattened HWC input
  maxpool,    ///< max over a window
  avgpool,    ///< floor(sum * m / d) over a window (global: the whole input)
  add,        ///< residual add of two tensors of equal shape, each input rescaled
};

constexpr const char* op_name(op k) {
  switch (k) {
    case op::input:
      return "input";
    case op::conv:
      return "conv";
    case op::depthwise:
      return "depthwise";
    case op::linear:
      return "linear";
    case op::maxpool:
      return "maxpool";
    case op::avgpool:
      return "avgpool";
    case op::add:
      return "add";
  }
  return "?";
}

/// TensorFlow's SAME padding of one axis: {before, after} for `in` inputs, kernel `k` and
/// stride `s` (out = ceil(in / s); total = max((out - 1) * s + k - in, 0); before = total / 2).
struct pad_pair {
  int before = 0, after = 0;
};
constexpr pad_pair same_padding(int in, int k, int s) {
  if (in <= 0 || k <= 0 || s <= 0) return {};
  const int out = (in + s - 1) / s;
  const int need = (out - 1) * s + k - in;
  const int total = need > 0 ? need : 0;
  return {total / 2, total - total / 2};
}

/// Where a layer takes an input from: the previous layer (default), a layer by absolute
/// index, or a layer by name.
struct source {
  int index = -1;  ///< absolute layer index; -1: the layer right before, or `name` if set
  name_t name{};
  friend constexpr bool operator==(const source&, const source&) = default;
};

/// What a layer writes: activations (requantized; unsigned or signed, see `layer::out_range`)
/// in containers of 8 bits, or of 16 bits when their proven range needs it (an unclipped sum,
/// see `element_bytes`), or raw 32-bit accumulators (a final classifier's logits).
enum class output_kind : std::uint8_t { u8, i32 };

/// The widest activation container the tiled runtime holds: 16 bits.
inline constexpr int max_activation_bytes = 2;

/// Bytes of the container of an activation whose proven range is `r`: 1 (u8 or s8) when it
/// fits 8 bits, 2 (u16 or s16, two's complement when signed) when it fits 16 bits, 0 when it
/// fits neither (no activation container of the runtime holds it).
[[gnu::always_inline]] constexpr int element_bytes(value_range r) {
  if (r.lo > r.hi) return 0;
  // (value_range::bits() <= 8, <= 16, without its loop: inlined, it folds.)
  const bool s = r.lo < 0;
  if (s ? r.lo >= -128 && r.hi <= 127 : r.hi <= 255) return 1;
  if (s ? r.lo >= -32768 && r.hi <= 32767 : r.hi <= 65535) return 2;
  return 0;
}

/// A layer, fully described. Shapes (`in`, `out`) and resolved sources (`src`) are filled in
/// by the network's shape inference; everything else comes from the declaration.
struct layer {
  op kind = op::input;
  name_t name{};

  // Geometry (conv, depthwise, pools).
  extent2 kernel{1, 1};  ///< {0, 0} on an avgpool means global
  extent2 stride{1, 1};
  padding pad{};
  /// `pad` is TensorFlow's SAME padding for the input, kernel and stride (set by `.same()`,
  /// resolved by shape inference: same_padding).
  bool same_pad = false;
  extent2 dilation{1, 1};  ///< conv, depthwise: the step between kernel taps in the input

  /// The input extent one output value reads, per axis: (k - 1) * d + 1 (the kernel itself
  /// when not dilated). Every window computation (shapes, tiles, L1 sizes) uses this.
  [[nodiscard]] constexpr extent2 window() const {
    return {dilated_extent(kernel.h, dilation.h), dilated_extent(kernel.w, dilation.w)};
  }

  // Channels: for conv/linear the output channels; for others inferred. `in_channels` is
  // optional (0 = infer), and checked when given.
  int out_channels = 0;
  int in_channels = 0;

  // Arithmetic.
  bool bias = false;       ///< int32 bias per output channel added to the accumulator
  bool batchnorm = false;  ///< kappa/lambda int32 per output channel
  bool requantize = true;  ///< apply `quant`; a linear layer without it outputs int32
  /// The clip of the requantization (`quant.lo`, `quant.hi`) is the range of values the layer
  /// may write; on the input layer it is the declared range of the network input.
  requant quant{};
  rescale in_scale[2]{};  ///< residual add: per-input rescaling
  /// Clip the output to its 8-bit container (0..255, or -128..127 for a signed range) when
  /// its proven range is wider: DORY-compatible saturation, only on request.
  bool saturate = false;

  // Connectivity: inputs (two for add).
  source sources[2]{};

  // Filled by inference.
  int src[2] = {-1, -1};
  shape in{};
  shape in2{};
  shape out{};
  /// Proven value ranges of the inputs and the output (range analysis over the network:
  /// the input's declared range, clips, sums; see `ctile::infer`).
  value_range in_range{};
  value_range in2_range{};
  value_range out_range{};
  /// Set by inference when `saturate` replaced an unclipped output's clip by its 8-bit
  /// container (the proven range exceeded it).
  bool saturated = false;

  /// For an input layer: the input shape (declared).
  shape declared{};

  friend constexpr bool operator==(const layer&, const layer&) = default;

  [[nodiscard, gnu::always_inline]] constexpr output_kind output() const {
    return (kind == op::linear && !requantize) ? output_kind::i32 : output_kind::u8;
  }
  /// Bytes per output element: 4 for raw int32 accumulators, else the container of the
  /// proven output range (element_bytes: 1 or 2; an output wider than 16 bits counts 2, and
  /// the executor refuses the network).
  [[nodiscard, gnu::always_inline]] constexpr int output_bytes_per_element() const {
    if (output() == output_kind::i32) return 4;
    const int b = element_bytes(out_range);
    return b == 1 ? 1 : 2;
  }
  /// Bytes per element of input `k` (0, or 1 for an add's second input): the container its
  /// producer writes (element_bytes of the input's proven range).
  [[nodiscard, gnu::always_inline]] constexpr int input_bytes_per_element(int k = 0) const {
    const int b = element_bytes(k == 0 ? in_range : in2_range);
    return b == 1 ? 1 : 2;
  }
  /// The widest input container (an add may sum an 8-bit and a 16-bit tensor): what the
  /// planner sizes every input buffer of the layer with.
  [[nodiscard, gnu::always_inline]] constexpr int input_bytes_max() const {
    const int a = input_bytes_per_element(0);
    const int b = kind == op::add ? input_bytes_per_element(1) : 1;
    return a > b ? a : b;
  }
  /// Whether the layer reads or writes a 16-bit activation (its kernels then take the
  /// portable path for wide operands; the 8-bit kernels never see such data).
  [[nodiscard]] constexpr bool wide() const {
    return kind != op::input && (input_bytes_max() > 1 ||
                                 (output() == output_kind::u8 && output_bytes_per_element() > 1));
  }
  [[nodiscard, gnu::always_inline]] constexpr int inputs() const {
    return kind == op::input ? 0 : (kind == op::add ? 2 : 1);
  }
  [[nodiscard, gnu::always_inline]] constexpr bool has_weights() const {
    return kind == op::conv || kind == op::depthwise || kind == op::linear;
  }
  /// Number of int8 weights (conv: Cout*Kh*Kw*Cin, depthwise: C*Kh*Kw, linear: Cout*H*W*C).
  [[nodiscard, gnu::always_inline]] constexpr std::int64_t weight_count() const {
    switch (kind) {
      case op::conv:
        return std::int64_t{out.c} * kernel.h * kernel.w * in.c;
      case op::depthwise:
        return std::int64_t{out.c} * kernel.h * kernel.w;
      case op::linear:
        return std::int64_t{out.c} * in.elements();
      default:
        return 0;
    }
  }
  /// Per-output-channel parameter count (bias, kappa, lambda).
  [[nodiscard, gnu::always_inline]] constexpr int channel_params() const {
    return has_weights() ? out.c : 0;
  }
  /// Multiply-accumulates per inference.
  [[nodiscard]] constexpr std::int64_t macs() const {
    switch (kind) {
      case op::conv:
        return out.elements() * kernel.h * kernel.w * in.c;
      case op::depthwise:
        return out.elements() * kernel.h * kernel.w;
      case op::linear:
        return std::int64_t{out.c} * in.elements();
      default:
        return 0;
    }
  }
  [[nodiscard, gnu::always_inline]] constexpr std::int64_t output_bytes() const {
    return out.elements() * output_bytes_per_element();
  }

  // ---- Fluent setters: each returns a modified copy, so a declaration reads left to right.
  template <std::size_t N>
  constexpr layer named(const char (&s)[N]) const {
    auto c = *this;
    c.name = name_t(s);
    return c;
  }
  constexpr layer named(name_t n) const {
    auto c = *this;
    c.name = n;
    return c;
  }
  constexpr layer kernel_size(int kh, int kw) const {
    auto c = *this;
    c.kernel = {kh, kw};
    return c;
  }
  constexpr layer strides(int sh, int sw) const {
    auto c = *this;
    c.stride = {sh, sw};
    return c;
  }
  constexpr layer strides(int s) const { return strides(s, s); }
  constexpr layer padded(int t, int b, int l, int r) const {
    auto c = *this;
    c.pad = {t, b, l, r};
    c.same_pad = false;
    return c;
  }
  constexpr layer padded(int p) const { return padded(p, p, p, p); }
  /// Dilated convolution: kernel taps `dh` rows and `dw` columns apart (1: dense).
  constexpr layer dilated(int dh, int dw) const {
    auto c = *this;
    c.dilation = {dh, dw};
    return c;
  }
  /// The same dilation on both axes. A 1-D layer (H = 1 or W = 1, kernel 1 on that axis) is
  /// unaffected by the dilation along its unit axis.
  constexpr layer dilated(int d) const { return dilated(d, d); }
  /// TensorFlow's "SAME" padding, for any stride: ceil(in / stride) outputs per axis, the
  /// total padding max((out - 1) * stride + k - in, 0) split with the smaller half before
  /// (same_padding). Shape inference sets it from the input; until then `pad` holds the
  /// stride-1 values ((k-1)/2 before, k/2 after).
  constexpr layer same() const {
    auto c = padded((kernel.h - 1) / 2, kernel.h / 2, (kernel.w - 1) / 2, kernel.w / 2);
    c.same_pad = true;
    return c;
  }
  constexpr layer with_bias() const {
    auto c = *this;
    c.bias = true;
    return c;
  }
  /// Batch-norm folded into per-channel kappa/lambda.
  constexpr layer bn() const {
    auto c = *this;
    c.batchnorm = true;
    return c;
  }
  /// Requantize: clip(floor(t * m / d), lo, hi).
  constexpr layer requantized(std::int64_t m, std::int64_t d, int lo = 0, int hi = 255) const {
    auto c = *this;
    c.requantize = true;
    c.quant = {m, d, lo, hi};
    return c;
  }
  /// The range of values the layer writes: on the network input, the declared input range
  /// (default 0..255); on a requantized layer, the clip bounds (same as `requantized`'s lo, hi).
  /// Signed ranges (lo < 0) are held as two's complement in 8-bit containers.
  constexpr layer range(int lo, int hi) const {
    auto c = *this;
    c.quant.lo = lo;
    c.quant.hi = hi;
    return c;
  }
  /// `range` of b-bit two's-complement values: -2^(b-1)..2^(b-1)-1 (b = 2: -2..1).
  constexpr layer signed_bits(int b) const {
    const value_range r = signed_range(b);
    return range(r.lo, r.hi);
  }
  /// `range` of b-bit unsigned values: 0..2^b-1 (b = 4: 0..15).
  constexpr layer unsigned_bits(int b) const {
    const value_range r = unsigned_range(b);
    return range(r.lo, r.hi);
  }
  /// No clip after the requantization (residual add, average pool): the output range is
  /// proven from the input ranges, and may be wider than 8 bits.
  constexpr layer unclipped() const { return range(no_clip.lo, no_clip.hi); }
  /// Saturate an unclipped output to its 8-bit container when its proven range is wider
  /// (DORY's behaviour; changes the result of a network whose sums exceed the container):
  /// inference then sets the clip to the container (0..255, or -128..127 for a signed range).
  constexpr layer saturating() const {
    auto c = *this;
    c.saturate = true;
    return c;
  }
  /// Output raw int32 accumulators (linear layers only: a final classifier).
  constexpr layer raw() const {
    auto c = *this;
    c.requantize = false;
    return c;
  }
  constexpr layer expects_channels(int n) const {
    auto c = *this;
    c.in_channels = n;
    return c;
  }
  /// Take (the first) input from the layer named `n` instead of the previous one.
  template <std::size_t N>
  constexpr layer from(const char (&n)[N]) const {
    auto c = *this;
    c.sources[0] = source{-1, name_t(n)};
    return c;
  }
  /// Take (the first) input from layer `index` (0 is the network input).
  constexpr layer from(int index) const {
    auto c = *this;
    c.sources[0] = source{index, {}};
    return c;
  }
  /// Residual add: rescale input `i` (0 or 1) before the sum.
  constexpr layer scaled(int i, rescale r) const {
    auto c = *this;
    c.in_scale[i] = r;
    return c;
  }
};

// ---- The vocabulary.

/// The network input, H x W x C (HWC, u8 by default; `.signed_bits(b)`, `.unsigned_bits(b)`
/// or `.range(lo, hi)` declare another range). A 1-D input is 1 x W x C.
constexpr layer input(int h, int w, int c) {
  layer l;
  l.kind = op::input;
  l.declared = {h, w, c};
  l.requantize = false;
  return l;
}

/// 2-D convolution with `out` filters of kh x kw (stride 1, no padding until set).
constexpr layer conv2d(int out, int kh, int kw) {
  layer l;
  l.kind = op::conv;
  l.out_channels = out;
  l.kernel = {kh, kw};
  return l;
}
constexpr layer conv2d(int out, int k) {
  return conv2d(out, k, k);
}

/// Pointwise convolution: a 1x1 conv2d.
constexpr layer pointwise(int out) {
  return conv2d(out, 1, 1);
}

/// Depthwise convolution (one kh x kw filter per channel).
constexpr layer depthwise(int kh, int kw) {
  layer l;
  l.kind = op::depthwise;
  l.kernel = {kh, kw};
  return l;
}
constexpr layer depthwise(int k) {
  return depthwise(k, k);
}

/// Fully connected over the flattened HWC input: 8-bit requantized output by default,
/// `.raw()` for int32 logits.
constexpr layer linear(int out) {
  layer l;
  l.kind = op::linear;
  l.out_channels = out;
  return l;
}

/// Max pool, window k x k, stride k unless set.
constexpr layer maxpool(int kh, int kw) {
  layer l;
  l.kind = op::maxpool;
  l.kernel = {kh, kw};
  l.stride = {kh, kw};
  l.requantize = false;
  return l;
}
constexpr layer maxpool(int k) {
  return maxpool(k, k);
}

/// Average pool: floor(sum * m / d) over the window. By default m = 1 and d = the window
/// area (a plain floor average); set exact NEMO constants with `.requantized(m, d)`.
constexpr layer avgpool(int kh, int kw) {
  layer l;
  l.kind = op::avgpool;
  l.kernel = {kh, kw};
  l.stride = {kh, kw};
  l.quant.d = 0;  // 0: the window area, resolved by shape inference
  return l;
}
constexpr layer avgpool(int k) {
  return avgpool(k, k);
}
/// Average over the whole input plane.
constexpr layer global_avgpool() {
  return avgpool(0, 0);
}

/// Residual add of the previous layer's output and layer `other` (by name):
/// y = clip(floor((s0 + s1) * m / d), lo, hi), s_i the input rescaled by `.scaled(i, ...)`.
template <std::size_t N>
constexpr layer add(const char (&other)[N]) {
  layer l;
  l.kind = op::add;
  l.sources[1] = source{-1, name_t(other)};
  return l;
}
/// Residual add of two named layers.
template <std::size_t N, std::size_t M>
constexpr layer add(const char (&a)[N], const char (&b)[M]) {
  layer l;
  l.kind = op::add;
  l.sources[0] = source{-1, name_t(a)};
  l.sources[1] = source{-1, name_t(b)};
  return l;
}
/// Residual add of two layers by index.
constexpr layer add(int a, int b) {
  layer l;
  l.kind = op::add;
  l.sources[0] = source{a, {}};
  l.sources[1] = source{b, {}};
  return l;
}

}  // namespace ctile
