// A register-level model of pulp-open's uDMA HyperBus peripheral (HyperRAM on chip select 0),
// written from the public description (GVSoC's udma_hyper_v3 model and register header,
// pulp-runtime's udma_v3 layout, the udma_hyperbus RTL's 16-bit size registers, the HyperBus
// command-address bits), not from ctile's driver: it keeps its own register file, queues a
// transfer when a channel's CFG is written with EN, moves its bytes only when the core polls
// STATUS (one queued transfer per poll, as late as the hardware may), truncates the size
// registers to their 16 bits, drops a ninth transfer on a full id, and records every misuse.
// Used by the driver's tests (test_udma_hyper.cpp) and the pulp-runtime HAL's
// (tests/pulp_runtime).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <vector>

namespace ctile::test {

class hyper_model {
 public:
  // The uDMA's window (gvsoc-pulp soc.json "udma": 0x1A102000); its control area's first
  // register gates the clocks, bit i for peripheral i (udma_v3.h UDMA_CONF_CG_OFFSET 0).
  static constexpr std::uint32_t udma = 0x1A102000;
  // Peripheral areas of 128 B follow the control area's 128 B (UDMA_FIRST_CHANNEL_OFFSET);
  // the HyperBus peripheral is number 8 (its first SoC event is 32, four events a
  // peripheral) and spans 8 transaction ids of 128 B plus 40 B of common registers.
  static constexpr int periph = 8;
  static constexpr std::uint32_t window = udma + 128 + 128 * periph;
  static constexpr std::uint32_t window_end = window + 8 * 128 + 10 * 4;
  // L2 as the SoC addresses it.
  static constexpr std::uint32_t l2_base = 0x1C000000;

  struct transfer {
    int id = 0;
    bool read = false;  // HyperRAM to L2
    std::uint32_t l2 = 0, ext = 0, size = 0;
  };

  std::vector<std::uint8_t> ram = std::vector<std::uint8_t>(8u << 20);  // S27KS0641: 8 MiB
  std::span<std::uint8_t> l2;                                           // what l2_base maps to
  std::vector<std::string> problems;
  std::vector<transfer> started;  // every transfer queued, in order
  std::size_t max_queued = 0;
  /// STATUS polls per completed transfer (a slower memory when larger).
  int polls_per_transfer = 1;

  void write(std::uint32_t a, std::uint32_t v) {
    if (a == udma) {
      cg_ = v;
      return;
    }
    if (a < window || a >= window_end || a % 4 != 0) {
      problems.push_back("write outside the HyperBus registers at " + hex(a));
      return;
    }
    if (((cg_ >> periph) & 1u) == 0) {
      problems.push_back("register write while the peripheral's clock is gated");
      return;
    }
    const std::uint32_t off = a - window;
    if (off >= 8 * 128) {
      common_[(off - 8 * 128) / 4] = v;
      return;
    }
    const int id = static_cast<int>(off / 128);
    const std::uint32_t r = off % 128;
    // The 16 registers of an id: 0 RX_SADDR, 1 RX_SIZE, 2 RX_CFG, 3 TX_SADDR, 4 TX_SIZE,
    // 5 TX_CFG, 6 CA_SETUP, 7 HYPER_ADDR, 8 HYPER_CFG, 9 STATUS, 10-15 the 2-D registers.
    const std::uint32_t k = r / 4;
    if (k == 9) {
      problems.push_back("STATUS written");
      return;
    }
    // The size registers are TRANS_SIZE = 16 bits in the RTL (hyperbus_reg_if.sv).
    chan_[id][k] = (k == 1 || k == 4) ? (v & 0xFFFFu) : v;
    if ((k == 2 || k == 5) && (v & (1u << 4)) != 0) enqueue(id, k == 2);
    if ((k == 2 || k == 5) && (v & (1u << 5)) != 0) problems.push_back("channel clear requested");
  }

