// Portable C++ definitions of the PULP / CORE-V instructions the kernels use. Each function
// is the instruction's definition, written so that a plain RV32IMC (or host) compiler turns
// it into straight-line integer code. The other backends must agree with these bit for bit.
#pragma once

#include <bit>
#include <cstdint>

namespace ctile::kernels::arch::portable {

inline constexpr const char* name = "portable";

/// Byte `i` (0 = least significant) of a word, unsigned.
constexpr std::uint32_t ubyte(std::uint32_t w, int i) {
  return (w >> (8 * i)) & 0xFFu;
}
/// Byte `i` of a word, sign-extended.
constexpr std::int32_t sbyte(std::uint32_t w, int i) {
  return static_cast<std::int32_t>(ubyte(w, i) ^ 0x80u) - 0x80;
}

/// cv.sdotusp.b / __builtin_pulp_sdotusp4: acc + sum_i u8(a_i) * s8(b_i), wrapping on 32 bits.
constexpr std::int32_t sdotusp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  std::uint32_t r = static_cast<std::uint32_t>(acc);
  for (int i = 0; i < 4; ++i)
    r += static_cast<std::uint32_t>(static_cast<std::int32_t>(ubyte(a, i)) * sbyte(b, i));
  return static_cast<std::int32_t>(r);
}

/// cv.sdotsp.b / __builtin_pulp_sdotsp4: acc + sum_i s8(a_i) * s8(b_i), wrapping on 32 bits.
constexpr std::int32_t sdotsp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  std::uint32_t r = static_cast<std::uint32_t>(acc);
  for (int i = 0; i < 4; ++i) r += static_cast<std::uint32_t>(sbyte(a, i) * sbyte(b, i));
  return static_cast<std::int32_t>(r);
}

/// cv.maxu.b / __builtin_pulp_maxu4: byte-wise unsigned maximum.
constexpr std::uint32_t maxu4(std::uint32_t a, std::uint32_t b) {
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t x = ubyte(a, i);
    const std::uint32_t y = ubyte(b, i);
    r |= (x > y ? x : y) << (8 * i);
  }
  return r;
}

/// cv.clipur / __builtin_pulp_clipu_r: 0 if x <= 0, hi if x >= hi, else x (hi >= 0).
constexpr std::int32_t clipu_r(std::int32_t x, std::int32_t hi) {
  return x <= 0 ? 0 : (x >= hi ? hi : x);
}

/// Clip to the unsigned range of p bits, [0, 2^p - 1] (p in 0..31; p = 8 gives [0, 255]): the GAP
/// SDK's __CLIPU(x, p). (The p.clipu / cv.clipu instructions encode the same clip with the
/// immediate p + 1; the name says bits of the result so that the two cannot be confused.)
constexpr std::int32_t clipu_bits(std::int32_t x, int p) {
  return clipu_r(x, static_cast<std::int32_t>((std::uint32_t{1} << p) - 1u));
}

/// cv.max / cv.min (signed).
constexpr std::int32_t max(std::int32_t a, std::int32_t b) {
  return a > b ? a : b;
}
constexpr std::int32_t min(std::int32_t a, std::int32_t b) {
  return a < b ? a : b;
}

/// cv.pack / __builtin_pulp_pack4: four bytes into a word, `a` in the least significant byte.
constexpr std::uint32_t pack4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return (a & 0xFFu) | ((b & 0xFFu) << 8) | ((c & 0xFFu) << 16) | ((d & 0xFFu) << 24);
}

/// A little-endian 32-bit load from any address (the cores allow misaligned words).
inline std::uint32_t load4(const void* p) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  return pack4(b[0], b[1], b[2], b[3]);
}
inline void store4(void* p, std::uint32_t v) {
  auto* b = static_cast<std::uint8_t*>(p);
  b[0] = static_cast<std::uint8_t>(v);
  b[1] = static_cast<std::uint8_t>(v >> 8);
  b[2] = static_cast<std::uint8_t>(v >> 16);
  b[3] = static_cast<std::uint8_t>(v >> 24);
}

/// Word load/store from a 4-byte aligned address (one lw/sw on RV32).
inline std::uint32_t load4a(const void* p) {
  static_assert(std::endian::native == std::endian::little, "the kernels assume little endian");
  std::uint32_t v;
  __builtin_memcpy(&v, __builtin_assume_aligned(p, 4), 4);
  return v;
}
inline void store4a(void* p, std::uint32_t v) {
  __builtin_memcpy(__builtin_assume_aligned(p, 4), &v, 4);
}

/// Copies `n` words between 4-byte aligned buffers.
inline void copy_words(void* d, const void* s, int n) {
  auto* dd = static_cast<std::uint8_t*>(d);
  const auto* ss = static_cast<const std::uint8_t*>(s);
  for (int i = 0; i < n; ++i) store4a(dd + 4 * i, load4a(ss + 4 * i));
}

}  // namespace ctile::kernels::arch::portable
