// What the runtime hands a kernel for one L1 tile on one core, how the tile's work is divided
// among the cores, and how much scratch memory each kernel needs. Plain values only, so the
// planner builds these at compile time and the freestanding runtime at run time.
#pragma once

#include <cstdint>

#include "ctile/core/split.hpp"
#include "ctile/kernels/requant.hpp"
#include "ctile/layers/quant.hpp"

namespace ctile::kernels {

/// The kernels ctile has.
enum class kernel_kind : std::uint8_t { conv, pointwise, depthwise, linear, maxpool, avgpool, add };

/// Arguments of one kernel call: one tile, one core.
///
/// Layouts: activations HWC (`in`, `in2`, `out`), except the depthwise input which is CHW and,
/// when `out_chw` is set, a conv or pointwise output, which is then channel-major: channel c
/// of the tile at out + c * h_out * w_out, its pixel (y, x) at y * w_out + x.
/// `out` holds u8 values, or int32 for a linear layer whose plan is `requant_mode::raw`.
/// Parameters are already offset to the tile's first output channel: weights
/// [c_out][kh][kw][c_in] (conv), [c_out][kh][kw] (depthwise), [c_out][h_in * w_in * c_in]
/// (linear); bias/kappa/lambda [c_out]. Pointers of absent parameters are null.
/// Padding is the tile's own: zero rows/columns around the tile input, non-zero only on
/// border tiles; it may exceed the kernel (an output whose window lies wholly in padding is
/// its bias, requantized). A dilated kernel's window spans (kh - 1) * dh + 1 rows and
/// (kw - 1) * dw + 1 columns. `scratch` is the whole buffer of `scratch_bytes(...)` bytes shared by
/// the cores (4-byte aligned); each core uses its own slice.
struct tile_args {
  const std::uint8_t* in = nullptr;
  int h_in = 0, w_in = 0, c_in = 0;
  const std::uint8_t* in2 = nullptr;  ///< add: the second input, same dims as `in`
  void* out = nullptr;
  int h_out = 0, w_out = 0, c_out = 0;
  int kh = 1, kw = 1;
  int sh = 1, sw = 1;
  int dh = 1, dw = 1;  ///< conv, depthwise: dilation (kernel taps dh rows, dw columns apart)
  int pad_t = 0, pad_b = 0, pad_l = 0, pad_r = 0;
  const std::int8_t* weights = nullptr;
  const std::int32_t* bias = nullptr;
  const std::int32_t* kappa = nullptr;
  const std::int32_t* lambda = nullptr;
  requant_plan quant{};        ///< from plan_requant / plan_for
  rescale scale0{}, scale1{};  ///< add: per-input rescaling
  std::uint8_t* scratch = nullptr;
  int core = 0, cores = 1;
  core_split split{};
  /// Linear with its reduction cut in K tiles (`in` and the weight rows hold this tile's
  /// h_in * w_in * c_in bytes of it): int32 partial sums per output channel of the tile,
  /// started on the first K tile, finished (bias, requantization, store to `out`) on the last.
  /// Null when the whole reduction is in this call.
  std::int32_t* partial = nullptr;
  bool k_first = true, k_last = true;
  /// Conv and pointwise: store the output channel-major (CHW) instead of HWC.
  bool out_chw = false;
  /// The input bytes (`in`; `in2` for an add's second input) are signed, two's complement:
  /// the layer's input range has lo < 0. Weighted kernels then use signed x signed dot
  /// products (sdotsp), pools and adds read the bytes as int8.
  bool in_signed = false;
  bool in2_signed = false;
  /// Bytes per element of `in`, `in2` and (for activations) `out`: 1, or 2 for a 16-bit
  /// tensor (an unclipped sum whose proven range needs more than 8 bits; int16 when signed,
  /// else uint16). A tile with any 2 runs the portable wide kernels (wide.hpp), never the
  /// 8-bit ones.
  std::uint8_t in_bytes = 1;
  std::uint8_t in2_bytes = 1;
  std::uint8_t out_bytes = 1;
  [[nodiscard]] constexpr bool wide() const {
    return in_bytes != 1 || in2_bytes != 1 || out_bytes != 1;
  }
};

/// The part of a tile's output one core computes: rows [y0, y1), columns [x0, x1),
/// channels [c0, c1).
struct box {
  int y0 = 0, y1 = 0, x0 = 0, x1 = 0, c0 = 0, c1 = 0;
  [[nodiscard]] constexpr bool empty() const { return y1 <= y0 || x1 <= x0 || c1 <= c0; }
  [[nodiscard]] constexpr long long volume() const {
    return empty() ? 0 : static_cast<long long>(y1 - y0) * (x1 - x0) * (c1 - c0);
  }
  friend constexpr bool operator==(const box&, const box&) = default;
};

/// The box of `core` out of `cores` under a split policy (band_of on the split dimension;
/// grid: core i is sub-image i / k and filter group i % k, cores beyond v * k idle).
constexpr box work_of(core_split s, int core, int cores, int h, int w, int c) {
  box b{0, h, 0, w, 0, c};
  if (cores <= 1) return b;
  if (core < 0 || core >= cores) return {};
  switch (s.kind) {
    case split_kind::rows: {
      const band r = band_of(h, cores, core);
      b.y0 = r.begin, b.y1 = r.end;
      break;
    }
    case split_kind::cols: {
      const band r = band_of(w, cores, core);
      b.x0 = r.begin, b.x1 = r.end;
      break;
    }
    case split_kind::channels: {
      const band r = band_of(c, cores, core);
      b.c0 = r.begin, b.c1 = r.end;
      break;
    }
    case split_kind::grid: {
      const int v = s.v > 0 ? s.v : 1;
      const int k = s.k > 0 ? s.k : 1;
      if (core >= v * k) return {};
      const band r = band_of(h, v, core / k);
      const band f = band_of(c, k, core % k);
      b.y0 = r.begin, b.y1 = r.end, b.c0 = f.begin, b.c1 = f.end;
      break;
    }
  }
  return b;
}

/// The box of `core` in a tile. A linear layer's output is 1 x 1 x c_out: its cores always
/// split output neurons.
constexpr box work_of(kernel_kind k, const tile_args& a, int core) {
  if (k == kernel_kind::linear)
    return work_of(core_split{split_kind::channels}, core, a.cores, 1, 1, a.c_out);
  return work_of(a.split, core, a.cores, a.h_out, a.w_out, a.c_out);
}
/// The box of core `a.core`.
constexpr box work_of(kernel_kind k, const tile_args& a) {
  return work_of(k, a, a.core);
}

constexpr int round4(int n) {
  return (n + 3) & ~3;
}

/// Conv im2col: two columns of kh * kw * c_in bytes per core (rounded to words).
constexpr int conv_scratch_per_core(int kh, int kw, int c_in) {
  return 2 * round4(kh * kw * c_in);
}
/// Depthwise: one padded vertical stripe of kw columns covering the tile's output rows
/// (plus a word of slack for the last window's word loads), the filter as one word per row
/// (filters up to 4 wide) and the filter padded to words.
constexpr int depthwise_stripe_rows(int h_out, int kh, int sh) {
  return (h_out - 1) * sh + kh;
}
/// Words of a depthwise filter laid out one row per word (filters up to 4 wide), 0 otherwise.
constexpr int depthwise_filter_words(int kh, int kw) {
  return kw <= 4 ? kh : 0;
}
constexpr int depthwise_scratch_per_core(int h_out, int kh, int kw, int sh) {
  return round4(kw * depthwise_stripe_rows(h_out, kh, sh) + 4) +
         4 * depthwise_filter_words(kh, kw) + round4(kh * kw);
}

/// Scratch bytes a kernel needs for a tile on `cores` cores (the planner budgets L1 with
/// this; the runtime passes a buffer of this size as `tile_args::scratch`).
constexpr int scratch_bytes(kernel_kind k, int h_out, int c_in, int kh, int kw, int sh, int cores) {
  switch (k) {
    case kernel_kind::conv:
      return cores * conv_scratch_per_core(kh, kw, c_in);
    case kernel_kind::depthwise:
      return cores * depthwise_scratch_per_core(h_out, kh, kw, sh);
    default:
      return 0;
  }
}
/// The cores that get work under a split: a grid of v x k leaves the others idle (they touch
/// no scratch), so a plan can run a layer on fewer cores when L1 cannot hold every core's.
constexpr int working_cores(const tile_args& a) {
  if (a.split.kind == split_kind::grid && a.split.v * a.split.k < a.cores)
    return a.split.v * a.split.k;
  return a.cores;
}
constexpr int scratch_bytes(kernel_kind k, const tile_args& a) {
  return scratch_bytes(k, a.h_out, a.c_in, a.kh, a.kw, a.sh, working_cores(a));
}

/// What is wrong with a tile's arguments, if anything.
enum class args_problem : std::uint8_t {
  none,
  null_pointer,       ///< in/out (or in2, weights, scratch where needed) missing
  bad_dims,           ///< a non-positive dimension, stride or kernel, or negative padding
  window_mismatch,    ///< output dims do not follow from input dims, kernel, stride, padding
  channels_mismatch,  ///< c_out != c_in where they must agree (depthwise, pools, add)
  bad_cores,          ///< core outside [0, cores) or a grid with v * k > cores
  bad_layout,         ///< a channel-major output asked of a kernel other than conv / pointwise
};

constexpr const char* problem_text(args_problem p) {
  switch (p) {
    case args_problem::none:
      return "none";
    case args_problem::null_pointer:
      return "a required pointer is null";
    case args_problem::bad_dims:
      return "a dimension, stride or kernel is not positive, or a padding is negative";
    case args_problem::window_mismatch:
      return "the output dims do not follow from the input, kernel, stride and padding";
    case args_problem::channels_mismatch:
      return "input and output channel counts differ where they must agree";
    case args_problem::bad_cores:
      return "the core id or the grid split does not fit the core count";
    case args_problem::bad_layout:
      return "only conv and pointwise kernels store their output channel-major";
  }
  return "?";
}

/// Validates arguments before a call (the kernels themselves do not check, for speed).
constexpr args_problem check(kernel_kind k, const tile_args& a) {
  if (a.in == nullptr || a.out == nullptr) return args_problem::null_pointer;
  if (k == kernel_kind::add && a.in2 == nullptr) return args_problem::null_pointer;
  const bool weighted = k == kernel_kind::conv || k == kernel_kind::pointwise ||
                        k == kernel_kind::depthwise || k == kernel_kind::linear;
  if (weighted && a.weights == nullptr) return args_problem::null_pointer;
  if ((k == kernel_kind::conv || k == kernel_kind::depthwise) && a.scratch == nullptr)
    return args_problem::null_pointer;
  if (k == kernel_kind::linear && !(a.k_first && a.k_last) && a.partial == nullptr)
    return args_problem::null_pointer;
  if (a.h_in <= 0 || a.w_in <= 0 || a.c_in <= 0 || a.h_out <= 0 || a.w_out <= 0 || a.c_out <= 0 ||
      a.kh <= 0 || a.kw <= 0 || a.sh <= 0 || a.sw <= 0 || a.dh <= 0 || a.dw <= 0 || a.pad_t < 0 ||
      a.pad_b < 0 || a.pad_l < 0 || a.pad_r < 0)
    return args_problem::bad_dims;
  if (a.cores <= 0 || a.core < 0 || a.core >= a.cores) return args_problem::bad_cores;
  if (a.split.kind == split_kind::grid &&
      (a.split.v <= 0 || a.split.k <= 0 || a.split.v * a.split.k > a.cores))
    return args_problem::bad_cores;
  if (a.out_chw && k != kernel_kind::conv && k != kernel_kind::pointwise)
    return args_problem::bad_layout;
  if (k == kernel_kind::linear)
    return a.h_out == 1 && a.w_out == 1 ? args_problem::none : args_problem::window_mismatch;
  if (k == kernel_kind::depthwise || k == kernel_kind::maxpool || k == kernel_kind::avgpool ||
      k == kernel_kind::add) {
    if (a.c_out != a.c_in) return args_problem::channels_mismatch;
  }
  if (k == kernel_kind::add) {
    return a.h_out == a.h_in && a.w_out == a.w_in ? args_problem::none
                                                  : args_problem::window_mismatch;
  }
  if (k == kernel_kind::pointwise &&
      (a.kh != 1 || a.kw != 1 || a.pad_t + a.pad_b + a.pad_l + a.pad_r != 0))
    return args_problem::window_mismatch;
  const bool dilates = k == kernel_kind::conv || k == kernel_kind::depthwise;
  if (!dilates && (a.dh != 1 || a.dw != 1)) return args_problem::window_mismatch;
  // Every output window must lie inside the padded input.
  const int need_h = (a.h_out - 1) * a.sh + (a.kh - 1) * a.dh + 1;
  const int need_w = (a.w_out - 1) * a.sw + (a.kw - 1) * a.dw + 1;
  if (need_h > a.h_in + a.pad_t + a.pad_b || need_w > a.w_in + a.pad_l + a.pad_r)
    return args_problem::window_mismatch;
  // A pool's windows each hold an input value (its padding stays below its window).
  if (!dilates && (a.pad_t >= a.kh || a.pad_l >= a.kw)) return args_problem::window_mismatch;
  return args_problem::none;
}

}  // namespace ctile::kernels
