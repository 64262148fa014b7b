// The L2 <-> L1 loop nest of one layer: output-channel tiles, then rows, then columns. While
// the kernel computes tile i, the DMA brings tile i+1's input (and weights only when the
// output-channel tile changes); the output of tile i leaves asynchronously. Every bound, border
// size and offset comes from the layer and its plan, given at run time: this loop runs the
// plans made at run time (the host tools, the ONNX engine). A layer and plan known at compile
// time runs the specialised loops of conv_tiles.hpp (run_tiles_static), which make the same
// transfers (the tests compare their values and command counts).
#pragma once

#include <cstdint>
#include <new>

#include "ctile/hal/dma_engine.hpp"
#include "ctile/kernels/kernels.hpp"
#include "ctile/kernels/layer_args.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/schedule/dma_split.hpp"
#include "ctile/schedule/env.hpp"
#include "ctile/schedule/tile_geometry.hpp"
#include "ctile/schedule/weight_layout.hpp"

/// Forces inlining of the loop nest's helpers, so that a layer's constant shape and plan reach
/// every computation in them.
#define CTILE_INLINE __attribute__((always_inline))

namespace ctile::schedule {

/// What a loop nest of layer `l` planned as `p` knows of its kernel calls at compile time when
/// both are constants (kernels::kernel_variant): the kernel kind, the layer's bias and
/// batch-norm arrays, the output layout, the inputs' signedness and whether an operand is a
/// 16-bit tensor, as the loops set them in the kernel arguments (set_widths).
constexpr kernels::kernel_variant variant_of(const layer& l, const layer_plan& p) {
  return {static_cast<int>(kernels::kind_of(l)),
          l.bias ? 1 : 0,
          l.batchnorm ? 1 : 0,
          p.out_chw ? 1 : 0,
          l.in_range.is_signed() ? 1 : 0,
          l.wide() ? 1 : 0};
}

/// Uninitialised room for one tile's kernel arguments, to be filled by fresh_args: a
/// default-constructed tile_args is a copy of its whole constant image (on rv32imc, a 48-word
/// copy loop), where field-by-field stores cost about a third of that, and the stores the loop
/// then overwrites are dropped.
struct args_room {
  alignas(kernels::tile_args) unsigned char bytes[sizeof(kernels::tile_args)];
};

/// Sets the element widths of a tile's operands from the layer (tile_args::in_bytes, ...): a
/// layer that reads or writes a 16-bit tensor gets the portable wide kernels.
[[gnu::always_inline]] inline void set_widths(kernels::tile_args& a, const layer& l) {
  a.in_bytes = static_cast<std::uint8_t>(l.input_bytes_per_element(0));
  a.in2_bytes = static_cast<std::uint8_t>(l.kind == op::add ? l.input_bytes_per_element(1) : 1);
  a.out_bytes =
      static_cast<std::uint8_t>(l.output() == output_kind::u8 ? l.output_bytes_per_element() : 1);
}

/// Sets every field of `d` to the same field of `s`, scalar by scalar (a struct copy of even
/// a constant can be a memcpy call). The structured bindings name every field: one more does
/// not compile until it is added here.
[[gnu::always_inline]] inline void set_fields(kernels::requant_plan& d,
                                              const kernels::requant_plan& s) {
  auto& [mode, t64, mul, shift, t_hi, lo, hi, m, dv, t_lo, off, y_off] = d;
  mode = s.mode, t64 = s.t64, mul = s.mul, shift = s.shift, t_hi = s.t_hi;
  lo = s.lo, hi = s.hi, m = s.m, dv = s.d;
  t_lo = s.t_lo, off = s.off, y_off = s.y_off;
}
[[gnu::always_inline]] inline void set_fields(rescale& d, const rescale& s) {
  auto& [mul, add, shift, clip] = d;
  mul = s.mul, add = s.add, shift = s.shift, clip = s.clip;
}
[[gnu::always_inline]] inline void set_fields(core_split& d, const core_split& s) {
  auto& [kind, v, k] = d;
  kind = s.kind, v = s.v, k = s.k;
}

/// The kernel arguments in `r`, every field set to its default by a store of its own.
[[gnu::always_inline]] inline kernels::tile_args& fresh_args(args_room& r) {
  // An aggregate is an implicit-lifetime type: the array's storage holds one already.
  auto& a = *std::launder(reinterpret_cast<kernels::tile_args*>(r.bytes));
  constexpr kernels::tile_args d{};
  auto& [in, h_in, w_in, c_in, in2, out, h_out, w_out, c_out, kh, kw, sh, sw, dh, dw, pad_t, pad_b,
         pad_l, pad_r, weights, bias, kappa, lambda, quant, scale0, scale1, scratch, core, cores,
         split, partial, k_first, k_last, out_chw, in_signed, in2_signed, in_bytes, in2_bytes,
         out_bytes] = a;
  in = d.in, h_in = d.h_in, w_in = d.w_in, c_in = d.c_in, in2 = d.in2, out = d.out;
  h_out = d.h_out, w_out = d.w_out, c_out = d.c_out;
  kh = d.kh, kw = d.kw, sh = d.sh, sw = d.sw, dh = d.dh, dw = d.dw;
  pad_t = d.pad_t, pad_b = d.pad_b, pad_l = d.pad_l, pad_r = d.pad_r;
  weights = d.weights, bias = d.bias, kappa = d.kappa, lambda = d.lambda;
  set_fields(quant, d.quant);
  set_fields(scale0, d.scale0);
  set_fields(scale1, d.scale1);
  scratch = d.scratch, core = d.core, cores = d.cores;
  set_fields(split, d.split);
  partial = d.partial, k_first = d.k_first, k_last = d.k_last, out_chw = d.out_chw;
  in_signed = d.in_signed, in2_signed = d.in2_signed;
  in_bytes = d.in_bytes, in2_bytes = d.in2_bytes, out_bytes = d.out_bytes;
  return a;
}

/// Where a layer's operands are in L2 for one run of the loop nest: the whole layer, or the
/// stripe of it that L3 staging brought into L2. Row `x_row0` of the layer's input is at `x`,
/// row `y_row0` of its output at `y`. The constant data of output channels [w_c0, w_c0 + w_n)
/// is at `w`, in blocks of the plan's channel tile when tile_data_merged, else as one block
/// (weight_layout.hpp; int32 values as bytes, since L2 copies need no alignment). The loop computes
/// output rows [row_begin, row_end) and channels [c_begin, c_end), which must align to the plan's
/// tiles. When `stripes` is set, the call spans L3 weight stripes (below) and `w` is the first
/// stripe's buffer.
struct weight_stripes;
struct l2_operands {
  const std::uint8_t* x = nullptr;
  const std::uint8_t* x2 = nullptr;  ///< add: the second input; its row `x2_row0` at `x2`
  int x_row0 = 0;
  int x2_row0 = 0;
  std::uint8_t* y = nullptr;
  int y_row0 = 0;
  const std::uint8_t* w = nullptr;
  int w_c0 = 0;
  int w_n = 0;
  int row_begin = 0, row_end = 0;
  int c_begin = 0, c_end = 0;
  const weight_stripes* stripes = nullptr;
};

/// The layer's constant data as L3 staging streams it through L2 during one run of a loop nest:
/// stripes of `c` output channels (a multiple of the plan's channel tile; the last may be
/// shorter), each one block (weight_layout.hpp) in one of two buffers `half` bytes apart,
/// stripe k in buffer k % 2. Before the nest loads the first data of a stripe k after its first
/// (channel tiles run in order, each loaded after every earlier load is complete), it calls
/// `enter(owner, k)`, which waits for stripe k and starts stripe k + 1 into the other buffer, the
/// one whose loads are all done. The input stays in L1 across stripes; the loop nest's setup is
/// paid once per layer, not per stripe.
struct weight_stripes {
  int c = 0;
  std::ptrdiff_t half = 0;
  void (*enter)(void* owner, int k) = nullptr;
  void* owner = nullptr;
};

/// Whether L3 staging runs layer `l` planned as `p` in one call of its loop nest across its
/// weight stripes (l2_operands::stripes): the weights stream from L3 in stripes narrower than
/// the layer, and the output's rows are one band (else the stripes are reloaded per band, one
/// call each).
[[gnu::always_inline]] constexpr bool spans_stripes(const layer& l, const layer_plan& p) {
  const l3_decision& d = p.l3;
  return l.has_weights() && d.w && d.w_stripe_c > 0 && d.w_stripe_c < l.out.c &&
         (l.kind == op::linear || d.y_stripe_h <= 0 || d.y_stripe_h >= l.out.h);
}

/// Where a channel tile's constant data sits: `w` holds channels [c_first, c_first + n).
struct channel_block {
  const std::uint8_t* w = nullptr;
  int c_first = 0;
  int n = 0;
};

/// A loop nest's walk through the blocks of its constant data, channel tiles in order (the
/// channels asked for never decrease): v.w's one block, or, when the call spans L3 weight
/// stripes, each stripe in turn, entered (weight_stripes::enter) when the walk first reaches it.
/// One comparison per lookup; `out_c` is the layer's output channels.
class channel_blocks {
 public:
  [[gnu::always_inline]] channel_blocks(const l2_operands& v, int out_c)
      : s_(v.stripes), out_c_(out_c), b_{v.w, v.w_c0, v.w_n} {
    if (s_ == nullptr) return;
    k_ = v.w_c0 > 0 ? v.w_c0 / s_->c : 0;  // (a call from the layer's first channel divides not)
    base_ = v.w - (k_ & 1) * s_->half;
    end_ = v.w_c0 + v.w_n;
  }
  /// The block of channel `c0`.
  [[gnu::always_inline]] const channel_block& at(int c0) {
    if (c0 >= end_) next(c0);
    return b_;
  }
  /// The first channel past the current block (with stripes; else a bound no channel reaches).
  [[nodiscard]] int end() const { return end_; }

