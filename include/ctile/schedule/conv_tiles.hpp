// The loop nests of convolutions (standard, pointwise, depthwise), pools, adds and linear
// layers whose layer and plan are compile-time constants, specialised for the per-tile work to be
// little more than the DMA commands:
//
// - the geometry of every row tile and column tile is a table built at compile time (a row
//   or a column axis cut in one tile folds to constants, one whose tiles are uniform to
//   arithmetic on the index, a short table read again and again is copied to the stack), so
//   that a tile does not read it from the read-only data, which lies in L2 on a cluster (only
//   a long irregular axis still does); the plan's pairs of L1 buffers are chosen by
//   arithmetic on the buffer index for the same reason (pick);
// - the input and output buffers alternate with the tile's parity, so the loop body is
//   instantiated twice, once per parity, and every L1 buffer address is a constant;
// - where each tile's input and output is one DMA command (checked at compile time over every
//   tile), it is programmed inline into a handle of its own, so no ring bookkeeping is left;
//   where some tile's box takes more, every tile's goes through copy_box and a ring, as in
//   run_tiles; a depthwise input is marshalled by the cores as in run_tiles;
// - a 16-bit operand (an unclipped sum) changes only the bytes: the tables count elements, the
//   commands and L2 offsets scale them by the element width, and the kernel arguments carry the
//   widths (the portable wide kernels);
// - the weights and per-channel parameters change once per output-channel tile, in a path of
//   their own: the next channel tile's weights are prefetched as soon as the current ones
//   have arrived, and the kernel arguments that depend on rows only change when a row tile
//   starts;
// - a layer of few tiles that runs whole is not a loop at all: its tiles are the same body
//   called in sequence with constant indices (see unrolled()), so every command, buffer and
//   kernel argument is a constant.
//
// The transfers are those of run_tiles (same commands, same buffers), except that the next
// channel tile's weights start at the first tile of the current channel tile instead of its
// last one. A linear layer's loop (linear_detail) keeps run_linear_tiles' order and transfers.
// Every layer and plan known at compile time runs one of these loops (run_tiles_static);
// run_tiles, over a layer and plan known at run time, serves plans made at run time.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ctile/plan/cost_model.hpp"
#include "ctile/schedule/tile_loop.hpp"

namespace ctile::schedule {

namespace conv_detail {

/// The walk through the stripes of a loop nest whose call may span them (channel_blocks), or
/// nothing.
template <bool Spans>
[[gnu::always_inline]] inline auto spans_init(const l2_operands& v, const layer& l) {
  if constexpr (Spans)
    return channel_blocks(v, l.out.c);
  else
    return char{};
}

/// One row or column tile of a convolution: where its input and output start (bytes from the
/// layer's first row or column), their extents, and the padding the kernel applies.
struct axis_entry {
  int in_off = 0, in_size = 0;
  int out_off = 0, out_size = 0;
  int pad_lo = 0, pad_hi = 0;
};

/// An axis table whose entries are `a` + i x `d`, field by field (`ok`), but for its first
/// and last entries where `first_apart` / `last_apart` (an edge tile's padding, a shorter last
/// tile: `first` and `last` themselves), as when the tiles are uniform inside the layer. Entry
/// i is then two multiplications at most and a comparison for each field an edge entry sets
/// apart, with no table read; a field that does not change with i is a constant.
struct axis_line {
  bool ok = false;
  axis_entry a{}, d{};
  bool first_apart = false, last_apart = false;
  axis_entry first{}, last{};
  int n = 0;  ///< entries
};
template <std::size_t N>
constexpr axis_line line_of(const std::array<axis_entry, N>& t) {
  const auto diff = [](const axis_entry& x, const axis_entry& y) {
    return axis_entry{y.in_off - x.in_off,     y.in_size - x.in_size, y.out_off - x.out_off,
                      y.out_size - x.out_size, y.pad_lo - x.pad_lo,   y.pad_hi - x.pad_hi};
  };
  const auto same = [](const axis_entry& x, const axis_entry& y) {
    return x.in_off == y.in_off && x.in_size == y.in_size && x.out_off == y.out_off &&
           x.out_size == y.out_size && x.pad_lo == y.pad_lo && x.pad_hi == y.pad_hi;
  };
  const auto at = [&t](int i) -> const axis_entry& { return t[static_cast<std::size_t>(i)]; };
  const int n = static_cast<int>(N);
  // The fewest entries set apart: none, the last, the first, both.
  for (const int apart : {0, 2, 1, 3}) {
    const int lo = apart & 1, hi = n - 1 - (apart >> 1);
    if (hi < lo) continue;
    axis_line r{true, at(0), {}, lo == 1, hi == n - 2, at(0), at(n - 1), n};
    if (hi > lo) r.d = diff(at(lo), at(lo + 1));
    for (int i = lo + 1; i < hi && r.ok; ++i) r.ok = same(diff(at(i), at(i + 1)), r.d);
    if (!r.ok) continue;
    if (lo == 1) r.a = diff(r.d, at(1));  // entry i = a + i x d on [lo, hi]: a = entry 1 - d
    return r;
  }
  return {};
}
/// Field F of entry `i` of an axis table that is a line (Ln.ok).
template <axis_line Ln, int axis_entry::*F>
[[gnu::always_inline]] constexpr int line_field(int i) {
  constexpr int a = Ln.a.*F, d = Ln.d.*F;
  constexpr bool first = Ln.first_apart && Ln.first.*F != a;
  constexpr bool last = Ln.last_apart && Ln.last.*F != a + (Ln.n - 1) * d;
  int v = d == 0 ? a : a + i * d;
  if constexpr (first) v = i == 0 ? Ln.first.*F : v;
  if constexpr (last) v = i == Ln.n - 1 ? Ln.last.*F : v;
  return v;
}
/// Entry `i` of an axis table that is a line (Ln.ok).
template <axis_line Ln>
[[gnu::always_inline]] constexpr axis_entry on_line(int i) {
  return {line_field<Ln, &axis_entry::in_off>(i),  line_field<Ln, &axis_entry::in_size>(i),
          line_field<Ln, &axis_entry::out_off>(i), line_field<Ln, &axis_entry::out_size>(i),
          line_field<Ln, &axis_entry::pad_lo>(i),  line_field<Ln, &axis_entry::pad_hi>(i)};
}

/// Whether the kernel arguments an axis tile sets (its extents and padding) are the same for
/// every tile of an axis whose table is `Ln`.
constexpr bool fixed_args(const axis_line& Ln) {
  const auto args_of_a = [&](const axis_entry& e) {
    return e.in_size == Ln.a.in_size && e.out_size == Ln.a.out_size && e.pad_lo == Ln.a.pad_lo &&
           e.pad_hi == Ln.a.pad_hi;
  };
  return Ln.ok && Ln.d.in_size == 0 && Ln.d.out_size == 0 && Ln.d.pad_lo == 0 && Ln.d.pad_hi == 0 &&
         (!Ln.first_apart || args_of_a(Ln.first)) && (!Ln.last_apart || args_of_a(Ln.last));
}

/// Entries of an axis table a rolled loop nest copies to its stack (the core's L1) when the
/// table is not a line, so that a tile's geometry is read from L1 rather than from the
/// read-only data in L2 (the copy: one read of each entry per layer).
inline constexpr int axis_copy_max = 16;
inline constexpr int axis_reads_min = 3;

/// The per-axis tables of a conv layer `L` planned as `P`. Offsets are in the tensors' L2
/// layouts: HWC, or CHW for a tensor the plan keeps channel-major (P.in_chw, P.out_chw: a
/// pixel is then one byte of a channel's plane, `in_plane` / `out_plane` bytes long).
template <layer L, layer_plan P>
struct tables {
  static constexpr int in_pixel = P.in_chw ? 1 : L.in.c;
  static constexpr int in_row = L.in.w * in_pixel;
  static constexpr int in_plane = L.in.h * L.in.w;
  static constexpr int eb = L.output_bytes_per_element();
  /// Bytes per element of the input and of an add's second input (2: a 16-bit tensor). The
  /// input fields above and the axis tables' input offsets count elements; a command's bytes
  /// and L2 offsets are those times xe (xe2).
  static constexpr int xe = L.input_bytes_per_element(0);
  static constexpr int xe2 = L.kind == op::add ? L.input_bytes_per_element(1) : 1;
  static constexpr int out_pixel = P.out_chw ? 1 : L.out.c * eb;
  static constexpr int out_row = L.out.w * out_pixel;
  static constexpr int out_plane = L.out.h * L.out.w;

