// What compilers may call in a freestanding program: memcpy/memset/memmove, and the exit.
#include <cstddef>

#include "platform.hpp"

extern "C" {
void* memcpy(void* d, const void* s, std::size_t n) {
  auto* dd = static_cast<unsigned char*>(d);
  const auto* ss = static_cast<const unsigned char*>(s);
  while (n-- != 0) *dd++ = *ss++;
  return d;
}
void* memmove(void* d, const void* s, std::size_t n) {
  auto* dd = static_cast<unsigned char*>(d);
  const auto* ss = static_cast<const unsigned char*>(s);
  if (dd < ss) {
    while (n-- != 0) *dd++ = *ss++;
  } else {
    while (n != 0) --n, dd[n] = ss[n];
  }
  return d;
}
void* memset(void* d, int v, std::size_t n) {
  auto* dd = static_cast<unsigned char*>(d);
  while (n-- != 0) *dd++ = static_cast<unsigned char>(v);
  return d;
}
int memcmp(const void* a, const void* b, std::size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (; n != 0; --n, ++x, ++y)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}
[[noreturn]] void bench_exit(int code) {
  bench::exit_with(static_cast<std::uint32_t>(code));
  for (;;) {
  }
}
}
