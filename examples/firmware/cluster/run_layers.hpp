// The cluster firmware's program, written once for every board (boards.hpp): generate the
// network's synthetic data into its places (stage_synthetic.hpp: L2, and L3 through the
// board's L3 HAL, a block at a time), run it through the executor on the board's DMA and cluster,
// time every layer on core 0, check every layer's output against the fingerprint embedded at build
// time, and print one line per layer and a total:
//
//   layer=<i> name=<name> macs=<n> cycles=<n> outside=<n> ok=<0|1>
//   total macs=<n> cycles=<n> outside=<n> ok=<0|1>
//
// cycles: core 0's cycle counter from the end of the previous layer (or the start of the run)
// to the end of this one, the output check excluded. outside: the part of those cycles core 0
// spent outside its own kernel calls (DMA programming and waits, tile bookkeeping, the fork
// and the join with the other cores, their imbalance included). macs: the plan's count.
//
// The requantization constants, computed at start-up, live in the cluster's L1
// (CTILE_L1_DATA), whose bytes the plan's L1 budget gives up (with_hot_tables). The layers,
// their plans and L2/L3 placements stay the executor's constants in the image's read-only
// data (L2): the specialised loop nests read none of them per tile, only the per-layer path
// does (bench/README.md, "The executor's per-layer path"), and copies in L1 (768 B a layer)
// cost deep networks their tiles (MobileNet-v1 1.0-128 on pulp_open: 23,040 B of L1, 6,032
// tiles instead of 1,180).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctile/ctile.hpp>
#include <ctile/platform/pulp_open.hpp>
#include <ctile/schedule/executor.hpp>
#include <type_traits>

#include "cluster/fw_hash.hpp"
#include "cluster/stage_synthetic.hpp"

namespace ctile::firmware {

/// Runs the tile kernels and adds core 0's cycles inside them to `core0_cycles`.
template <class Clock>
struct timed_kernels {
  static inline std::uint32_t core0_cycles = 0;
  static void run(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    if (core != 0) {
      kernels::run(k, a, core);
      return;
    }
    const std::uint32_t t0 = Clock::now();
    kernels::run(k, a, core);
    core0_cycles += Clock::now() - t0;
  }
};

/// The fingerprint of layer `l`'s output as the executor stored it (HWC, or channel-major
/// when `chw`), in HWC order; `byte(i)` is the output's byte i.
template <class Byte>
std::uint32_t fingerprint(const layer& l, Byte&& byte, bool chw) {
  const bool i32 = l.output() == output_kind::i32;
  const auto n = static_cast<std::size_t>(l.out.elements());
  std::uint32_t h = fnv_basis;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t at = schedule::output_element(l, chw, k);
    if (i32) {
      for (std::size_t b = 0; b < 4; ++b) h = fnv_byte(h, byte(4 * at + b));
    } else {
      h = fnv_byte(h, byte(at));
    }
  }
  return h;
}

/// Bytes of an output in L3, read through the board's L3 HAL a window at a time into L2.
template <class L3>
struct l3_window {
  static constexpr std::uint32_t size = 512;
  L3& l3;
  std::uint32_t base;   ///< the output's L3 address
  std::uint32_t bytes;  ///< the output's size
  alignas(8) static inline std::uint8_t buf[size];
  std::uint32_t lo = 1, hi = 0;  ///< the window holds output bytes [lo, hi)
  std::uint8_t operator()(std::size_t i) {
    const auto at = static_cast<std::uint32_t>(i);
    if (at < lo || at >= hi) {
      lo = at / size * size;
      hi = bytes - lo < size ? bytes : lo + size;
      typename L3::read_handle r;
      l3.read(buf, base + lo, hi - lo, r);
      l3.wait(r);
    }
    return buf[at - lo];
  }
};

/// What the program keeps in L1 for an N-layer network: the layers' requantization constants,
/// which each layer's loop nest and kernels read where they are.
template <std::size_t N>
struct hot_tables {
  std::array<kernels::requant_plan, N> quant;
};

/// L1 bytes the hot tables of an N-layer network take (16-byte granules).
template <std::size_t N>
inline constexpr int hot_l1_bytes = static_cast<int>((sizeof(hot_tables<N>) + 15) / 16 * 16);

/// `base` with the L1 the hot tables of `Net` take given up: the platform the images plan for.
template <network_type Net>
constexpr platform with_hot_tables(const platform& base) {
  return base.with_l1(base.l1_bytes - hot_l1_bytes<Net::size>);
}

/// Per-layer results, printed after the run.
struct layer_result {
  std::uint32_t cycles = 0;
  std::uint32_t outside = 0;
  bool ok = false;
};