  static constexpr std::array<axis_entry, static_cast<std::size_t>(P.n_h)> rows = [] {
    std::array<axis_entry, static_cast<std::size_t>(P.n_h)> t{};
    for (int i = 0; i < P.n_h; ++i) {
      const axis_tile a =
          tile_axis(L.in.h, L.out.h, L.window().h, L.stride.h, L.pad.t, P.tile_h, i);
      t[static_cast<std::size_t>(i)] = {a.in_begin * in_row, a.in_size, a.out_begin * out_row,
                                        a.out_size,          a.pad_lo,  a.pad_hi};
    }
    return t;
  }();
  static constexpr std::array<axis_entry, static_cast<std::size_t>(P.n_w)> cols = [] {
    std::array<axis_entry, static_cast<std::size_t>(P.n_w)> t{};
    for (int i = 0; i < P.n_w; ++i) {
      const axis_tile a =
          tile_axis(L.in.w, L.out.w, L.window().w, L.stride.w, L.pad.l, P.tile_w, i);
      t[static_cast<std::size_t>(i)] = {a.in_begin * in_pixel,
                                        a.in_size,
                                        a.out_begin * out_pixel,
                                        a.out_size,
                                        a.pad_lo,
                                        a.pad_hi};
    }
    return t;
  }();
  static constexpr axis_line row_line = line_of(rows);
  static constexpr axis_line col_line = line_of(cols);
};

/// The one command copy_box (with issue_transfer) programs for a box of `rows` x `cols`
/// pixels of `chunk` bytes, pixels `pixel` and rows `row` bytes apart in L2; `ok` is false
/// when that box takes more than one command under `lim`.
struct one_command {
  bool ok = false;
  dma_piece p{};
};
[[gnu::always_inline]] constexpr one_command box_command(int rows, int cols, int chunk, int pixel,
                                                         int row, const hal::dma_limits& lim) {
  const auto u = [](int v) { return static_cast<std::uint32_t>(v); };
  dma_transfer t;
  if (chunk == pixel) {
    if (cols * pixel == row || rows == 1)
      t = dma_transfer::contiguous(hal::dma_dir::l2_to_l1, u(rows * cols * chunk));
    else
      t = dma_transfer::strided(hal::dma_dir::l2_to_l1, u(rows), u(cols * chunk), u(row));
  } else if (cols * pixel == row || rows == 1) {
    t = dma_transfer::strided(hal::dma_dir::l2_to_l1, u(rows * cols), u(chunk), u(pixel));
  } else {
    return {};  // one transfer per row
  }
  const std::uint64_t bytes = t.bytes();
  if (bytes == 0 || bytes > lim.max_command_bytes || bytes > lim.length_field_max) return {};
  if (t.is_contiguous()) return {true, dma_piece{0, 0, static_cast<std::uint32_t>(bytes), 0, 0}};
  if (lim.has_2d && t.line_bytes <= lim.max_line_bytes && t.l2_stride <= lim.max_stride)
    return {true, dma_piece{0, 0, static_cast<std::uint32_t>(bytes), t.line_bytes, t.l2_stride}};
  return {};
}

/// The command of such a box when it is one command, computed without the checks (which
/// shapes_of made at compile time for every tile): `mode` 1 when every tile's command of this
/// kind is 1-D, 2 when every one is 2-D, 0 when it varies; `chunk_is_pixel` whether `chunk`
/// equals `pixel` in every tile. Both are constants of the layer and plan, so that only the
/// arithmetic of the one shape is left at run time.
[[gnu::always_inline]] constexpr dma_piece box_piece(int mode, bool chunk_is_pixel, int rows,
                                                     int cols, int chunk, int pixel, int row) {
  const auto u = [](int v) { return static_cast<std::uint32_t>(v); };
  if (chunk_is_pixel) {
    const int line = cols * chunk;
    if (mode == 1 || (mode == 0 && (line == row || rows == 1))) return {0, 0, u(rows * line), 0, 0};
    return {0, 0, u(rows * line), u(line), u(row)};
  }
  const int n = rows * cols;  // whole rows: the pixels are the lines
  if (mode == 1 || (mode == 0 && n == 1)) return {0, 0, u(chunk), 0, 0};
  return {0, 0, u(n * chunk), u(chunk), u(pixel)};
}

/// Whether layer `l` is a pool or an add: its input tile (each input's, for an add) holds the
/// output tile's channels only.
constexpr bool channel_input(const layer& l) {
  return l.kind == op::maxpool || l.kind == op::avgpool || l.kind == op::add;
}

/// What every tile's input and output command is like: whether each is one command in every
/// tile (the specialised loop's condition), whether they are all 1-D or all 2-D (so the loop
/// need not choose at run time), and whether box_piece gives that command in every tile.
struct command_shapes {
  bool single = true;
  bool in_1d = true, in_2d = true, out_1d = true, out_2d = true;
  [[nodiscard]] constexpr int in_mode() const { return in_1d ? 1 : in_2d ? 2 : 0; }
  [[nodiscard]] constexpr int out_mode() const { return out_1d ? 1 : out_2d ? 2 : 0; }
};

template <layer L, layer_plan P>
constexpr command_shapes shapes_of(const hal::dma_limits& lim) {
  using T = tables<L, P>;
  command_shapes s;
  for (const axis_entry& ty : T::rows) {
    for (const axis_entry& tx : T::cols) {
      for (int ic = 0; ic < P.n_c; ++ic) {
        const int cn = L.out.c - ic * P.tile_c < P.tile_c ? L.out.c - ic * P.tile_c : P.tile_c;
        // A depthwise input is marshalled channel by channel (make_chw_job), not one command;
        // a pool or an add reads the channel tile's bytes of each pixel, a convolution every
        // channel.
        // A channel-major (CHW) tensor's box: the channels' planes, each the tile's rows.
        // (A channel-major input is 8-bit: only a convolution with 8-bit outputs writes one.)
        for (const int e : {T::xe, T::xe2}) {
          const one_command in =
              P.in_chw ? box_command(cn, ty.in_size, tx.in_size, T::in_row, T::in_plane, lim)
              : L.kind == op::depthwise
                  ? one_command{true, {0, 0, 1, 0, 0}}
                  : box_command(ty.in_size, tx.in_size, (channel_input(L) ? cn : T::in_pixel) * e,
                                T::in_pixel * e, T::in_row * e, lim);
          s.single = s.single && in.ok;
          s.in_1d = s.in_1d && !in.p.is_2d();
          s.in_2d = s.in_2d && in.p.is_2d();
        }
        const one_command out =
            P.out_chw
                ? box_command(cn, ty.out_size, tx.out_size, T::out_row, T::out_plane, lim)
                : box_command(ty.out_size, tx.out_size, cn * T::eb, T::out_pixel, T::out_row, lim);
        s.single = s.single && out.ok;
        s.out_1d = s.out_1d && !out.p.is_2d();
        s.out_2d = s.out_2d && out.p.is_2d();
      }
    }
  }
  // An output group's command (conv_loop), the largest: its channel tiles' planes.
  constexpr int yg = P.y_group(T::eb);
  const int gn = yg * P.tile_c < L.out.c ? yg * P.tile_c : L.out.c;
  if constexpr (yg > 1) {
    const one_command out =
        box_command(gn, T::rows[0].out_size, T::cols[0].out_size, T::out_row, T::out_plane, lim);
    s.single = s.single && out.ok;
    s.out_1d = s.out_1d && !out.p.is_2d();
    s.out_2d = s.out_2d && out.p.is_2d();
  }
  if (!s.single) return s;
  if constexpr (yg > 1)
    s.single =
        box_piece(s.out_mode(), true, gn, T::rows[0].out_size, T::cols[0].out_size, T::out_row,
                  T::out_plane) ==
        box_command(gn, T::rows[0].out_size, T::cols[0].out_size, T::out_row, T::out_plane, lim).p;
  // The commands the loop programs are those.
  for (const axis_entry& ty : T::rows) {
    for (const axis_entry& tx : T::cols) {
      for (int ic = 0; ic < P.n_c; ++ic) {
        const int cn = L.out.c - ic * P.tile_c < P.tile_c ? L.out.c - ic * P.tile_c : P.tile_c;
        const int chunk = (channel_input(L) ? cn : T::in_pixel) * T::xe;
        if constexpr (P.in_chw) {
          s.single = s.single &&
                     box_piece(s.in_mode(), P.n_w == 1, cn, ty.in_size, tx.in_size, T::in_row,
                               T::in_plane) ==
                         box_command(cn, ty.in_size, tx.in_size, T::in_row, T::in_plane, lim).p;
        } else {
          s.single = s.single &&
                     (L.kind == op::depthwise ||
                      box_piece(s.in_mode(), !channel_input(L) || P.tile_c >= L.in.c, ty.in_size,
                                tx.in_size, chunk, T::in_pixel * T::xe, T::in_row * T::xe) ==
                          box_command(ty.in_size, tx.in_size, chunk, T::in_pixel * T::xe,
                                      T::in_row * T::xe, lim)
                              .p);
        }
        if constexpr (P.out_chw) {
          s.single = s.single &&
                     box_piece(s.out_mode(), P.n_w == 1, cn, ty.out_size, tx.out_size, T::out_row,
                               T::out_plane) ==
                         box_command(cn, ty.out_size, tx.out_size, T::out_row, T::out_plane, lim).p;
        } else {
          const one_command out =
              box_command(ty.out_size, tx.out_size, cn * T::eb, T::out_pixel, T::out_row, lim);
          s.single =
              s.single && box_piece(s.out_mode(), P.tile_c >= L.out.c, ty.out_size, tx.out_size,
                                    cn * T::eb, T::out_pixel, T::out_row) == out.p;
        }
      }
    }
  }
  return s;
}

/// Whether the specialised loop runs layer `L` with plan `P`: every convolution, pool and add
/// (8- or 16-bit; on any DMA: a tile whose input or output takes more than one command
/// programs it through copy_box, as run_tiles does).
template <layer L, layer_plan P>
constexpr bool specialised() {
  if constexpr ((L.kind != op::conv && L.kind != op::depthwise && !channel_input(L)) || P.n_k > 1) {
    return false;
  } else {
    return P.n_h >= 1 && P.n_w >= 1 && P.n_c >= 1;
  }
}

/// Runs `tile` (a template lambda over the buffer parity returning whether tiles are left)
/// until it returns false: parities 0, 1, 0, ... when `Dual`, else parity 0 only.
template <bool Dual, class F>
[[gnu::always_inline]] inline void run_by_parity(F& tile) {
  if constexpr (Dual) {
    while (tile.template operator()<0>() && tile.template operator()<1>()) {
    }
  } else {
    while (tile.template operator()<0>()) {
    }
  }
}

/// The handle of one command in flight (or none).
template <hal::dma_engine E>
struct one_slot {
  typename E::handle h{};
  bool busy = false;
  [[gnu::always_inline]] void start(E& e, hal::dma_dir d, const dma_piece& p, void* l1, void* l2) {
    start_piece(e, d, p, l1, l2, h);
    busy = true;
  }
  [[gnu::always_inline]] void wait(E& e) {
    if (busy) e.wait(h);
    busy = false;
  }
};

/// Starts a tile's command of constant kind (1-D, 2-D or chosen at run time).
template <int Mode, hal::dma_engine E>
[[gnu::always_inline]] inline void start_one(E& e, one_slot<E>& s, hal::dma_dir d,
                                             const dma_piece& p, void* l1, void* l2) {
  if constexpr (Mode == 1) {
    e.copy_1d(d, l1, l2, p.bytes, s.h);
  } else if constexpr (Mode == 2) {
    e.copy_2d(d, l1, l2, p.bytes, p.line_bytes, p.l2_stride, s.h);
  } else {
    start_piece(e, d, p, l1, l2, s.h);
  }
  s.busy = true;
}

/// When conv_loop unrolls a layer that runs whole: every tile's geometry, commands, buffers and
/// kernel arguments are then constants, and what is left per tile is the commands, their waits
/// and the fork. It costs code (cost::loop_cost_unrolled: about 240 bytes per tile on
/// rv32imc), all of it fetched cold once per inference, against the rolled nest's code fetched
/// once per layer and its per-tile path fetched again after every kernel; so it is done where
/// that saves cycles under the cluster's code fetch (cost::unroll_saving) and the saving is a
/// visible share of the layer's time: at most `unroll_tiles_max` tiles, and a saving of more
/// than 1/`unroll_share` of the layer's cycles (the plan's l1_cycles).
inline constexpr int unroll_tiles_max = 24;
inline constexpr int unroll_share = 64;  // about 1.6%

/// Whether conv_loop unrolls layer `L` planned as `P` when it runs whole. A build may fix the
/// answer with CTILE_UNROLL (0: never; 1: whenever the layer has at most unroll_tiles_max
/// tiles), as bench/runtime does to measure the rolled and the unrolled nests apart.
template <layer L, layer_plan P>
constexpr bool unrolled() {
  const int tiles = P.n_c * P.n_h * P.n_w;
#if defined(CTILE_UNROLL)
  return CTILE_UNROLL != 0 && tiles <= unroll_tiles_max;
#else
  return tiles <= unroll_tiles_max &&
         unroll_share * cost::unroll_saving(cost::unroll_target, L.kind, tiles,
                                            cost::kernel_code_bytes, P.spatial()) >
             P.l1_cycles;
#endif
}

/// Whether `v` is the whole layer: every row and every output channel in one call, the
/// tensors from their first rows and the constant data of every channel (no L3 row band or
/// weight stripe). Every L2 offset is then a constant.
template <layer L>
[[gnu::always_inline]] inline bool whole(const l2_operands& v) {
  return v.c_begin == 0 && v.c_end == L.out.c && v.row_begin == 0 && v.row_end == L.out.h &&
         v.x_row0 == 0 && v.x2_row0 == 0 && v.y_row0 == 0 &&
         (!L.has_weights() || (v.w_c0 == 0 && v.w_n == L.out.c));
}

/// The loop nest itself. `XAlt`: the input buffers alternate tile by tile (two input buffers,
/// and for a standard or pointwise convolution more than one spatial tile per channel tile);
/// otherwise one input buffer serves every tile, reloaded when the tile changes (or, for a
/// standard or pointwise convolution with one spatial tile, loaded once). `Whole`: `v` is the
/// whole layer (see whole()), and the tiles are unrolled (see unrolled()).
template <layer L, layer_plan P, bool XAlt, bool Whole, class Env>
[[gnu::noinline]] void conv_loop(Env& env, const kernels::requant_plan& q, const l2_operands& v,
                                 std::uint8_t* l1) {
  using E = typename Env::dma_type;
  using T = tables<L, P>;
  using hal::dma_dir;
  constexpr command_shapes S = shapes_of<L, P>(E::limits);
  constexpr kernels::kernel_kind kk = kernels::kind_of(L);
  constexpr bool w_dual = P.l1.w[0] != P.l1.w[1];
  constexpr bool y_dual = P.l1.y[0] != P.l1.y[1];
  constexpr int wpc = weights_per_channel(L);
  [[maybe_unused]] constexpr kl_offsets klo = kl_layout(L, P.tile_c);
  constexpr int nx = P.n_w;
  // One row and one column tile in the plan: every call has one spatial tile, and each tile
  // differs from the one before in its channel tile only.
  constexpr bool channel_only = !P.spatial();
  constexpr bool dw = L.kind == op::depthwise;
  constexpr bool marshal = dw && !P.in_chw;  // an HWC depthwise input, marshalled to CHW
  constexpr bool pool = channel_input(L);    // or an add
  constexpr bool add = L.kind == op::add;
  constexpr bool per_c = dw || pool;  // the input depends on the channel tile
  constexpr int xe = T::xe, xe2 = T::xe2;
  static_assert(!P.in_chw || xe == 1, "A channel-major input is 8-bit.");
  E& dma = env.dma;

  const int ic0 = Whole ? 0 : v.c_begin / P.tile_c;
  const int ic1 = Whole ? P.n_c : tiles_of(v.c_end, P.tile_c);
  const int iy0 = Whole ? 0 : v.row_begin / P.tile_h;
  const int iy1 = Whole ? P.n_h : tiles_of(v.row_end, P.tile_h);
  const int total = (ic1 - ic0) * (iy1 - iy0) * nx;
  if (total <= 0) return;
  // Offsets of the layer's row 0 from the operands (which start at rows x_row0 / y_row0).
  const int x_bias = Whole ? 0 : -v.x_row0 * T::in_row;
  const int y_bias = Whole ? 0 : -v.y_row0 * T::out_row;
  [[maybe_unused]] const int x2_bias = Whole ? 0 : -v.x2_row0 * T::in_row;  // an add's 2nd input
  // The first channel and the count of the constant data at v.w.
  [[maybe_unused]] const int w_c0 = Whole ? 0 : v.w_c0;
  [[maybe_unused]] const int w_n = Whole ? L.out.c : v.w_n;
  // A tile's row and column geometry: a constant (one tile on the axis), arithmetic (the
  // table is a line), read from a copy on the stack (a short table, rolled loop) or from the
  // table (an unrolled nest, whose indices are constants, or a long table).
  // (Copied only when the loop reads each entry again and again: for as many channel tiles,
  // or columns / rows, as axis_reads_min.)
  constexpr bool rows_copied = !Whole && P.n_h > 1 && !T::row_line.ok && P.n_h <= axis_copy_max &&
                               P.n_c * nx >= axis_reads_min;
  constexpr bool cols_copied =
      !Whole && nx > 1 && !T::col_line.ok && nx <= axis_copy_max && P.n_c * P.n_h >= axis_reads_min;
  [[maybe_unused]] axis_entry rows_l1[rows_copied ? P.n_h : 1];
  [[maybe_unused]] axis_entry cols_l1[cols_copied ? nx : 1];
  [[maybe_unused]] const axis_entry* rows_at = T::rows.data();
  [[maybe_unused]] const axis_entry* cols_at = T::cols.data();
  if constexpr (rows_copied || cols_copied) {
    if constexpr (rows_copied) {
      for (int i = 0; i < P.n_h; ++i) rows_l1[i] = T::rows[static_cast<std::size_t>(i)];
      rows_at = rows_l1;
    }
    if constexpr (cols_copied) {
      for (int i = 0; i < nx; ++i) cols_l1[i] = T::cols[static_cast<std::size_t>(i)];
      cols_at = cols_l1;
    }
    // The copies are what the loop reads (not the constants they were made from).
    __asm__("" : "+r"(rows_at), "+r"(cols_at) : "m"(rows_l1), "m"(cols_l1));
  }
  const auto row_of = [&](int iy) CTILE_INLINE -> decltype(auto) {
    if constexpr (P.n_h == 1)
      return (T::rows[0]);
    else if constexpr (T::row_line.ok && !Whole)
      return on_line<T::row_line>(iy);
    else if constexpr (rows_copied)
      return (rows_at[iy]);
    else
      return (T::rows[static_cast<std::size_t>(iy)]);
  };
  const auto col_of = [&](int ix) CTILE_INLINE -> decltype(auto) {
    if constexpr (nx == 1)
      return (T::cols[0]);
    else if constexpr (T::col_line.ok && !Whole)
      return on_line<T::col_line>(ix);
    else if constexpr (cols_copied)
      return (cols_at[ix]);
    else
      return (T::cols[static_cast<std::size_t>(ix)]);
  };

  // Each tile's input and output as one command into a handle of its own; where some tile
  // takes more (a box of partial rows and channels, or beyond the DMA's limits), through
  // copy_box and a ring of handles, as run_tiles.
  using slot = std::conditional_t<S.single, one_slot<E>, dma_slot<E>>;
  slot xs[2], x2s[2], ys[2];
  // Starts the commands of a box of `rows` x `cols` pixels of `chunk` bytes, pixels `pixel` and
  // rows `row` bytes apart in L2 (`is_pixel`: chunk == pixel in every tile; `Mode`: the command
  // kind every tile's takes when each is one).
  const auto box = [&]<int Mode>(slot& s, dma_dir d, std::uint8_t* at_l1, const std::uint8_t* at_l2,
                                 bool is_pixel, int rows, int cols, int chunk, int pixel,
                                 int row) CTILE_INLINE {
    if constexpr (S.single) {
      start_one<Mode>(dma, s, d, box_piece(Mode, is_pixel, rows, cols, chunk, pixel, row), at_l1,
                      const_cast<std::uint8_t*>(at_l2));
    } else {
      (void)is_pixel;
      copy_box(dma, s, d, at_l1, at_l2, rows, cols, chunk, pixel, row);
    }
  };
  // Depthwise: the marshalling commands the cores program, one command in flight per core.
  // (Present only then: an unused array of slots is not always dropped.)
  [[maybe_unused]] std::conditional_t<marshal, chain_slot<E>[2][max_dma_cores], char> xc {};
  dma_slot<E, 4> ws[2];
  // A channel tile's weights and per-channel parameters as one 1-D command each, in handles
  // of their own, when every channel tile's fit one command (else through ws and copy_box).
  constexpr int cmd_max = static_cast<int>(E::limits.max_command_bytes < E::limits.length_field_max
                                               ? E::limits.max_command_bytes
                                               : E::limits.length_field_max);
  constexpr bool merged = tile_data_merged(L, P);  // weights and parameters one run of bytes
  constexpr int dpc = data_per_channel(L);
  constexpr bool w_direct =
      merged ? P.tile_c * dpc <= cmd_max : P.tile_c * wpc <= cmd_max && 4 * P.tile_c <= cmd_max;
  typename E::handle wh[2][4]{};
  int wb = 0;
  // A depthwise input tile's marshalling: its channels' box in L2 (HWC) to planes in L1 (CHW).
  const auto chw_of = [&](int iy, int ix, int ic, int b) CTILE_INLINE {
    const axis_entry& ty = row_of(iy);
    const axis_entry& tx = col_of(ix);
    const int c0 = ic * P.tile_c;
    const int cn = L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c;
    return make_chw_job<E>(l1 + pick(P.l1.x, b), v.x + (x_bias + ty.in_off + tx.in_off + c0) * xe,
                           cn, ty.in_size, tx.in_size, T::in_pixel * xe, T::in_row * xe, xe);
  };
  const auto load_x = [&](int iy, int ix, [[maybe_unused]] int ic, int b) CTILE_INLINE {
    if constexpr (marshal) {  // programmed by the cores, each its share of the channels
      const chw_job j = chw_of(iy, ix, ic, b);
      env.cluster.fork(env.cores(),
                       [&](int core) { program_chw_share(dma, env.cluster, xc[b], j, core); });
      return;
    }
    const axis_entry& ty = row_of(iy);
    const axis_entry& tx = col_of(ix);
    if constexpr (dw) {  // kept CHW in L2: the channel tile's planes, one command
      const int c0 = ic * P.tile_c;
      const int cn = L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c;
      box.template operator()<S.in_mode()>(
          xs[b], dma_dir::l2_to_l1, l1 + pick(P.l1.x, b),
          v.x + (x_bias + c0 * T::in_plane + ty.in_off + tx.in_off), P.n_w == 1, cn, ty.in_size,
          tx.in_size, T::in_row, T::in_plane);
    } else if constexpr (pool) {  // the channel tile's bytes of each pixel (of each input of an
                                  // add, each in its own element width)
      const int c0 = ic * P.tile_c;
      const int cn = L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c;
      const int chunk = P.n_c == 1 ? L.in.c : cn;
      box.template operator()<S.in_mode()>(xs[b], dma_dir::l2_to_l1, l1 + pick(P.l1.x, b),
                                           v.x + (x_bias + ty.in_off + tx.in_off + c0) * xe,
                                           P.tile_c >= L.in.c, ty.in_size, tx.in_size, chunk * xe,
                                           T::in_pixel * xe, T::in_row * xe);
      if constexpr (add)
        box.template operator()<S.in_mode()>(x2s[b], dma_dir::l2_to_l1, l1 + pick(P.l1.x2, b),
                                             v.x2 + (x2_bias + ty.in_off + tx.in_off + c0) * xe2,
                                             P.tile_c >= L.in.c, ty.in_size, tx.in_size,
                                             chunk * xe2, T::in_pixel * xe2, T::in_row * xe2);
    } else {
      box.template operator()<S.in_mode()>(xs[b], dma_dir::l2_to_l1, l1 + pick(P.l1.x, b),
                                           v.x + (x_bias + ty.in_off + tx.in_off) * xe, true,
                                           ty.in_size, tx.in_size, T::in_pixel * xe,
                                           T::in_pixel * xe, T::in_row * xe);
    }
  };
  // Across L3 weight stripes (one call may span them: spans_stripes), the walk through them.
  constexpr bool spans = spans_stripes(L, P);
  [[maybe_unused]] std::conditional_t<spans, channel_blocks, char> blocks{spans_init<spans>(v, L)};
  const auto load_w = [&](int ic, int b) CTILE_INLINE {
    const int c0 = ic * P.tile_c;
    const int cn = channels_of<L, P>(ic);
    channel_block blk{v.w, w_c0, w_n};
    if constexpr (spans) blk = blocks.at(c0);
    const channel_data d = channel_data_at(wpc, dpc, merged, blk.n, c0 - blk.c_first, cn);
    auto* src = const_cast<std::uint8_t*>(blk.w + d.weights);
    const auto u = [](int n) { return static_cast<std::uint32_t>(n); };
    if constexpr (merged) {
      if constexpr (w_direct)
        dma.copy_1d(dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, u(cn * dpc), wh[b][0]);
      else
        copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, 1, 1, cn * dpc, cn * dpc,
                 cn * dpc);
    } else if constexpr (w_direct) {
      dma.copy_1d(dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, u(cn * wpc), wh[b][0]);
      start_channel_params(dma, wh[b], l1 + pick(P.l1.kl, b), klo, L, blk.w, d, cn);
    } else {
      copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, 1, 1, cn * wpc, cn * wpc,
               cn * wpc);
      load_channel_params(dma, ws[b], l1 + pick(P.l1.kl, b), klo, L, blk.w, d, cn);
    }
  };