 private:
  // Out of line and shared by every loop nest: a stripe's entry is rare (once per stripe), and
  // inlined its loop and call would make the nest shuffle its registers around it.
  [[gnu::noinline]] void next(int c0) {
    while (c0 >= end_ && end_ < out_c_) {  // (no channel at or past out_c: no stripe there)
      ++k_;
      b_.c_first = end_;
      b_.n = out_c_ - end_ < s_->c ? out_c_ - end_ : s_->c;
      end_ += b_.n;
      s_->enter(s_->owner, k_);
    }
    b_.w = base_ + (k_ & 1) * s_->half;
  }
  const weight_stripes* s_;
  int out_c_;
  channel_block b_;
  const std::uint8_t* base_ = nullptr;
  int k_ = 0;
  int end_ = 0x7fffffff;
};

/// The transfers of one buffer: a ring of `Ring` command handles. Starting a command when the
/// ring is full first waits for the oldest, so the commands in flight stay bounded (the DMA
/// has few counters) whatever the number of pieces a transfer splits into.
template <hal::dma_engine E, int Ring = 2>
class dma_slot {
 public:
  // The counters run on (unsigned, wrapping); only their difference and their values modulo
  // the ring's size matter.
  [[gnu::always_inline]] void start(E& e, hal::dma_dir d, const dma_piece& p, void* l1, void* l2) {
    if (issued_ - done_ == Ring) e.wait(h_[done_++ % Ring]);
    start_piece(e, d, p, l1, l2, h_[issued_++ % Ring]);
  }
  /// Starts one 2-D command known to respect E::limits (the caller checked them).
  [[gnu::always_inline]] void start_2d(E& e, hal::dma_dir d, void* l1, void* l2,
                                       std::uint32_t bytes, std::uint32_t line,
                                       std::uint32_t stride) {
    if (issued_ - done_ == Ring) e.wait(h_[done_++ % Ring]);
    e.copy_2d(d, l1, l2, bytes, line, stride, h_[issued_++ % Ring]);
  }
  /// Waits for every command started since the last wait (a no-op when there is none).
  [[gnu::always_inline]] void wait(E& e) {
    while (done_ != issued_) e.wait(h_[done_++ % Ring]);
  }

