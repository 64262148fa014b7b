// The HyperRAM driver (include/ctile/hal/udma_hyper.hpp) against a register-level model of
// pulp-open's uDMA HyperBus peripheral written from the same public description, not from the
// driver (hyper_model.hpp). The driver must move data bit-exactly, split at the documented
// limit, never overfill a queue, and carry a whole network with streamed weights through the
// executor, bit-exact against the naive reference; the firmware's block-by-block start-up
// (cluster/stage_synthetic.hpp) must lay out the same bytes as executor::stage.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>
#include <ctile/hal/baremetal.hpp>
#include <ctile/hal/udma_hyper.hpp>
#include <ctile/platform/pulp_open.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/executor.hpp>

#include "cluster/stage_synthetic.hpp"
#include "common/synthetic.hpp"
#include "hyper_model.hpp"
#include "networks/cifar10_cnn.hpp"

namespace {

using namespace ctile;

using test::hyper_model;
using test::model_bus;

using driver = hal::basic_udma_hyper_l3<model_bus>;

std::vector<std::uint8_t> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> v(n);
  examples::xorshift32 g{seed};
  for (auto& b : v) b = static_cast<std::uint8_t>(g.next() >> 24);
  return v;
}

// ---- Transfers ---------------------------------------------------------------------------

template <class Driver>
void round_trip(hyper_model& m, std::uint32_t bytes, std::uint32_t at) {
  std::vector<std::uint8_t> l2(2 * bytes + 64, 0);
  m.l2 = l2;
  Driver d(model_bus{&m});
  d.init();
  const auto src = pattern(bytes, 0x1234567u + bytes);
  std::memcpy(l2.data(), src.data(), bytes);
  typename Driver::write_handle w;
  d.write(at, l2.data(), bytes, w);
  d.wait(w);
  typename Driver::read_handle r;
  std::uint8_t* back = l2.data() + bytes + 32;
  d.read(back, at, bytes, r);
  d.wait(r);
  EXPECT_TRUE(m.idle());
  EXPECT_EQ(std::memcmp(m.ram.data() + at, src.data(), bytes), 0) << "written data";
  EXPECT_EQ(std::memcmp(back, src.data(), bytes), 0) << "read data";
}

TEST(UdmaHyper, MovesDataBitExactAndSplitsAtTheSizeField) {
  hyper_model m;
  // 200,003 B: three full transfers of 65,532 B and one of 3,407, each way.
  round_trip<driver>(m, 200003, 12345);
  for (const auto& p : m.problems) ADD_FAILURE() << p;
  ASSERT_EQ(m.started.size(), 8u);
  std::uint32_t moved[2] = {0, 0};
  for (std::size_t i = 0; i < m.started.size(); ++i) {
    const auto& t = m.started[i];
    EXPECT_LE(t.size, 65535u);
    EXPECT_EQ(t.size, i % 4 == 3 ? 200003u - 3 * 65532u : 65532u);
    EXPECT_EQ(t.id, t.read ? 0 : 1);  // reads on id 0, writes on id 1
    EXPECT_EQ(t.ext, 12345u + static_cast<std::uint32_t>(i % 4) * 65532u);
    moved[t.read] += t.size;
  }
  EXPECT_EQ(moved[0], 200003u);
  EXPECT_EQ(moved[1], 200003u);
}

TEST(UdmaHyper, SmallAndOddTransfers) {
  for (std::uint32_t n : {1u, 3u, 65532u, 65533u, 65535u, 65536u}) {
    SCOPED_TRACE(n);
    hyper_model m;
    round_trip<driver>(m, n, (8u << 20) - n);  // up to the last byte of the HyperRAM
    for (const auto& p : m.problems) ADD_FAILURE() << p;
  }
}

TEST(UdmaHyper, DataArrivesAtWaitNotBefore) {
  hyper_model m;
  std::vector<std::uint8_t> l2(4096, 0);
  m.l2 = l2;
  for (std::size_t i = 0; i < 1000; ++i) m.ram[5000 + i] = static_cast<std::uint8_t>(i * 7 + 1);
  driver d(model_bus{&m});
  d.init();
  driver::read_handle r;
  d.read(l2.data(), 5000, 1000, r);
  EXPECT_EQ(l2[0], 0);  // queued, not moved: the model moves bytes only when polled
  d.wait(r);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(l2[i], static_cast<std::uint8_t>(i * 7 + 1));
  EXPECT_TRUE(m.problems.empty());
}

