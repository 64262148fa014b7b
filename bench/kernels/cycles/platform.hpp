// The bare machine under a cycle program: character output, exit, counters, and the few
// libc symbols compilers may call. No libc, no heap.
#pragma once

#include <cstdint>

namespace bench {

#if defined(CTILE_BENCH_VIRT)
// QEMU virt: UART 16550 transmit register; SiFive test device (0x5555 pass, code << 16 | 0x3333
// fail).
inline volatile std::uint8_t* const putc_reg = reinterpret_cast<volatile std::uint8_t*>(0x10000000);
inline void exit_with(std::uint32_t code) {
  auto* test = reinterpret_cast<volatile std::uint32_t*>(0x100000);
  *test = code == 0 ? 0x5555u : ((code << 16) | 0x3333u);
}
#else
// The core model: a byte to 0x10000000 is printed, a word to 0x20000000 ends the run.
inline volatile std::uint8_t* const putc_reg = reinterpret_cast<volatile std::uint8_t*>(0x10000000);
inline void exit_with(std::uint32_t code) {
  *reinterpret_cast<volatile std::uint32_t*>(0x20000000) = code;
}
#endif

inline void put(char c) {
  *putc_reg = static_cast<std::uint8_t>(c);
}
inline void put(const char* s) {
  while (*s != 0) put(*s++);
}
inline void put(std::uint64_t v) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) put(buf[--n]);
}

struct counters {
  std::uint32_t cycles;
  std::uint32_t instret;
};
// CSR accesses spelled with .insn (SYSTEM opcode 0x73), so that toolchains without an explicit
// zicsr in -march assemble them: csrw mcountinhibit (0x320), csrr mcycle (0xB00), minstret
// (0xB02); the 12-bit field holds the CSR number as a signed immediate.
inline void enable_counters() {
  __asm__ volatile(".insn i 0x73, 1, x0, x0, 0x320");
}
inline counters read_counters() {
  counters c;
  __asm__ volatile(".insn i 0x73, 2, %0, x0, -1280" : "=r"(c.cycles));
  __asm__ volatile(".insn i 0x73, 2, %0, x0, -1278" : "=r"(c.instret));
  return c;
}

/// kernel=<name> macs=<n> cycles=<n> instret=<n> ok=<0|1>
inline void report(const char* name, std::uint64_t macs, counters a, counters b, bool ok) {
  put("kernel=");
  put(name);
  put(" macs=");
  put(macs);
  put(" cycles=");
  put(std::uint64_t{b.cycles - a.cycles});
  put(" instret=");
  put(std::uint64_t{b.instret - a.instret});
  put(" ok=");
  put(ok ? "1" : "0");
  put('\n');
}

/// Deterministic data.
struct lcg {
  std::uint32_t s = 0x1234567u;
  std::uint32_t next() {
    s = s * 1664525u + 1013904223u;
    return s >> 8;
  }
};

}  // namespace bench

extern "C" {
int main();
[[noreturn]] void bench_exit(int code);
}