  // The kernel arguments every tile shares, set once; those of a channel tile, a row tile
  // and a tile when they change.
  args_room room;
  kernels::tile_args& a = fresh_args(room);
  a.kh = L.kernel.h, a.kw = L.kernel.w;
  a.dh = L.dilation.h, a.dw = L.dilation.w;
  a.sh = L.stride.h, a.sw = L.stride.w;
  set_fields(a.quant, q);
  if constexpr (add) {  // the only kernel that reads them
    set_fields(a.scale0, L.in_scale[0]);
    set_fields(a.scale1, L.in_scale[1]);
  }
  a.scratch = l1 + P.l1.scratch;
  a.cores = env.cores();
  set_fields(a.split, P.split);
  a.c_in = L.in.c;
  a.out_chw = P.out_chw;
  a.in_signed = L.in_range.is_signed();
  a.in2_signed = add && L.in2_range.is_signed();
  if constexpr (L.wide()) set_widths(a, L);  // the portable wide kernels
  const auto wait_x = [&](int b) CTILE_INLINE {
    if constexpr (marshal) {
      for (auto& s : xc[b]) s.wait(dma);
    } else {
      xs[b].wait(dma);
      if constexpr (add) x2s[b].wait(dma);
    }
  };
  const auto set_row = [&](int iy) CTILE_INLINE {
    const axis_entry& ty = row_of(iy);
    a.h_in = ty.in_size, a.h_out = ty.out_size;
    a.pad_t = ty.pad_lo, a.pad_b = ty.pad_hi;
  };
  const auto set_col = [&](int ix) CTILE_INLINE {
    const axis_entry& tx = col_of(ix);
    a.w_in = tx.in_size, a.w_out = tx.out_size;
    a.pad_l = tx.pad_lo, a.pad_r = tx.pad_hi;
  };
  int c_off = 0;    // bytes from a pixel's first output channel to the channel tile's
  int c_bytes = 0;  // output bytes per pixel of the channel tile
  // When every tile is a channel tile of its own (one row and one column tile) and the tiles
  // alternate their buffers (tile t has parity t % 2, from 0), channel tile t's weights are in
  // buffer t % 2 as well: a constant of each tile's code, its buffer addresses and handles
  // folded, instead of the variable wb.
  constexpr bool w_by_parity = L.has_weights() && w_dual && channel_only && (XAlt || y_dual);
  // Starts channel tile `ic`: its weights (prefetched, or loaded now) and the next one's, in
  // buffer WB (w_by_parity), else wb.
  const auto enter_channel_tile = [&]<int WB>(int ic, bool first) CTILE_INLINE {
    [[maybe_unused]] int b = WB;
    if constexpr (L.has_weights()) {
      if constexpr (WB >= 0) {
        if (first) load_w(ic, WB);  // (else prefetched by the previous channel tile)
      } else {
        if (first || !w_dual) {
          load_w(ic, wb);
        } else {
          wb = 1 - wb;
        }
        b = wb;
      }
      if constexpr (w_direct) {  // every one was started (just now, or prefetched)
        // (The layout named again: GCC takes the enclosing constant, read in a template
        // lambda, for an uninitialised object.)
        constexpr kl_offsets kl = kl_layout(L, P.tile_c);
        dma.wait(wh[b][0]);
        if (!merged && kl.bias >= 0) dma.wait(wh[b][1]);
        if (!merged && kl.kappa >= 0) dma.wait(wh[b][2]);
        if (!merged && kl.lambda >= 0) dma.wait(wh[b][3]);
      } else {
        ws[b].wait(dma);
      }
      if (w_dual && ic + 1 < ic1) load_w(ic + 1, 1 - b);
    }
    const int c0 = ic * P.tile_c;
    a.c_out = channels_of<L, P>(ic);
    if constexpr (L.has_weights()) point_weights<L, P>(a, l1, b, a.c_out);
    c_off = P.out_chw ? c0 * T::out_plane : c0 * T::eb;
    c_bytes = a.c_out * T::eb;
    if constexpr (per_c) a.c_in = a.c_out;
  };

