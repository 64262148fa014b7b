// L3 on pulp-open: the SoC's uDMA HyperBus peripheral (HyperRAM on chip select 0), driven
// through its registers. pulp-runtime has no HyperRAM driver; this one is written from the
// public register description of the peripheral, as pulp-open's GVSoC model implements it:
//
// [A] GVSoC's model pulp/udma/hyper/udma_hyper_v3.cpp (Hyper_periph_v3, N. Bruschi) and the
//     register header it includes, archi/udma/hyper/udma_hyper_v3.h (N. Bruschi, H. Okuhara);
//     the PULP SDK's archi header for the pulp chip (archi/chips/pulp/pulp.h) selects this
//     version ("archi/udma/hyper/udma_hyper_v3.h") beside udma_v3.h and mchan_v7.h.
// [B] The HAL header that accompanies it, hal/udma/hyper/udma_hyper_v3.h: how a transfer is
//     set up (common registers, CA setup, external address) and started (SADDR, SIZE, CFG).
// [C] pulp-runtime's archi/udma/udma_v3.h: the uDMA's common layout (control area, periph
//     areas of 0x80 bytes after it, channel register bits).
// [D] gvsoc-pulp: pulp/chips/pulp_open/soc.json (the uDMA's APB window) and
//     pulp_open_board.py (HyperRAM on hyper0 chip select 0; HyperFlash on chip select 1).
// [E] pulp-platform/udma_hyperbus: rtl/hyperbus_reg_if.sv (the RTL register interface of the
//     earlier, single-transaction version of the peripheral: its size registers are
//     TRANS_SIZE = 16 bits wide, the only width of them a public source states).
// [F] The HyperBus specification (Cypress/Infineon S27KS0641 data sheet): the command-address
//     word, CA[47] R/W# (1 = read), CA[46] address space (0 = memory), CA[45] burst type
//     (1 = linear).
//
// What this driver relies on, and where from:
// - The uDMA's APB window starts at 0x1A102000 [D]. Its first 0x80 bytes are the control area
//   (UDMA_FIRST_CHANNEL_OFFSET = 0x80 [C]); register CG at offset 0 gates each peripheral's
//   clock, one bit per peripheral id [C] (GVSoC ignores an access to a peripheral whose bit
//   is clear).
// - The HyperBus peripheral is uDMA peripheral 8: its events start at SoC event 32 =
//   periph id * 4 (ARCHI_SOC_EVENT_HYPER_RX = 32, "start from periph id*4" [A]). Its area
//   (UDMA_PERIPH_OFFSET(id) = 0x80 + id * 0x80 [C]) begins at 0x1A102000 + 0x480. It spans
//   8 transaction ids of 0x80 bytes each (HYPER_CHANNELS_OFFSET = 0x80, HYPER_NB_CHANNELS = 8)
//   followed by the common registers at +0x400 [A], so it takes the uDMA's peripheral slots
//   8..16 (the pulp chip's uDMA configuration counts 17 peripherals). pulp-runtime's own
//   header for the chip does not list the HyperBus peripheral: the id is GVSoC's.
// - Per transaction id t, at base + 0x80 * t [A]:
//     0x00 RX_SADDR  L2 address the read lands at      0x0C TX_SADDR  L2 address written out
//     0x04 RX_SIZE   bytes to read                      0x10 TX_SIZE   bytes to write
//     0x08 RX_CFG    bit 4 EN starts the read           0x14 TX_CFG    bit 4 EN starts the write
//     0x18 CA_SETUP  bit 0 burst type, bit 1 address space, bit 2 read (the HyperBus CA[45],
//                    CA[46], CA[47] [F]; GVSoC reads them in this order [A])
//     0x1C HYPER_ADDR  the byte address in the HyperRAM
//     0x24 STATUS    bit 0 busy, bits 1..8 transfers queued on this id [A]
//     0x28 TWD_ACT, 0x34 TWD_ACT_L2: 2-D modes, 0 = off [A]
//   Writing RX_CFG or TX_CFG with EN queues one transfer on the id from the id's registers;
//   each id queues at most HYPER_FIFO_DEPTH = 8 [A] (a ninth is ignored). The channel's CFG
//   bits (EN bit 4, CLEAR bit 5, data size bits 1..2, continuous bit 0) are the uDMA's [C].
//   Busy clears when the id's last queued transfer has ended [A]; that is how completion is
//   seen here (by polling, from the core that started the transfer).
// - Common registers at base + 0x400 [A]: 0x00 PAGE_BOUND (4 = no page boundary), 0x04
//   T_LATENCY_ACCESS, 0x08 EN_LATENCY_ADD, 0x0C T_CS_MAX, 0x20 MEM_SEL (chip select; 0 =
//   HyperRAM on pulp-open [D]). Set up as [B] sets them up for a HyperRAM: latency 6,
//   additional latency on, CS max all ones.
// - Transfer size: the RTL's size registers hold TRANS_SIZE = 16 bits [E]; GVSoC's model keeps
//   32 bits. The documented limit (16 bits: 65,535 B a transfer) is the one respected here:
//   longer requests are split into transfers of at most udma_hyper_limits::max_transfer_bytes.
// Not found in public sources, and chosen here: whether HYPER_ADDR counts bytes or 16-bit
// words (GVSoC's controller model puts it into the command-address word unscaled [A], while
// HyperBus memories address 16-bit words [F]; bytes are used); the data-size field of CFG for
// the HyperBus channels (0, 8-bit units, as for a byte count); whether pulp-open's RTL has
// this version of the peripheral (GVSoC's pulp-open model has it; the RTL was not checked).
#pragma once

