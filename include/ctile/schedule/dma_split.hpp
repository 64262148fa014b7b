// Splitting DMA transfers into commands that respect the platform's DMA limits. Transfers whose
// sizes are constants are split at compile time, and a static_assert proves that no command
// exceeds the limits and that the commands move exactly the transfer's bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "../hal/dma_engine.hpp"
#include "../hal/dma_limits.hpp"

namespace ctile::schedule {

/// A logical L2<->L1 transfer of any size: `lines` lines of `line_bytes` bytes; in L2 line i
/// starts at i * l2_stride, in L1 the lines are packed (line i at i * line_bytes).
struct dma_transfer {
  hal::dma_dir dir = hal::dma_dir::l2_to_l1;
  std::uint32_t lines = 1;
  std::uint32_t line_bytes = 0;
  std::uint32_t l2_stride = 0;

  static constexpr dma_transfer contiguous(hal::dma_dir d, std::uint32_t bytes) {
    return {d, 1, bytes, bytes};
  }
  static constexpr dma_transfer strided(hal::dma_dir d, std::uint32_t lines,
                                        std::uint32_t line_bytes, std::uint32_t l2_stride) {
    return {d, lines, line_bytes, l2_stride};
  }

  [[nodiscard]] constexpr std::uint64_t bytes() const { return std::uint64_t{lines} * line_bytes; }
  /// Bytes spanned in L2, from the first line's start to the last line's end.
  [[nodiscard]] constexpr std::uint64_t l2_span() const {
    return lines == 0 || line_bytes == 0 ? 0 : std::uint64_t{lines - 1} * l2_stride + line_bytes;
  }
  /// Whether both sides are one contiguous block.
  [[nodiscard]] constexpr bool is_contiguous() const {
    return lines <= 1 || l2_stride == line_bytes;
  }
  /// Offsets fit 32 bits, and lines written into L2 do not overlap each other.
  [[nodiscard]] constexpr bool valid() const {
    const bool fits32 = bytes() <= 0xFFFFFFFFu && l2_span() <= 0xFFFFFFFFu;
    const bool disjoint_writes =
        dir == hal::dma_dir::l2_to_l1 || lines <= 1 || l2_stride >= line_bytes;
    return fits32 && disjoint_writes;
  }
  friend constexpr bool operator==(const dma_transfer&, const dma_transfer&) = default;
};

/// One hardware command of a split transfer, relative to the transfer's L1 and L2 bases.
/// `line_bytes == 0` means a 1D command; otherwise a 2D command of `bytes / line_bytes` lines.
struct dma_piece {
  std::uint32_t l1_offset = 0;
  std::uint32_t l2_offset = 0;
  std::uint32_t bytes = 0;
  std::uint32_t line_bytes = 0;
  std::uint32_t l2_stride = 0;

  [[nodiscard]] constexpr bool is_2d() const { return line_bytes != 0; }
  friend constexpr bool operator==(const dma_piece&, const dma_piece&) = default;
};

/// Whether one command respects the engine's limits.
constexpr bool fits(const dma_piece& p, const hal::dma_limits& l) {
  if (p.bytes == 0 || p.bytes > l.max_command_bytes || p.bytes > l.length_field_max) return false;
  if (!p.is_2d()) return true;
  return l.has_2d && p.line_bytes <= l.max_line_bytes && p.l2_stride <= l.max_stride &&
         p.bytes % p.line_bytes == 0;
}

namespace detail {
template <class F>
constexpr void split_1d(std::uint64_t l1, std::uint64_t l2, std::uint64_t bytes,
                        const hal::dma_limits& l, F& f) {
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t n =
        bytes - done < l.max_command_bytes ? bytes - done : std::uint64_t{l.max_command_bytes};
    f(dma_piece{static_cast<std::uint32_t>(l1 + done), static_cast<std::uint32_t>(l2 + done),
                static_cast<std::uint32_t>(n), 0, 0});
    done += n;
  }
}
}  // namespace detail

/// Calls f(dma_piece) for every command of `t` split to `l`, in order. Usable at run time too.
/// Contiguous transfers become 1D commands of at most `max_command_bytes`; strided ones
/// become 2D commands of as many whole lines as fit, or 1D commands per line when a line or
/// the stride is over the 2D limits. An empty transfer has no commands.
template <class F>
constexpr void for_each_piece(const dma_transfer& t, const hal::dma_limits& l, F&& f) {
  if (t.bytes() == 0) return;
  if (t.is_contiguous()) {
    detail::split_1d(0, 0, t.bytes(), l, f);
    return;
  }
  const bool two_d = l.has_2d && t.line_bytes <= l.max_line_bytes && t.l2_stride <= l.max_stride &&
                     t.line_bytes <= l.max_command_bytes;
  if (two_d) {
    const std::uint32_t per = l.max_command_bytes / t.line_bytes;
    for (std::uint32_t first = 0; first < t.lines; first += per) {
      const std::uint32_t n = t.lines - first < per ? t.lines - first : per;
      const auto l1 = static_cast<std::uint32_t>(std::uint64_t{first} * t.line_bytes);
      const auto l2 = static_cast<std::uint32_t>(std::uint64_t{first} * t.l2_stride);
      if (n == 1) {
        f(dma_piece{l1, l2, t.line_bytes, 0, 0});
      } else {
        f(dma_piece{l1, l2, n * t.line_bytes, t.line_bytes, t.l2_stride});
      }
    }
    return;
  }
  for (std::uint32_t i = 0; i < t.lines; ++i) {
    detail::split_1d(std::uint64_t{i} * t.line_bytes, std::uint64_t{i} * t.l2_stride, t.line_bytes,
                     l, f);
  }
}