  const auto body = [&](int core) { env.template run_kernel_as<variant_of(L, P)>(kk, a, core); };

  // Output buffers of `yg` channel tiles (a channel-major output with one spatial tile,
  // plan::choose_output_groups): each tile writes its planes at `y_at`, after the previous
  // one's; the buffer, from `y_from` on, leaves in one command once full (`y_at` reaches
  // `y_end`) or when the call ends, to `y_l2`, after the other buffer's command is done (one
  // command in flight: it started a group of kernels ago), and the other buffer is next.
  // Otherwise every tile sends its own output.
  constexpr int yg = P.y_group(T::eb);
  constexpr bool grouped = yg > 1;
  static_assert(!grouped || (channel_only && P.out_chw && T::eb == 1 && S.out_mode() != 2),
                "Output groups are for channel-major outputs with one spatial tile.");
  [[maybe_unused]] constexpr int y_tile = P.tile_c * T::out_plane;
  [[maybe_unused]] std::uint8_t* y_from = l1 + P.l1.y[0];
  [[maybe_unused]] std::uint8_t* y_at = y_from;
  [[maybe_unused]] std::uint8_t* y_end = y_from + yg * y_tile;
  [[maybe_unused]] std::uint8_t* y_l2 = v.y + (y_bias + ic0 * y_tile);
  [[maybe_unused]] slot& ysg = ys[0];
  // Sends the buffer's `n` bytes: a full group's, or at the end of the call what is left.
  const auto send_group = [&](std::uint32_t n) CTILE_INLINE {
    ysg.wait(dma);
    if constexpr (S.single)
      start_one<1>(dma, ysg, dma_dir::l1_to_l2, dma_piece{0, 0, n, 0, 0}, y_from, y_l2);
    else
      copy_box(dma, ysg, dma_dir::l1_to_l2, y_from, y_l2, 1, 1, static_cast<int>(n),
               static_cast<int>(n), static_cast<int>(n));
    y_l2 += n;
    if constexpr (y_dual)
      y_from = y_from == l1 + P.l1.y[0] ? l1 + P.l1.y[1] : l1 + P.l1.y[0];
    else
      ysg.wait(dma);  // one buffer: the next group writes where this one is read
    y_at = y_from;
    y_end = y_from + yg * y_tile;
  };

