// The fingerprint of a layer's output that the cluster firmware checks: FNV-1a (32 bits) over
// the output's values in HWC order, one byte per uint8 value, four little-endian bytes per
// int32 value. The host computes it from the reference at build time (reference_gen.cpp); the
// firmware from what the executor wrote, so a single wrong value changes it.
#pragma once

#include <cstdint>

namespace ctile::firmware {

inline constexpr std::uint32_t fnv_basis = 2166136261u;

constexpr std::uint32_t fnv_byte(std::uint32_t h, std::uint8_t b) {
  return (h ^ b) * 16777619u;
}

/// Adds one output value: its low byte, or all four bytes (little-endian) when `i32`.
constexpr std::uint32_t fnv_value(std::uint32_t h, std::int32_t v, bool i32) {
  const auto u = static_cast<std::uint32_t>(v);
  if (!i32) return fnv_byte(h, static_cast<std::uint8_t>(u));
  for (int b = 0; b < 4; ++b) h = fnv_byte(h, static_cast<std::uint8_t>(u >> (8 * b)));
  return h;
}

}  // namespace ctile::firmware