#include <cstdint>

#include "l3_memory.hpp"

namespace ctile::hal {

/// What the HyperBus peripheral accepts, stated as limits (sources above).
struct udma_hyper_limits {
  /// Bytes one transfer may move: the size registers are 16 bits wide [E]; kept a multiple
  /// of four below 2^16 so that split pieces stay word-aligned.
  std::uint32_t max_transfer_bytes = 65532;
  /// The size registers' width in bits [E].
  int size_field_bits = 16;
  /// Transfers one transaction id queues (HYPER_FIFO_DEPTH [A]).
  std::uint32_t queue_depth = 8;
  /// The HyperRAM's size (GVSoC's pulp-open board: an S27KS0641, 0x00800000 B [D]).
  std::uint32_t memory_bytes = 8u * 1024u * 1024u;
};
inline constexpr udma_hyper_limits pulp_open_hyper_limits{};

/// The register map (offsets in bytes, sources above).
namespace udma_hyper_regs {
inline constexpr std::uint32_t udma_base = 0x1A102000;  ///< uDMA APB window [D]
inline constexpr std::uint32_t udma_cg = 0x00;          ///< clock gating, bit per periph [C]
inline constexpr std::uint32_t first_periph = 0x80;     ///< UDMA_FIRST_CHANNEL_OFFSET [C]
inline constexpr std::uint32_t periph_bytes = 0x80;     ///< 1 << UDMA_PERIPH_AREA_SIZE_LOG2 [C]
inline constexpr std::uint32_t periph_id = 8;           ///< SoC event 32 / 4 [A]
inline constexpr std::uint32_t transaction_ids = 8;     ///< HYPER_NB_CHANNELS [A]
inline constexpr std::uint32_t id_stride = 0x80;        ///< HYPER_CHANNELS_OFFSET [A]
inline constexpr std::uint32_t common = id_stride * transaction_ids;  ///< common regs [A]
inline constexpr std::uint32_t base = udma_base + first_periph + periph_id * periph_bytes;
// Per transaction id [A]
inline constexpr std::uint32_t rx_saddr = 0x00;
inline constexpr std::uint32_t rx_size = 0x04;
inline constexpr std::uint32_t rx_cfg = 0x08;
inline constexpr std::uint32_t tx_saddr = 0x0C;
inline constexpr std::uint32_t tx_size = 0x10;
inline constexpr std::uint32_t tx_cfg = 0x14;
inline constexpr std::uint32_t ca_setup = 0x18;
inline constexpr std::uint32_t hyper_addr = 0x1C;
inline constexpr std::uint32_t status = 0x24;
inline constexpr std::uint32_t twd_act = 0x28;
inline constexpr std::uint32_t twd_act_l2 = 0x34;
// Common, from `common` [A]
inline constexpr std::uint32_t page_bound = 0x00;
inline constexpr std::uint32_t t_latency_access = 0x04;
inline constexpr std::uint32_t en_latency_add = 0x08;
inline constexpr std::uint32_t t_cs_max = 0x0C;
inline constexpr std::uint32_t mem_sel = 0x20;
// Fields
inline constexpr std::uint32_t cfg_en = 1u << 4;             ///< CFG: start [C]
inline constexpr std::uint32_t status_busy = 1u << 0;        ///< STATUS: busy [A]
inline constexpr std::uint32_t status_queued_shift = 1;      ///< STATUS: queued, bits 1..8 [A]
inline constexpr std::uint32_t status_queued_mask = 0xFF;    ///< HYPER_NB_TRAN_SIZE = 8 [A]
inline constexpr std::uint32_t ca_linear = 1u << 0;          ///< CA[45] linear burst [F]
inline constexpr std::uint32_t ca_register_space = 1u << 1;  ///< CA[46] [F]; 0 = memory
inline constexpr std::uint32_t ca_read = 1u << 2;            ///< CA[47] R/W# [F]
inline constexpr std::uint32_t no_page_bound = 4;            ///< PAGE_BOUND: not considered [B]
inline constexpr std::uint32_t hyperram_latency = 6;         ///< [B] for a HyperRAM
inline constexpr std::uint32_t hyperram_cs = 0;              ///< MEM_SEL: chip select 0 [D]
}  // namespace udma_hyper_regs

/// Register access on the target: 32-bit volatile loads and stores; L2 addresses are the
/// pointers' values (the SoC's L2 at 0x1C000000).
struct udma_hyper_mmio {
  void write(std::uint32_t addr, std::uint32_t v) {
    *reinterpret_cast<volatile std::uint32_t*>(static_cast<std::uintptr_t>(addr)) = v;
  }
  std::uint32_t read(std::uint32_t addr) {
    return *reinterpret_cast<volatile std::uint32_t*>(static_cast<std::uintptr_t>(addr));
  }
  std::uint32_t l2_address(const void* p) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
  }
};