  int ic = ic0, iy = iy0, ix = 0;
  const bool one_spatial = channel_only || (iy1 - iy0) * nx == 1;
  if (XAlt || (!per_c && one_spatial)) load_x(iy, ix, ic, 0);  // else each tile loads its own
  enter_channel_tile.template operator()<w_by_parity ? 0 : -1>(ic, true);
  set_row(iy);
  set_col(ix);
  int left = total;
  // One tile with buffer parity B (the input's when XAlt, the output's when y_dual).
  const auto tile = [&]<int B>() CTILE_INLINE {
    constexpr int xb = XAlt ? B : 0;
    constexpr int yb = y_dual ? B : 0;
    // The next tile in loop order (columns fastest, then rows; then the next channel tile,
    // whose input is the same rows again).
    int nix = ix + 1, niy = iy;
    if constexpr (channel_only)
      nix = 0;
    else if (nix == nx)
      nix = 0, niy = niy + 1 == iy1 ? iy0 : niy + 1;
    // A depthwise input is marshalled by the cores themselves as the kernel's fork starts,
    // each its share of the channels: the commands cost the cluster 1/cores of their
    // programming time.
    chw_job next_job;
    const chw_job* next = nullptr;
    if constexpr (XAlt) {
      wait_x(xb);
      if (left > 1) {
        if constexpr (marshal) {
          next_job = chw_of(niy, nix, nix == 0 && niy == iy0 ? ic + 1 : ic, 1 - xb);
          next = &next_job;
        } else {
          load_x(niy, nix, nix == 0 && niy == iy0 ? ic + 1 : ic, 1 - xb);
        }
      }
    } else {
      // The previous tile's kernel is done with the buffer.
      if (per_c || !one_spatial) load_x(iy, ix, ic, 0);
      wait_x(0);
    }
    // The output buffer is free once its previous transfer is done.
    if constexpr (grouped) {
      a.out = y_at;
      y_at += y_tile;
    } else {
      ys[yb].wait(dma);
      a.out = l1 + P.l1.y[yb];
    }
    a.in = l1 + P.l1.x[xb];
    if constexpr (add) a.in2 = l1 + P.l1.x2[xb];
    env.check_tile(kk, a, P.scratch_bytes);
    {
      [[maybe_unused]] auto reading = env.reading(a.in, a.h_in * a.w_in * a.c_in * xe);
      [[maybe_unused]] auto reading2 = env.reading(a.in2, add ? a.h_in * a.w_in * a.c_in * xe2 : 0);
      [[maybe_unused]] auto writing = env.writing(a.out, a.h_out * a.w_out * a.c_out * T::eb);
      if constexpr (marshal) {
        auto& next_slots = xc[1 - xb];
        env.cluster.fork(a.cores, [&](int core) {
          if (next != nullptr) program_chw_share(dma, env.cluster, next_slots, *next, core);
          env.template run_kernel_as<variant_of(L, P)>(kk, a, core);
        });
      } else {
        env.cluster.fork(a.cores, body);
      }
    }
    const axis_entry& ty = row_of(iy);
    const axis_entry& tx = col_of(ix);
    if constexpr (grouped) {
      // (A full group leaves as the loop steps past it; the call's last, after the loop.)
    } else if constexpr (P.out_chw)
      box.template operator()<S.out_mode()>(ys[yb], dma_dir::l1_to_l2, l1 + P.l1.y[yb],
                                            v.y + (y_bias + ty.out_off + tx.out_off + c_off),
                                            P.n_w == 1, a.c_out, ty.out_size, tx.out_size,
                                            T::out_row, T::out_plane);
    else
      box.template operator()<S.out_mode()>(
          ys[yb], dma_dir::l1_to_l2, l1 + P.l1.y[yb],
          v.y + (y_bias + ty.out_off + tx.out_off + c_off), P.tile_c >= L.out.c, ty.out_size,
          tx.out_size, P.n_c == 1 ? L.out.c * T::eb : c_bytes, T::out_pixel, T::out_row);
    if (--left == 0) return false;
    if constexpr (grouped)
      if (y_at == y_end) [[unlikely]]
        send_group(yg * y_tile);
    // Step to the next tile.
    if constexpr (nx > 1 && !fixed_args(T::col_line)) set_col(nix);
    if (nix == 0) {
      if constexpr (P.n_h > 1 && !fixed_args(T::row_line))
        if (niy != iy) set_row(niy);
      if (channel_only || niy == iy0)
        enter_channel_tile.template operator()<w_by_parity ? 1 - B : -1>(++ic, false);
    }
    ix = nix, iy = niy;
    return true;
  };
  if constexpr (Whole) {
    // Tile t, of parity t % 2 when the buffers alternate; the last one returns false.
    const auto nth = [&]<int T>() CTILE_INLINE {
      constexpr int parity = XAlt || y_dual ? T % 2 : 0;
      return tile.template operator()<parity>();
    };
    const auto all = [&]<int... T>(std::integer_sequence<int, T...>) CTILE_INLINE {
      (void)(nth.template operator()<T>() && ...);
    };
    all(std::make_integer_sequence<int, P.n_c * P.n_h * P.n_w>{});
  } else {
    run_by_parity<XAlt || y_dual>(tile);
  }
  if constexpr (grouped) {
    // The call's last group, full or not; its last channel tile may be short (the layer's
    // last), which the buffer's place took as a whole one.
    const int c_end = ic1 * P.tile_c < L.out.c ? ic1 * P.tile_c : L.out.c;
    send_group(static_cast<std::uint32_t>(v.y + (y_bias + c_end * T::out_plane) - y_l2));
  }
  ys[0].wait(dma);
  ys[1].wait(dma);
}

}  // namespace conv_detail

