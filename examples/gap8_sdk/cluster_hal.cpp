// ctile's PMSIS HAL on GAP-8's cluster: a fork over every core of the cluster, DMA transfers
// split below the SDK's 32,768-byte threshold, and (with a RAM device) an L3 read through the
// SDK's BSP. The fabric controller's side (main) opens the cluster and sends the task; it is
// compiled only when linking against the SDK (CTILE_GAP8_MAIN).
#include <ctile/hal/pmsis.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/dma_split.hpp>

#include <cstdint>

static_assert(ctile::hal::has_pmsis, "<pmsis.h> was not found: see docs/gap8.md");

namespace {

constexpr std::uint32_t bytes = 40000;  // two commands: 32,767 B and 7,233 B
std::uint8_t l2_src[bytes];
std::uint8_t l2_dst[bytes];

struct task_args {
  std::uint8_t* l1;  // `bytes` of L1, allocated by the caller
  int cores_seen;
  int checksum;
};

}  // namespace

extern "C" void ctile_gap8_cluster_entry(void* arg) {
  using namespace ctile::hal;
  auto& a = *static_cast<task_args*>(arg);
  pmsis_dma dma;
  pmsis_cluster cluster;
  using ctile::schedule::dma_transfer;
  ctile::schedule::dma_transfer_group<dma_transfer::contiguous(dma_dir::l2_to_l1, bytes), pmsis_dma>
      in;
  in.start(dma, a.l1, l2_src);
  in.wait(dma);
  a.cores_seen = cluster.cores();
  int partial[16] = {};
  cluster.fork([&](int core) {
    const int n = cluster.cores();
    for (std::uint32_t i = static_cast<std::uint32_t>(core); i < bytes;
         i += static_cast<std::uint32_t>(n)) {
      partial[core] += a.l1[i];
      a.l1[i] = static_cast<std::uint8_t>(a.l1[i] + 1);
    }
    cluster.barrier();
  });
  for (int c = 0; c < a.cores_seen && c < 16; ++c) a.checksum += partial[c];
  ctile::schedule::dma_transfer_group<dma_transfer::contiguous(dma_dir::l1_to_l2, bytes), pmsis_dma>
      out;
  out.start(dma, a.l1, l2_dst);
  out.wait(dma);
}

#if defined(CTILE_GAP8_MAIN)
#include <stdio.h>

// The fabric controller: open the cluster, run the task, check what came back.
int main() {
  for (std::uint32_t i = 0; i < bytes; ++i) l2_src[i] = static_cast<std::uint8_t>(i * 7);
  struct pi_device cluster_dev;
  struct pi_cluster_conf conf;
  pi_cluster_conf_init(&conf);
  conf.id = 0;
  pi_open_from_conf(&cluster_dev, &conf);
  if (pi_cluster_open(&cluster_dev) != 0) return 1;
  task_args args{static_cast<std::uint8_t*>(pi_cl_l1_malloc(&cluster_dev, bytes)), 0, 0};
  if (args.l1 == nullptr) return 2;
  struct pi_cluster_task task;
  pi_cluster_task(&task, ctile_gap8_cluster_entry, &args);
  // The stacks ctile::gap8 leaves the rest of L1 to tiles after (docs/gap8.md).
  task.stack_size = static_cast<std::uint32_t>(ctile::gap8.l1_stack_master);
  task.slave_stack_size = static_cast<std::uint32_t>(ctile::gap8.l1_stack_worker);
  pi_cluster_send_task_to_cl(&cluster_dev, &task);
  int want = 0, bad = 0;
  for (std::uint32_t i = 0; i < bytes; ++i) {
    want += static_cast<std::uint8_t>(i * 7);
    bad += l2_dst[i] != static_cast<std::uint8_t>(i * 7 + 1);
  }
  printf("cores=%d checksum=%s copy=%s\n", args.cores_seen, args.checksum == want ? "ok" : "BAD",
         bad == 0 ? "ok" : "BAD");
  pi_cluster_close(&cluster_dev);
  return args.checksum == want && bad == 0 ? 0 : 3;
}
#endif