  std::uint32_t read(std::uint32_t a) {
    if (a == udma) return cg_;
    if (a < window || a >= window_end) {
      problems.push_back("read outside the HyperBus registers at " + hex(a));
      return 0;
    }
    const std::uint32_t off = a - window;
    if (off < 8 * 128 && (off % 128) / 4 == 9) {
      step();  // the peripheral makes progress while the core polls
      const auto& q = queue_[off / 128];
      return (q.empty() ? 0u : 1u) | (static_cast<std::uint32_t>(q.size()) << 1);
    }
    problems.push_back("read of a register other than STATUS at " + hex(a));
    return 0;
  }

  std::uint32_t address_of(const void* p) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    if (b < l2.data() || b > l2.data() + l2.size()) {
      problems.push_back("an L2 pointer outside L2");
      return 0;
    }
    return l2_base + static_cast<std::uint32_t>(b - l2.data());
  }

  [[nodiscard]] bool idle() const {
    for (const auto& q : queue_)
      if (!q.empty()) return false;
    return true;
  }

 private:
  static std::string hex(std::uint32_t a) {
    char s[16];
    std::snprintf(s, sizeof s, "0x%08x", static_cast<unsigned>(a));
    return s;
  }

  void enqueue(int id, bool rx) {
    const auto& c = chan_[id];
    // Common set-up (HyperRAM on chip select 0, no page boundary), 1-D mode, and a
    // command-address word for a linear burst to memory whose R/W# bit matches the channel
    // (CA_SETUP bit 0 burst type, bit 1 address space, bit 2 read).
    if (common_[8] != 0) problems.push_back("MEM_SEL is not the HyperRAM (chip select 0)");
    if (common_[0] != 4) problems.push_back("page boundary left on");
    if (c[10] != 0 || c[13] != 0) problems.push_back("a 2-D mode left on");
    const std::uint32_t ca = c[6];
    if ((ca & 1u) == 0) problems.push_back("wrapped burst");
    if ((ca & 2u) != 0) problems.push_back("register address space");
    if (((ca >> 2) & 1u) != (rx ? 1u : 0u)) problems.push_back("CA R/W# against the channel");
    transfer t{id, rx, rx ? c[0] : c[3], c[7], rx ? c[1] : c[4]};
    if (t.size == 0) problems.push_back("a transfer of 0 bytes");
    auto& q = queue_[static_cast<std::size_t>(id)];
    if (q.size() == 8) {
      problems.push_back("a ninth transfer on a full transaction id (dropped)");
      return;
    }
    q.push_back(t);
    started.push_back(t);
    max_queued = std::max(max_queued, q.size());
  }

  void step() {
    if (++polls_ % polls_per_transfer != 0) return;
    for (int k = 0; k < 8; ++k) {
      auto& q = queue_[static_cast<std::size_t>((next_ + k) % 8)];
      if (q.empty()) continue;
      complete(q.front());
      q.pop_front();
      next_ = (next_ + k + 1) % 8;
      return;
    }
  }

  void complete(const transfer& t) {
    if (t.l2 < l2_base || std::uint64_t{t.l2 - l2_base} + t.size > l2.size()) {
      problems.push_back("a transfer outside L2");
      return;
    }
    if (std::uint64_t{t.ext} + t.size > ram.size()) {
      problems.push_back("a transfer past the end of the HyperRAM");
      return;
    }
    std::uint8_t* m = l2.data() + (t.l2 - l2_base);
    if (t.read) {
      std::memcpy(m, ram.data() + t.ext, t.size);
    } else {
      std::memcpy(ram.data() + t.ext, m, t.size);
    }
  }

  std::uint32_t cg_ = 0;
  std::array<std::array<std::uint32_t, 16>, 8> chan_{};
  std::array<std::uint32_t, 10> common_{};
  std::array<std::deque<transfer>, 8> queue_{};
  int next_ = 0;
  int polls_ = 0;
};

/// The driver's bus onto the model.
struct model_bus {
  hyper_model* m = nullptr;
  void write(std::uint32_t a, std::uint32_t v) { m->write(a, v); }
  std::uint32_t read(std::uint32_t a) { return m->read(a); }
  std::uint32_t l2_address(const void* p) { return m->address_of(p); }
};

}  // namespace ctile::test