namespace linear_detail {

/// Largest bytes of one command under `lim`.
constexpr std::uint32_t command_max(const hal::dma_limits& lim) {
  return lim.max_command_bytes < lim.length_field_max ? lim.max_command_bytes
                                                      : lim.length_field_max;
}

/// Which transfers of linear layer `L` planned as `P` are one command in every tile under
/// `lim`: the input (whole or by slices, 1-D: `x`), the weights (`cn` rows of `kn` bytes, K
/// bytes apart: 2-D unless whole rows or one row) with the per-channel parameters or as a merged
/// run of bytes (`w`), and the outputs (1-D, a group of channel tiles or the whole output: `y`).
/// `valid`: the plan's tiles are those of the layer.
struct linear_commands {
  bool valid = false, x = false, w = false, y = false;
};
template <layer L, layer_plan P>
constexpr linear_commands commands_of(const hal::dma_limits& lim) {
  linear_commands r;
  const auto K = static_cast<std::uint32_t>(L.in.elements());
  const auto xe = static_cast<std::uint32_t>(L.input_bytes_per_element());
  const int nk = P.n_k > 1 ? P.n_k : 1;
  const auto tk = static_cast<std::uint32_t>(nk > 1 ? P.tile_k : static_cast<int>(K));
  if (P.n_c < 1 || tk == 0 || K < static_cast<std::uint32_t>(nk - 1) * tk) return r;
  const auto last_k = K - static_cast<std::uint32_t>(nk - 1) * tk;
  const auto tc = static_cast<std::uint32_t>(P.tile_c);
  const int lc = L.out.c - (P.n_c - 1) * P.tile_c;
  if (last_k == 0 || lc <= 0) return r;
  r.valid = true;
  const auto last_c = static_cast<std::uint32_t>(lc);
  const auto eb = static_cast<std::uint32_t>(L.output_bytes_per_element());
  const std::uint32_t m = command_max(lim);
  r.x = (P.x_copies == 1 ? K : tk) * xe <= m;
  r.y = tc * eb <= m && (P.y_copies == 1 ? static_cast<std::uint32_t>(L.out.c) * eb
                                         : static_cast<std::uint32_t>(P.y_bytes)) <= m;
  r.w = 4 * tc <= m;
  // A merged tile's weights and parameters: one command (with K tiles, the last one's).
  const auto ppc = static_cast<std::uint32_t>(kl_layout(L, 1).bytes);
  if (tile_data_merged(L, P) &&
      tc * (nk > 1 ? last_k + ppc : static_cast<std::uint32_t>(data_per_channel(L))) > m)
    r.w = false;
  for (const std::uint32_t kn : {tk, last_k}) {
    for (const std::uint32_t cn : {tc, last_c}) {
      if (cn * kn > m) r.w = false;
      const bool contiguous = cn == 1 || kn == K;
      if (!contiguous && !(lim.has_2d && kn <= lim.max_line_bytes && K <= lim.max_stride))
        r.w = false;
    }
  }
  return r;
}

/// Whether the specialised linear loop runs linear layer `L` planned as `P`: every such layer
/// and plan whose tiles are the layer's (8- or 16-bit input; on any DMA: a transfer beyond one
/// command goes through copy_box, see linear_loop).
template <layer L, layer_plan P>
constexpr bool specialised() {
  if constexpr (L.kind != op::linear) {
    return false;
  } else {
    return commands_of<L, P>(hal::dma_limits{}).valid;  // valid whatever the limits
  }
}

/// The loop nest of a linear layer known at compile time: the same transfers as
/// run_linear_tiles, with the input and weight buffers chosen by the tile's parity and each
/// transfer that is one command in every tile (commands_of) programmed inline into a handle of
/// its own; one that may take more goes through copy_box into a ring of handles, as in
/// run_linear_tiles.
///
/// When the weights are double-buffered and the input is whole in L1 or its K slices
/// alternate between two buffers, the loop is steady: a tile's parity decides its weight and
/// input buffers, hence all its kernel arguments but its K tile's (where a channel tile has
/// more than two K tiles, so that the K tile is not the parity), its output and the short
/// last channel tile's channel count. Each parity then has its own arguments, set before the
/// loop, and a tile sets only what is its own. When the tiles' data is merged too, it is one
/// stream in L2, each command starting where the previous ended. The MobileNet-v1 classifier
/// runs such a loop: in DORY's L1 budget two K tiles of the whole input (1 MB of weights in
/// 64 tiles, per tile one command, one wait and the fork, the outputs by buffers of nine
/// channel tiles); in GAP-8's, three K tiles of 64 channels, each with its input slice.
template <layer L, layer_plan P, class Env>
[[gnu::noinline]] void linear_loop(Env& env, const kernels::requant_plan& q, const l2_operands& v,
                                   std::uint8_t* l1) {
  using E = typename Env::dma_type;
  using conv_detail::one_slot;
  using hal::dma_dir;
  E& dma = env.dma;
  constexpr int K = static_cast<int>(L.in.elements());
  constexpr int nk = P.n_k > 1 ? P.n_k : 1;
  constexpr int tk = nk > 1 ? P.tile_k : K;
  constexpr int eb = L.output_bytes_per_element();
  constexpr int xe = L.input_bytes_per_element();  // 2: a 16-bit input (K, tk count elements)
  constexpr kl_offsets klo = kl_layout(L, P.tile_c);
  constexpr bool x_dual = P.l1.x[0] != P.l1.x[1];
  constexpr bool w_dual = P.l1.w[0] != P.l1.w[1];
  constexpr bool y_dual = P.l1.y[0] != P.l1.y[1];
  // The whole input in one buffer, loaded once; the whole output in one (else two buffers of
  // a group of channel tiles, the plan's y_bytes).
  constexpr bool x_whole = P.x_copies == 1, y_whole = P.y_copies == 1;
  // The input slice changes every tile when the reduction is cut (else one slice serves all).
  constexpr bool x_alt = x_dual && nk > 1 && !x_whole;
  constexpr bool steady = w_dual && (x_whole || x_alt);
  // In a steady loop of more than two K tiles a tile's K tile is not its parity: the tile
  // sets its K tile's fields itself (parity_args the rest).
  constexpr bool k_per_tile = steady && nk > 2;
  constexpr linear_commands one = commands_of<L, P>(E::limits);
  constexpr bool spans = spans_stripes(L, P);  // the call may span L3 weight stripes
  [[maybe_unused]] std::conditional_t<spans, channel_blocks, char> blocks{
      conv_detail::spans_init<spans>(v, L)};
  const int ic0 = v.c_begin / P.tile_c, ic1 = tiles_of(v.c_end, P.tile_c);
  const int total = (ic1 - ic0) * nk;
  if (total <= 0) return;
  const auto u = [](int n) { return static_cast<std::uint32_t>(n); };
  const auto k_bytes = [](int ik) CTILE_INLINE { return ik == nk - 1 ? K - ik * tk : tk; };

  std::conditional_t<one.x, one_slot<E>, dma_slot<E>> xs[2];
  std::conditional_t<one.y, one_slot<E>, dma_slot<E>> ys[2];
  typename E::handle wh[2][4]{};  // weights, bias, kappa, lambda (one command each)
  [[maybe_unused]] std::conditional_t<one.w, char, dma_slot<E, 4>[2]> ws {};  // else these
  constexpr bool merged = tile_data_merged(L, P);  // weights and parameters one run of bytes
  constexpr int ppc = kl_layout(L, 1).bytes;
  constexpr int dpc = data_per_channel(L);
  // Bytes of a merged tile's data: K tile `k` of `c` channels, with the parameters after the
  // last K tile's weights.
  const auto tile_bytes = [&](int k, int c) CTILE_INLINE {
    return nk > 1 ? c * (k_bytes(k) + (k == nk - 1 ? ppc : 0)) : c * dpc;
  };
  const auto load_x = [&](int ik, int b) CTILE_INLINE {
    const int n = (x_whole ? K : k_bytes(ik)) * xe;
    const std::uint8_t* src = v.x + static_cast<std::ptrdiff_t>(ik) * tk * xe;
    if constexpr (one.x)
      xs[b].start(dma, dma_dir::l2_to_l1, dma_piece{0, 0, u(n), 0, 0}, l1 + pick(P.l1.x, b),
                  const_cast<std::uint8_t*>(src));
    else
      copy_box(dma, xs[b], dma_dir::l2_to_l1, l1 + pick(P.l1.x, b), src, 1, 1, n, n, n);
  };
  const auto load_w = [&](int ic, int ik, int b) CTILE_INLINE {
    const int cn = channels_of<L, P>(ic), kn = k_bytes(ik);
    channel_block blk{v.w, v.w_c0, v.w_n};
    if constexpr (spans) blk = blocks.at(ic * P.tile_c);
    const channel_data d = channel_data_at(K, dpc, merged, blk.n, ic * P.tile_c - blk.c_first, cn);
    if constexpr (!one.w) {  // as run_linear_tiles
      if constexpr (merged) {
        const int n = tile_bytes(ik, cn);
        copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + pick(P.l1.w, b),
                 blk.w + d.weights + static_cast<std::ptrdiff_t>(ik) * tk * cn, 1, 1, n, n, n);
      } else {
        copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + pick(P.l1.w, b),
                 blk.w + d.weights + static_cast<std::ptrdiff_t>(ik) * tk, 1, cn, kn, K, cn * K);
        if (ik == nk - 1)
          load_channel_params(dma, ws[b], l1 + pick(P.l1.kl, b), klo, L, blk.w, d, cn);
      }
      return;
    }
    if constexpr (merged) {  // by K tile in the block; the last one with the parameters
      auto* src =
          const_cast<std::uint8_t*>(blk.w + d.weights + static_cast<std::ptrdiff_t>(ik) * tk * cn);
      dma.copy_1d(dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, u(tile_bytes(ik, cn)), wh[b][0]);
      return;
    }
    auto* src = const_cast<std::uint8_t*>(blk.w + d.weights + static_cast<std::ptrdiff_t>(ik) * tk);
    if (cn == 1 || kn == K)
      dma.copy_1d(dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, u(cn * kn), wh[b][0]);
    else
      dma.copy_2d(dma_dir::l2_to_l1, l1 + pick(P.l1.w, b), src, u(cn * kn), u(kn), u(K), wh[b][0]);
    // The per-channel parameters serve the last K tile only.
    if (ik == nk - 1) start_channel_params(dma, wh[b], l1 + pick(P.l1.kl, b), klo, L, blk.w, d, cn);
  };
  const auto wait_w = [&](int ik, int b) CTILE_INLINE {
    if constexpr (!one.w) {
      ws[b].wait(dma);
      return;
    }
    dma.wait(wh[b][0]);
    if (merged || ik != nk - 1) return;
    if (klo.bias >= 0) dma.wait(wh[b][1]);
    if (klo.kappa >= 0) dma.wait(wh[b][2]);
    if (klo.lambda >= 0) dma.wait(wh[b][3]);
  };

  // The kernel arguments every tile shares, set once; the loop sets the tile's own. A steady
  // loop has a set per parity (below), else the second set is unused.
  args_room room[2];
  kernels::tile_args& a0 = fresh_args(room[0]);
  kernels::tile_args& a1 = steady ? fresh_args(room[1]) : a0;
  const auto shared = [&](kernels::tile_args& a) CTILE_INLINE {
    a.h_in = 1, a.w_in = 1;
    a.h_out = 1, a.w_out = 1;
    set_fields(a.quant, q);
    a.scratch = l1 + P.l1.scratch;
    a.cores = env.cores();
    set_fields(a.split, P.split);
    a.in_signed = L.in_range.is_signed();
    if constexpr (L.wide()) set_widths(a, L);  // the portable wide kernels
    if constexpr (nk > 1) a.partial = reinterpret_cast<std::int32_t*>(l1 + P.l1.scratch);
  };
  // What a parity fixes in a steady loop: its K tile's input slice, size and place in the
  // reduction, and its weight buffer, laid out for `cn` channels.
  const auto k_args = [&](kernels::tile_args& a, int ik) CTILE_INLINE {
    if constexpr (!x_alt) a.in = l1 + P.l1.x[0] + ik * tk * xe;
    a.c_in = k_bytes(ik);
    if constexpr (nk > 1) {
      a.k_first = ik == 0;
      a.k_last = ik == nk - 1;
    }
  };
  const auto parity_args = [&](kernels::tile_args& a, int b, int cn) CTILE_INLINE {
    if constexpr (!k_per_tile) k_args(a, nk == 2 ? b : 0);
    if constexpr (x_alt)
      a.in = l1 + pick(P.l1.x, b);  // the input slice's buffer is the parity's too
    a.c_out = cn;
    point_weights<L, P>(a, l1, b, cn);
  };
  shared(a0);
  if constexpr (steady) shared(a1);
  const auto body0 = [&](int core) { env.run_kernel(kernels::kernel_kind::linear, a0, core); };
  const auto body1 = [&](int core) { env.run_kernel(kernels::kernel_kind::linear, a1, core); };

  int ic = ic0, ik = 0, yb = 0, left = total;
  load_x(0, 0);
  load_w(ic, 0, 0);
  // A whole input is waited for once: every tile reads it.
  if constexpr (x_whole) xs[0].wait(dma);
  int cn = channels_of<L, P>(ic);
  if constexpr (steady) {
    parity_args(a0, 0, cn);
    parity_args(a1, 1, cn);
  } else {
    a0.c_out = cn;
  }
  // The output buffer being filled (the whole output's holds the layer's every channel), the
  // next channel tile's place in it, its first channel and the channel tiles it has room for.
  constexpr int g = P.y_group(eb);
  std::uint8_t* y_buf = l1 + P.l1.y[0] + (y_whole ? ic0 * P.tile_c * eb : 0);
  std::uint8_t* y_next = y_buf;
  int y_c0 = ic0 * P.tile_c, y_room = g;
  a0.out = a1.out = y_next;  // a first K tile writes none, but the kernel checks the pointer
  // Sends the buffer, full or at the end of the run, up to channel `c_end`; the other buffer
  // is next, free once its own transfer is done.
  const auto send_y = [&](int c_end) {
    const int n = (c_end - y_c0) * eb;
    if constexpr (one.y)
      ys[yb].start(dma, dma_dir::l1_to_l2, dma_piece{0, 0, u(n), 0, 0}, y_buf,
                   v.y + static_cast<std::ptrdiff_t>(y_c0) * eb);
    else
      copy_box(dma, ys[yb], dma_dir::l1_to_l2, y_buf, v.y + static_cast<std::ptrdiff_t>(y_c0) * eb,
               1, 1, n, n, n);
    if constexpr (y_dual) yb = 1 - yb;
    ys[yb].wait(dma);
    y_buf = y_next = l1 + P.l1.y[yb];
    y_c0 = c_end;
    y_room = g;
  };
  // A steady loop over merged data streams it: its tiles' data follow one another in L2
  // (blocks of channel tiles, each by K tile), so each command starts where the last ended,
  // and the sizes are constants but for the short last channel tile. A prefetch is of that
  // tile once `left` is down to `short_from`; the tile is next once `left` falls to
  // `short_at`.
  constexpr bool stream = steady && merged && one.w;
  const bool short_run = P.last_c != P.tile_c && ic1 == P.n_c;
  const int short_at = short_run && total > nk ? nk : -1;
  const int short_from = short_run ? nk + 1 : 0;  // a prefetch from there is of the short tile
  // (Across L3 weight stripes the stream goes on from each next stripe's buffer.)
  const std::uint8_t* w_src =
      stream ? v.w + channel_data_at(K, dpc, true, v.w_n, ic * P.tile_c - v.w_c0, cn).weights +
                   tile_bytes(0, cn)
             : nullptr;
  // One tile with parity B (the input buffer's when x_alt, the weight buffer's when w_dual).
  const auto tile = [&]<int B>() CTILE_INLINE {
    constexpr int xb = x_alt ? B : 0;
    constexpr int wb = w_dual ? B : 0;
    kernels::tile_args& a = steady && B == 1 ? a1 : a0;
    // In a steady loop of two K tiles the parity is the K tile.
    if constexpr (steady && nk == 2) ik = B;
    const bool last = ik == nk - 1;
    const int n_ik = last ? 0 : ik + 1, n_ic = last ? ic + 1 : ic;
    if constexpr (stream) {
      if constexpr (x_alt) xs[xb].wait(dma);
      dma.wait(wh[wb][0]);
      if constexpr (x_alt) {
        if (left > 1) load_x(n_ik, 1 - xb);
      }
      if (left > 1) {  // prefetch the next tile's data, which follows this one's
        const int next = nk == 2 ? 1 - B : nk > 2 ? n_ik : 0;
        if constexpr (spans) {
          if (n_ik == 0 && n_ic * P.tile_c >= blocks.end()) w_src = blocks.at(n_ic * P.tile_c).w;
        }
        const int n = left <= short_from ? tile_bytes(next, P.last_c) : tile_bytes(next, P.tile_c);
        dma.copy_1d(dma_dir::l2_to_l1, l1 + pick(P.l1.w, 1 - wb), const_cast<std::uint8_t*>(w_src),
                    u(n), wh[1 - wb][0]);
        w_src += n;
      }
    } else {
      // One buffer for what changes: loaded now that the previous kernel is done with it.
      if constexpr (!x_dual && !x_whole && nk > 1) {
        if (left != total) load_x(ik, 0);
      }
      if constexpr (!w_dual) {
        if (left != total) load_w(ic, ik, 0);
      }
      if constexpr (!x_whole) xs[xb].wait(dma);
      wait_w(ik, wb);
      if (left > 1) {  // prefetch the next tile's input slice and weights
        if constexpr (x_alt) load_x(n_ik, 1 - xb);
        if constexpr (w_dual) load_w(n_ic, n_ik, 1 - wb);
      }
    }
    const int kn = k_bytes(ik);
    if constexpr (k_per_tile) k_args(a, ik);
    if constexpr (!steady) {
      a.in = l1 + P.l1.x[xb] + (x_whole ? ik * tk * xe : 0);
      a.c_in = kn;
      point_weights<L, P>(a, l1, wb, cn);
      if constexpr (nk > 1) {
        a.k_first = ik == 0;
        a.k_last = last;
      }
    }
    if (last) a.out = y_next;
    env.check_tile(kernels::kernel_kind::linear, a, P.scratch_bytes);
    {
      [[maybe_unused]] auto reading = env.reading(a.in, kn * xe);
      [[maybe_unused]] auto writing = env.writing(a.out, last ? cn * eb : 0);
      if (steady && B == 1)
        env.cluster.fork(a.cores, body1);
      else
        env.cluster.fork(a.cores, body0);
    }
    if (last) {
      y_next += P.tile_c * eb;
      if (--y_room == 0 || left == 1) send_y(ic * P.tile_c + cn);
    }
    if (--left == 0) return false;
    ic = n_ic, ik = n_ik;
    if (left == short_at) {  // the short last channel tile is next
      cn = P.last_c;
      if constexpr (steady) {
        parity_args(a0, 0, cn);
        parity_args(a1, 1, cn);
      } else {
        a0.c_out = cn;
      }
    }
    return true;
  };
  conv_detail::run_by_parity<x_alt || w_dual>(tile);
  ys[0].wait(dma);
  ys[1].wait(dma);
}

}  // namespace linear_detail

