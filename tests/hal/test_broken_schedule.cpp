// A double-buffered tile loop on the simulated DMA: the correct schedule gives the right output
// and no violation under every completion mode; each deliberately broken variant is reported by
// the checker, and in at-wait mode also produces wrong data.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <ctile/hal/host.hpp>

using namespace ctile::hal;

namespace {

enum class mistake {
  none,
  no_input_wait,             ///< the kernel reads a tile whose transfer was not waited for
  prefetch_into_current,     ///< the next tile is fetched into the buffer the kernel reads
  reuse_output_before_wait,  ///< the kernel writes an output buffer still being sent out
  no_output_wait,            ///< the last outputs are never waited for
};

constexpr int tiles = 6;
constexpr std::uint32_t tile_bytes = 1000;

std::uint8_t kernel_fn(std::uint8_t x) {
  return static_cast<std::uint8_t>(x * 3 + 1);
}

struct result {
  std::vector<std::uint8_t> input;
  std::vector<std::uint8_t> output;
  std::vector<violation> violations;
  std::string text;
};

result run(mistake m, sim_memory::options o) {
  sim_memory mem(o);
  host_dma dma(mem);
  auto l1 = mem.arena(mem_level::l1, 64 * 1024, "L1");
  auto l2 = mem.arena(mem_level::l2, 512 * 1024, "L2");
  auto* x = reinterpret_cast<std::uint8_t*>(l2.data());
  auto* y = x + tiles * tile_bytes;
  std::array<std::uint8_t*, 2> in{reinterpret_cast<std::uint8_t*>(l1.data()),
                                  reinterpret_cast<std::uint8_t*>(l1.data()) + tile_bytes};
  std::array<std::uint8_t*, 2> out{in[1] + tile_bytes, in[1] + 2 * tile_bytes};
  mem.add_buffer(x, tiles * tile_bytes, "X");
  mem.add_buffer(y, tiles * tile_bytes, "Y");
  mem.add_buffer(in[0], tile_bytes, "in[0]");
  mem.add_buffer(in[1], tile_bytes, "in[1]");
  mem.add_buffer(out[0], tile_bytes, "out[0]");
  mem.add_buffer(out[1], tile_bytes, "out[1]");
  result r;
  for (std::uint32_t i = 0; i < tiles * tile_bytes; ++i)
    x[i] = static_cast<std::uint8_t>(i * 7 + i / 13);
  r.input.assign(x, x + tiles * tile_bytes);

  std::array<host_dma::handle, 2> hin{}, hout{};
  dma.copy_1d(dma_dir::l2_to_l1, in[0], x, tile_bytes, hin[0]);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t % 2;
    const int next = 1 - cur;
    if (m != mistake::no_input_wait) dma.wait(hin[cur]);
    if (t >= 2 && m != mistake::reuse_output_before_wait) dma.wait(hout[cur]);
    {
      // The kernel runs from here to the end of the block; core 0 issues the prefetch while
      // the others compute.
      auto reading = mem.use_read(in[cur], tile_bytes, "kernel");
      auto writing = mem.use_write(out[cur], tile_bytes, "kernel");
      if (t + 1 < tiles) {
        const int dst = m == mistake::prefetch_into_current ? cur : next;
        dma.copy_1d(dma_dir::l2_to_l1, in[dst], x + (t + 1) * tile_bytes, tile_bytes, hin[dst]);
      }
      for (std::uint32_t i = 0; i < tile_bytes; ++i) out[cur][i] = kernel_fn(in[cur][i]);
    }
    dma.copy_1d(dma_dir::l1_to_l2, out[cur], y + t * tile_bytes, tile_bytes, hout[cur]);
  }
  if (m != mistake::no_output_wait) {
    for (auto& h : hout)
      if (h.id != 0) dma.wait(h);
  }
  for (auto& h : hin)
    if (h.id != 0) dma.wait(h);
  mem.finish();
  r.output.assign(y, y + tiles * tile_bytes);
  r.violations = mem.violations();
  r.text = mem.report_text();
  return r;
}

bool output_correct(const result& r) {
  for (std::size_t i = 0; i < r.output.size(); ++i)
    if (r.output[i] != kernel_fn(r.input[i])) return false;
  return true;
}

std::size_t count(const result& r, violation_kind k) {
  std::size_t n = 0;
  for (const auto& v : r.violations) n += v.kind == k ? 1 : 0;
  return n;
}

std::vector<sim_memory::options> all_modes() {
  std::vector<sim_memory::options> v{{.mode = completion::at_wait},
                                     {.mode = completion::immediate}};
  for (std::uint64_t s = 1; s <= 8; ++s)
    v.push_back({.mode = completion::random, .seed = s, .completion_chance = 0.4});
  return v;
}

}  // namespace

TEST(BrokenSchedule, CorrectScheduleIsCleanUnderEveryCompletionMode) {
  for (const auto& o : all_modes()) {
    const auto r = run(mistake::none, o);
    EXPECT_TRUE(r.violations.empty()) << r.text;
    EXPECT_TRUE(output_correct(r));
  }
}

TEST(BrokenSchedule, MissingInputWait) {
  const auto r = run(mistake::no_input_wait, {});
  EXPECT_FALSE(output_correct(r));  // at wait time only: the kernel read stale bytes
  EXPECT_GE(count(r, violation_kind::read_before_wait), static_cast<std::size_t>(tiles)) << r.text;
  EXPECT_NE(r.text.find("kernel reads bytes L1 buffer 'in[0]' +0 .. +1000 B"), std::string::npos)
      << r.text;
  for (const auto& o : all_modes())
    EXPECT_GE(count(run(mistake::no_input_wait, o), violation_kind::read_before_wait), 1u);
}

TEST(BrokenSchedule, PrefetchIntoTheBufferTheKernelReads) {
  for (const auto& o : all_modes()) {
    const auto r = run(mistake::prefetch_into_current, o);
    EXPECT_GE(count(r, violation_kind::transfer_into_busy), 1u) << r.text;
    EXPECT_NE(r.text.find("while kernel is still reading it"), std::string::npos) << r.text;
  }
}

TEST(BrokenSchedule, OutputBufferReusedBeforeItsTransferWasWaited) {
  const auto r = run(mistake::reuse_output_before_wait, {});
  EXPECT_FALSE(output_correct(r));  // tile t is sent out after tile t+2 overwrote its buffer
  EXPECT_GE(count(r, violation_kind::write_before_wait), 1u) << r.text;
  EXPECT_NE(r.text.find("L1 buffer 'out[0]'"), std::string::npos) << r.text;
  for (const auto& o : all_modes())
    EXPECT_GE(count(run(mistake::reuse_output_before_wait, o), violation_kind::write_before_wait),
              1u);
}

TEST(BrokenSchedule, OutputsNeverWaitedFor) {
  const auto r = run(mistake::no_output_wait, {});
  EXPECT_EQ(count(r, violation_kind::never_waited), 2u) << r.text;
  EXPECT_TRUE(r.text.find("to L2 buffer 'Y' +5000") != std::string::npos) << r.text;
}
