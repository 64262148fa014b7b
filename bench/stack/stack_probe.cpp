// The stack each core of the cluster needs to run ctile's code, for stack_need.py to read off
// the machine code (no run needed). Core 0 runs the executor: every layer's loop nest, its DMA
// commands and L3 transfers, and its own share of every kernel fork; the other cores run only
// the fork bodies (their share of the kernels, and of a depthwise input's marshalling). So:
// - master root: master_entry<Net>, the executor's run over network Net on core 0;
// - worker roots: worker_entry<F>, one function per fork body, through which the cluster
//   stand-in runs the other cores' share (as pulp-runtime's and PMSIS' team forks reach a body
//   through a function pointer), and any_kernel, which reaches every kernel variant (the 16-bit
//   ones included), whatever network a user builds.
// The budgets stack_need.py checks against are the platform's own figures, kept in the image as
// ctile_stack_budget_master and ctile_stack_budget_worker. The DMA and L3 stand-ins program
// registers inline, as the pulp-runtime HAL's mchan calls do; what a vendor runtime adds below
// a DMA call or around a fork (its team dispatch, an interrupt) is outside this image and is
// the margin check_stack.py gives stack_need.py (256 B).
// Run (QEMU virt, semihosting), the probe also measures what the networks' runs use: the stack
// below main's frame and below each worker_entry's is painted with a pattern before and
// scanned after, and the deepest use is printed (`stack used: master M worker W`), for
// check_stack.py to hold against the bound read off the code (no data moves and the kernels
// compute on whatever the buffers hold: the paths taken are the plan's, not the data's).
#include <cstdint>
#include <cstdio>
#include <ctile/platform/gap8.hpp>
#include <ctile/platform/pulp_open.hpp>
#include <ctile/schedule/executor.hpp>
#include <initializer_list>
#include <span>

#include "networks/cifar10_cnn.hpp"
#include "networks/kws.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/residual.hpp"

// The platform planned for, and its cluster DMA's limits.
#if !defined(CTILE_STACK_PLATFORM)
#define CTILE_STACK_PLATFORM gap8
#define CTILE_STACK_DMA hal::gap8_dma_limits
#endif

namespace {

using namespace ctile;
using namespace ctile::examples;
constexpr platform P = CTILE_STACK_PLATFORM;

/// A memory-mapped command queue (stores of the command and addresses, a load of the id, a
/// load of the status to wait), as the cluster DMA is programmed.
struct dma_regs {
  std::uint32_t cmd, l1, l2, stride, length, id, status;
};
volatile dma_regs queue{};

struct probe_dma {
  static constexpr hal::dma_limits limits = CTILE_STACK_DMA;
  struct handle {
    std::uint32_t id = 0;
  };
  void copy_1d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, handle& h) {
    queue.cmd = n | (d == hal::dma_dir::l2_to_l1 ? 1u << 17 : 0u);
    queue.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l1));
    queue.l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    h.id = queue.id;
  }
  void copy_2d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, std::uint32_t line,
               std::uint32_t stride, handle& h) {
    queue.cmd = n | (d == hal::dma_dir::l2_to_l1 ? 1u << 17 : 0u) | 1u << 19;
    queue.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l1));
    queue.l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    queue.stride = stride;
    queue.length = line;
    h.id = queue.id;
  }
  void wait(handle& h) {
    while ((queue.status >> (h.id & 31u)) & 1u) {
    }
  }
};
static_assert(hal::dma_engine<probe_dma>);

// Stack painting: a word pattern below the stack pointer, scanned for the deepest word written.
constexpr std::uint32_t paint_word = 0x5a17c0deu;
constexpr std::uintptr_t paint_guard = 256;  // left unpainted below sp: the helpers' own frames
std::uintptr_t lowest_written = ~std::uintptr_t{0};
std::uint32_t worker_used = 0;

[[gnu::always_inline]] inline std::uintptr_t stack_pointer() {
  std::uintptr_t sp;
  __asm__ volatile("mv %0, sp" : "=r"(sp));
  return sp;
}
/// The lowest word of [lo, hi) that no longer holds the pattern (hi when none).
[[gnu::noinline]] std::uintptr_t lowest_dirty(std::uintptr_t lo, std::uintptr_t hi) {
  for (auto* p = reinterpret_cast<volatile std::uint32_t*>(lo);
       p < reinterpret_cast<volatile std::uint32_t*>(hi); ++p)
    if (*p != paint_word) return reinterpret_cast<std::uintptr_t>(p);
  return hi;
}
[[gnu::noinline]] void paint(std::uintptr_t lo, std::uintptr_t hi) {
  for (auto* p = reinterpret_cast<volatile std::uint32_t*>(lo);
       p < reinterpret_cast<volatile std::uint32_t*>(hi); ++p)
    *p = paint_word;
}
void note_written(std::uintptr_t a) {
  if (a < lowest_written) lowest_written = a;
}

/// Another core's share of a fork: a function of its own per body type. The stack below is
/// painted first (after noting what earlier calls wrote there) and scanned after.
template <class F>
[[gnu::noinline]] void worker_entry(const F& body, int core) {
  constexpr std::uintptr_t span = 4096;
  const std::uintptr_t sp = stack_pointer();
  const std::uintptr_t lo = sp - span, hi = sp - paint_guard;
  note_written(lowest_dirty(lo, hi));
  paint(lo, hi);
  body(core);
  const std::uintptr_t d = lowest_dirty(lo, hi);
  note_written(d);
  if (sp - d > worker_used) worker_used = static_cast<std::uint32_t>(sp - d);
}