/// The loop nest of a standard, pointwise or depthwise convolution, a pool or an add known at
/// compile time, specialised (see above); `L` and `P` must satisfy conv_detail::specialised.
/// `Unroll` false keeps the loop rolled even where conv_detail::unrolled would unroll it.
template <layer L, layer_plan P, bool Unroll = true, class Env>
void run_conv_tiles(Env& env, const kernels::requant_plan& q, const l2_operands& v,
                    std::uint8_t* l1) {
  constexpr bool x_dual = P.l1.x[0] != P.l1.x[1];
  if constexpr (Unroll && conv_detail::unrolled<L, P>()) {
    if (conv_detail::whole<L>(v)) {
      constexpr bool per_tile_input =
          L.kind == op::depthwise || conv_detail::channel_input(L) || P.spatial();
      conv_detail::conv_loop<L, P, x_dual && per_tile_input, true>(env, q, v, l1);
      return;
    }
  }
  if constexpr (L.kind == op::depthwise || conv_detail::channel_input(L)) {
    // Every tile reads other channels or pixels: two input buffers alternate.
    conv_detail::conv_loop<L, P, x_dual, false>(env, q, v, l1);
  } else if constexpr (x_dual && P.spatial()) {
    // A stripe of one row tile (and one column tile) has one input for all its tiles.
    if (P.n_w == 1 && tiles_of(v.row_end, P.tile_h) - v.row_begin / P.tile_h == 1) {
      conv_detail::conv_loop<L, P, false, false>(env, q, v, l1);
      return;
    }
    conv_detail::conv_loop<L, P, true, false>(env, q, v, l1);
  } else {
    conv_detail::conv_loop<L, P, false, false>(env, q, v, l1);
  }
}

