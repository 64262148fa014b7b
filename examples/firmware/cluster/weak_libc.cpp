// memcpy, memmove and memset for the pulp-runtime images, whose minimal libc may lack the ones
// the compiler emits calls to. Weak: a libc that has them wins. The empty asm statements keep
// the optimiser from turning the loops back into calls to these very functions.
#include <cstddef>

extern "C" {

[[gnu::weak]] void* memcpy(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (; n > 0; --n) {
    *d++ = *s++;
    __asm__("" : "+r"(d), "+r"(s));
  }
  return dst;
}

[[gnu::weak]] void* memmove(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d <= s) return memcpy(dst, src, n);
  d += n;
  s += n;
  for (; n > 0; --n) {
    *--d = *--s;
    __asm__("" : "+r"(d), "+r"(s));
  }
  return dst;
}

[[gnu::weak]] void* memset(void* dst, int v, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  for (; n > 0; --n) {
    *d++ = static_cast<unsigned char>(v);
    __asm__("" : "+r"(d));
  }
  return dst;
}
}
