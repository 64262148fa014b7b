// PULP toolchain backend (GCC/LLVM with `__builtin_pulp_*`, Xpulpv2): the builtins take
// 4 x 8-bit vector operands, the kernels pass words, so each call reinterprets its arguments.
#pragma once

#include <bit>
#include <cstdint>

#include "ctile/kernels/arch/portable.hpp"

namespace ctile::kernels::arch::pulp {

inline constexpr const char* name = "pulp";

using portable::pack4;
using portable::sbyte;
using portable::ubyte;

typedef std::uint8_t v4u __attribute__((vector_size(4)));
typedef std::int8_t v4s __attribute__((vector_size(4)));

inline std::int32_t sdotusp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  return __builtin_pulp_sdotusp4(std::bit_cast<v4u>(a), std::bit_cast<v4s>(b), acc);
}
inline std::int32_t sdotsp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  return __builtin_pulp_sdotsp4(std::bit_cast<v4s>(a), std::bit_cast<v4s>(b), acc);
}
inline std::uint32_t maxu4(std::uint32_t a, std::uint32_t b) {
  return std::bit_cast<std::uint32_t>(
      __builtin_pulp_maxu4(std::bit_cast<v4u>(a), std::bit_cast<v4u>(b)));
}
/// p.clipur: 0 if x <= 0, hi if x >= hi, else x (the GAP SDK's __CLIPU_R(x, hi)).
inline std::int32_t clipu_r(std::int32_t x, std::int32_t hi) {
  return __builtin_pulp_clipu_r(x, hi);
}
/// Clip to the unsigned range of p bits, [0, 2^p - 1] (p in 0..31): the GAP SDK's
/// __CLIPU(x, p), which is __builtin_pulp_clipu(x, 0, 2^p - 1), i.e. p.clipu with the
/// immediate p + 1 (the RI5CY manual's p.clipu bound is 2^(Is2-1) - 1). Named for the bits of
/// the result so that the SDK's parameter and the instruction's immediate cannot be confused.
inline std::int32_t clipu_bits(std::int32_t x, int p) {
  return clipu_r(x, static_cast<std::int32_t>((std::uint32_t{1} << p) - 1u));
}
inline std::int32_t max(std::int32_t a, std::int32_t b) {
  return a > b ? a : b;
}
inline std::int32_t min(std::int32_t a, std::int32_t b) {
  return a < b ? a : b;
}
/// Words at any address (the cores handle misaligned accesses): an under-aligned, aliasing
/// word type makes the access defined for the compiler.
typedef std::uint32_t any_word __attribute__((aligned(1), may_alias));
inline std::uint32_t load4(const void* p) {
  return *static_cast<const any_word*>(p);
}
inline void store4(void* p, std::uint32_t v) {
  *static_cast<any_word*>(p) = v;
}

using portable::copy_words;
using portable::load4a;
using portable::store4a;

}  // namespace ctile::kernels::arch::pulp