/// Forks run the other cores' shares through worker_entry, then core 0's inline.
struct probe_cluster {
  int team = 0;
  template <class F>
  void fork(int n, const F& body) {
    team = n > 0 ? n : P.cores;
    for (int c = 1; c < team; ++c) worker_entry(body, c);
    body(0);
    team = 0;
  }
  void barrier() {}
  [[nodiscard]] int core_id() const { return 0; }
  [[nodiscard]] int cores() const { return team > 0 ? team : P.cores; }
};
static_assert(hal::cluster<probe_cluster>);

/// An L3 whose transfers are register programming too (the HyperBus driver's shape).
struct probe_l3 {
  struct read_handle {};
  struct write_handle {};
  void read(void* l2, std::uint32_t addr, std::uint32_t bytes, read_handle&) {
    queue.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    queue.l2 = addr;
    queue.cmd = bytes;
  }
  void write(std::uint32_t addr, void* l2, std::uint32_t bytes, write_handle&) {
    queue.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    queue.l2 = addr;
    queue.cmd = bytes | 1u << 31;
  }
  void wait(read_handle&) {
    while (queue.status != 0) {
    }
  }
  void wait(write_handle&) {
    while (queue.status != 0) {
    }
  }
};
static_assert(hal::l3_memory<probe_l3>);

using env_t = schedule::exec_env<probe_dma, probe_cluster>;

/// Every kernel variant a fork body can reach.
[[gnu::noinline]] void any_kernel(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
  kernels::run(k, a, core);
}

/// Layers whose weights stream from L3 in channel stripes on either platform (512 KB and 1 MB:
/// more than L2), each loop nest run across its stripes, entering each through the executor's
/// stripe feed (an indirect call stack_need.py is told of): MobileNet-v1 1.0's last blocks.
using striped = network<input(4, 4, 512), pointwise(1024).bn().requantized(1, 512),
                        global_avgpool(), linear(1000).with_bias().raw()>;

/// Core 0 running network Net (buffers of the sizes the executor checks; never run here).
template <class Net>
[[gnu::noinline]] int master_entry(std::uint8_t* l1, std::uint8_t* l2) {
  using E = executor<Net, P>;
  probe_dma dma;
  probe_cluster cluster;
  env_t env{dma, cluster, {}, P.cores};
  probe_l3 l3;
  // Requantizations of the layers' output kinds (the values do not matter, the paths do).
  static typename E::quant_plans q{};
  for (std::size_t i = 0; i < Net::size; ++i) {
    if (Net::layers[i].output_bytes_per_element() == 1) {
      q[i].mode = kernels::requant_mode::shift32;
      q[i].t_hi = 255;
    }
  }
  const auto s = E::run(env, l3, q, std::span<std::uint8_t>(l1, E::required_l1_bytes),
                        std::span<std::uint8_t>(l2, E::required_l2_bytes));
  return s.ok() ? 0 : 1;
}

}  // namespace

extern "C" {
// The platform's stacks, read by stack_need.py --budget-symbol.
extern const std::uint32_t ctile_stack_budget_master;
extern const std::uint32_t ctile_stack_budget_worker;
[[gnu::used, gnu::retain]] const std::uint32_t ctile_stack_budget_master =
    static_cast<std::uint32_t>(P.l1_stack_master);
[[gnu::used, gnu::retain]] const std::uint32_t ctile_stack_budget_worker =
    static_cast<std::uint32_t>(P.l1_stack_worker);
}

namespace {
template <class Net>
constexpr int l1_of = executor<Net, P>::required_l1_bytes;
template <class Net>
constexpr int l2_of = executor<Net, P>::required_l2_bytes;
constexpr int max_of(std::initializer_list<int> v) {
  int m = 0;
  for (int x : v) m = x > m ? x : m;
  return m;
}
alignas(8) std::uint8_t l1_arena[max_of({l1_of<cifar10_cnn>, l1_of<resnet_small>, l1_of<kws>,
                                         l1_of<mobilenet_v1_025_128>, l1_of<striped>})];
alignas(8) std::uint8_t l2_arena[max_of({l2_of<cifar10_cnn>, l2_of<resnet_small>, l2_of<kws>,
                                         l2_of<mobilenet_v1_025_128>, l2_of<striped>})];
volatile bool run_any_kernel = false;  // any_kernel is a root of the analysis, not run here
}  // namespace

int main() {
  constexpr std::uintptr_t span = 12 * 1024;
  const std::uintptr_t sp = stack_pointer();
  const std::uintptr_t lo = sp - span, hi = sp - paint_guard;
  paint(lo, hi);
  // Opaque pointers: nothing is specialised on the buffers.
  std::uint8_t* volatile l1 = l1_arena;
  std::uint8_t* volatile l2 = l2_arena;
  int r = master_entry<cifar10_cnn>(l1, l2);
  r += master_entry<resnet_small>(l1, l2);
  r += master_entry<kws>(l1, l2);
  r += master_entry<mobilenet_v1_025_128>(l1, l2);
  r += master_entry<striped>(l1, l2);
  if (run_any_kernel) {
    static kernels::tile_args a{};
    any_kernel(kernels::kernel_kind::conv, a, 1);
  }
  note_written(lowest_dirty(lo, hi));
  std::printf("stack used: master %lu worker %lu (%d network runs failed)\n",
              static_cast<unsigned long>(sp - lowest_written),
              static_cast<unsigned long>(worker_used), r);
  return r;
}
