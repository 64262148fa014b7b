// Cycle-level harness for the CV32E40P core (cv32e40p_top) under Verilator.
// Memory model: 1 MiB RAM at 0x0 behind both OBI ports, grant in the cycle of the request,
// response (rvalid) in the next cycle. MMIO: a byte stored to 0x10000000 is printed, a word
// stored to 0x20000000 ends the run with that value as exit code.
//   tb <program.elf> [max_cycles]
#include "Vcv32e40p_top.h"
#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace {

constexpr uint32_t kRamSize = 1u << 20;
constexpr uint32_t kPutc = 0x10000000u;
constexpr uint32_t kExit = 0x20000000u;
constexpr uint32_t kBoot = 0x80u;

struct Elf32Header {
  unsigned char ident[16];
  uint16_t type, machine;
  uint32_t version, entry, phoff, shoff, flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct Elf32Phdr {
  uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

bool load_elf(const char* path, std::vector<uint8_t>& ram) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "tb: cannot open %s\n", path);
    return false;
  }
  std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf32Header h;
  if (f.size() < sizeof h ||
      std::memcmp(f.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      f[4] != 1) {
    std::fprintf(stderr, "tb: %s is not a 32-bit ELF file\n", path);
    return false;
  }
  std::memcpy(&h, f.data(), sizeof h);
  for (unsigned i = 0; i < h.phnum; ++i) {
    Elf32Phdr p;
    const size_t at = h.phoff + size_t{i} * h.phentsize;
    if (at + sizeof p > f.size()) return false;
    std::memcpy(&p, f.data() + at, sizeof p);
    if (p.type != 1 || p.memsz == 0) continue;  // PT_LOAD only
    if (uint64_t{p.paddr} + p.memsz > kRamSize || uint64_t{p.offset} + p.filesz > f.size()) {
      std::fprintf(stderr, "tb: segment at 0x%08x (%u bytes) is outside the 1 MiB RAM\n", p.paddr,
                   p.memsz);
      return false;
    }
    std::memcpy(ram.data() + p.paddr, f.data() + p.offset, p.filesz);
    std::memset(ram.data() + p.paddr + p.filesz, 0, p.memsz - p.filesz);
  }
  return true;
}

uint32_t read_word(const std::vector<uint8_t>& ram, uint32_t addr) {
  addr &= ~3u;
  if (addr >= kRamSize) return 0;
  uint32_t w;
  std::memcpy(&w, ram.data() + addr, 4);
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <program.elf> [max_cycles]\n", argv[0]);
    return 2;
  }
  const uint64_t max_cycles = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 200000000ull;
  std::vector<uint8_t> ram(kRamSize, 0);
  if (!load_elf(argv[1], ram)) return 2;

  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vcv32e40p_top>(ctx.get());
  top->clk_i = 0;
  top->rst_ni = 0;
  top->pulp_clock_en_i = 1;
  top->scan_cg_en_i = 0;
  top->boot_addr_i = kBoot;
  top->mtvec_addr_i = 0;
  top->dm_halt_addr_i = 0x1A110800u;
  top->hart_id_i = 0;
  top->dm_exception_addr_i = 0x1A110808u;
  top->irq_i = 0;
  top->debug_req_i = 0;
  top->fetch_enable_i = 1;
  top->instr_gnt_i = 0;
  top->instr_rvalid_i = 0;
  top->instr_rdata_i = 0;
  top->data_gnt_i = 0;
  top->data_rvalid_i = 0;
  top->data_rdata_i = 0;

  bool i_pend = false, d_pend = false;
  uint32_t i_rdata = 0, d_rdata = 0;
  bool done = false;
  uint32_t exit_code = 0;
  uint64_t cycle = 0;
  unsigned bad_accesses = 0;
  for (; cycle < max_cycles && !done; ++cycle) {
    // Low phase: responses to last cycle's granted requests, then grant what is requested.
    top->clk_i = 0;
    top->rst_ni = cycle >= 8;
    top->instr_rvalid_i = i_pend;
    top->instr_rdata_i = i_rdata;
    top->data_rvalid_i = d_pend;
    top->data_rdata_i = d_rdata;
    top->eval();
    top->instr_gnt_i = top->instr_req_o;
    top->data_gnt_i = top->data_req_o;
    top->eval();

    i_pend = false;
    d_pend = false;
    if (top->instr_req_o) {
      i_pend = true;
      i_rdata = read_word(ram, top->instr_addr_o);
    }
    if (top->data_req_o) {
      d_pend = true;
      const uint32_t addr = top->data_addr_o;
      const uint32_t be = top->data_be_o;
      const uint32_t wdata = top->data_wdata_o;
      d_rdata = 0;
      if (top->data_we_o) {
        if ((addr & ~3u) == kPutc) {
          for (unsigned b = 0; b < 4; ++b)
            if (be & (1u << b)) std::putchar(static_cast<int>((wdata >> (8 * b)) & 0xFF));
          std::fflush(stdout);
        } else if ((addr & ~3u) == kExit) {
          exit_code = wdata;
          done = true;
        } else if (addr < kRamSize) {
          for (unsigned b = 0; b < 4; ++b)
            if (be & (1u << b)) ram[(addr & ~3u) + b] = static_cast<uint8_t>(wdata >> (8 * b));
        } else if (++bad_accesses <= 4) {
          std::fprintf(stderr, "tb: store to unmapped address 0x%08x at cycle %llu\n", addr,
                       static_cast<unsigned long long>(cycle));
        }
      } else {
        if (addr < kRamSize)
          d_rdata = read_word(ram, addr);
        else if (++bad_accesses <= 4)
          std::fprintf(stderr, "tb: load from unmapped address 0x%08x at cycle %llu\n", addr,
                       static_cast<unsigned long long>(cycle));
      }
    }
    // Rising edge.
    top->clk_i = 1;
    top->eval();
    ctx->timeInc(1);
  }
  top->final();
  if (!done) {
    std::fprintf(stderr, "tb: no exit after %llu cycles\n", static_cast<unsigned long long>(cycle));
    return 3;
  }
  std::fprintf(stderr, "tb: exit %u after %llu simulated cycles\n", exit_code,
               static_cast<unsigned long long>(cycle));
  return static_cast<int>(exit_code & 0xFF);
}