TEST(UdmaHyper, NeverOverfillsATransactionQueue) {
  hyper_model m;
  m.polls_per_transfer = 16;  // slow: the queue fills up
  // 12 transfers on one id: the driver must poll STATUS until a slot frees before the 9th.
  round_trip<driver>(m, 11 * 65532 + 17, 0);
  for (const auto& p : m.problems) ADD_FAILURE() << p;
  EXPECT_LE(m.max_queued, 8u);
  EXPECT_EQ(m.started.size(), 24u);
}

TEST(UdmaHyper, ModelCatchesASizeFieldWiderThanTheRegister) {
  // A driver that believed the size registers were 17 bits wide: its 131,068-byte transfers
  // are cut to 16 bits by the peripheral, and the data are not what was written.
  constexpr hal::udma_hyper_limits wide{.max_transfer_bytes = 131068, .size_field_bits = 17};
  hyper_model m;
  std::vector<std::uint8_t> l2(300000, 0);
  m.l2 = l2;
  hal::basic_udma_hyper_l3<model_bus, wide> d(model_bus{&m});
  d.init();
  const auto src = pattern(131068, 99);
  std::memcpy(l2.data(), src.data(), src.size());
  decltype(d)::write_handle w;
  d.write(0, l2.data(), 131068, w);
  d.wait(w);
  EXPECT_NE(std::memcmp(m.ram.data(), src.data(), src.size()), 0);
}

// ---- A network with streamed weights through the executor ----------------------------------

TEST(UdmaHyper, Cifar10StreamedWeightsBitExact) {
  using Net = examples::cifar10_cnn;
  constexpr platform plat = pulp_open.with_streamed_weights();
  using E = executor<Net, plat>;
  static_assert(E::required_l3_bytes > 0);
  static_assert(E::required_l3_bytes <= hal::pulp_open_hyper_limits.memory_bytes);
  const examples::synthetic<Net> d(7);
  const std::span<const std::uint8_t> in(d.input.data(), d.input.size());
  const auto want = reference::run(Net::layers, d.params, in);

  // L2: the executor's arena, then a scratch area for generating the data and inspecting L3
  // (the arena is too small for the scratch here: CIFAR-10's classifier is one block of 41 KB).
  constexpr std::size_t stage_bytes = 4096;
  const auto arena = static_cast<std::size_t>(E::required_l2_bytes);
  const auto scratch_bytes = static_cast<std::size_t>(firmware::stage_scratch_bytes<Net, E>());
  std::vector<std::uint8_t> l2(arena + std::max(stage_bytes, scratch_bytes) + 8, 0);
  std::uint8_t* stage = l2.data() + arena;
  hyper_model m;
  m.l2 = l2;
  driver hyper(model_bus{&m});
  hyper.init();

  // The constant data and the input generated block by block into L2 and, through the
  // driver, into the HyperRAM (the firmware's start-up, cluster/stage_synthetic.hpp).
  const std::span<std::uint8_t> arena_span(l2.data(), arena);
  typename E::quant_plans quant{};
  const auto put = [&](std::uint32_t at, const std::uint8_t* from, std::uint32_t n) {
    driver::write_handle w;
    hyper.write(at, const_cast<std::uint8_t*>(from), n, w);
    hyper.wait(w);
    return true;
  };
  const std::span<std::uint8_t> scratch(l2.data() + (arena + 7) / 8 * 8, scratch_bytes);
  const run_status st = firmware::stage_synthetic<Net, plat>(7, arena_span, scratch, put, quant);
  ASSERT_TRUE(st.ok()) << "layer " << st.layer << ": " << field_name(st.what) << " " << st.got
                       << ", expected " << st.expected;

  std::vector<std::int64_t> bad(Net::size, -1);
  std::vector<std::uint8_t> out;
  const auto hook = [&](const schedule::layer_output& o) {
    const auto i = static_cast<std::size_t>(o.index);
    const layer& l = Net::layers[i];
    const std::uint8_t* got = o.l2;
    if (got == nullptr) {  // in L3: read it back through the driver
      out.assign(static_cast<std::size_t>(o.bytes), 0);
      for (std::int64_t at = 0; at < o.bytes; at += stage_bytes) {
        const auto n =
            static_cast<std::uint32_t>(std::min<std::int64_t>(stage_bytes, o.bytes - at));
        driver::read_handle r;
        hyper.read(stage, static_cast<std::uint32_t>(o.l3_offset + at), n, r);
        hyper.wait(r);
        std::memcpy(out.data() + at, stage, n);
      }
      got = out.data();
    }
    bad[i] = 0;
    for (std::size_t k = 0; k < want[i].size(); ++k) {
      const std::size_t at = schedule::output_element(l, o.chw, k);
      std::int32_t v;
      if (l.output() == output_kind::i32) {
        std::uint32_t u = 0;
        for (std::size_t b = 0; b < 4; ++b) u |= std::uint32_t{got[4 * at + b]} << (8 * b);
        v = static_cast<std::int32_t>(u);
      } else {
        v = got[at];
      }
      bad[i] += v != want[i][k];
    }
  };
  std::vector<std::uint8_t> l1(static_cast<std::size_t>(E::required_l1_bytes), 0);
  hal::basic_baremetal_dma<pulp_open_dma> dma;
  hal::baremetal_cluster cl;
  schedule::exec_env<hal::basic_baremetal_dma<pulp_open_dma>, hal::baremetal_cluster> env{
      dma, cl, {}, 1};
  const std::size_t before = m.started.size();
  ASSERT_TRUE(E::run(env, hyper, quant, l1, arena_span, hook).ok());
  for (std::size_t i = 1; i < Net::size; ++i)
    EXPECT_EQ(bad[i], 0) << "layer " << i << " (" << Net::layers[i].name.c_str() << ")";
  // Every weight byte came through the peripheral's read channel.
  std::uint64_t weights = 0, read = 0;
  for (const layer& l : Net::layers) {  // int8 weights, int32 bias / kappa / lambda
    const int arrays = (l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0);
    weights += static_cast<std::uint64_t>(l.weight_count() + 4 * l.channel_params() * arrays);
  }
  for (std::size_t k = before; k < m.started.size(); ++k)
    if (m.started[k].read) read += m.started[k].size;
  EXPECT_GE(read, weights);
  EXPECT_TRUE(m.idle());
  for (const auto& p : m.problems) ADD_FAILURE() << p;
}