 private:
  static_assert(Ring > 0 && (Ring & (Ring - 1)) == 0, "A DMA slot's ring size is a power of 2.");
  typename E::handle h_[Ring]{};
  unsigned issued_ = 0;
  unsigned done_ = 0;
};

/// One command in flight at a time: starting a command first waits for the one before (a
/// core's share of a depthwise marshalling, which holds one of the DMA's counters).
template <hal::dma_engine E>
class chain_slot {
 public:
  [[gnu::always_inline]] void start(E& e, hal::dma_dir d, const dma_piece& p, void* l1, void* l2) {
    wait(e);
    start_piece(e, d, p, l1, l2, h_);
    busy_ = true;
  }
  /// Starts one 2-D command known to respect E::limits (the caller checked them).
  [[gnu::always_inline]] void start_2d(E& e, hal::dma_dir d, void* l1, void* l2,
                                       std::uint32_t bytes, std::uint32_t line,
                                       std::uint32_t stride) {
    wait(e);
    e.copy_2d(d, l1, l2, bytes, line, stride, h_);
    busy_ = true;
  }
  /// Waits for the command in flight, if any.
  [[gnu::always_inline]] void wait(E& e) {
    if (busy_) e.wait(h_);
    busy_ = false;
  }

 private:
  typename E::handle h_{};
  bool busy_ = false;
};

/// Starts the commands of a transfer split to the DMA's limits. Out of line, taking the
/// transfer by value: the common one-command path need not keep the transfer in memory.
template <hal::dma_engine E, class Slot>
[[gnu::noinline]] void split_transfer(E& e, Slot& slot, hal::dma_dir d, dma_transfer t,
                                      std::uint8_t* a, std::uint8_t* b) {
  for_each_piece(t, E::limits, [&](const dma_piece& p) { slot.start(e, d, p, a, b); });
}

/// Starts one transfer: directly when it is one command (most are), split otherwise.
template <hal::dma_engine E, class Slot>
[[gnu::always_inline]] inline void issue_transfer(E& e, Slot& slot, hal::dma_dir d,
                                                  const dma_transfer& t, std::uint8_t* a,
                                                  std::uint8_t* b) {
  const std::uint64_t bytes = t.bytes();
  if (bytes <= E::limits.max_command_bytes && bytes <= E::limits.length_field_max) {
    if (t.is_contiguous()) {
      slot.start(e, d, dma_piece{0, 0, static_cast<std::uint32_t>(bytes), 0, 0}, a, b);
      return;
    }
    if (E::limits.has_2d && t.line_bytes <= E::limits.max_line_bytes &&
        t.l2_stride <= E::limits.max_stride) {
      slot.start(e, d,
                 dma_piece{0, 0, static_cast<std::uint32_t>(bytes), t.line_bytes, t.l2_stride}, a,
                 b);
      return;
    }
  }
  split_transfer(e, slot, d, t, a, b);
}

/// Copies a box of `rows` x `cols` pixels of `chunk` bytes between a packed L1 buffer and L2,
/// where pixels are `pixel_stride` and rows `row_stride` bytes apart: as one contiguous
/// transfer, one 2-D transfer, or one 2-D transfer per row, whichever the strides allow; each
/// split to the DMA's limits.
template <hal::dma_engine E, class Slot>
[[gnu::always_inline]] inline void copy_box(E& e, Slot& slot, hal::dma_dir d, std::uint8_t* l1,
                                            const std::uint8_t* l2, int rows, int cols, int chunk,
                                            int pixel_stride, int row_stride) {
  auto* l2m = const_cast<std::uint8_t*>(l2);  // read-only when d is l2_to_l1
  const auto issue = [&](const dma_transfer& t, std::uint8_t* a, std::uint8_t* b)
                         CTILE_INLINE { issue_transfer(e, slot, d, t, a, b); };
  const auto u = [](int v) { return static_cast<std::uint32_t>(v); };
  if (chunk == pixel_stride) {
    if (cols * pixel_stride == row_stride || rows == 1) {
      issue(dma_transfer::contiguous(d, u(rows * cols * chunk)), l1, l2m);
    } else {
      issue(dma_transfer::strided(d, u(rows), u(cols * chunk), u(row_stride)), l1, l2m);
    }
  } else if (cols * pixel_stride == row_stride || rows == 1) {
    issue(dma_transfer::strided(d, u(rows * cols), u(chunk), u(pixel_stride)), l1, l2m);
  } else {
    for (int r = 0; r < rows; ++r)
      issue(dma_transfer::strided(d, u(cols), u(chunk), u(pixel_stride)), l1 + r * cols * chunk,
            l2m + static_cast<std::ptrdiff_t>(r) * row_stride);
  }
}

/// The most cores that program DMA commands in parallel (GAP-8's cluster: 8, each with its own
/// command queue); larger teams leave their extra cores out of the marshalling.
inline constexpr int max_dma_cores = 8;

/// The HWC -> CHW marshalling of a depthwise input tile, as the commands that program it:
/// channel `ch` of a box of `rows` x `cols` pixels (pixels `pixel`, rows `row` bytes apart in
/// L2, one byte per channel) goes to the plane at `l1 + ch * rows * cols`. When the box spans
/// whole rows a channel is one 2-D command of `rows * cols` one-byte lines, else one command
/// per row; `direct` says that such a command is within the DMA's limits, checked here once
/// for all of them, so they are programmed without splitting.
struct chw_job {
  std::uint8_t* l1;
  const std::uint8_t* l2;
  int channels;
  int rows, cols, pixel, row;
  int plane;        ///< bytes of a channel's plane in L1
  int n;            ///< bytes (lines of one element) per command
  int per_channel;  ///< commands per channel
  bool direct;
  int eb = 1;  ///< bytes per element (2: a 16-bit input; `pixel`, `row` are in bytes)
};

template <hal::dma_engine E>
[[gnu::always_inline]] inline chw_job make_chw_job(std::uint8_t* l1, const std::uint8_t* l2,
                                                   int channels, int rows, int cols, int pixel,
                                                   int row, int eb = 1) {
  constexpr hal::dma_limits lim = E::limits;
  chw_job j{l1, l2, channels, rows, cols, pixel, row, 0, 0, 0, false, eb};
  j.plane = rows * cols * eb;
  const bool whole_rows = cols * pixel == row || rows == 1;
  j.n = whole_rows ? j.plane : cols * eb;
  j.per_channel = whole_rows ? 1 : rows;
  const auto u = [](int v) { return static_cast<std::uint32_t>(v); };
  j.direct = lim.has_2d && j.n > 1 && u(j.n) <= lim.max_command_bytes &&
             u(j.n) <= lim.length_field_max && u(pixel) <= lim.max_stride;
  return j;
}

/// Starts the commands of channels `first`, `first + step`, ... of a marshalling job in
/// `slot`: `step` cores, each with its own slot, share a job this way. Commands outside the
/// direct case go through copy_box and its splitting.
template <hal::dma_engine E>
[[gnu::always_inline]] inline void program_chw(E& e, chain_slot<E>& slot, const chw_job& j,
                                               int first, int step) {
  auto* b = const_cast<std::uint8_t*>(j.l2) + first * j.eb;  // read-only: the DMA reads L2
  std::uint8_t* a = j.l1 + first * j.plane;
  const int da = step * j.plane, db = step * j.eb;
  const auto line = static_cast<std::uint32_t>(j.eb);
  if (j.direct) {
    const auto n = static_cast<std::uint32_t>(j.n);
    const auto pixel = static_cast<std::uint32_t>(j.pixel);
    if (j.per_channel == 1) {
      for (int ch = first; ch < j.channels; ch += step, a += da, b += db)
        slot.start_2d(e, hal::dma_dir::l2_to_l1, a, b, n, line, pixel);
      return;
    }
    for (int ch = first; ch < j.channels; ch += step, a += da, b += db) {
      std::uint8_t* ar = a;
      std::uint8_t* br = b;
      for (int k = 0; k < j.per_channel; ++k, ar += j.n, br += j.row)
        slot.start_2d(e, hal::dma_dir::l2_to_l1, ar, br, n, line, pixel);
    }
    return;
  }
  for (int ch = first; ch < j.channels; ch += step, a += da, b += db)
    copy_box(e, slot, hal::dma_dir::l2_to_l1, a, b, j.rows, j.cols, j.eb, j.pixel, j.row);
}

/// This core's share of a marshalling job, inside a fork of the cluster: core i of a team of
/// t programs channels i, i + t, ... in its own slot (slots[i]); cores past max_dma_cores none.
template <hal::dma_engine E, class Cluster>
[[gnu::always_inline]] inline void program_chw_share(E& e, Cluster& cl,
                                                     chain_slot<E> (&slots)[max_dma_cores],
                                                     const chw_job& j, int core) {
  const int team = cl.cores();
  const int step = team < max_dma_cores ? team : max_dma_cores;
  if (core < step) program_chw(e, slots[core], j, core, step);
}

/// Points a kernel's bias, kappa and lambda (those the layer has, else null) into a tile's
/// parameter buffer `kl` laid out as `k`.
[[gnu::always_inline]] inline void point_params(kernels::tile_args& a, const std::uint8_t* kl,
                                                const kl_offsets& k) {
  const auto at = [kl](int off) {
    return off >= 0 ? reinterpret_cast<const std::int32_t*>(kl + off) : nullptr;
  };
  a.bias = at(k.bias);
  a.kappa = at(k.kappa);
  a.lambda = at(k.lambda);
}

/// Loads the per-channel parameters (bias, kappa, lambda, those the layer has) of the `cn`
/// output channels whose data `d` locates (channel_data_at) in the block at `w` (channel_blocks),
/// into a tile's parameter buffer `kl` laid out as `klo`.
template <hal::dma_engine E, int Ring>
[[gnu::always_inline]] inline void load_channel_params(E& e, dma_slot<E, Ring>& slot,
                                                       std::uint8_t* kl, const kl_offsets& klo,
                                                       const layer& l, const std::uint8_t* w,
                                                       const channel_data& d, int cn) {
  const kl_offsets in = kl_layout(l, d.block_n);
  const auto one = [&](int off, int src) CTILE_INLINE {
    if (off >= 0)
      copy_box(e, slot, hal::dma_dir::l2_to_l1, kl + off, w + d.params + src + 4 * d.index, 1, 1,
               4 * cn, 4 * cn, 4 * cn);
  };
  one(klo.bias, in.bias);
  one(klo.kappa, in.kappa);
  one(klo.lambda, in.lambda);
}

/// load_channel_params as the specialised loops issue it: each array one 1-D command, in
/// handles[1], [2], [3] (bias, kappa, lambda; handles[0] holds the weights').
template <hal::dma_engine E>
[[gnu::always_inline]] inline void start_channel_params(E& e, typename E::handle (&handles)[4],
                                                        std::uint8_t* kl, const kl_offsets& klo,
                                                        const layer& l, const std::uint8_t* w,
                                                        const channel_data& d, int cn) {
  const kl_offsets in = kl_layout(l, d.block_n);
  const auto one = [&](int off, int from, typename E::handle& h) CTILE_INLINE {
    if (off >= 0)
      e.copy_1d(hal::dma_dir::l2_to_l1, kl + off,
                const_cast<std::uint8_t*>(w + d.params + from + 4 * d.index),
                static_cast<std::uint32_t>(4 * cn), h);
  };
  one(klo.bias, in.bias, handles[1]);
  one(klo.kappa, in.kappa, handles[2]);
  one(klo.lambda, in.lambda, handles[3]);
}

/// Points a kernel's weights and parameters at weight buffer `b` of a tile of `cn` output
/// channels. A merged tile (tile_data_merged) brought its parameters right after its `cn`
/// channels' weights, laid out for `cn` channels; otherwise they are in the parameter buffer,
/// laid out for the plan's tile. (A merged tile's parameter buffer starts right after its
/// weight buffer, so only a short last tile differs.)
[[gnu::always_inline]] inline void point_weights(kernels::tile_args& a, const layer& l,
                                                 const layer_plan& p, std::uint8_t* l1, int b,
                                                 bool merged, int cn) {
  a.weights = reinterpret_cast<const std::int8_t*>(l1 + p.l1.w[b]);
  // A merged K-tiled linear tile's parameters follow its last K tile's weights.
  const int wk = p.n_k > 1 ? p.last_k : weights_per_channel(l);
  if (merged && (cn != p.tile_c || p.n_k > 1))
    point_params(a, l1 + p.l1.w[b] + cn * wk, kl_layout(l, cn));
  else
    point_params(a, l1 + p.l1.kl[b], kl_layout(l, p.tile_c));
}

/// Entry `b` (0 or 1) of a pair of L1 offsets known at compile time, computed rather than read:
/// a plan that is a template argument lies in read-only data (L2 on a cluster), and indexing
/// its pair with a run-time `b` would read it there.
template <class Pair>
[[gnu::always_inline]] constexpr int pick(const Pair& o, int b) {
  return o[0] + (-b & (o[1] - o[0]));
}

/// The output channels of channel tile `ic` of layer L planned as P: the plan's tile, or the
/// layer's last channels (a comparison with the last tile's index where the plan's tiles cover
/// the layer, else the difference).
template <layer L, layer_plan P>
[[gnu::always_inline]] constexpr int channels_of(int ic) {
  constexpr int last = L.out.c - (P.n_c - 1) * P.tile_c;
  if constexpr (last == P.tile_c) {
    return P.tile_c;
  } else if constexpr (last > 0 && last < P.tile_c) {
    return ic == P.n_c - 1 ? last : P.tile_c;
  } else {
    const int c0 = ic * P.tile_c;
    return L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c;
  }
}

/// point_weights for a layer and plan known at compile time.
template <layer L, layer_plan P>
[[gnu::always_inline]] inline void point_weights(kernels::tile_args& a, std::uint8_t* l1, int b,
                                                 int cn) {
  constexpr kl_offsets klo = kl_layout(L, P.tile_c);
  a.weights = reinterpret_cast<const std::int8_t*>(l1 + pick(P.l1.w, b));
  constexpr int wk = P.n_k > 1 ? P.last_k : weights_per_channel(L);
  if constexpr (tile_data_merged(L, P) && P.last_c != P.tile_c) {
    constexpr kl_offsets last = kl_layout(L, P.last_c);
    if (cn != P.tile_c) {
      point_params(a, l1 + pick(P.l1.w, b) + P.last_c * wk, last);
      return;
    }
  }
  if constexpr (tile_data_merged(L, P) && P.n_k > 1)
    point_params(a, l1 + pick(P.l1.w, b) + P.tile_c * wk, klo);  // after the last K tile's weights
  else
    point_params(a, l1 + pick(P.l1.kl, b), klo);
}

/// The loop nest of a linear layer: output-channel tiles, and inside each the K tiles of the
/// reduction (one when it is not cut). While the kernel computes tile i, the DMA brings tile
/// i+1's weights (tc rows of tk bytes, K bytes apart in L2: one 2-D transfer) and input slice;
/// the last K tile of a channel tile brings its bias/kappa/lambda too and sends its output.
/// With the reduction cut, the int32 partial sums stay in the plan's scratch buffer. A plan
/// with one input buffer (x_copies 1) holds the whole input, loaded once, each K tile reading
/// its slice in place. An output buffer holds a group of channel tiles (y_bytes of them, or
/// with one buffer the whole layer's output): each channel tile writes after the previous one
/// and the buffer leaves in one command when full or at the end of the run.
template <class Env>
[[gnu::always_inline]] inline void run_linear_tiles(Env& env, const layer& L, const layer_plan& P,
                                                    const kernels::requant_plan& q,
                                                    const l2_operands& v, std::uint8_t* l1) {
  using E = typename Env::dma_type;
  using hal::dma_dir;
  E& dma = env.dma;
  const int K = static_cast<int>(L.in.elements());
  const int xe = L.input_bytes_per_element();  // bytes per input element (2: a 16-bit input)
  const int nk = P.n_k > 1 ? P.n_k : 1;
  const int tk = nk > 1 ? P.tile_k : K;
  const int ic0 = v.c_begin / P.tile_c, ic1 = tiles_of(v.c_end, P.tile_c);
  const int total = (ic1 - ic0) * nk;
  const int ebytes = L.output_bytes_per_element();
  const kl_offsets klo = kl_layout(L, P.tile_c);
  const bool merged = tile_data_merged(L, P);
  const int wpc = K;
  const auto k_bytes = [&](int ik) CTILE_INLINE { return ik == nk - 1 ? K - ik * tk : tk; };
  const auto channels = [&](int ic) CTILE_INLINE {
    const int c0 = ic * P.tile_c;
    return L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c;
  };

  dma_slot<E> xs[2], ys[2];
  dma_slot<E, 4> ws[2];
  int x_in[2] = {-1, -1};  // the K tile a buffer holds
  int w_in[2] = {-1, -1};  // the (channel tile, K tile) a buffer holds, as ic * nk + ik
  int xb = 0, wb = 0, yb = 0;
  const bool x_dual = P.l1.x[0] != P.l1.x[1];
  const bool w_dual = P.l1.w[0] != P.l1.w[1];
  const bool y_dual = P.l1.y[0] != P.l1.y[1];
  const bool x_whole = P.x_copies == 1, y_whole = P.y_copies == 1;

  const auto load_x = [&](int ik, int b) CTILE_INLINE {
    x_in[b] = ik;
    const int kn = (x_whole ? K : k_bytes(ik)) * xe;
    copy_box(dma, xs[b], dma_dir::l2_to_l1, l1 + P.l1.x[b],
             v.x + static_cast<std::ptrdiff_t>(ik) * tk * xe, 1, 1, kn, kn, kn);
  };
  channel_blocks blocks(v, L.out.c);
  const auto load_w = [&](int ic, int ik, int b) CTILE_INLINE {
    w_in[b] = ic * nk + ik;
    const int cn = channels(ic), kn = k_bytes(ik);
    const channel_block& blk = blocks.at(ic * P.tile_c);
    const channel_data d =
        channel_data_at(wpc, data_per_channel(L), merged, blk.n, ic * P.tile_c - blk.c_first, cn);
    if (merged) {  // the tile's weights (and on its last K tile, parameters): one run of bytes
      const int n =
          cn * (nk > 1 ? kn + (ik == nk - 1 ? kl_layout(L, 1).bytes : 0) : data_per_channel(L));
      copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + P.l1.w[b],
               blk.w + d.weights + static_cast<std::ptrdiff_t>(ik) * tk * cn, 1, 1, n, n, n);
      return;
    }
    copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + P.l1.w[b],
             blk.w + d.weights + static_cast<std::ptrdiff_t>(ik) * tk, 1, cn, kn, K, cn * K);
    // The per-channel parameters serve the last K tile only.
    if (ik == nk - 1) load_channel_params(dma, ws[b], l1 + P.l1.kl[b], klo, L, blk.w, d, cn);
  };

  if (total <= 0) return;
  // The kernel arguments every tile shares, set once; the loop sets the tile's own.
  args_room room;
  kernels::tile_args& a = fresh_args(room);
  a.h_in = 1, a.w_in = 1;
  a.h_out = 1, a.w_out = 1;
  set_fields(a.quant, q);
  a.scratch = l1 + P.l1.scratch;
  a.cores = env.cores();
  a.split = P.split;
  a.in_signed = L.in_range.is_signed();
  set_widths(a, L);
  if (nk > 1) a.partial = reinterpret_cast<std::int32_t*>(l1 + P.l1.scratch);
  const auto body = [&](int core) { env.run_kernel(kernels::kernel_kind::linear, a, core); };
  int ic = ic0, ik = 0;
  load_x(ik, 0);
  load_w(ic, ik, 0);
  // The output buffer being filled (the whole output's holds the layer's every channel), the
  // next channel tile's place in it, and its first channel.
  const int g = P.y_group(ebytes);
  std::uint8_t* y_buf = l1 + P.l1.y[0] + (y_whole ? ic0 * P.tile_c * ebytes : 0);
  std::uint8_t* y_next = y_buf;
  int y_c0 = ic0 * P.tile_c;
  for (int t = 0; t < total; ++t) {
    if (!x_whole && x_in[xb] != ik) {
      if (x_dual && x_in[1 - xb] == ik)
        xb = 1 - xb;
      else
        load_x(ik, xb);
    }
    const int wkey = ic * nk + ik;
    if (w_in[wb] != wkey) {
      if (w_dual && w_in[1 - wb] == wkey)
        wb = 1 - wb;
      else
        load_w(ic, ik, wb);
    }
    xs[xb].wait(dma);
    ws[wb].wait(dma);
    // Prefetch the next tile's input slice and weights into the other buffers.
    const int n_ik = ik + 1 == nk ? 0 : ik + 1, n_ic = ik + 1 == nk ? ic + 1 : ic;
    if (t + 1 < total) {
      if (!x_whole && x_dual && n_ik != ik) load_x(n_ik, 1 - xb);
      if (w_dual) load_w(n_ic, n_ik, 1 - wb);
    }
    const bool last = ik == nk - 1;
    const int cn = channels(ic), kn = k_bytes(ik);
    // A fresh output buffer is free once its previous transfer is done.
    if (last && y_next == y_buf) ys[yb].wait(dma);

    a.in = l1 + P.l1.x[xb] + (x_whole ? ik * tk * xe : 0);
    a.c_in = kn;
    a.out = y_next;
    a.c_out = cn;
    point_weights(a, L, P, l1, wb, merged, cn);
    if (nk > 1) {
      a.k_first = ik == 0;
      a.k_last = last;
    }
    env.check_tile(kernels::kernel_kind::linear, a, P.scratch_bytes);
    {
      [[maybe_unused]] auto reading = env.reading(a.in, static_cast<std::size_t>(kn) * xe);
      [[maybe_unused]] auto writing = env.writing(a.out, last ? cn * ebytes : 0);
      env.cluster.fork(a.cores, body);
    }
    if (last) {
      y_next += P.tile_c * ebytes;
      if (y_next == y_buf + g * P.tile_c * ebytes || ic == ic1 - 1) {  // send the buffer
        const int c_end = ic * P.tile_c + cn, n = (c_end - y_c0) * ebytes;
        copy_box(dma, ys[yb], dma_dir::l1_to_l2, y_buf,
                 v.y + static_cast<std::ptrdiff_t>(y_c0) * ebytes, 1, 1, n, n, n);
        if (y_dual) yb = 1 - yb;
        y_buf = y_next = l1 + P.l1.y[yb];
        y_c0 = c_end;
      }
    }
    ic = n_ic, ik = n_ik;
  }
  ys[0].wait(dma);
  ys[1].wait(dma);
}