/// The program for network `Net` planned for `Plat` on `Board`; `want` holds every layer's
/// reference fingerprint, `hot` the requantization constants' room (in L1). Returns 0 when
/// every layer matched.
template <network_type Net, platform Plat, class Board>
int run_layers(const char* title, const std::uint32_t (&want)[Net::size],
               hot_tables<Net::size>& hot) {
  using E = executor<Net, Plat>;
  using clock = typename Board::clock;
  using kernels_t = timed_kernels<clock>;
  static_assert(Board::template supports<E>(), "the board cannot run this plan");
  static_assert(E::required_l1_bytes + hot_l1_bytes<Net::size> <= Board::plat.l1_budget(),
                "The tile buffers and the hot tables together exceed the board's L1 budget.");

  // Constant data and input, generated on the target (the same values as the host's
  // reference, examples::synthetic<Net>{1}) block by block into the L2 arena and, through the
  // board's L3 HAL, into L3; the requantization constants computed into the hot tables.
  alignas(8) static std::uint8_t l2[E::required_l2_bytes];
  typename Board::template l3_memory<E> l3;
  auto& l3m = l3.memory();
  const auto put_l3 = [&](std::uint32_t at, const std::uint8_t* from, std::uint32_t n) {
    typename std::remove_reference_t<decltype(l3m)>::write_handle w;
    l3m.write(at, const_cast<std::uint8_t*>(from), n, w);
    l3m.wait(w);
    return true;
  };
  const run_status s =
      stage_synthetic<Net, Plat>(1, l2, arena_scratch<Net, E>(l2), put_l3,
                                 std::span<kernels::requant_plan, Net::size>(hot.quant));
  if (!s.ok()) {
    std::printf("error: layer %d: the %s given has %lld, expected %lld\n", s.layer,
                field_name(s.what), static_cast<long long>(s.got),
                static_cast<long long>(s.expected));
    return 1;
  }
  std::uint8_t* l1 = Board::template l1<E::required_l1_bytes>();
  if (l1 == nullptr) {
    std::printf("error: no %d bytes of L1 for the tile buffers\n", E::required_l1_bytes);
    return 1;
  }

  typename Board::dma dma;
  typename Board::cluster cluster;
  const int cores = cluster.cores();
  schedule::exec_env<typename Board::dma, typename Board::cluster, schedule::no_checks, kernels_t>
      env{dma, cluster, {}, cores};
  static layer_result results[Net::size];

  clock::start();
  kernels_t::core0_cycles = 0;
  std::uint32_t inside_before = 0;
  std::uint32_t t_prev = clock::now();
  E::run_static(env, l3m, hot.quant, l1, l2, [&](const schedule::layer_output& o) {
    const std::uint32_t t = clock::now();
    const std::uint32_t inside = kernels_t::core0_cycles;
    const auto i = static_cast<std::size_t>(o.index);
    layer_result& r = results[i];
    r.cycles = t - t_prev;
    r.outside = r.cycles - (inside - inside_before);
    if (o.l2 != nullptr) {
      r.ok = fingerprint(
                 Net::layers[i], [&](std::size_t b) { return o.l2[b]; }, o.chw) == want[i];
    } else {  // in L3: read back through the L3 HAL
      l3_window<std::remove_reference_t<decltype(l3m)>> w{
          l3m, static_cast<std::uint32_t>(o.l3_offset), static_cast<std::uint32_t>(o.bytes)};
      r.ok = fingerprint(Net::layers[i], w, o.chw) == want[i];
    }
    inside_before = kernels_t::core0_cycles;
    t_prev = clock::now();
  });

  std::printf("image=%s platform=%s cores=%d l1_tables=%u@0x%08x\n", title, Plat.name.c_str(),
              cores, static_cast<unsigned>(sizeof hot),
              static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(&hot)));
  std::uint32_t macs = 0, cycles = 0, outside = 0;
  bool all_ok = true;
  for (std::size_t i = 0; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    const layer_result& r = results[i];
    const auto m = static_cast<std::uint32_t>(E::plan.layers[i].macs);
    std::printf("layer=%u name=%s macs=%u cycles=%u outside=%u ok=%d\n", static_cast<unsigned>(i),
                l.name.empty() ? "-" : l.name.c_str(), static_cast<unsigned>(m),
                static_cast<unsigned>(r.cycles), static_cast<unsigned>(r.outside), r.ok ? 1 : 0);
    macs += m;
    cycles += r.cycles;
    outside += r.outside;
    all_ok = all_ok && r.ok;
  }
  std::printf("total macs=%u cycles=%u outside=%u ok=%d\n", static_cast<unsigned>(macs),
              static_cast<unsigned>(cycles), static_cast<unsigned>(outside), all_ok ? 1 : 0);
  return all_ok ? 0 : 1;
}

}  // namespace ctile::firmware