// The start-up's block-by-block generation against the reference mechanism: the synthetic
// data generated whole (examples::synthetic) and laid out by executor::stage, load_input and
// prepare. The L3 image, the resident weights and the input in L2, and every layer's
// requantization constants must be the same bytes.
template <class Net, platform Plat>
void check_staging() {
  using E = executor<Net, Plat>;
  const auto n2 = static_cast<std::size_t>(E::required_l2_bytes);
  const auto n3 = static_cast<std::size_t>(E::required_l3_bytes);
  const examples::synthetic<Net> d(3);
  const auto ns = static_cast<std::size_t>(firmware::stage_scratch_bytes<Net, E>());
  std::vector<std::uint8_t> l2a(n2, 0), l3a(n3, 0), l2b(n2, 0), l3b(n3, 0x5A);
  std::vector<std::uint64_t> scratch((ns + 7) / 8);
  // The firmware's scratch, the top of the arena, where it fits; else one of its own.
  std::span<std::uint8_t> sc = firmware::arena_scratch<Net, E>(l2b);
  if (sc.empty()) sc = {reinterpret_cast<std::uint8_t*>(scratch.data()), ns};
  ASSERT_TRUE(E::stage(d.params, l2a, l3a).ok());
  ASSERT_TRUE(E::load_input({d.input.data(), d.input.size()}, l2a, l3a).ok());
  typename E::quant_plans qa{}, qb{};
  ASSERT_TRUE(E::prepare(d.params, qa).ok());
  const auto put = [&](std::uint32_t at, const std::uint8_t* from, std::uint32_t n) {
    EXPECT_LE(std::size_t{at} + n, n3);
    std::memcpy(l3b.data() + at, from, n);
    return true;
  };
  const run_status st = firmware::stage_synthetic<Net, Plat>(3, l2b, sc, put, qb);
  ASSERT_TRUE(st.ok()) << "layer " << st.layer << ": " << field_name(st.what) << " " << st.got
                       << ", expected " << st.expected;
  EXPECT_EQ(l3a, l3b) << "L3 image";
  for (std::size_t i = 0; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    EXPECT_TRUE(qa[i] == qb[i]) << "requantization of layer " << i;
    if (!l.has_weights() || E::plan.l2[i].l3_w >= 0) continue;
    const auto at = static_cast<std::size_t>(E::plan.l2[i].w.offset);
    const auto n = static_cast<std::size_t>(plan_detail::weight_bytes(l));
    EXPECT_EQ(std::memcmp(l2a.data() + at, l2b.data() + at, n), 0) << "weights of layer " << i;
  }
  if constexpr (E::input_l2_offset >= 0) {
    const auto at = static_cast<std::size_t>(E::input_l2_offset);
    EXPECT_EQ(std::memcmp(l2a.data() + at, l2b.data() + at, d.input.size()), 0) << "input";
  }
}

TEST(StageSynthetic, SameDataAsTheWholeGeneratorResidentInL2) {
  check_staging<examples::cifar10_cnn, pulp_open>();
}
TEST(StageSynthetic, SameDataAsTheWholeGeneratorStreamedFromL3) {
  check_staging<examples::cifar10_cnn, pulp_open.with_streamed_weights()>();
}

}  // namespace