/// What a layer's loop nest depends on: the layer without its name, its connectivity and its
/// requantization constants (the loop takes the requantization plan at run time), so that
/// layers of the same shape (MobileNet's five middle blocks) share one loop nest when their
/// plans' tilings are the same too.
constexpr layer loop_key(layer l) {
  l.name = {};
  l.sources[0] = l.sources[1] = source{};
  l.src[0] = l.src[1] = -1;
  l.quant = requant{};
  return l;
}
/// The same for layer `l`'s plan: without its L3 decisions (the executor carries them out
/// around the loop nest) but whether one call of the nest spans weight stripes (spans_stripes;
/// their width comes with the call), its total cycles and score, and how it was searched.
constexpr layer_plan loop_key(const layer& l, layer_plan p) {
  const bool spans = spans_stripes(l, p);
  p.l3 = l3_decision{};
  if (spans) p.l3.w = true, p.l3.w_stripe_c = 1;
  p.cycles = 0;
  p.score = 0;
  p.goal = objective::model;
  p.max_tile_h = 0;
  p.l1_needed = 0;
  return p;
}

/// The loop nest of a layer and plan known at compile time: the specialised convolution loop
/// (every convolution, pool and add) or linear loop (every linear layer), instantiated with the
/// layer's shape and plan as constants. (run_tiles, the same transfers over a layer and plan
/// known at run time, serves plans made at run time.)
template <layer L, layer_plan P, class Env>
void run_tiles_static(Env& env, const kernels::requant_plan& q, const l2_operands& v,
                      std::uint8_t* l1) {
  if constexpr (conv_detail::specialised<L, P>()) {
    run_conv_tiles<L, P>(env, q, v, l1);
  } else {
    static_assert(linear_detail::specialised<L, P>(),
                  "This plan's tiles are not its layer's (a tile count of 0, or K tiles that do "
                  "not cover the reduction): no loop nest runs it.");
    linear_detail::linear_loop<L, P>(env, q, v, l1);
  }
}

}  // namespace ctile::schedule