/// l3_memory over the HyperBus peripheral. Reads queue on transaction id 0, writes on id 1;
/// a request longer than the size field allows is split into several transfers; a handle
/// names its id, and waiting for it waits until that id has nothing queued (so it also
/// waits for the requests started on the id before it). Transfers are started and waited
/// for by one core (the executor issues every L3 transfer on the fork's core 0).
/// `Bus` reaches the registers: udma_hyper_mmio on the target, a model in the tests.
template <class Bus = udma_hyper_mmio, udma_hyper_limits L = pulp_open_hyper_limits>
class basic_udma_hyper_l3 {
  static_assert(L.max_transfer_bytes > 0 && L.size_field_bits < 32 &&
                    L.max_transfer_bytes < (1u << L.size_field_bits),
                "udma_hyper_limits: a transfer must fit the size registers");
  static_assert(L.queue_depth > 0 && L.queue_depth <= udma_hyper_regs::status_queued_mask,
                "udma_hyper_limits: the queue depth must fit STATUS's count");

 public:
  static constexpr udma_hyper_limits limits = L;
  static constexpr std::uint32_t read_id = 0;
  static constexpr std::uint32_t write_id = read_id + 1;
  struct read_handle {
    bool pending = false;
  };
  struct write_handle {
    bool pending = false;
  };