/// Number of commands `t` splits into under `l`.
constexpr std::size_t piece_count(const dma_transfer& t, const hal::dma_limits& l) {
  std::size_t n = 0;
  for_each_piece(t, l, [&](const dma_piece&) { ++n; });
  return n;
}

/// The commands of `t` under `l` as an array of known size N (N must be piece_count(t, l)).
template <std::size_t N>
constexpr std::array<dma_piece, N> split_pieces(const dma_transfer& t, const hal::dma_limits& l) {
  std::array<dma_piece, N> out{};
  std::size_t i = 0;
  for_each_piece(t, l, [&](const dma_piece& p) {
    if (i < N) out[i] = p;
    ++i;
  });
  return out;
}

template <std::size_t N>
constexpr bool all_fit(const std::array<dma_piece, N>& ps, const hal::dma_limits& l) {
  for (const auto& p : ps)
    if (!fits(p, l)) return false;
  return true;
}
template <std::size_t N>
constexpr std::uint64_t total_bytes(const std::array<dma_piece, N>& ps) {
  std::uint64_t s = 0;
  for (const auto& p : ps) s += p.bytes;
  return s;
}

/// The compile-time split of transfer T under limits L.
template <dma_transfer T, hal::dma_limits L = hal::gap8_dma_limits>
struct dma_split {
  static_assert(L.valid(),
                "The DMA limits are inconsistent: the safe command size must be positive and "
                "within the hardware length field, and 2D limits positive.");
  static_assert(T.valid(),
                "The DMA transfer is malformed: its size must fit 32 bits and the lines it writes "
                "into L2 must not overlap.");
  static constexpr hal::dma_dir dir = T.dir;
  static constexpr std::size_t size = piece_count(T, L);
  static constexpr std::array<dma_piece, size> pieces = split_pieces<size>(T, L);
  static_assert(all_fit(pieces, L), "Every command of a split DMA transfer fits the DMA limits.");
  static_assert(total_bytes(pieces) == T.bytes(),
                "The commands of a split DMA transfer move exactly the transfer's bytes.");
};

/// Starts one command described at run time (no limit check: use for pieces produced by
/// for_each_piece, which respect the limits by construction).
template <hal::dma_engine E>
[[gnu::always_inline]] inline void start_piece(E& e, hal::dma_dir d, const dma_piece& p, void* l1,
                                               void* l2, typename E::handle& h) {
  auto* a = static_cast<unsigned char*>(l1) + p.l1_offset;
  auto* b = static_cast<unsigned char*>(l2) + p.l2_offset;
  if (p.is_2d()) {
    e.copy_2d(d, a, b, p.bytes, p.line_bytes, p.l2_stride, h);
  } else {
    e.copy_1d(d, a, b, p.bytes, h);
  }
}

/// Starts one command whose shape is a constant; refuses to compile if it exceeds the limits.
template <dma_piece P, hal::dma_engine E>
inline void start_command(E& e, hal::dma_dir d, void* l1, void* l2, typename E::handle& h) {
  static_assert(fits(P, E::limits),
                "A DMA command exceeds the platform's DMA limits (length, 2D line or stride); "
                "split the transfer with dma_split.");
  start_piece(e, d, P, l1, l2, h);
}

/// A transfer of constant shape in flight: the handles of its commands.
///
///   dma_transfer_group<dma_transfer::contiguous(dma_dir::l2_to_l1, 40000), E> g;
///   g.start(e, l1_buffer, l2_buffer);  ...  g.wait(e);
template <dma_transfer T, hal::dma_engine E>
class dma_transfer_group {
 public:
  using split = dma_split<T, E::limits>;
  static_assert(split::size <= E::limits.counters,
                "A DMA transfer splits into more commands than the DMA has counters; make it "
                "contiguous or smaller.");

  void start(E& e, void* l1, void* l2) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (start_command<split::pieces[I]>(e, T.dir, l1, l2, handles_[I]), ...);
    }
    (std::make_index_sequence<split::size>{});
  }
  void wait(E& e) {
    for (auto& h : handles_) e.wait(h);
  }
  static constexpr std::size_t commands() { return split::size; }

 private:
  std::array<typename E::handle, split::size> handles_{};
};

}  // namespace ctile::schedule