/// Runs the loop nest of layer `L` with plan `P` over the part of it that `v` describes.
/// `l1` is the layer's L1 arena (the plan's offsets are relative to it); `q` the layer's exact
/// requantization. `V`: what the caller knows of the kernel calls at compile time (variant_of
/// when `L` and `P` are constants; by default nothing, and every kernel variant is reachable).
template <kernels::kernel_variant V = kernels::kernel_variant{}, class Env>
[[gnu::always_inline]] inline void run_tiles(Env& env, const layer& L, const layer_plan& P,
                                             const kernels::requant_plan& q, const l2_operands& v,
                                             std::uint8_t* l1) {
  if (L.kind == op::linear) {
    run_linear_tiles(env, L, P, q, v, l1);
    return;
  }
  using E = typename Env::dma_type;
  using hal::dma_dir;
  E& dma = env.dma;
  const kernels::kernel_kind kk = kernels::kind_of(L);
  // A depthwise input in HWC is marshalled to CHW; one the plan keeps CHW in L2 (P.in_chw) is
  // copied as it is. A layer with P.out_chw stores its output tiles CHW.
  const bool chw_input = L.kind == op::depthwise && !P.in_chw;
  const int in_plane = L.in.h * L.in.w, out_plane = L.out.h * L.out.w;
  const bool channelwise = L.kind != op::conv && L.kind != op::linear;
  const int ebytes = L.output_bytes_per_element();
  // Bytes per element of the inputs (2: a 16-bit tensor; a depthwise input's marshalling and a
  // channel-major input are 8-bit only, see wide_layer_problem).
  const int xe = L.input_bytes_per_element(0);
  const int xe2 = L.kind == op::add ? L.input_bytes_per_element(1) : 1;
  const shape tile{P.tile_h, P.tile_w, P.tile_c};
  const int ic0 = v.c_begin / P.tile_c, ic1 = tiles_of(v.c_end, P.tile_c);
  const int iy0 = v.row_begin / P.tile_h, iy1 = tiles_of(v.row_end, P.tile_h);
  const int nx = P.n_w, ny = iy1 - iy0;
  const int total = (ic1 - ic0) * ny * nx;
  const int wpc = weights_per_channel(L);
  const kl_offsets klo = kl_layout(L, P.tile_c);
  const bool merged = tile_data_merged(L, P);

  // A tile and what its input buffer holds (`xk`): the same for every channel tile of a conv
  // or linear layer (the whole input depth is read), per channel tile otherwise; numbered in
  // loop order, so that the next tile's follows without multiplications.
  struct coord {
    int ic, iy, ix, xk;
  };
  // The tile after `c` in loop order (columns fastest, then rows, then channel tiles).
  const auto after = [&](coord c) CTILE_INLINE {
    ++c.xk;
    if (++c.ix == nx) {
      c.ix = 0;
      if (++c.iy == iy1) {
        c.iy = iy0, ++c.ic;
        if (!channelwise) c.xk = 0;
      }
    }
    return c;
  };
  const auto x_key = [](coord c) CTILE_INLINE { return c.xk; };

  dma_slot<E> xs[2], x2s[2], ys[2];
  dma_slot<E, 4> ws[2];
  // Depthwise: the marshalling commands the cores program during the previous tile's kernel,
  // one command in flight per core (8 cores, 8 of the DMA's counters).
  chain_slot<E> xc[2][max_dma_cores];
  int x_key_in[2] = {-1, -1};
  int w_key_in[2] = {-1, -1};
  int xb = 0, wb = 0, yb = 0;
  const bool x_dual = P.l1.x[0] != P.l1.x[1];
  const bool w_dual = P.l1.w[0] != P.l1.w[1];
  const bool y_dual = P.l1.y[0] != P.l1.y[1];

  // A depthwise input tile's marshalling: its channels' box in L2 (HWC) to planes in L1 (CHW).
  const auto chw_of = [&](const tile_region& r, int b) CTILE_INLINE {
    const std::size_t origin =
        (static_cast<std::size_t>(r.y.in_begin - v.x_row0) * L.in.w * L.in.c +
         static_cast<std::size_t>(r.x.in_begin) * L.in.c + static_cast<std::size_t>(r.cin_begin)) *
        static_cast<std::size_t>(xe);
    return make_chw_job<E>(l1 + P.l1.x[b], v.x + origin, r.cin_size, r.y.in_size, r.x.in_size,
                           L.in.c * xe, L.in.w * L.in.c * xe, xe);
  };
  const auto load_x = [&](coord c, const tile_region& r, int b) CTILE_INLINE {
    x_key_in[b] = x_key(c);
    const int pixel = L.in.c * xe;
    const int row = L.in.w * pixel;
    const std::size_t col = static_cast<std::size_t>(r.x.in_begin) * pixel + r.cin_begin * xe;
    const std::size_t origin = static_cast<std::size_t>(r.y.in_begin - v.x_row0) * row + col;
    if (chw_input) {  // HWC in L2 -> CHW in L1, programmed by the cores, each its share
      const chw_job j = chw_of(r, b);
      env.cluster.fork(env.cores(),
                       [&](int core) { program_chw_share(dma, env.cluster, xc[b], j, core); });
      return;
    }
    if (P.in_chw) {  // CHW in L2: the channels' planes, each the tile's rows and columns
      const std::size_t at = static_cast<std::size_t>(r.cin_begin) * in_plane +
                             static_cast<std::size_t>(r.y.in_begin - v.x_row0) * L.in.w +
                             static_cast<std::size_t>(r.x.in_begin);
      copy_box(dma, xs[b], dma_dir::l2_to_l1, l1 + P.l1.x[b], v.x + at, r.cin_size, r.y.in_size,
               r.x.in_size, L.in.w, in_plane);
      return;
    }
    copy_box(dma, xs[b], dma_dir::l2_to_l1, l1 + P.l1.x[b], v.x + origin, r.y.in_size, r.x.in_size,
             r.cin_size * xe, pixel, row);
    if (L.kind == op::add) {  // the second input in its own element width
      const int pixel2 = L.in.c * xe2;
      const int row2 = L.in.w * pixel2;
      const std::size_t origin2 = static_cast<std::size_t>(r.y.in_begin - v.x2_row0) * row2 +
                                  static_cast<std::size_t>(r.x.in_begin) * pixel2 +
                                  static_cast<std::size_t>(r.cin_begin) * xe2;
      copy_box(dma, x2s[b], dma_dir::l2_to_l1, l1 + P.l1.x2[b], v.x2 + origin2, r.y.in_size,
               r.x.in_size, r.cin_size * xe2, pixel2, row2);
    }
  };
  channel_blocks blocks(v, L.out.c);
  const auto load_w = [&](int ic, int b) CTILE_INLINE {
    w_key_in[b] = ic;
    if (!L.has_weights()) return;
    const int c0 = ic * P.tile_c;
    const int cn = L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c;
    const channel_block& blk = blocks.at(c0);
    const channel_data d =
        channel_data_at(wpc, data_per_channel(L), merged, blk.n, c0 - blk.c_first, cn);
    if (merged) {  // the tile's weights and parameters, one run of bytes
      const int n = cn * data_per_channel(L);
      copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + P.l1.w[b], blk.w + d.weights, 1, 1, n, n, n);
      return;
    }
    copy_box(dma, ws[b], dma_dir::l2_to_l1, l1 + P.l1.w[b], blk.w + d.weights, 1, 1, cn * wpc,
             cn * wpc, cn * wpc);
    load_channel_params(dma, ws[b], l1 + P.l1.kl[b], klo, L, blk.w, d, cn);
  };

  if (total <= 0) return;
  // The kernel arguments every tile shares, set once; the loop sets the tile's own.
  args_room room;
  kernels::tile_args& a = fresh_args(room);
  a.kh = L.kernel.h, a.kw = L.kernel.w;
  a.dh = L.dilation.h, a.dw = L.dilation.w;
  a.sh = L.stride.h, a.sw = L.stride.w;
  set_fields(a.quant, q);
  a.scale0 = L.in_scale[0];
  a.scale1 = L.in_scale[1];
  a.scratch = l1 + P.l1.scratch;
  a.cores = env.cores();
  a.split = P.split;
  a.out_chw = P.out_chw;
  a.in_signed = L.in_range.is_signed();
  a.in2_signed = L.kind == op::add && L.in2_range.is_signed();
  set_widths(a, L);
  // The kernel's parameters: those in weight buffer `b` (set when the buffer changes).
  const auto point_w = [&](int b) CTILE_INLINE {
    if (!L.has_weights() || w_key_in[b] < 0) return;
    const int c0 = w_key_in[b] * P.tile_c;
    point_weights(a, L, P, l1, b, merged, L.out.c - c0 < P.tile_c ? L.out.c - c0 : P.tile_c);
  };
  // Output buffers of `yg` channel tiles (plan::choose_output_groups; a channel-major output
  // with one spatial tile): `y_n` tiles in the current one, from channel `y_c0` on.
  const int yg = P.y_group(ebytes);
  int y_n = 0, y_c0 = ic0 * P.tile_c;
  coord c{ic0, iy0, 0, 0};
  // This tile's and the next tile's geometry, in two places that swap roles.
  tile_region regions[2];
  tile_region* rp = &regions[0];
  tile_region* rnp = &regions[1];
  *rp = tile_of(L, tile, c.iy, c.ix, c.ic);
  load_x(c, *rp, 0);
  load_w(c.ic, 0);
  point_w(0);
  for (int t = 0; t < total; ++t) {
    const tile_region& r = *rp;
    // This tile's input and weights: prefetched into a buffer, or loaded now.
    if (x_key_in[xb] != x_key(c)) {
      if (x_dual && x_key_in[1 - xb] == x_key(c)) {
        xb = 1 - xb;
      } else {
        load_x(c, r, xb);
      }
    }
    if (w_key_in[wb] != c.ic) {
      if (w_dual && w_key_in[1 - wb] == c.ic) {
        wb = 1 - wb;
      } else {
        load_w(c.ic, wb);
      }
      point_w(wb);
    }
    xs[xb].wait(dma);
    if (L.kind == op::add) x2s[xb].wait(dma);
    if (chw_input)
      for (auto& s : xc[xb]) s.wait(dma);
    ws[wb].wait(dma);
    // Prefetch the next tile's input and weights into the other buffers. A depthwise input is
    // marshalled by the cores themselves, each its share of the channels, as the kernel's fork
    // starts: the per-channel commands cost the cluster 1/cores of their programming time.
    // (Past the last tile `n` and `rn` describe no tile and go unused.)
    const coord n = after(c);
    tile_region& rn = *rnp;
    rn = tile_of(L, tile, n.iy, n.ix, n.ic);
    chw_job next_job;
    const chw_job* next = nullptr;
    if (t + 1 < total) {
      if (x_dual && x_key(n) != x_key(c)) {
        if (chw_input) {
          x_key_in[1 - xb] = x_key(n);
          next_job = chw_of(rn, 1 - xb);
          next = &next_job;
        } else {
          load_x(n, rn, 1 - xb);
        }
      }
      if (w_dual && n.ic != c.ic) load_w(n.ic, 1 - wb);
    }
    // The output buffer is free once its previous transfer to L2 is done. (Output groups: the
    // tile writes after the previous ones of its group, `y_n` of them.)
    if (y_n == 0) ys[yb].wait(dma);

    a.in = l1 + P.l1.x[xb];
    a.in2 = L.kind == op::add ? l1 + P.l1.x2[xb] : nullptr;
    a.h_in = r.y.in_size;
    a.w_in = r.x.in_size;
    a.c_in = r.cin_size;
    a.out = l1 + P.l1.y[yb] + y_n * P.tile_c * out_plane;
    a.h_out = r.y.out_size, a.w_out = r.x.out_size, a.c_out = r.c_size;
    const padding pad = r.pad();
    a.pad_t = pad.t, a.pad_b = pad.b, a.pad_l = pad.l, a.pad_r = pad.r;
    const int in_bytes = r.y.in_size * r.x.in_size * r.cin_size * xe;
    const int in2_bytes = r.y.in_size * r.x.in_size * r.cin_size * xe2;
    const int out_bytes = r.y.out_size * r.x.out_size * r.c_size * ebytes;
    env.check_tile(kk, a, P.scratch_bytes);
    {
      [[maybe_unused]] auto reading = env.reading(a.in, in_bytes);
      [[maybe_unused]] auto reading2 = env.reading(a.in2, a.in2 != nullptr ? in2_bytes : 0);
      [[maybe_unused]] auto writing = env.writing(a.out, out_bytes);
      auto& next_slots = xc[1 - xb];
      env.cluster.fork(a.cores, [&](int core) {
        if (next != nullptr) program_chw_share(dma, env.cluster, next_slots, *next, core);
        env.template run_kernel_as<V>(kk, a, core);
      });
    }
    // Send the tile's output to L2; an output group's, once full or with the call's last tile.
    if (yg > 1) {
      if (++y_n == yg || t + 1 == total) {
        const int c_end = r.c_begin + r.c_size;
        const std::size_t dst = static_cast<std::size_t>(y_c0) * out_plane;
        copy_box(dma, ys[yb], dma_dir::l1_to_l2, l1 + P.l1.y[yb], v.y + dst, c_end - y_c0,
                 r.y.out_size, r.x.out_size, L.out.w, out_plane);
        y_n = 0, y_c0 = c_end;
        if (y_dual) yb = 1 - yb;
      }
    } else if (P.out_chw) {  // each channel's plane of the tile (8-bit outputs)
      const std::size_t dst = static_cast<std::size_t>(r.c_begin) * out_plane +
                              static_cast<std::size_t>(r.y.out_begin - v.y_row0) * L.out.w +
                              static_cast<std::size_t>(r.x.out_begin);
      copy_box(dma, ys[yb], dma_dir::l1_to_l2, l1 + P.l1.y[yb], v.y + dst, r.c_size, r.y.out_size,
               r.x.out_size, L.out.w, out_plane);
    } else {
      const int pixel = L.out.c * ebytes;
      const std::size_t dst = static_cast<std::size_t>(r.y.out_begin - v.y_row0) * L.out.w * pixel +
                              static_cast<std::size_t>(r.x.out_begin) * pixel +
                              static_cast<std::size_t>(r.c_begin) * ebytes;
      copy_box(dma, ys[yb], dma_dir::l1_to_l2, l1 + P.l1.y[yb], v.y + dst, r.y.out_size,
               r.x.out_size, r.c_size * ebytes, pixel, L.out.w * pixel);
    }
    if (y_dual && yg == 1) yb = 1 - yb;
    c = n;
    tile_region* const done = rp;
    rp = rnp;
    rnp = done;
  }
  ys[0].wait(dma);
  ys[1].wait(dma);
}

}  // namespace ctile::schedule