  basic_udma_hyper_l3() = default;
  explicit basic_udma_hyper_l3(Bus bus) : bus_(bus) {}

  /// Ungates the peripheral's clock (its uDMA slots) and sets the HyperRAM's timing, chip
  /// select and page boundary; 1-D mode on the two transaction ids used. Call once, before
  /// any transfer.
  void init() {
    namespace r = udma_hyper_regs;
    std::uint32_t cg = bus_.read(r::udma_base + r::udma_cg);
    for (std::uint32_t s = 0; s <= r::transaction_ids; ++s) cg |= 1u << (r::periph_id + s);
    bus_.write(r::udma_base + r::udma_cg, cg);
    const std::uint32_t c = r::base + r::common;
    bus_.write(c + r::page_bound, r::no_page_bound);
    bus_.write(c + r::en_latency_add, 1);
    bus_.write(c + r::mem_sel, r::hyperram_cs);
    bus_.write(c + r::t_cs_max, 0xFFFFFFFFu);
    bus_.write(c + r::t_latency_access, r::hyperram_latency);
    for (std::uint32_t id = read_id; id <= write_id; ++id) {
      bus_.write(reg(id, r::twd_act), 0);
      bus_.write(reg(id, r::twd_act_l2), 0);
    }
  }

  /// Starts moving `bytes` from HyperRAM address `addr` to `l2`.
  void read(void* l2, std::uint32_t addr, std::uint32_t bytes, read_handle& h) {
    start(read_id, l2, addr, bytes);
    h.pending = bytes > 0;
  }
  /// Starts moving `bytes` from `l2` to HyperRAM address `addr`.
  void write(std::uint32_t addr, void* l2, std::uint32_t bytes, write_handle& h) {
    start(write_id, l2, addr, bytes);
    h.pending = bytes > 0;
  }
  void wait(read_handle& h) {
    if (h.pending) drain(read_id);
    h.pending = false;
  }
  void wait(write_handle& h) {
    if (h.pending) drain(write_id);
    h.pending = false;
  }

  /// The HyperRAM's size (the executor checks a plan's L3 against it).
  [[nodiscard]] std::uint32_t size() const { return L.memory_bytes; }
  /// The register access object (for the tests' model).
  Bus& bus() { return bus_; }

 private:
  static constexpr std::uint32_t reg(std::uint32_t id, std::uint32_t off) {
    return udma_hyper_regs::base + udma_hyper_regs::id_stride * id + off;
  }
  std::uint32_t queued(std::uint32_t id) {
    namespace r = udma_hyper_regs;
    return (bus_.read(reg(id, r::status)) >> r::status_queued_shift) & r::status_queued_mask;
  }
  void drain(std::uint32_t id) {
    while ((bus_.read(reg(id, udma_hyper_regs::status)) & udma_hyper_regs::status_busy) != 0) {
    }
  }
  void start(std::uint32_t id, void* l2, std::uint32_t addr, std::uint32_t bytes) {
    namespace r = udma_hyper_regs;
    const bool rd = id == read_id;
    std::uint32_t at = bus_.l2_address(l2);
    while (bytes > 0) {
      const std::uint32_t n = bytes < L.max_transfer_bytes ? bytes : L.max_transfer_bytes;
      while (queued(id) >= L.queue_depth) {
      }
      bus_.write(reg(id, r::ca_setup), r::ca_linear | (rd ? r::ca_read : 0u));
      bus_.write(reg(id, r::hyper_addr), addr);
      bus_.write(reg(id, rd ? r::rx_saddr : r::tx_saddr), at);
      bus_.write(reg(id, rd ? r::rx_size : r::tx_size), n);
      bus_.write(reg(id, rd ? r::rx_cfg : r::tx_cfg), r::cfg_en);
      at += n;
      addr += n;
      bytes -= n;
    }
  }

  Bus bus_{};
};
using udma_hyper_l3 = basic_udma_hyper_l3<>;
static_assert(l3_memory<udma_hyper_l3>);

}  // namespace ctile::hal
